"""The coverage layer (queries/layers/coverage.ru): which domain terms each intent of a replay set
exercises, defined once. Its inputs come from replay sets, gold files and vocabularies (the
subproperties of dcterms:subject, a chain of which may cross files), so whatever order they are
written, replaced or dropped in, the layer must be the one a rebuild from scratch makes, and the
coverage queries' rows the same on both.

The data are the hand-computed golden cases of the coverage queries (tests/queries/golden/), each
named graph of their TriG written as a source of its own through the store's write path."""
import pytest
import yaml

from tests.layer_writes import GOLDEN, check_any_order, graphs_of, layer_triples, rebuilt, rows, write, written_without

COVERAGE_GRAPH = "urn:kg:layer:coverage"
QUERIES = {"coverage-summary", "coverage-classes", "coverage-concepts", "coverage-exercised-by"}
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "expected.yaml").exists()
               and yaml.safe_load((p / "expected.yaml").read_text())["query"] in QUERIES)
EXERCISES = "https://kg.example/ns#exercises"
SUBPROPERTY = "<urn:test:touches> <http://www.w3.org/2000/01/rdf-schema#subPropertyOf> <https://agenticprimitives.dev/ns/evaluation#exercisesClass> .\n"


def test_every_coverage_golden_is_here():
    # the four queries that read the layer have seven goldens; one added later is held to the layer too
    assert len(CASES) == 7, CASES


def exercised(store) -> set[tuple[str, str]]:
    return {tuple(t.split(" ")[::2]) for t in layer_triples(store, COVERAGE_GRAPH) if f"<{EXERCISES}>" in t}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_any_order_of_writes_and_drops_leaves_the_coverage_layer_a_rebuild_makes(case, seed):
    check_any_order(case, seed, COVERAGE_GRAPH, vocabularies=True)


def test_a_subproperty_in_a_file_of_its_own_reaches_the_terms_through_another_file_and_goes_with_it():
    # t:a6 reaches ex:K only through t:touches, under apeval:exercisesClass (kg's apeval vocabulary),
    # under dcterms:subject: a chain across two files. Stated in a file of its own, written after the
    # sets and then dropped, it must add ex:K to what t:a6 exercises and take it out again
    graphs = graphs_of("coverage-classes")
    sets = next(name for name, text in graphs.items() if SUBPROPERTY in text)
    graphs[sets] = graphs[sets].replace(SUBPROPERTY, "")
    store = written_without(graphs, "", vocabularies=True)
    through_touches = ("<urn:test:a6>", "<http://example.org/onto#K>")
    assert through_touches not in exercised(store)
    write(store, "urn:test:subproperties", SUBPROPERTY)
    assert through_touches in exercised(store), "a subproperty stated in another file did not re-derive the layer"
    assert layer_triples(store, COVERAGE_GRAPH) == layer_triples(rebuilt(store), COVERAGE_GRAPH)
    assert not {t for t in layer_triples(store, COVERAGE_GRAPH) if "subPropertyOf" in t}, "the copies stayed in the layer"
    store.drop_source("urn:test:subproperties")
    assert through_touches not in exercised(store), "dropping the subproperty's file did not re-derive the layer"
    assert layer_triples(store, COVERAGE_GRAPH) == layer_triples(rebuilt(store), COVERAGE_GRAPH)
    assert rows(store, "coverage-classes") == rows(rebuilt(store), "coverage-classes")
