"""The template context is a contract (issue 16): every template receives the names documented in
kg/report/context.py (CONTEXT, PAGE_CONTEXT, OPTIONAL_CONTEXT) with the documented types, checked on every
render, and docs/reports.md documents each of them - as datasette tests its documented context."""
import re

import pytest

from kg import ingest, report
from kg.cli import _prefixes
from kg.store import Store
from tests.conftest import EXAMPLES, ROOT


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("context") / "store")
    assert all(o.status == "loaded" for o in ingest.load(store, [EXAMPLES]))
    out = tmp_path_factory.mktemp("site")
    kinds = []
    original = report.build._render

    def recording(template, kind, **context):  # the real check and render, noting which kinds ran
        kinds.append(kind)
        return original(template, kind, **context)
    report.build._render = recording
    try:
        report.render_site(store, out, _prefixes(store), params={"k": None, "compare": []})
    finally:
        report.build._render = original
    return out, set(kinds)


def test_every_kind_of_page_renders_within_the_contract(rendered):
    out, kinds = rendered
    assert kinds == {"page", "case", "group", "coverage", "wrong-description", "query", "catalogue"}  # one matrix page
    assert (out / "queries" / "index.html").exists() and any((out / "groups").glob("*-counted.html"))


def test_a_context_outside_the_contract_is_refused():
    good = {name: None for name in report.CONTEXT}
    with pytest.raises(report.ContextError, match="undocumented \\['secret'\\]"):
        report.check_context("catalogue", {**good, "secret": 1})
    with pytest.raises(report.ContextError, match="missing \\['case', 'situations', 'verdicts'\\]"):
        report.check_context("case", good)
    sample = {"site": report.Site.__new__(report.Site), "query": len, "label": str, "short": str,
              "generated_at": "2026-12-01T00:00:00+00:00", "k": 3, "k_given": False, "k_most": 3, "nav": [],
              "catalogue": [], "compare_pairs": [], "page": "index", "root": ""}
    report.check_context("page", sample)  # the types as documented pass
    with pytest.raises(report.ContextError, match="k is a str, documented as int"):
        report.check_context("page", {**sample, "k": "3"})
    with pytest.raises(report.ContextError, match="k_most is a bool"):
        report.check_context("page", {**sample, "k_most": True})


def test_docs_document_every_name_of_the_context():
    text = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", text, re.MULTILINE))
    names = set(report.CONTEXT) | set(report.OPTIONAL_CONTEXT)
    for page in report.PAGE_CONTEXT.values():
        names |= set(page)
    assert names == documented


def test_rates_are_the_ones_queries_declare(rendered):
    """pass_at_1 is declared a rate by pass-at-k and shown as a percentage; cases_at_1, a count, is not."""
    out, _ = rendered
    from kg import catalogue
    assert "pass_at_1" in catalogue.load()["pass-at-k"].rates and "cases_at_1" not in catalogue.load()["pass-at-k"].rates
    html = (out / "results.html").read_text(encoding="utf-8")
    table = html[html.index("<h2>pass@1, pass@"):html.index("<h2>Cases × systems</h2>")]
    header = re.findall(r'<th scope="col">([a-z_0-9]+)</th>', table)
    first_row = re.findall(r"<td[^>]*>(.*?)</td>", table[table.index("<tbody>"):].split("</tr>")[0])
    cells = dict(zip(header, first_row))
    assert cells["pass_at_1"].endswith("%") and not cells["cases_at_1"].endswith("%")
    templates = (ROOT / "reports" / "_table.html").read_text(encoding="utf-8")
    assert "startswith(\"pass_at_\")" not in templates  # no rate guessed from a column's name


def test_long_lists_are_split_over_pages(tmp_path, monkeypatch):
    """A big estate's matrix and card lists are paginated, not one page: with a page size of 1, the
    plain EARL fixture's 3 cases make 3 matrix pages and Beta's 2 counted trials 2 list pages."""
    monkeypatch.setattr(report.data, "MATRIX_CASES", 1)
    monkeypatch.setattr(report.data, "PAGE_ROWS", 1)
    store = Store(tmp_path / "store")
    assert all(o.status == "loaded" for o in ingest.load(store, [ROOT / "tests" / "reports" / "plain.earl.ttl"]))
    out = tmp_path / "site"
    report.render_site(store, out, _prefixes(store), params={"k": None, "compare": []})
    assert sorted(p.name for p in (out / "matrix").glob("*.html")) == ["page-2.html", "page-3.html"]
    results = (out / "results.html").read_text(encoding="utf-8")
    assert results.count('<tr data-split=') == 1 and 'href="matrix/page-3.html"' in results
    beta = sorted(p.name for p in (out / "groups").glob("beta-*-counted*.html"))
    assert len(beta) == 2 and beta[0].endswith("-counted-2.html") and beta[1].endswith("-counted.html")
    second = (out / "groups" / beta[0]).read_text(encoding="utf-8")
    assert "page 2 of 2" in second and second.count('<tr data-status=') == 1
    # alpha: t1 passed and t2 failed are counted; t3 inapplicable is listed apart, and has its own list
    alpha = {p.name.split("-", 3)[-1] for p in (out / "groups").glob("alpha-*.html")}
    assert alpha == {"counted.html", "counted-2.html", "excluded-inapplicable.html"}


def test_a_coverage_bar_s_terms_are_split_over_pages_with_the_bar_s_counts(tmp_path, monkeypatch):
    """The coverage golden's fixture (tests/queries/golden/coverage-summary, counted by hand there):
    set A covers 9 of urn:test:onto's 12 classes; with 5 terms a page its list takes 3 pages, each
    saying 9 of 12, the 3 uncovered first, and the figures on the coverage page link to it."""
    import pyoxigraph as ox
    monkeypatch.setattr(report.data, "PAGE_ROWS", 5)
    store = Store(tmp_path / "store")
    ingest.ensure_vocabularies(store)
    trig = ROOT / "tests" / "queries" / "golden" / "coverage-summary" / "data.trig"
    store.ox.load(path=str(trig), format=ox.RdfFormat.TRIG, base_iri=trig.resolve().as_uri())
    store.rebuild_layers()
    out = tmp_path / "site"
    report.render_site(store, out, _prefixes(store), params={"k": None, "compare": []})
    site = report.Site(store, out, _prefixes(store))
    bar = next(b for b in site.coverage_bars() if b["row"]["replay_set"] == "urn:test:setA"
               and b["row"]["ontology"] == "urn:test:onto" and b["row"]["what"] == "class")
    assert (bar["row"]["covered"], bar["row"]["total"], bar["covered"], len(bar["terms"]), bar["mismatch"]) == (9, 12, 9, 12, [])
    assert [t["term"].rsplit("#", 1)[-1] for t in bar["terms"][:3]] == ["N", "U1", "U2"]
    assert [t["intents"] for t in bar["terms"] if t["term"].endswith("#A")] == [["urn:test:a1", "urn:test:a2"]]
    pages = sorted((out / "coverage").glob(f"{bar['slug']}*.html"))
    assert [p.name for p in pages] == [f"{bar['slug']}-2.html", f"{bar['slug']}-3.html", f"{bar['slug']}.html"]
    first = (out / "coverage" / f"{bar['slug']}.html").read_text(encoding="utf-8")
    assert '<span data-field="covered">9</span>' in first and '<span data-field="total">12</span>' in first
    assert first.count('<tr data-covered="false"') == 3 and first.count('<tr data-covered="true"') == 2
    assert "page 1 of 3" in first and 'role="alert"' not in first
    assert sum(p.read_text(encoding="utf-8").count("<tr data-covered=") for p in pages) == 12
    assert f'href="coverage/{bar["slug"]}.html"' in (out / "coverage.html").read_text(encoding="utf-8")
    assert len(list((out / "coverage").glob("*.html"))) >= len(site.coverage_bars())


def test_the_report_environment_reads_a_row_as_jinja_does():
    """report.context._Environment reads `row.column` of a dict by its key at once (jinja tries an attribute
    first). Held to jinja's own environment, with the same settings, on keys that are and are not
    attributes of dict, a missing key (an error, as StrictUndefined makes it), and objects not dicts."""
    import jinja2

    class Row(dict):  # a dict's subclass keeps jinja's own lookup
        pass
    texts = ["{{ d.status }}", "{{ d.items is defined }}", "{{ d.get('status') }}", "{{ d['values'] }}", "{{ d.values is callable }}",
             "{{ r.status }}", "{{ s.upper() }}", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}",
             "{{ d.missing is defined }}", "{{ d.missing }}"]
    context = dict(d={"status": "passed", "items": "x", "values": "yz"}, r=Row(status="failed"), s="text")
    ours = report.context._environment(("reports",))
    plain = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    answers = []
    for text in texts:
        outcomes = []
        for env in (ours, plain):
            try:
                outcomes.append(env.from_string(text).render(**context))
            except jinja2.UndefinedError as err:
                outcomes.append(f"UndefinedError: {err}")
        assert outcomes[0] == outcomes[1], text
        answers.append(outcomes[0])
    assert answers[0] == "passed" and answers[1] == "True" and answers[-1].startswith("UndefinedError")
    assert type(ours) is report.context._Environment
