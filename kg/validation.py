"""SHACL checks of a loader's output with pySHACL: violations reject the file, warnings and
infos are kept in the catalogue beside it."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pyshacl
import rdflib
from rdflib.namespace import SH

from .terms import SH as SH_NS


@lru_cache(maxsize=None)
def _shapes(path: str, mtime: float) -> rdflib.Graph:
    g = rdflib.Graph()
    g.parse(path, format="turtle")
    return g


def shapes_graph(path: Path) -> rdflib.Graph:
    return _shapes(str(path), path.stat().st_mtime)


def parse_ntriples(ntriples: str) -> rdflib.Graph:
    """N-Triples into rdflib with literals as written: by default rdflib rewrites an ill-typed
    literal (a date-time typed xsd:date becomes a date), hiding what the shapes must see."""
    previous = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    try:
        graph = rdflib.Graph()
        graph.parse(data=ntriples, format="nt")
        return graph
    finally:
        rdflib.NORMALIZE_LITERALS = previous


FORCE_PYSHACL = False  # tests flip it to compare the two validators


def check(ntriples: str, shapes: Path) -> list[dict]:
    """Every SHACL result for the data, as dicts: severity, focus (N-Triples term, None for a blank
    node), path, message, shape, value. The shapes compiled to SPARQL run in Oxigraph; a shapes file
    using SHACL the compiler does not cover goes to pySHACL, the reference."""
    from . import shacl_sparql
    checks = None if FORCE_PYSHACL else shacl_sparql.compiled(shapes)
    if checks is not None:
        return shacl_sparql.check(ntriples, checks)
    return check_with_pyshacl(ntriples, shapes)


def check_graph(store, graph: str, shapes: Path) -> list[dict]:
    """check() of the triples a load wrote into `graph` of the (pyoxigraph) store, read there: what
    a streamed file is checked with. Every shape sees the whole file, the ones about the file as a
    whole (focus kgsh:ThisFile: conflicting trials, several assertors) as much as the per-node ones.
    Shapes pySHACL must check are given the graph's triples as N-Triples (held in memory)."""
    from . import shacl_sparql
    checks = None if FORCE_PYSHACL else shacl_sparql.compiled(shapes)
    if checks is not None:
        return shacl_sparql.check_store(store, graph, checks)
    import pyoxigraph as ox
    text = "".join(f"{q.subject} {q.predicate} {q.object} .\n"
                   for q in store.quads_for_pattern(None, None, None, ox.NamedNode(graph)))
    return check_with_pyshacl(text, shapes)


def check_with_pyshacl(ntriples: str, shapes: Path) -> list[dict]:
    """The reference: pySHACL over an rdflib graph."""
    return results_of(parse_ntriples(ntriples), shapes_graph(shapes))


def results_of(data: rdflib.Graph, shapes: rdflib.Graph) -> list[dict]:
    """Every SHACL result of pySHACL for the data graph under the shapes graph, as check() gives them."""
    _, report, _ = pyshacl.validate(data, shacl_graph=shapes, inference="none",
                                    advanced=True, allow_warnings=True)
    results = []
    for r in report.subjects(rdflib.RDF.type, SH.ValidationResult):
        focus = report.value(r, SH.focusNode)
        path = report.value(r, SH.resultPath)
        shape = report.value(r, SH.sourceShape)
        value = report.value(r, SH.value)
        message = report.value(r, SH.resultMessage)
        results.append({
            "severity": str(report.value(r, SH.resultSeverity)),
            "focus": _nt(focus),
            "path": str(path) if isinstance(path, rdflib.URIRef) else None,
            "shape": str(shape) if isinstance(shape, rdflib.URIRef) else None,
            "value": _nt(value),
            "message": str(message) if message else f"fails {shape}",
        })
    results.sort(key=lambda r: (r["severity"], r["message"], r["focus"] or ""))
    return results


def _nt(term) -> str | None:
    """A term as N-Triples, except blank nodes, which have no name outside their graph."""
    if term is None or isinstance(term, rdflib.BNode):
        return None
    return term.n3()


def is_violation(result: dict) -> bool:
    return result["severity"] == SH_NS + "Violation"


def describe(result: dict) -> tuple[str, str]:
    """(place, message) of a result, for an error line."""
    focus = result["focus"] or "a blank node"
    place = f"focus node {focus}"
    if result["path"]:
        place += f", path <{result['path']}>"
    message = result["message"]
    if result["value"]:
        message += f" (value {result['value']})"
    return place, message
