"""The compiled SHACL-to-SPARQL validator reaches the same verdicts as pySHACL, the reference, on
every shape's data: everything kg validates while loading the example estate, every loader golden,
every bad-input case, the SHACL-targeted files under tests/validation/data/, and the W3C EARL
reports when ../shared/data is there. Compared: severity, focus node, path and value of each result,
and the message wherever the shape declares one."""
from collections import Counter
from pathlib import Path

import pytest

from kg import ingest, shacl_sparql, validation
from kg.store import Store
from tests.conftest import EXAMPLES, SHARED_DATA, TESTS


def captured(*load_groups) -> list[tuple[str, Path]]:
    """Every (N-Triples, shapes file) pair kg validates while loading the groups, each group into a
    fresh store in order."""
    seen = []
    real = validation.check_with_pyshacl

    def spy(ntriples, shapes):
        seen.append((ntriples, shapes))
        return real(ntriples, shapes)
    validation.check_with_pyshacl, original = spy, validation.check_with_pyshacl
    previous = validation.FORCE_PYSHACL
    validation.FORCE_PYSHACL = True
    try:
        for group in load_groups:
            store = Store(":memory:")
            for paths in group:
                ingest.load(store, paths)
    finally:
        validation.check_with_pyshacl = original
        validation.FORCE_PYSHACL = previous
    return seen


def inputs():
    groups = [[[EXAMPLES]]]
    groups += [[[case]] for case in sorted((TESTS / "loaders" / "golden").iterdir()) if case.is_dir()]
    base = TESTS / "bad" / "_base"
    groups += [[[base], [case]] for case in sorted((TESTS / "bad").iterdir())
               if case.is_dir() and not case.name.startswith("_")]
    if (SHARED_DATA / "earl-w3c-shacl").is_dir():
        groups += [[[SHARED_DATA / "earl-w3c-shacl"]]]
    return groups


def key(result, declared_messages):
    message = result["message"] if result["message"] in declared_messages else None
    return (result["severity"], result["focus"], result["path"], result["value"], message)


def violation_files() -> list[tuple[str, Path]]:
    """tests/validation/data/<shapes>--<what>.ttl: data written to break every constraint of a shapes
    file, validated against that file directly (kg's loaders would never write most of it)."""
    import pyoxigraph as ox
    pairs = []
    for path in sorted((TESTS / "validation" / "data").glob("*--*.ttl")):
        shapes = TESTS.parent / "shapes" / f"{path.name.split('--')[0]}.ttl"
        triples = [q.triple for q in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE, rename_blank_nodes=True)]
        pairs.append((ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES).decode(), shapes))
    return pairs


@pytest.fixture(scope="module")
def pairs():
    return captured(*inputs()) + violation_files()


def test_the_violation_files_violate(pairs):
    for ntriples, shapes in violation_files():
        results = validation.check_with_pyshacl(ntriples, shapes)
        assert len(results) >= 5 or shapes.name == "ontology.ttl" and len(results) >= 2, shapes.name


def test_enough_data_was_compared(pairs):
    shapes = Counter(shapes.name for _, shapes in pairs)
    assert set(shapes) >= {"replayset.ttl", "gold.ttl", "situations.ttl", "earl.ttl", "ontology.ttl"}
    assert len(pairs) >= 60


def test_the_shipped_shapes_are_compiled():
    """A shapes file the compiler cannot read falls back to pySHACL (correct, slower): these must not."""
    for name in ("replayset.ttl", "gold.ttl", "situations.ttl", "earl.ttl", "ontology.ttl", "evalset.ttl",
                 "anticipation.ttl", "experiment.ttl"):
        assert shacl_sparql.compiled(TESTS.parent / "shapes" / name) is not None, name


def test_same_verdicts_as_pyshacl(pairs):
    failures = []
    for ntriples, shapes in pairs:
        checks = shacl_sparql.compiled(shapes)
        if checks is None:
            continue  # validated by pySHACL itself; test_the_shipped_shapes_are_compiled names which
        declared = {c.message for c in checks if not c.message.startswith(("fewer than", "more than", "a value of",
                                                                           "the node does not", "fails a SPARQL"))}
        reference = Counter(key(r, declared) for r in validation.check_with_pyshacl(ntriples, shapes))
        compiled = Counter(key(r, declared) for r in shacl_sparql.check(ntriples, checks))
        if reference != compiled:
            failures.append((shapes.name, sorted((reference - compiled).elements(), key=str)[:5],
                             sorted((compiled - reference).elements(), key=str)[:5]))
    assert not failures, "\n".join(f"{name}: only pySHACL {a}\n   only compiled {b}" for name, a, b in failures[:10])
