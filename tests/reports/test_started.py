"""Site.start (kg/report/answers.py): a whole site's queries run ahead of its pages, two or more at a time,
and the site is the one a render asking each query in turn writes."""
import gc
import re

import pytest

from kg import ingest, report
from kg.cli import _prefixes
from kg.store import Store
from tests.conftest import EXAMPLES


MADE, RUN = report.Site.__init__, report.catalogue.run  # the real ones, wrapped afresh by each render


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    path = tmp_path_factory.mktemp("started") / "store"
    store = Store(path)
    assert all(o.status == "loaded" for o in ingest.load(store, [EXAMPLES]))
    store.flush()
    del store
    return path


def render(path, out, monkeypatch, workers):
    """A whole site of the store at `path`, its queries `workers` at a time (1: each as a page asks
    for it), with no answer kept from another render; the Site that rendered it, and its pages."""
    sites = []

    made = MADE

    def recorded(self, *args, **kwargs):
        made(self, *args, **kwargs)
        self.cache = None  # every answer from the engine
        sites.append(self)
    monkeypatch.setattr(report.Site, "__init__", recorded)
    store = Store(path, read_only=True)
    monkeypatch.setattr(store, "concurrent_queries", workers, raising=False)
    ran = []
    original = RUN

    def run(q, backend, params=None, **kwargs):
        ran.append((q.name, tuple(sorted((params or {}).items()))))
        return original(q, backend, params, **kwargs)
    monkeypatch.setattr(report.catalogue, "run", run)
    report.render_site(store, out, _prefixes(store), params={"k": None, "compare": []})
    pages = {p.relative_to(out).as_posix(): re.sub(r"\d{4}-\d\d-\d\dT[\d:+]+", "TIME", p.read_text())
             for p in out.rglob("*") if p.is_file() and p.suffix in (".html", ".csv", ".json")}
    return sites[0], ran, pages


def test_every_query_a_page_asks_for_without_parameters_was_started_ahead(examples, tmp_path, monkeypatch):
    site, ran, _ = render(examples, tmp_path / "site", monkeypatch, workers=2)
    late = sorted(key for key in site.asked_unstarted if not key[1])
    assert late == []  # a query the page registry (kg/report/pages.py) does not declare would be listed here
    assert ("compare", ()) not in site.asked_unstarted
    compares = [key for key in ran if key[0] == "compare"]
    assert compares and not [key for key in site.asked_unstarted if key[0] == "compare"]  # the page started them
    assert len(ran) == len(set(ran))  # none ran twice
    asked = {key for key in site._results}
    assert set(ran) - asked == set()  # none ran that no page read (the examples exercise every page)


def test_the_site_is_the_one_a_render_query_by_query_writes(examples, tmp_path, monkeypatch):
    _, ran_one, one = render(examples, tmp_path / "one", monkeypatch, workers=1)
    _, ran_many, many = render(examples, tmp_path / "many", monkeypatch, workers=3)
    assert sorted(ran_one) == sorted(ran_many)
    assert one.keys() == many.keys() and len(one) > 100
    assert [name for name in one if one[name] != many[name]] == []


def test_the_cycle_collector_is_paused_while_a_site_renders_and_resumed_after(examples, tmp_path, monkeypatch):
    # each full pass of Python's cycle collector walks every row the report holds: at 100k assertions
    # the passes were a sixth of its CPU (BENCHMARKS.md); pages and queries alike run with it paused
    seen = []
    original = report.build._render

    def render_page(*args, **kwargs):
        seen.append(gc.isenabled())
        return original(*args, **kwargs)
    monkeypatch.setattr(report.build, "_render", render_page)
    run_seen = []
    original_run = report.catalogue.run

    def run(*args, **kwargs):
        run_seen.append(gc.isenabled())
        return original_run(*args, **kwargs)
    monkeypatch.setattr(report.catalogue, "run", run)
    assert gc.isenabled()
    store = Store(examples, read_only=True)
    report.render_site(store, tmp_path / "site", _prefixes(store), params={"k": None, "compare": []})
    assert len(seen) > 100 and not any(seen)
    assert run_seen and not any(run_seen)
    assert gc.isenabled()  # and on again after


def test_the_cycle_collector_stays_off_after_a_render_when_it_was_off_before(examples, tmp_path):
    gc.disable()
    try:
        store = Store(examples, read_only=True)
        report.render_site(store, tmp_path / "site", _prefixes(store), params={"k": None, "compare": []})
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_site_and_its_answers_are_let_go_when_its_render_ends(examples, tmp_path, monkeypatch):
    # what a Site computes once is kept on the Site (report.data._once), not in a cache of its class that
    # would keep every Site, and every answer it read, alive until the interpreter ends
    import weakref
    made = []

    def recorded(self, *args, **kwargs):
        MADE(self, *args, **kwargs)
        made.append(weakref.ref(self))
    monkeypatch.setattr(report.Site, "__init__", recorded)
    store = Store(examples, read_only=True)
    report.render_site(store, tmp_path / "site", _prefixes(store), params={"k": None, "compare": []})
    gc.collect()
    assert len(made) == 1 and made[0]() is None
