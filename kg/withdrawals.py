"""Withdrawal is an event, not an erasure: what `kg drop` takes out of the store stays readable.

A dropped source leaves every rate (its graph goes, and the layers with it), but its record becomes
a kg:Withdrawal in the catalogue graph — a kg:SourceRevision with when it was withdrawn, its path,
kind, digest and pins, how many assertions it held, its items (kg:withdrawnItem, so `kg history`
of an assertion or case finds the drop) and its triples as N-Triples (kg:content, in parts of whole
lines). Loading a file into that graph again is then judged against the withdrawn version by the
same append-only rules as a reload (kg/revisions.py): an unchanged or only-added file loads, linked
to the withdrawal by prov:wasRevisionOf; a changed one is refused unless `kg load --revise`, and
seals hold (an anticipation already judged, a gold description changed under the same pins).

Only `kg erase` removes a source's words for good — its graph, its revisions' and withdrawals'
content — and it leaves a kg:Erasure saying what, when and which digests, without the words."""
from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

from .terms import CATALOGUE_GRAPH, XSD, Triples, iri, literal, p

# a withdrawn source's N-Triples are kept in parts of at most this many characters, each whole lines
# (the order of N-Triples lines means nothing): the engine parses one term of up to 16 MiB
CONTENT_PART = 4 << 20
EXEMPT = {"vocabulary"}  # kg's own vocabularies are kg's, not evidence: dropped without a record


@dataclass(frozen=True)
class Withdrawn:
    """The latest withdrawal of a source that has not been loaded again since."""

    node: str
    path: str
    kind: str
    sha256: str
    loaded_at: str
    withdrawn_at: str
    pins: list[str]
    content: str


def _parts(text: str) -> list[str]:
    parts, current, size = [], [], 0
    for line in text.splitlines(keepends=True):
        if size + len(line) > CONTENT_PART and current:
            parts.append("".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line)
    if current:
        parts.append("".join(current))
    return parts


def record(store, graph: str, when: str) -> str:
    """The withdrawal of a loaded source, as N-Triples for the catalogue graph ("" for kg's own
    vocabularies). Read before the source goes: its record, its triples, its assertions and items."""
    from .revisions import earlier_version, node_for
    source = next((s for s in store.sources() if s.graph == graph), None)
    if source is None or source.kind in EXEMPT:
        return ""
    node, previous = node_for(store, graph)
    content = store.graph_ntriples(graph)
    g = ox.NamedNode(graph)
    assertions = store.select("SELECT (COUNT(DISTINCT ?a) AS ?n) WHERE { GRAPH ?g { ?a a earl:Assertion } }", g=g)
    items = store.select("SELECT DISTINCT ?item WHERE { GRAPH ?g { ?item dcterms:identifier ?id } FILTER(isIRI(?item)) }",
                         g=g)
    t = Triples()
    r = earlier_version(t, node, graph, source, ended_at=when, triples=content.count("\n"))
    t.add(r, p("rdf:type"), p("kg:Withdrawal"))
    t.add(r, p("kg:withdrawnAssertions"), literal(int(assertions[0][0].value) if assertions else 0))
    for pin in source.pins:
        t.add(r, p("kg:pins"), literal(pin))
    for (item,) in items:
        t.add(r, p("kg:withdrawnItem"), item)
    for part in _parts(content):
        t.add(r, p("kg:content"), literal(part))
    if previous:
        t.add(r, p("prov:wasRevisionOf"), iri(previous))
    return t.text()


def latest(store, graph: str) -> Withdrawn | None:
    """The source's latest withdrawal, when it is the latest thing that happened to it (a source
    loaded again after a withdrawal is judged against that withdrawal once, at that load)."""
    rows = store.select(f"""
        SELECT ?r ?path ?kind ?sha ?at ?gone WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{
          ?r a kg:Withdrawal ; prov:specializationOf ?g ; kg:revisionNumber ?n ; kg:path ?path ; kg:kind ?kind ;
             kg:sha256 ?sha ; prov:generatedAtTime ?at ; prov:invalidatedAtTime ?gone .
          FILTER NOT EXISTS {{ ?later prov:specializationOf ?g ; kg:revisionNumber ?m FILTER(?m > ?n) }}
          FILTER NOT EXISTS {{ ?r kg:revisedAs ?since }} }} }}""", g=ox.NamedNode(graph))
    if not rows:
        return None
    node, path, kind, sha, at, gone = (term.value for term in rows[0])
    parts = store.select(f"SELECT ?part WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?r kg:content ?part }} }}",
                         r=ox.NamedNode(node))
    pins = store.select(f"SELECT ?pin WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?r kg:pins ?pin }} }}", r=ox.NamedNode(node))
    return Withdrawn(node=node, path=path, kind=kind, sha256=sha, loaded_at=at, withdrawn_at=gone,
                     pins=[pin.value for (pin,) in pins], content="".join(part.value for (part,) in parts))


def reloaded(node: str, new_sha: str, when: str, changes) -> str:
    """What a load after a withdrawal adds to the withdrawal's node: the digest that replaced it and,
    accepted with --revise, what changed (as a revision records it), so `kg history` shows both."""
    t = Triples()
    r = iri(node)
    t.add(r, p("kg:revisedAs"), literal(new_sha))
    t.add(r, p("kg:reloadedAt"), literal(when, XSD + "dateTime"))
    for c in changes:
        t.add(r, p("kg:revisedItem"), iri(c.item))
        t.add(r, p("kg:change"), literal(f"{c.label} {c.what}" + (f": {'; '.join(c.details)}" if c.details else "")))
    return t.text()


def erasure(store, graph: str, when: str) -> tuple[str, list[str]]:
    """The update that removes, for good, the words a source's revisions and withdrawals kept (their
    content and changes), leaving a kg:Erasure, and the digests whose words it removes. The source
    itself is withdrawn first (Store.erase_source), so its graph has gone by then."""
    g = ox.NamedNode(graph)
    kept = store.select(f"SELECT DISTINCT ?sha WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?r prov:specializationOf ?g ; "
                        f"kg:sha256 ?sha ; kg:content|kg:change ?words }} }} ORDER BY ?sha", g=g)
    digests = [sha.value for (sha,) in kept]
    if not digests:
        return "", []
    erased = store.select(f"SELECT (COUNT(?e) AS ?n) WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?e a kg:Erasure ; "
                          f"prov:specializationOf ?g }} }}", g=g)
    t = Triples()
    r = iri(f"{graph}?erasure={int(erased[0][0].value) + 1}")
    t.add(r, p("rdf:type"), p("kg:Erasure"))
    t.add(r, p("prov:specializationOf"), iri(graph))
    t.add(r, p("prov:invalidatedAtTime"), literal(when, XSD + "dateTime"))
    for sha in digests:
        t.add(r, p("kg:sha256"), literal(sha))
    words = "|".join(f"<https://kg.example/ns#{name}>" for name in ("content", "change"))
    return (f"DELETE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?r ?words ?value }} }} WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ "
            f"?r <http://www.w3.org/ns/prov#specializationOf> <{graph}> ; ?words ?value "
            f"VALUES ?words {{ {words.replace('|', ' ')} }} }} }} ;\n"
            f"INSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{\n{t.text()}}} }}"), digests


def items_named(store, identifier: str) -> list[str]:
    """The withdrawn items whose dcterms:identifier is `identifier`, read from the withdrawals' words
    (after `kg erase`, only their IRIs find them)."""
    stated = f"<http://purl.org/dc/terms/identifier> {ox.Literal(identifier)} ."
    rows = store.select(f"SELECT ?part WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?w a kg:Withdrawal ; kg:content ?part }} "
                        f"FILTER(CONTAINS(?part, ?stated)) }}", stated=ox.Literal(stated))
    found = {line.split(" ", 1)[0][1:-1] for (part,) in rows for line in part.value.splitlines()
             if line.endswith(stated) and line.startswith("<")}
    return sorted(found)


def in_record(store, value: str) -> bool:
    """Whether the catalogue's record keeps a revision, withdrawal or erasure of `value` (a source's
    graph) or names it as an item one of them took out: `kg history` of it is then an answer."""
    try:
        node = ox.NamedNode(value)
    except ValueError:
        return False
    return store.ask(f"ASK {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?r prov:specializationOf|kg:withdrawnItem|kg:revisedItem ?v }} }}",
                     v=node)
