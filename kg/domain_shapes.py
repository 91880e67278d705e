"""A delivered situation's records checked against the domain's own SHACL shapes, at load.

apeval:satisfies: "every expected class exists and validates … The state check decides existence
and validity mechanically". What a valid record of a class is belongs to the domain, not to kg:
a domain states it as SHACL shapes (sh:NodeShape with sh:targetClass) in any RDF file it loads
beside its ontology (an ontology file, or a file of shapes of its own; both load as kind
"ontology"). A new rule is a new shape in such a file; nothing here names a domain.

The situations loader makes one `Checker` per file and checks each chunk's records with it. Each
record whose class is a target class of a loaded shape (directly or through rdfs:subClassOf) gets
`kg:checkedAgainst` the source graph that holds those shapes, and every SHACL result whose focus is
the record is written beside it as an sh:ValidationResult (sh:focusNode the record). A failing record never
rejects the file: a run that left a broken record is evidence, and the state check reads it
(queries/situations/situation-check.rq). Records of a class no loaded shape targets get no
kg:checkedAgainst; the state check says they were not checked, and why."""
from __future__ import annotations

import rdflib
from rdflib import RDF, RDFS

import pyoxigraph as ox

from .loading import Context
from .lookups import VALUES_CHUNK
from .terms import SH, Triples, iri, literal, p
from .validation import parse_ntriples, results_of

# graphs of loaded sources that state shapes by target class (kg's own graphs are named urn:kg:…)
_SHAPE_GRAPHS = """SELECT ?g ?class WHERE { GRAPH ?g { ?shape sh:targetClass ?class }
                   FILTER(?g != ?this_graph && !STRSTARTS(STR(?g), "urn:kg:")) }"""
_SHAPES = """SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }"""
_SUBCLASSES = """SELECT DISTINCT ?s ?p ?o WHERE { GRAPH ?g { ?s rdfs:subClassOf ?o } BIND(rdfs:subClassOf AS ?p)
                 FILTER(isIRI(?s) && isIRI(?o) && ?g != ?this_graph) }"""


def _lines(rows) -> str:
    return "\n".join(" ".join(str(term) for term in row) + " ." for row in rows if all(row))


class Checker:
    """The domain's shapes as loaded when a file is read, for checking its records a chunk at a time
    (a streamed situations file): which classes they target and the class hierarchy are read from the
    store once, each source's shapes once it is first needed. A record is checked with the records of
    its own chunk, each with its own triples and the loaded triples of the values it names."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._targets: dict[str, set[str]] | None = None  # target class -> graphs whose shapes target it
        self._hierarchy: str | None = None
        self._shapes: dict[str, str] = {}  # graph -> its triples (N-Triples)

    def targets(self) -> dict[str, set[str]]:
        if self._targets is None:
            self._targets = {}
            for graph, cls in self.ctx.select(_SHAPE_GRAPHS):
                if isinstance(cls, ox.NamedNode):
                    self._targets.setdefault(cls.value, set()).add(graph.value)
        return self._targets

    def check(self, records: Triples, record_iris: list[str], values: set[str]) -> Triples:
        """The check's triples for the records (their own triples in `records`; `values` the IRIs their
        properties name, whose loaded triples — a concept's skos:inScheme — the shapes may read)."""
        ctx, out = self.ctx, Triples()
        if not record_iris or not self.targets():
            return out
        targets = self.targets()
        if self._hierarchy is None:
            self._hierarchy = _lines(ctx.select(_SUBCLASSES))
        data = parse_ntriples(records.text() + "\n" + self._hierarchy)
        named = sorted(values)
        for start in range(0, len(named), VALUES_CHUNK):
            chunk = " ".join(str(ox.NamedNode(v)) for v in named[start:start + VALUES_CHUNK])
            rows = ctx.select(f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {chunk} }} GRAPH ?g {{ ?s ?p ?o }} "
                              f"FILTER(?g != ?this_graph) }}")
            data += parse_ntriples(_lines(rows))
        checked: dict[str, set[str]] = {}
        for rec in record_iris:
            node = rdflib.URIRef(rec)
            classes = {c for t in data.objects(node, RDF.type) for c in data.transitive_objects(t, RDFS.subClassOf)}
            graphs = set().union(*(targets.get(str(c), set()) for c in classes))
            if graphs:
                checked[rec] = graphs
        if not checked:
            return out
        shapes = rdflib.Graph()
        for graph in sorted(set().union(*checked.values())):
            if graph not in self._shapes:
                self._shapes[graph] = _lines(ctx.select(_SHAPES, g=ox.NamedNode(graph)))
            shapes += parse_ntriples(self._shapes[graph])
        found: dict[str, list[dict]] = {}
        for result in results_of(data, shapes):
            focus = (result["focus"] or "")[1:-1]
            if focus in checked:
                found.setdefault(focus, []).append(result)
        for rec, graphs in checked.items():
            for graph in sorted(graphs):
                out.add(iri(rec), p("kg:checkedAgainst"), iri(graph))
            for k, result in enumerate(found.get(rec, [])):
                r = iri(f"{rec}/check/{k}")
                out.add(r, p("rdf:type"), iri(SH + "ValidationResult"))
                out.add(r, p("sh:focusNode"), iri(rec))
                out.add(r, p("sh:resultSeverity"), iri(result["severity"]))
                out.add(r, p("sh:resultMessage"), literal(result["message"]))
                if result["path"]:
                    out.add(r, p("sh:resultPath"), iri(result["path"]))
                if result["value"]:
                    out.add(r, p("sh:value"), result["value"])
                if result["shape"]:
                    out.add(r, p("sh:sourceShape"), iri(result["shape"]))
        return out
