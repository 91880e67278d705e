"""SHACL compiled to SPARQL that Oxigraph runs: the shapes kg ships, checked at the speed of the
engine instead of pySHACL's Python walk over an rdflib graph (which dominated loading).

Only the part of SHACL Core the shapes use is compiled: targets (class, subjects of, objects of,
node), property shapes on a single predicate path with minCount, maxCount, datatype, in,
pattern, nodeKind, class, minInclusive, maxInclusive, minLength and hasValue; node-level
nodeKind, class and or/not over such conditions; and SPARQL constraints whose focus is a fixed
node. A shapes file using anything else is validated by pySHACL, which stays the reference:
tests/validation/test_equivalence.py proves both reach the same verdicts on every shape's data."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pyoxigraph as ox
import rdflib
from rdflib import RDF, SH
from rdflib.collection import Collection

from .memory import give_back

XSD = "http://www.w3.org/2001/XMLSchema#"
# datatypes whose lexical forms SPARQL can cast, so an ill-typed literal is caught as SHACL requires
CASTABLE = {XSD + t for t in ("boolean", "double", "float", "decimal", "integer", "dateTime", "date")}
SUPPORTED_PROPERTY = {SH.path, SH.minCount, SH.maxCount, SH.datatype, SH["in"], SH.pattern, SH.flags, SH.nodeKind,
                      SH["class"], SH.minInclusive, SH.maxInclusive, SH.minLength, SH.hasValue, SH.message,
                      SH.severity, SH.name, SH.description, RDF.type}
SUPPORTED_NODE = {RDF.type, SH.targetClass, SH.targetSubjectsOf, SH.targetObjectsOf, SH.targetNode, SH.property,
                  SH.severity, SH.message, SH.nodeKind, SH["class"], SH["or"], SH["not"], SH.sparql,
                  SH.name, SH.description}


class Unsupported(Exception):
    pass


@dataclass(frozen=True)
class Check:
    """One compiled constraint: a SELECT of ?this (and ?value) for every violation."""

    sparql: str
    severity: str
    message: str
    shape: str | None
    path: str | None


def _n3(term) -> str:
    return term.n3()


def _targets(shapes: rdflib.Graph, shape) -> str:
    parts = []
    for c in shapes.objects(shape, SH.targetClass):
        parts.append(f"{{ ?this a/<http://www.w3.org/2000/01/rdf-schema#subClassOf>* {_n3(c)} }}")
    for p_ in shapes.objects(shape, SH.targetSubjectsOf):
        parts.append(f"{{ ?this {_n3(p_)} ?target_object }}")
    for p_ in shapes.objects(shape, SH.targetObjectsOf):
        parts.append(f"{{ ?target_subject {_n3(p_)} ?this }}")
    nodes = list(shapes.objects(shape, SH.targetNode))
    if nodes:
        parts.append(f"{{ VALUES ?this {{ {' '.join(_n3(n) for n in nodes)} }} }}")
    if not parts:
        raise Unsupported(f"{shape} has no target kg can compile")
    return "{ SELECT DISTINCT ?this WHERE { " + " UNION ".join(parts) + " } }"


def _node_kind_test(var: str, kind) -> str:
    return {SH.IRI: f"isIRI({var})", SH.BlankNode: f"isBlank({var})", SH.Literal: f"isLiteral({var})",
            SH.BlankNodeOrIRI: f"(isIRI({var}) || isBlank({var}))",
            SH.BlankNodeOrLiteral: f"(isBlank({var}) || isLiteral({var}))",
            SH.IRIOrLiteral: f"(isIRI({var}) || isLiteral({var}))"}[kind]


def _condition(shapes: rdflib.Graph, node, var: str = "?this") -> str:
    """A SPARQL boolean that holds when `var` conforms to a (small) shape used inside sh:or/sh:not."""
    keys = set(shapes.predicates(node)) - {RDF.type, SH.message}
    tests = []
    path = shapes.value(node, SH.path)
    if path is not None and not isinstance(path, rdflib.URIRef):
        raise Unsupported("a complex path inside sh:or/sh:not")
    for key in keys:
        value = shapes.value(node, key)
        if key == SH.path:
            continue
        if key == SH["not"]:
            tests.append(f"!({_condition(shapes, value, var)})")
        elif key == SH["or"]:
            tests.append("(" + " || ".join(_condition(shapes, m, var) for m in Collection(shapes, value)) + ")")
        elif key == SH.nodeKind and path is None:
            tests.append(_node_kind_test(var, value))
        elif key == SH["class"] and path is None:
            tests.append(f"EXISTS {{ {var} a/<http://www.w3.org/2000/01/rdf-schema#subClassOf>* {_n3(value)} }}")
        elif key == SH.hasValue and path is not None:
            tests.append(f"EXISTS {{ {var} {_n3(path)} {_n3(value)} }}")
        elif key == SH.minCount and path is not None and int(value) == 1:
            tests.append(f"EXISTS {{ {var} {_n3(path)} ?any_value }}")
        elif key == SH.maxCount and path is not None and int(value) == 0:
            tests.append(f"NOT EXISTS {{ {var} {_n3(path)} ?any_value }}")
        else:
            raise Unsupported(f"{key} inside sh:or/sh:not")
    if not tests:
        raise Unsupported("an empty shape inside sh:or/sh:not")
    return "(" + " && ".join(tests) + ")"


def _value_filter(key, value) -> str | None:
    """The FILTER that keeps the values of ?value that VIOLATE a value-level constraint."""
    if key == SH.datatype:
        test = f"isLiteral(?value) && datatype(?value) = {_n3(value)}"
        if str(value) in CASTABLE:
            test += f" && COALESCE(isLiteral(<{value}>(STR(?value))), false)"
        return f"!({test})"
    if key == SH.nodeKind:
        return f"!{_node_kind_test('?value', value)}"
    if key == SH["class"]:
        return f"NOT EXISTS {{ ?value a/<http://www.w3.org/2000/01/rdf-schema#subClassOf>* {_n3(value)} }}"
    if key == SH.minInclusive:
        return f"!COALESCE(?value >= {_n3(value)}, false)"
    if key == SH.maxInclusive:
        return f"!COALESCE(?value <= {_n3(value)}, false)"
    if key == SH.minLength:
        return f"(isBlank(?value) || STRLEN(STR(?value)) < {int(value)})"
    return None


def compile_shapes(shapes: rdflib.Graph) -> list[Check]:
    checks = []
    for shape in sorted(set(shapes.subjects(RDF.type, SH.NodeShape)), key=str):
        unknown = set(shapes.predicates(shape)) - SUPPORTED_NODE
        if unknown:
            raise Unsupported(f"{shape}: {sorted(map(str, unknown))}")
        target = _targets(shapes, shape)
        severity = str(shapes.value(shape, SH.severity) or SH.Violation)
        message = shapes.value(shape, SH.message)
        name = str(shape) if isinstance(shape, rdflib.URIRef) else None
        node_tests = []
        for key in (SH.nodeKind, SH["class"], SH["or"], SH["not"]):
            value = shapes.value(shape, key)
            if value is not None:
                node_tests.append(_condition(shapes, _as_shape(shapes, key, value)))
        for test in node_tests:  # a node-level result's value is the focus node itself
            checks.append(Check(f"SELECT ?this (?this AS ?value) WHERE {{ {target} FILTER(!{test}) }}", severity,
                                str(message) if message else "the node does not conform", name, None))
        for prop in shapes.objects(shape, SH.property):
            checks += _property_checks(shapes, prop, target)
        for constraint in shapes.objects(shape, SH.sparql):
            text = str(shapes.value(constraint, SH.message) or message or "fails a SPARQL constraint")
            checks.append(Check(_focus_joined(str(shapes.value(constraint, SH.select)), target), severity, text,
                                name, None))
    return checks


def _focus_joined(select: str, target: str) -> str:
    """A SHACL-SPARQL SELECT run once for all focus nodes: $this becomes ?this, bound by the shape's
    targets at the head of the WHERE clause, so every later pattern and FILTER sees it bound, as
    SHACL's pre-binding does."""
    from .catalogue import where_positions
    positions = where_positions(select)
    if not positions:
        raise Unsupported("a SPARQL constraint without a WHERE clause")
    at = positions[0]
    return (select[:at] + " " + target + " " + select[at:]).replace("$this", "?this")


def _as_shape(shapes: rdflib.Graph, key, value):
    """A node-level constraint of a node shape, as a small shape node for _condition."""
    node = rdflib.BNode()
    shapes.add((node, key, value))
    return node


def _property_checks(shapes: rdflib.Graph, prop, target: str) -> list[Check]:
    unknown = set(shapes.predicates(prop)) - SUPPORTED_PROPERTY
    path = shapes.value(prop, SH.path)
    if unknown or not isinstance(path, rdflib.URIRef):
        raise Unsupported(f"property shape {prop}: {sorted(map(str, unknown))} or a complex path")
    severity = str(shapes.value(prop, SH.severity) or SH.Violation)
    message = shapes.value(prop, SH.message)
    shape = str(prop) if isinstance(prop, rdflib.URIRef) else None
    p_ = _n3(path)
    checks = []

    def add(sparql, default):
        checks.append(Check(sparql, severity, str(message) if message else default, shape, str(path)))

    # The counts of 0 and 1 (every count the shipped shapes use) are asked without a group per focus
    # node: a GROUP BY with COUNT(DISTINCT) holds a table of every focus node and a set of values for
    # each in the engine, about 0.5 KB a node, which made SHACL the peak of a 1.7M-assertion load
    # (1.9 GB); "no value", "a value" and "two different values" are joins the engine streams
    min_count = shapes.value(prop, SH.minCount)
    if min_count is not None and int(min_count) == 1:
        add(f"SELECT ?this WHERE {{ {target} FILTER NOT EXISTS {{ ?this {p_} ?value }} }}",
            f"fewer than 1 values of <{path}>")
    elif min_count is not None and int(min_count) > 1:
        add(f"SELECT ?this WHERE {{ {target} OPTIONAL {{ ?this {p_} ?value }} }} GROUP BY ?this "
            f"HAVING (COUNT(DISTINCT ?value) < {int(min_count)})", f"fewer than {int(min_count)} values of <{path}>")
    max_count = shapes.value(prop, SH.maxCount)
    if max_count is not None and int(max_count) == 0:
        add(f"SELECT DISTINCT ?this WHERE {{ {target} ?this {p_} ?value }}", f"more than 0 values of <{path}>")
    elif max_count is not None and int(max_count) == 1:
        add(f"SELECT DISTINCT ?this WHERE {{ {target} ?this {p_} ?value . ?this {p_} ?other "
            f"FILTER(!sameTerm(?value, ?other)) }}", f"more than 1 values of <{path}>")
    elif max_count is not None:
        add(f"SELECT ?this WHERE {{ {target} ?this {p_} ?value }} GROUP BY ?this "
            f"HAVING (COUNT(DISTINCT ?value) > {int(max_count)})", f"more than {int(max_count)} values of <{path}>")
    has_value = shapes.value(prop, SH.hasValue)
    if has_value is not None:
        add(f"SELECT ?this WHERE {{ {target} FILTER NOT EXISTS {{ ?this {p_} {_n3(has_value)} }} }}",
            f"<{path}> lacks the value {has_value.n3()}")
    filters = []
    for key in (SH.datatype, SH.nodeKind, SH["class"], SH.minInclusive, SH.maxInclusive, SH.minLength):
        value = shapes.value(prop, key)
        if value is not None:
            filters.append((key, _value_filter(key, value)))
    members = shapes.value(prop, SH["in"])
    if members is not None:
        terms = list(Collection(shapes, members))
        filters.append((SH["in"], "!(" + " || ".join(f"sameTerm(?value, {_n3(t)})" for t in terms) + ")"))
    pattern = shapes.value(prop, SH.pattern)
    if pattern is not None:
        flags = shapes.value(prop, SH.flags)
        filters.append((SH.pattern, f"(isBlank(?value) || !REGEX(STR(?value), {_quote(str(pattern))}"
                                    + (f", {_quote(str(flags))}" if flags else "") + "))"))
    for key, violating in filters:
        add(f"SELECT ?this ?value WHERE {{ {target} ?this {p_} ?value FILTER({violating}) }}",
            f"a value of <{path}> fails {key.n3(shapes.namespace_manager)}")
    return checks


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@lru_cache(maxsize=None)
def _compiled(path: str, mtime: float) -> tuple[Check, ...] | None:
    shapes = rdflib.Graph()
    shapes.parse(path, format="turtle")
    try:
        return tuple(compile_shapes(shapes))
    except Unsupported:
        return None


def compiled(path: Path) -> tuple[Check, ...] | None:
    """The shapes file's checks, or None when it uses SHACL this compiler does not cover."""
    return _compiled(str(path), path.stat().st_mtime)


def check(ntriples: str, checks: tuple[Check, ...]) -> list[dict]:
    """Runs the compiled checks over the data in an in-memory Oxigraph store."""
    store = ox.Store()
    if ntriples:
        store.load(ntriples, format=ox.RdfFormat.N_TRIPLES)
    return check_store(store, None, checks)


def check_store(store: ox.Store, graph: str | None, checks: tuple[Check, ...]) -> list[dict]:
    """Runs the compiled checks over one graph of a store (None: its default graph) as its default
    graph: a file streamed into its graph of the store on disk is checked there, whole, with no copy
    of it in Python (the checks' answers are what is held: the results)."""
    dataset = {} if graph is None else {"default_graph": ox.NamedNode(graph)}
    results = []  # a list: two blank-node focus nodes both show as None and must both count
    for c in checks:
        if graph is not None:  # a streamed file's graph: what one check's groups freed, before the next
            give_back()
        solutions = store.query(c.sparql, **dataset)
        has_value = "value" in [v.value for v in solutions.variables]
        seen = set()
        for row in solutions:
            # SHACL-SPARQL: a solution without ?value reports the focus node as the value
            value = row["value"] if has_value and row["value"] is not None else row["this"]
            if (row["this"], value) in seen:  # one result per focus node and value, as pySHACL reports
                continue
            seen.add((row["this"], value))
            results.append((c.severity, _nt(row["this"]), c.path, c.shape,
                            _nt(value) if (has_value or c.path is None) else None, c.message))
    return [{"severity": s, "focus": f, "path": p_, "shape": sh, "value": v, "message": m}
            for s, f, p_, sh, v, m in sorted(results, key=lambda r: (r[0], r[5], r[1] or ""))]


def _nt(term) -> str | None:
    if term is None or isinstance(term, ox.BlankNode):
        return None
    return str(term)
