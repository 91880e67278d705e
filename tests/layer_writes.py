"""What the layer tests share: a golden's named graphs written as sources in a random order, some
dropped and written again, the derived layer's graph held at every step to what a rebuild of the
same sources makes, and the golden query's rows to the rebuild's."""
import random
import re
from pathlib import Path

import pyoxigraph as ox
import yaml

from kg import catalogue, ingest
from kg.store import SourceRecord, Store

GOLDEN = Path(__file__).parent / "queries" / "golden"


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


def write(store: Store, graph: str, ntriples: str, kind: str = "rdf") -> None:
    store.replace_source(SourceRecord(graph=graph, path=graph, kind=kind, sha256=str(hash(ntriples)),
                                      loader="tests", triples=ntriples.count("\n")), ntriples)


def kinds_of(graphs: dict[str, str]) -> dict[str, str]:
    """The kind the golden's own catalogue graph gives a graph (the coverage queries read the ontologies'
    by it): a graph written again takes it, rather than the record's default, "rdf"."""
    kind = re.compile(r'^<([^>]+)> <https://kg\.example/ns#kind> "([^"]+)" \.$', re.M)
    return dict(kind.findall(graphs.get("urn:kg:catalogue", "")))


def written_without(graphs: dict[str, str], left_out: str, vocabularies: bool = False) -> Store:
    """A store with every graph of a golden written but one, to write that one last; with kg's own
    vocabularies first when asked (apeval's subproperties of dcterms:subject), as a store kg opens has them."""
    store = Store(":memory:")
    if vocabularies:
        ingest.ensure_vocabularies(store)
    for name, text in graphs.items():
        if name != left_out:
            write(store, name, text)
    return store


def layer_triples(store: Store, graph: str) -> set[str]:
    return {f"{q.subject} {q.predicate} {q.object}" for q in store.ox.quads_for_pattern(None, None, None, ox.NamedNode(graph))}


def rows(store: Store, case: str) -> list[dict]:
    expect = yaml.safe_load((GOLDEN / case / "expected.yaml").read_text())
    return catalogue.run(catalogue.load()[expect["query"]], store, expect.get("params") or {}).rows


def rebuilt(store: Store) -> Store:
    fresh = Store(":memory:")
    fresh.ox.load(store.dump(), format=ox.RdfFormat.N_QUADS)
    fresh.rebuild_layers()
    return fresh


def check_any_order(case: str, seed: int, layer_graph: str, vocabularies: bool = False) -> None:
    """Writes the golden's graphs in an order the seed picks, drops two and writes them again; the
    layer must be what a rebuild makes at every step, and not empty."""
    rng = random.Random(seed)
    graphs = graphs_of(case)
    names = list(graphs)
    rng.shuffle(names)
    store = written_without({name: graphs[name] for name in names}, "", vocabularies)
    whole = rebuilt(store)
    assert layer_triples(store, layer_graph) == layer_triples(whole, layer_graph) and layer_triples(store, layer_graph), case
    assert rows(store, case) == rows(whole, case)
    for name in rng.sample(names, k=min(2, len(names))):
        store.drop_source(name)
        assert layer_triples(store, layer_graph) == layer_triples(rebuilt(store), layer_graph), f"{case}: after dropping {name}"
        write(store, name, graphs[name], kinds_of(graphs).get(name, "rdf"))
    assert layer_triples(store, layer_graph) == layer_triples(whole, layer_graph)
    assert rows(store, case) == rows(whole, case)
