"""Evidence is append-only: what a changed file would change of what was loaded from it.

When a file loaded before comes back with other bytes, its new triples are compared with the graph
loaded from it, item by item. An item is a subject with an IRI; triples on blank nodes count with the
subject that holds them, and a node with no id of its own (an assertion's result) with the item
that names it. New items are additions and load; an item whose triples differ ("changed") or that
is gone ("disappeared") makes the load fail whole, naming each id, what changed and how to correct
it properly. `kg load --revise FILE` accepts the change as a revision: the earlier version stays in
the catalogue graph, readable (its triples as N-Triples, kg:content) and linked (prov:wasRevisionOf,
with when it was loaded and replaced, and both digests)."""
from __future__ import annotations

from dataclasses import dataclass, field

import pyoxigraph as ox

from .errors import Problem
from .jsonio import MAX_PROBLEMS
from .terms import CATALOGUE_GRAPH, PREFIXES, XSD, Triples, iri, literal, p

# kinds whose files are evidence (append-only); an ontology or a vocabulary is replaced when it changes
EXEMPT_KINDS = {"ontology", "vocabulary"}
IDENTIFIER = "http://purl.org/dc/terms/identifier"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
# how each kind of item is corrected without rewriting it (by its rdf:type)
_ASSERTION_FIX = ('an assertion is never edited: put the line back as it was and add a new assertion that '
                  'supersedes it ("supersedes": "{id}"; apeval:supersedes in RDF)')
_CRITERIA_FIX = ("registered criteria are never edited: put it back as it was and register a new criteria "
                 "revision (a gold file with the next \"revision\", or a new anticipation_id)")
FIXES = {
    "http://www.w3.org/ns/earl#Assertion": _ASSERTION_FIX,
    "https://agenticprimitives.dev/ns/evaluation#SelectionCriterion": _CRITERIA_FIX,
    "https://kg.example/ns#CriterionRecord": _CRITERIA_FIX,
    "https://kg.example/ns#Anticipation": _CRITERIA_FIX,
    "https://kg.example/ns#AnticipationCriterion": _CRITERIA_FIX,
}
GENERIC_FIX = "put it back as it was and add what is new beside it"
REVISE_FIX = "or, if the earlier version was wrong as a record, accept the change as a revision: kg load --revise {file}"


@dataclass
class Change:
    item: str  # the item's IRI
    label: str  # how a user knows it: its type and id
    what: str  # "changed" or "disappeared"
    details: list[str] = field(default_factory=list)
    fix: str = GENERIC_FIX


def _short(term: str) -> str:
    if term.startswith("<") and term.endswith(">"):
        inner = term[1:-1]
        for prefix, ns in sorted(PREFIXES.items(), key=lambda kv: -len(kv[1])):
            if inner.startswith(ns) and inner != ns:
                return f"{prefix}:{inner[len(ns):]}"
    if "^^<" in term:  # a typed literal: its lexical form is what a user wrote
        return term.split("^^<", 1)[0][1:-1]
    return term


def items(triples) -> dict[str, dict[str, set[str]]]:
    """Triples by item: {subject IRI: {predicate: {object as text}}}; a blank node is written out
    (its own triples, nested) where it is the object, so renamed blank nodes compare equal.
    Blank nodes no item names are kept under "(blank nodes)"."""
    by_subject: dict[ox.Term, list[tuple[str, ox.Term]]] = {}
    referenced = set()
    for s, pr, o in triples:
        by_subject.setdefault(s, []).append((pr.value, o))
        if isinstance(o, ox.BlankNode):
            referenced.add(o)

    def text(term, seen=frozenset()) -> str:
        if isinstance(term, ox.BlankNode):
            if term in seen:
                return "[…]"
            inner = sorted(f"<{pr}> {text(o, seen | {term})}" for pr, o in by_subject.get(term, ()))
            return "[ " + " ; ".join(inner) + " ]"
        return str(term)

    out: dict[str, dict[str, set[str]]] = {}
    for s, pos in by_subject.items():
        if isinstance(s, ox.BlankNode):
            if s not in referenced:
                out.setdefault("(blank nodes)", {}).setdefault("", set()).add(text(s))
            continue
        key = s.value if isinstance(s, ox.NamedNode) else str(s)
        for pr, o in pos:
            out.setdefault(key, {}).setdefault(pr, set()).add(text(o))
    return out


def loaded_triples(store, graph: str) -> list[tuple]:
    return store.select("SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }", g=ox.NamedNode(graph))


def parse_ntriples(text: str) -> list[tuple]:
    if not text:
        return []
    return [(t.subject, t.predicate, t.object) for t in ox.parse(text.encode("utf-8"), format=ox.RdfFormat.N_TRIPLES)]


# what kg adds to a source at load beyond the file's own words: the check of a situation's records
# against the domain's shapes (kg/domain_shapes.py), which follows the shapes loaded at the time and
# so may differ on a reload of the same words; it is re-derived, never compared as evidence
CHECKED_AGAINST = "https://kg.example/ns#checkedAgainst"
VALIDATION_RESULT = "http://www.w3.org/ns/shacl#ValidationResult"


def _evidence(triples) -> list[tuple]:
    """The triples without the record check's (kg:checkedAgainst, and its sh:ValidationResult nodes)."""
    results = {s for s, pr, o in triples if pr.value == RDF_TYPE and isinstance(o, ox.NamedNode)
               and o.value == VALIDATION_RESULT}
    return [(s, pr, o) for s, pr, o in triples if pr.value != CHECKED_AGAINST and s not in results]


def compare(old_triples, new_triples) -> list[Change]:
    """What the new triples change or drop of the old ones, one Change per item (owners first). The
    record check's triples are left out: derived at load, they follow the shapes loaded then."""
    old, new = items(_evidence(old_triples)), items(_evidence(new_triples))
    links = _links(new) | _links(old)
    owners = {node: owner for node, (owner, _) in links.items()}
    changes: dict[str, Change] = {}
    for subject in sorted(old):
        before, after = old[subject], new.get(subject, {})
        if before == after:
            continue
        owner = subject
        while owner in owners and owner not in _identified(old, new, owner):
            owner = owners[owner]
        change = changes.get(owner)
        if change is None:
            change = changes[owner] = Change(owner, _label(old, new, owner), "changed")
            change.fix = _fix(old, new, owner)
        if subject == owner and not after:
            change.what = "disappeared"
            continue
        where = "" if subject == owner else f"its {_short('<' + links[subject][1] + '>')} {_short('<' + subject + '>')}: " \
            if subject in links else f"{_short('<' + subject + '>')}: "
        for pr in sorted(set(before) | set(after)):
            was, now = before.get(pr, set()), after.get(pr, set())
            if was != now:
                change.details.append(f"{where}{_short('<' + pr + '>')} was {_values(was)}, now {_values(now)}")
    for change in changes.values():
        if change.what == "disappeared":
            change.details = []
    return sorted(changes.values(), key=lambda c: c.label)


def _values(values: set[str]) -> str:
    return " and ".join(sorted(_short(v) for v in values)) if values else "(none)"


def _identified(old, new, subject) -> set[str]:
    """The subject itself when it carries an id (dcterms:identifier) in either version."""
    return {subject} if IDENTIFIER in old.get(subject, {}) or IDENTIFIER in new.get(subject, {}) else set()


def _owners(by_item) -> dict[str, str]:
    """A node with no id of its own → an item that names it (the least, for a stable answer)."""
    return {node: owner for node, (owner, _) in _links(by_item).items()}


def _links(by_item) -> dict[str, tuple[str, str]]:
    """A node with no id of its own → (the item that names it, by which predicate)."""
    found: dict[str, tuple[str, str]] = {}
    for subject in sorted(by_item):
        if IDENTIFIER not in by_item[subject]:
            continue
        for pr, objects in by_item[subject].items():
            if pr == RDF_TYPE:
                continue
            for o in objects:
                if o.startswith("<") and o[1:-1] != subject:
                    found.setdefault(o[1:-1], (subject, pr))
    return {node: owner for node, owner in found.items() if IDENTIFIER not in by_item.get(node, {})}


def _label(old, new, subject) -> str:
    props = old.get(subject) or new.get(subject) or {}
    types = sorted(_short(t) for t in props.get(RDF_TYPE, ()))
    ident = sorted(props.get(IDENTIFIER, ()))
    name = ident[0].split("^^")[0] if ident else _short(f"<{subject}>")
    return f"{types[0]} {name}" if types else name


def _fix(old, new, subject) -> str:
    props = old.get(subject) or new.get(subject) or {}
    ident = sorted(props.get(IDENTIFIER, ()))
    plain = ident[0].split("^^")[0].strip('"') if ident else subject
    for t in sorted(props.get(RDF_TYPE, ())):
        if t[1:-1] in FIXES:
            return FIXES[t[1:-1]].format(id=plain)
    return GENERIC_FIX


def problems(file: str, changes: list[Change], loaded_at: str, loaded_sha: str,
             withdrawn_at: str = "") -> list[Problem]:
    """One problem per changed or disappeared item (the ones past MAX_PROBLEMS named together)."""
    since = f"since it was loaded on {loaded_at} (sha256 {loaded_sha[:12]}…)"
    if withdrawn_at:
        since += f" and withdrawn by kg drop on {withdrawn_at} (a drop keeps the record)"
    out = []
    for c in changes[:MAX_PROBLEMS - 1] if len(changes) > MAX_PROBLEMS else changes:
        detail = f": {'; '.join(c.details)}" if c.details else " from the file"
        out.append(Problem(file, c.label, f"{c.what} {since}{detail}; evidence files are append-only",
                           f"{c.fix}; {REVISE_FIX.format(file=file)}"))
    if len(changes) > len(out):
        rest = changes[len(out):]
        out.append(Problem(file, f"{len(rest)} more items", "these also changed or disappeared: "
                           + ", ".join(f"{c.label} ({c.what})" for c in rest),
                           f"see above; {REVISE_FIX.format(file=file)}"))
    return out


# ── the record of a revision ──

def node_for(store, graph: str) -> tuple[str, str | None]:
    """The IRI the earlier version will have (<graph?revision=N>, N counting from 1) and the latest
    earlier revision of this source, if any."""
    rows = store.select(f"SELECT ?r ?n WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?r a kg:SourceRevision ; "
                        f"prov:specializationOf ?g ; kg:revisionNumber ?n }} }} ORDER BY DESC(?n)",
                        g=ox.NamedNode(graph))
    latest = rows[0][0].value if rows else None
    number = int(rows[0][1].value) + 1 if rows else 1
    return f"{graph}?revision={number}", latest


def earlier_version(t: Triples, number_iri: str, graph: str, record, *, ended_at: str, triples: int):
    """The triples every kept earlier version of a source has, revised or withdrawn (kg:SourceRevision):
    which source and which of its versions, what it was (path, kind, digest, when loaded, its size)
    and when it stopped being current. Returns its node, for what the caller adds."""
    r = iri(number_iri)
    dt = XSD + "dateTime"
    t.add(r, p("rdf:type"), p("kg:SourceRevision"))
    t.add(r, p("prov:specializationOf"), iri(graph))
    t.add(r, p("kg:revisionNumber"), literal(int(number_iri.rsplit("=", 1)[1])))
    t.add(r, p("kg:path"), literal(record.path))
    t.add(r, p("kg:kind"), literal(record.kind))
    t.add(r, p("kg:sha256"), literal(record.sha256))
    t.add(r, p("prov:generatedAtTime"), literal(record.loaded_at, dt))
    t.add(r, p("prov:invalidatedAtTime"), literal(ended_at, dt))
    t.add(r, p("void:triples"), literal(triples))
    return r


def revision_triples(store, graph: str, *, number_iri: str, previous: str | None, old_record,
                     old_text: str, new_sha: str, revised_at: str, changes: list[Change]) -> str:
    """The earlier version as a kg:SourceRevision in the catalogue graph: what it was (its path,
    kind, digest, when it was loaded, its triples as N-Triples) and when and into what it was revised."""
    t = Triples()
    r = earlier_version(t, number_iri, graph, old_record, ended_at=revised_at, triples=old_text.count("\n"))
    t.add(r, p("kg:revisedAs"), literal(new_sha))
    t.add(r, p("kg:content"), literal(old_text))
    for c in changes:
        t.add(r, p("kg:revisedItem"), iri(c.item))
        t.add(r, p("kg:change"), literal(f"{c.label} {c.what}" + (f": {'; '.join(c.details)}" if c.details else "")))
    if previous:
        t.add(r, p("prov:wasRevisionOf"), iri(previous))
    return t.text()


def loaded_ntriples(old_triples) -> str:
    lines = sorted(f"{s} {pr} {o} .\n" for s, pr, o in old_triples)
    return "".join(lines)


# ── what even a revision may not change (sealing and pinning, issue 13) ──
ANTICIPATION_TYPES = {"https://kg.example/ns#Anticipation", "https://kg.example/ns#AnticipationCriterion"}
DESCRIPTION_TYPE = "https://agenticprimitives.dev/ns/evaluation#OutcomeDescription"


def sealed(store, file: str, graph: str, old_triples, changes: list[Change], old_pins: list[str],
           new_pins: list[str]) -> list[Problem]:
    """Changes kg load --revise refuses all the same: an anticipation whose criteria have been judged
    (RFC-032 seals it once execution begins: a revision is a new anticipation), and an outcome
    description changed while the gold's criterion digests stay as they were (the pins would still
    "hold" while what they mean changed: a new gold revision says so)."""
    by_item = items(old_triples)
    types = {s: {t[1:-1] for t in props.get(RDF_TYPE, ())} for s, props in by_item.items()}
    problems = []
    if any(types.get(c.item, set()) & ANTICIPATION_TYPES for c in changes):
        criteria = sorted(s for s, ts in types.items() if "https://kg.example/ns#AnticipationCriterion" in ts)
        if criteria:
            values = " ".join(f"<{c}>" for c in criteria)
            rows = store.select(f"""SELECT (MIN(STR(?date)) AS ?first) (COUNT(DISTINCT ?a) AS ?n) WHERE {{
                VALUES ?criterion {{ {values} }} GRAPH ?g {{ ?a earl:test ?criterion ; earl:result ?r }}
                FILTER(?g != ?this) OPTIONAL {{ GRAPH ?h {{ ?r dcterms:date ?date }} }} }}""",
                                this=ox.NamedNode(graph))
            judged = int(rows[0][1].value) if rows and rows[0][1] is not None else 0
            if judged:
                first = rows[0][0].value if rows[0][0] is not None else "at an unknown time"
                labels = ", ".join(c.label for c in changes if types.get(c.item, set()) & ANTICIPATION_TYPES)
                problems.append(Problem(file, labels, f"the anticipation is sealed: {judged} assertion(s) judged its "
                                        f"criteria (the first dated {first}), so {labels} cannot be revised",
                                        "a revision is a new anticipation: declare it with its own anticipation_id"))
    described = [c for c in changes if DESCRIPTION_TYPE in types.get(c.item, set())]
    if described and sorted(old_pins) == sorted(new_pins):
        problems.append(Problem(file, ", ".join(c.label for c in described),
                                "outcome description(s) " + ", ".join(c.label for c in described)
                                + " changed while every criterion digest the gold pins stays the same: the pins "
                                "would still hold, and every result judged against them would silently mean another thing",
                                "register a new gold revision (the next \"revision\", registered now), whose "
                                "criteria - and digests - say what changed"))
    return problems
