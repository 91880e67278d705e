"""kg/cache.py: a report of a store that has not changed asks the engine nothing, and gives the same
pages; any load, drop or change of a query's parameters asks again."""
import re

from kg import ingest, report
from kg.cli import _prefixes
from kg.store import Store
from tests.conftest import EXAMPLES


class CountingStore(Store):
    """The real embedded store, counting what reaches its engine."""

    asked = 0

    def select_values(self, text):
        CountingStore.asked += 1
        return super().select_values(text)


def render(store, out):
    report.publish(out, lambda folder: report.render_site(store, folder, _prefixes(store), params={"k": 2}))
    return {p.relative_to(out).as_posix(): re.sub(r"\d{4}-\d\d-\d\dT[\d:+]+", "TIME", p.read_text())
            for p in out.rglob("*.html")}


def made(out):
    """The charts and downloads of a site, with their bytes."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for folder in ("charts", "data") for p in (out / folder).rglob("*")}


def spy(function):
    """The real function, counting its calls in `.calls` (it still runs; a method stays a method)."""
    def counted(*args, **kwargs):
        counted.calls += 1
        return function(*args, **kwargs)
    counted.calls = 0
    return counted


def test_an_unchanged_store_is_reported_without_a_query_and_a_changed_one_is_asked_again(tmp_path, monkeypatch):
    path = tmp_path / "store"
    loading = Store(path)
    ingest.load(loading, [EXAMPLES / "cubby.ttl", EXAMPLES / "cubby-regression.replayset.json",
                          EXAMPLES / "cubby-regression.gold.json", EXAMPLES / "cubby-regression.earl.jsonl"])
    loading.flush()
    del loading

    store = CountingStore(path, read_only=True)
    draw, render_data = spy(report.Site._draw), spy(report.output.render)
    monkeypatch.setattr(report.Site, "_draw", draw)
    monkeypatch.setattr(report.output, "render", render_data)
    CountingStore.asked = 0
    first = render(store, tmp_path / "report")
    first_made = made(tmp_path / "report")
    asked_first = CountingStore.asked
    assert asked_first > 20  # every page's queries, the labels
    assert any((tmp_path / "cache").rglob("*.json"))
    assert draw.calls >= 1 and render_data.calls >= 20  # charts drawn, downloads rendered

    CountingStore.asked = draw.calls = render_data.calls = 0
    again = render(store, tmp_path / "report")
    assert CountingStore.asked == 0
    assert again == first  # the same pages, but for the time they were made
    # issue 16: nothing drawn or rendered again, and the same files
    assert draw.calls == 0 and render_data.calls == 0
    assert made(tmp_path / "report") == first_made
    del store

    writer = Store(path)
    ingest.load(writer, [EXAMPLES / "cubby-regression.situations.jsonl"])
    writer.flush()
    del writer
    store = CountingStore(path, read_only=True)
    CountingStore.asked = draw.calls = render_data.calls = 0
    render(store, tmp_path / "report")
    # a new state: every answer asked again (the situations name more things, whose labels are asked too)
    assert CountingStore.asked >= asked_first
    assert draw.calls >= 1 and render_data.calls >= 20  # and every chart and download made again
    states = [p for p in (tmp_path / "cache").iterdir() if p.is_dir()]
    assert len(states) == 2  # this state and the one before it; older ones are removed


def test_a_store_in_memory_is_not_cached(tmp_path):
    store = Store(":memory:")
    ingest.load(store, [EXAMPLES / "cubby.ttl"])
    render(store, tmp_path / "report")
    assert not (tmp_path / "cache").exists()


def test_an_answer_comes_back_from_the_cache_with_its_types(tmp_path):
    """Columns of IRIs, of IRIs beside strings, of numbers, booleans and nothing: each value comes back
    as it went in, an IRI as an IRI and a string that looks like one as a string."""
    from kg.cache import AnswerCache
    from kg.catalogue import IRI
    cache = AnswerCache(tmp_path, "state")
    rows = [(IRI("https://x.example/a"), IRI("https://x.example/b"), 1, 2.5, True, None, "\ud800"),
            (None, "https://x.example/b", 0, None, False, None, "é"),
            (IRI("https://x.example/c"), "plain", -3, 1e-9, None, None, "")]
    cache.put("SELECT 1", ["a", "b", "n", "x", "t", "none", "s"], rows)
    variables, back = cache.get("SELECT 1")
    assert variables == ["a", "b", "n", "x", "t", "none", "s"]
    assert back == rows
    assert [[type(v) for v in row] for row in back] == [[type(v) for v in row] for row in rows]
    assert cache.get("SELECT 2") is None


def test_a_written_download_is_kept_by_a_link_and_by_its_text_where_no_link_can_be_made(tmp_path):
    from kg.cache import keep_written
    written = tmp_path / "site" / "data" / "verdicts.csv"
    written.parent.mkdir(parents=True)
    written.write_text("a,b\n1,2\n", encoding="utf-8")
    kept = tmp_path / "cache" / "state" / "data" / "k.csv"
    keep_written(kept, written, "a,b\n1,2\n")
    assert kept.read_text(encoding="utf-8") == "a,b\n1,2\n"
    assert kept.stat().st_ino == written.stat().st_ino  # one copy of the bytes, not two
    gone = tmp_path / "site" / "data" / "never-written.csv"  # no file to link: its text is kept instead
    other = kept.with_name("other.csv")
    keep_written(other, gone, "c\n3\n")
    assert other.read_text(encoding="utf-8") == "c\n3\n"
    assert sorted(p.name for p in kept.parent.iterdir()) == ["k.csv", "other.csv"]  # no scratch left behind


def test_an_answer_kept_comes_back_with_its_iris_typed(tmp_path):
    """put then get: a column of IRIs (and None), an IRI among strings, numbers and None keep their
    Python types; an answer of no rows comes back empty. A value of the wrong type would show as a
    string where a page links an IRI."""
    from kg.cache import AnswerCache
    from kg.catalogue import IRI
    cache = AnswerCache(tmp_path, "state")
    rows = [(IRI("urn:a"), IRI("urn:x"), 1, None), (None, "urn:x", 2.5, None), (IRI("urn:b"), "plain", None, None)]
    cache.put("SELECT 1", ["a", "mixed", "n", "none"], rows)
    variables, back = cache.get("SELECT 1")
    assert variables == ["a", "mixed", "n", "none"] and back == rows
    assert [[type(v) for v in row] for row in back] == [[type(v) for v in row] for row in rows]
    cache.put("SELECT 2", ["a"], [])
    assert cache.get("SELECT 2") == (["a"], [])
