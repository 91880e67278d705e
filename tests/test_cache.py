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


def test_an_unchanged_store_is_reported_without_a_query_and_a_changed_one_is_asked_again(tmp_path):
    path = tmp_path / "store"
    loading = Store(path)
    ingest.load(loading, [EXAMPLES / "cubby.ttl", EXAMPLES / "cubby-regression.replayset.json",
                          EXAMPLES / "cubby-regression.gold.json", EXAMPLES / "cubby-regression.earl.jsonl"])
    loading.flush()
    del loading

    store = CountingStore(path, read_only=True)
    CountingStore.asked = 0
    first = render(store, tmp_path / "report")
    asked_first = CountingStore.asked
    assert asked_first > 20  # every page's queries, the labels
    assert any((tmp_path / "cache").rglob("*.json"))

    CountingStore.asked = 0
    again = render(store, tmp_path / "report")
    assert CountingStore.asked == 0
    assert again == first  # the same pages, but for the time they were made
    del store

    writer = Store(path)
    ingest.load(writer, [EXAMPLES / "cubby-regression.situations.jsonl"])
    writer.flush()
    del writer
    store = CountingStore(path, read_only=True)
    CountingStore.asked = 0
    render(store, tmp_path / "report")
    assert CountingStore.asked == asked_first  # a new state: every answer asked again
    states = [p for p in (tmp_path / "cache").iterdir() if p.is_dir()]
    assert len(states) == 2  # this state and the one before it; older ones are removed


def test_a_store_in_memory_is_not_cached(tmp_path):
    store = Store(":memory:")
    ingest.load(store, [EXAMPLES / "cubby.ttl"])
    render(store, tmp_path / "report")
    assert not (tmp_path / "cache").exists()
