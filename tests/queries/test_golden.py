"""Golden tests for the catalogue: each folder under golden/ holds small input data and
expected.yaml with the query to run, its parameters and the rows it must return, computed by
hand (expected.yaml says how). Data files ending in .trig are loaded as they are (graph names
included); any other file goes through kg's loaders. The vocabularies kg ships are loaded too,
as in every store."""
import functools
from pathlib import Path

import pyoxigraph as ox
import pytest
import yaml

from kg import catalogue, ingest
from kg.store import Store

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p for p in GOLDEN.iterdir() if p.is_dir())
EXPECTED_CASES = 89  # raise with every case added; a collection that shrinks silently fails here


def test_collection_size():
    assert len(CASES) == EXPECTED_CASES, [c.name for c in CASES]


def test_every_catalogue_query_has_a_golden_case():
    covered = {yaml.safe_load((c / "expected.yaml").read_text())["query"] for c in CASES}
    assert set(catalogue.load()) - covered == set()


@functools.lru_cache(maxsize=1)
def shipped_catalogue():
    return catalogue.load()


def load_case(case: Path) -> Store:
    store = Store(":memory:")
    ingest.ensure_vocabularies(store)
    files = sorted(p for p in case.iterdir() if p.is_file() and p.name not in ("expected.yaml", "README.md"))
    for trig in [f for f in files if f.suffix == ".trig"]:
        store.ox.load(path=str(trig), format=ox.RdfFormat.TRIG, base_iri=trig.resolve().as_uri())
    if any(f.suffix == ".trig" for f in files):
        store.rebuild_layers()  # data put in by hand, past the loaders: the derived layers are made from it
    others = [f for f in files if f.suffix != ".trig"]
    if others:
        outcomes = ingest.load(store, others)
        assert all(o.status == "loaded" for o in outcomes), [(o.path, o.problems) for o in outcomes]
    return store


def same(actual, expected) -> bool:
    if isinstance(expected, float) or (isinstance(actual, float) and isinstance(expected, int)):
        return actual is not None and abs(actual - expected) < 1e-9
    return actual == expected


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_query_golden(case):
    expect = yaml.safe_load((case / "expected.yaml").read_text())
    query = shipped_catalogue()[expect["query"]]
    result = catalogue.run(query, load_case(case), expect.get("params") or {})
    rows = result.rows
    assert len(rows) == len(expect["rows"]), f"{case.name}: {len(rows)} rows, expected {len(expect['rows'])}:\n" + \
        "\n".join(map(str, rows))
    for n, (row, wanted) in enumerate(zip(rows, expect["rows"])):
        for column, value in wanted.items():
            assert column in row, f"{case.name}: row {n} has no column {column}"
            assert same(row[column], value), f"{case.name}: row {n} {column} = {row[column]!r}, expected {value!r}\n{row}"
