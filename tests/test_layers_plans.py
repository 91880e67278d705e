"""The plans layer (queries/layers/plans.ru): whether a plan's pins hold and which runs are of the
builds it pins. Its inputs come from sources of different kinds (plans, replay sets, gold files,
results), so whatever order they are written, replaced or dropped in, the layer must be the one a
rebuild from scratch makes, and the experiment queries' rows the same on both.

The data are the hand-computed golden cases of the experiment queries (tests/queries/golden/), each
named graph of their TriG written as a source of its own through the store's write path."""
import random
from pathlib import Path

import pyoxigraph as ox
import pytest
import yaml

from kg import catalogue
from kg.store import SourceRecord, Store

GOLDEN = Path(__file__).parent / "queries" / "golden"
CASES = ["variant-comparison--components", "variant-comparison--refused", "new-wrong-answers--components",
         "experiment-plans"]
PLANS_GRAPH = "urn:kg:layer:plans"


def graphs_of(case: str) -> dict[str, str]:
    """The golden's named graphs, each as N-Triples."""
    scratch = ox.Store()
    trig = GOLDEN / case / "data.trig"
    scratch.load(path=str(trig), format=ox.RdfFormat.TRIG, base_iri=trig.resolve().as_uri())
    found: dict[str, list[str]] = {}
    for quad in scratch:
        if isinstance(quad.graph_name, ox.NamedNode):
            found.setdefault(quad.graph_name.value, []).append(f"{ox.Triple(quad.subject, quad.predicate, quad.object)} .\n")
    return {graph: "".join(lines) for graph, lines in found.items()}


def write(store: Store, graph: str, ntriples: str) -> None:
    store.replace_source(SourceRecord(graph=graph, path=graph, kind="rdf", sha256=str(hash(ntriples)),
                                      loader="tests", triples=ntriples.count("\n")), ntriples)


def plans_layer(store: Store) -> set[str]:
    return {f"{q.subject} {q.predicate} {q.object}" for q in store.ox.quads_for_pattern(None, None, None, ox.NamedNode(PLANS_GRAPH))}


def rows(store: Store, case: str) -> list[dict]:
    expect = yaml.safe_load((GOLDEN / case / "expected.yaml").read_text())
    return catalogue.run(catalogue.load()[expect["query"]], store, expect.get("params") or {}).rows


def rebuilt(store: Store) -> Store:
    fresh = Store(":memory:")
    fresh.ox.load(store.dump(), format=ox.RdfFormat.N_QUADS)
    fresh.rebuild_layers()
    return fresh


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_any_order_of_writes_and_drops_leaves_the_plans_layer_a_rebuild_makes(case, seed):
    rng = random.Random(seed)
    graphs = graphs_of(case)
    names = list(graphs)
    rng.shuffle(names)
    store = Store(":memory:")
    for name in names:
        write(store, name, graphs[name])
    whole = rebuilt(store)
    assert plans_layer(store) == plans_layer(whole) and plans_layer(store), case
    assert rows(store, case) == rows(whole, case)
    # a source dropped and written again: on the way the layer is what a rebuild of that state makes
    for name in rng.sample(names, k=min(2, len(names))):
        store.drop_source(name)
        assert plans_layer(store) == plans_layer(rebuilt(store)), f"{case}: after dropping {name}"
        write(store, name, graphs[name])
    assert plans_layer(store) == plans_layer(whole)
    assert rows(store, case) == rows(whole, case)


def test_a_plan_is_refused_while_its_replay_set_is_not_loaded_and_holds_once_it_is():
    # experiment-plans: one plan's pins hold on the whole golden, another's set digest differs (expected.yaml)
    graphs = graphs_of("experiment-plans")
    set_graph = next(g for g, text in graphs.items() if "setDigest" in text)
    store = Store(":memory:")
    for name, text in graphs.items():
        if name != set_graph:
            write(store, name, text)
    pins = {row["plan"]: row["pins"] for row in catalogue.run(catalogue.load()["experiment-plans"], store, {}).rows}
    assert pins and all(p.startswith("refused: the replay set ") and p.endswith(" is not loaded") for p in pins.values())
    write(store, set_graph, graphs[set_graph])  # a replay set states no assertion: no key is touched, pins change
    pins = {row["plan"]: row["pins"] for row in catalogue.run(catalogue.load()["experiment-plans"], store, {}).rows}
    expected = yaml.safe_load((GOLDEN / "experiment-plans" / "expected.yaml").read_text())["rows"]
    assert pins == {row["plan"]: row["pins"] for row in expected}
    assert "pins hold" in pins.values()
