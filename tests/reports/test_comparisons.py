"""Site.comparisons (kg/report/data.py): which pairs the compare page shows, from the examples'
system-runs rows (kg query system-runs on the examples: two replay sets, cubby@1.4.0 dated before
cubby@1.5.0-rc1 on both, and desk-* systems on cases of no set)."""
import pytest

from kg import ingest, report
from kg.cli import _prefixes
from kg.store import Store
from tests.conftest import EXAMPLES

ID = "https://kg.example/id/"
OLD, RC = ID + "system/cubby@1.4.0", ID + "system/cubby@1.5.0-rc1"
SETS = [ID + "replayset/cubby-regression", ID + "replayset/cubby-routing"]
DESK = ID + "system/desk-41-exec-1"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("comparisons") / "store")
    assert all(o.status == "loaded" for o in ingest.load(store, [EXAMPLES]))
    return report.Site(store, tmp_path_factory.mktemp("out"), _prefixes(store))


def shown(pairs):
    return [(s, b["system"], c["system"], why) for s, b, c, why in pairs]


def test_the_latest_two_systems_of_each_set_by_time(site):
    pairs, unshared = site.comparisons()
    assert shown(pairs) == [(s, OLD, RC, "the latest two by time") for s in SETS]
    assert unshared == []


def test_pairs_asked_for_are_added_once_per_shared_set_and_unshared_ones_named(site):
    pairs, unshared = site.comparisons([(RC, OLD), (OLD, RC), (DESK, OLD)])
    assert shown(pairs) == ([(s, OLD, RC, "the latest two by time") for s in SETS]
                            + [(s, RC, OLD, "asked for with kg report --compare") for s in SETS])
    assert unshared == [(DESK, OLD)]  # desk-41 ran on cases of no set: nothing to pair


def test_the_page_shows_them(site, tmp_path):
    report.render_site(site.backend, tmp_path, _prefixes(site.backend), pages=["compare"],
                       params={"k": None, "compare": [(RC, OLD), (DESK, OLD)]})
    page = (tmp_path / "compare.html").read_text()
    assert page.count('data-why="asked for with kg report --compare"') == 2
    assert page.count('data-why="the latest two by time"') == 2
    assert f'data-unshared="{DESK} {OLD}"' in page


def test_a_sets_rows_are_the_rows_compare_gives_for_that_set_alone(site):
    # the page runs compare once per pair and takes each set's rows from it (Site.comparison); the
    # independent answer is the query run with replay_set bound, as `kg compare --replay-set` runs it
    from kg.catalogue import IRI, run
    query = site.entries["compare"]
    for replay_set in SETS:
        for baseline, candidate in ((OLD, RC), (RC, OLD)):
            alone = run(query, site.backend, {"baseline": IRI(baseline), "candidate": IRI(candidate),
                                              "replay_set": IRI(replay_set)}).rows
            taken = site.comparison(baseline, candidate, replay_set).rows
            assert alone and taken == alone
            assert {r["replay_set"] for r in taken} == {replay_set}
