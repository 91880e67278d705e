"""What a thing is called, defined once for the CLI, the notebook and the report.

A resource's display name is the first of its skos:prefLabel, rdfs:label, dcterms:identifier and
doap:name (English or untagged), the least of several of the same rank. A system under test - the
columns that name one (earl:subject): `system`, `baseline`, `candidate` - is shown by that name in
the CLI's tables and the notebook's `system_id`, as the report shows it: a W3C implementation
report's system is its doap:name ("TopBraid SHACL API", not `shacl/api`), a system kg minted its id
(cubby@1.4.0). Two systems of one answer with the same name keep their short ids, which tell them
apart; the IRI stays the value (CSV, JSON and joins read it)."""
from __future__ import annotations

from typing import Any

import pyoxigraph as ox

LABEL_PATTERN = """
  { ?s skos:prefLabel ?label BIND(1 AS ?rank) } UNION { ?s rdfs:label ?label BIND(2 AS ?rank) }
  UNION { ?s dcterms:identifier ?label BIND(3 AS ?rank) }
  UNION { ?s doap:name ?label BIND(4 AS ?rank) }
  FILTER(isIRI(?s) && (LANG(?label) = "" || LANGMATCHES(LANG(?label), "en")))"""
PREFIXES = """PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX doap: <http://usefulinc.com/ns/doap#>
"""
SYSTEM_COLUMNS = ("system", "baseline", "candidate")
VALUES_CHUNK = 1000


def _best(rows) -> dict[str, str]:
    best: dict[str, tuple] = {}
    for s, label, rank in rows:
        s, label = str(s), str(label)
        if s not in best or (rank, label) < best[s]:
            best[s] = (rank, label)
    return {s: label for s, (rank, label) in best.items()}


def labels(backend, cache=None) -> dict[str, str]:
    """Every resource's display name (the report's labels)."""
    from . import catalogue
    _, rows = catalogue.select(backend, PREFIXES + f"SELECT ?s ?label ?rank WHERE {{ {LABEL_PATTERN} }}", cache)
    return _best(rows)


def labels_of(backend, iris, cache=None) -> dict[str, str]:
    """The display names of these IRIs only (asked in chunks: the cost follows the answer, not the store)."""
    from . import catalogue
    wanted, found = sorted(set(iris)), {}
    if getattr(backend, "engine", None) == "virtuoso":
        # Virtuoso 7.2.5 ends its server process on this lookup, with the IRIs as a VALUES block or a
        # FILTER's list alike (2026-12-07): there systems keep their short ids, a name being only how
        # they read (tests/remote/test_virtuoso.py)
        return found
    for start in range(0, len(wanted), VALUES_CHUNK):
        values = " ".join(str(ox.NamedNode(i)) for i in wanted[start:start + VALUES_CHUNK])
        _, rows = catalogue.select(backend, PREFIXES + f"SELECT ?s ?label ?rank WHERE {{ VALUES ?s {{ {values} }} "
                                   f"{LABEL_PATTERN} }}", cache)
        found.update(_best(rows))
    return found


def name_systems(backend, columns: list[str], rows: list[dict[str, Any]], cache=None) -> None:
    """The IRIs of the system columns of these rows given their display names (catalogue.NamedIRI),
    in place; a name two of them share is left off both."""
    from .catalogue import IRI, NamedIRI
    named = [c for c in columns if c in SYSTEM_COLUMNS]
    iris = {v for row in rows for c in named if isinstance(v := row.get(c), IRI)}
    if not iris:
        return
    try:
        found = labels_of(backend, iris, cache)
    except Exception:  # a name is for reading: an engine that cannot say one leaves the short ids
        return
    holders: dict[str, int] = {}
    for name in found.values():
        holders[name] = holders.get(name, 0) + 1
    shown = {iri: NamedIRI(iri, name) for iri, name in found.items() if holders[name] == 1}
    for row in rows:
        for c in named:
            if (v := row.get(c)) in shown:
                row[c] = shown[v]
