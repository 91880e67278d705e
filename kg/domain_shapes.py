"""A delivered situation's records checked against the domain's own SHACL shapes, at load.

apeval:satisfies: "every expected class exists and validates … The state check decides existence
and validity mechanically". What a valid record of a class is belongs to the domain, not to kg:
a domain states it as SHACL shapes (sh:NodeShape with sh:targetClass) in any RDF file it loads
beside its ontology (an ontology file, or a file of shapes of its own; both load as kind
"ontology"). A new rule is a new shape in such a file; nothing here names a domain.

The situations loader calls `check` with the records it read. Each record whose class is a
target class of a loaded shape (directly or through rdfs:subClassOf) gets `kg:checkedAgainst`
the source graph that holds those shapes, and every SHACL result whose focus is the record is
written beside it as an sh:ValidationResult (sh:focusNode the record). A failing record never
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


def check(ctx: Context, records: Triples, record_iris: list[str], values: set[str]) -> Triples:
    """The check's triples for the records (their own triples in `records`; `values` the IRIs their
    properties name, whose loaded triples — a concept's skos:inScheme — the shapes may read)."""
    out = Triples()
    if not record_iris:
        return out
    targets: dict[str, set[str]] = {}  # target class -> graphs whose shapes target it
    for graph, cls in ctx.select(_SHAPE_GRAPHS):
        if isinstance(cls, ox.NamedNode):
            targets.setdefault(cls.value, set()).add(graph.value)
    if not targets:
        return out
    data = parse_ntriples(records.text() + "\n" + _lines(ctx.select(_SUBCLASSES)))
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
        shapes += parse_ntriples(_lines(ctx.select(_SHAPES, g=ox.NamedNode(graph))))
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
