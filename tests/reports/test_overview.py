"""Issue 43's pages, rendered for real from a store on disk: with k = 1 the results say pass@1 once
and draw no pass^1; the coverage trend draws the gate's threshold and says pass or fail; a digest
is cut short in a cell and whole on hover; a code of the vocabulary is shown by its label."""
import re

from kg import ingest, report
from kg.cli import _prefixes
from kg.store import Store
from tests.conftest import ROOT

PLAIN_EARL = ROOT / "tests" / "reports" / "plain.earl.ttl"


def plain_store(tmp_path):
    store = Store(tmp_path / "store")
    assert all(o.status == "loaded" for o in ingest.load(store, [PLAIN_EARL]))
    return store


def test_with_k_1_the_results_say_pass_at_1_once_and_draw_no_pass_hat_1(tmp_path):
    store = plain_store(tmp_path)
    out = tmp_path / "site"
    report.render_site(store, out, _prefixes(store), pages=["results"], params={"k": 1, "compare": []})
    html = (out / "results.html").read_text(encoding="utf-8")
    assert "pass@1, pass@1" not in html and "pass^1" not in html.replace("pass@1 and pass^1 are the same", "")
    assert "<h2>pass@1 (k = 1: pass@1 and pass^1 are the same figure)</h2>" in html
    assert 'data-chart="pass-hat-k-' not in html and "charts/pass-hat-k-" not in html
    out2 = tmp_path / "site2"  # with k = 2 the three figures are named, and pass^2 is drawn or says why not
    report.render_site(store, out2, _prefixes(store), pages=["results"], params={"k": 2, "compare": []})
    html2 = (out2 / "results.html").read_text(encoding="utf-8")
    assert "<h2>pass@1, pass@2 and pass^2</h2>" in html2 and "pass^2 (" in html2


def test_the_coverage_trend_draws_the_gate_and_says_it_fails(tmp_path):
    store = plain_store(tmp_path)
    trend = [("2026-12-01T06:00:00+00:00", 0.8), ("2026-12-02T06:00:00+00:00", 0.75)]
    out = tmp_path / "site"
    report.render_site(store, out, _prefixes(store), pages=["coverage"], extra={"trend": trend, "threshold": 0.9},
                       params={"k": None, "compare": []})
    html = (out / "coverage.html").read_text(encoding="utf-8")
    assert 'data-gate="fail"' in html and "fails — the latest class coverage, 75.0%, is below 90.0%" in html
    alt = re.search(r'<img class="chart" src="charts/coverage-trend.svg" alt="([^"]+)"', html).group(1)
    assert "gate 90.0%: the latest fails" in alt
    assert "stroke-dasharray" in (out / "charts" / "coverage-trend.svg").read_text(encoding="utf-8")  # the line
    passing = tmp_path / "passing"
    report.render_site(store, passing, _prefixes(store), pages=["coverage"], extra={"trend": trend, "threshold": 0.7},
                       params={"k": None, "compare": []})
    assert 'data-gate="pass"' in (passing / "coverage.html").read_text(encoding="utf-8")
    plain = tmp_path / "plain"  # without a gate, no line and no verdict on it
    report.render_site(store, plain, _prefixes(store), pages=["coverage"], extra={"trend": trend},
                       params={"k": None, "compare": []})
    assert "data-gate" not in (plain / "coverage.html").read_text(encoding="utf-8")


def test_a_digest_is_cut_short_in_a_cell_and_whole_on_hover(tmp_path):
    site = report.Site(Store(":memory:"), tmp_path, {})
    digest = "sha256:" + "ab12" * 16
    cell = str(site.cell("set_digest", digest))
    assert cell == f'<td title="{digest}">sha256:ab12ab12ab12…</td>'
    assert report.cells.brief("no digest here, 1234") == "no digest here, 1234"


def test_a_code_of_the_vocabulary_is_shown_by_its_label_with_the_code_on_hover(tmp_path):
    store = plain_store(tmp_path)  # the vocabularies are loaded with any source: apeval's selection outcomes
    site = report.Site(store, tmp_path, _prefixes(store))
    assert site.code_labels["mis-sib"] == "sibling miss"
    assert str(site.cell("selection_outcome", "mis-sib")) == '<td title="mis-sib" data-code="mis-sib">sibling miss</td>'
    assert str(site.cell("notation", "mis-sib")) == "<td>mis-sib</td>"  # the code's own column shows the code
