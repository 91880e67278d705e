"""Golden tests: each folder under golden/ holds input files (loaded in kg's order) and, under
expected/, the graph each named input must become, written by hand in Turtle from the format
docs (docs/formats.md). Graphs are compared as isomorphic RDF graphs."""
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.compare import graph_diff, isomorphic, to_isomorphic

from kg import ingest
from kg.validation import parse_ntriples


def as_written(fill) -> rdflib.Graph:
    """A graph whose literals keep their lexical form, so a rewritten literal cannot compare equal."""
    previous, rdflib.NORMALIZE_LITERALS = rdflib.NORMALIZE_LITERALS, False
    try:
        graph = rdflib.Graph()
        fill(graph)
        return graph
    finally:
        rdflib.NORMALIZE_LITERALS = previous

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p for p in GOLDEN.iterdir() if p.is_dir())
EXPECTED_CASES = 13  # a collection that shrinks silently would stop testing loaders


def test_golden_collection_size():
    assert len(CASES) == EXPECTED_CASES, [c.name for c in CASES]


def graph_of(store, path: Path) -> rdflib.Graph:
    quads = store.ox.quads_for_pattern(None, None, None, ox.NamedNode(path.resolve().as_uri()))
    text = ox.serialize([q.triple for q in quads], format=ox.RdfFormat.N_TRIPLES).decode()
    return parse_ntriples(text)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_loader_golden(case, store):
    inputs = sorted(p for p in case.iterdir() if p.is_file() and p.name != "README.md")
    outcomes = ingest.load(store, inputs)
    rejected = [(o.path, [str(p) for p in o.problems]) for o in outcomes if o.status == "rejected"]
    assert not rejected
    expected_files = sorted((case / "expected").glob("*.ttl"))
    assert expected_files, f"{case.name} has no expected graph"
    for expected_file in expected_files:
        source = case / expected_file.name[: -len(".ttl")]
        actual = graph_of(store, source)
        expected = as_written(lambda g: g.parse(expected_file, format="turtle", publicID=source.resolve().as_uri()))
        if not isomorphic(actual, expected):
            _, only_actual, only_expected = graph_diff(to_isomorphic(actual), to_isomorphic(expected))
            pytest.fail(f"{source.name}: graph differs from {expected_file.name}\n"
                        f"only in loaded:\n{only_actual.serialize(format='nt')}\n"
                        f"only in expected:\n{only_expected.serialize(format='nt')}")
