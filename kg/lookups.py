"""What loaders ask of the store before they accept a file: is the set it names loaded, which
intents and descriptions does it have, which other source already holds an id. Plain SPARQL,
so the same checks run on a remote engine."""
from __future__ import annotations

import pyoxigraph as ox

from .loading import Context


def owner(ctx: Context, subject: str, rdf_class: str) -> str | None:
    """The path of another source that already declares `subject` as an instance of the class."""
    return loaded_among(ctx, [subject], f"a {rdf_class}").get(subject)


def set_digest(ctx: Context, set_iri: str) -> str | None:
    rows = ctx.select("SELECT ?d WHERE { GRAPH ?g { ?set a apeval:ReplaySet ; apeval:setDigest ?d } "
                      "FILTER(?g != ?this_graph) } LIMIT 1", set=ox.NamedNode(set_iri))
    return rows[0][0].value if rows else None


def intents_of(ctx: Context, set_iri: str) -> set[str]:
    rows = ctx.select("SELECT ?i WHERE { GRAPH ?g { ?i apeval:inReplaySet ?set } FILTER(?g != ?this_graph) }",
                      set=ox.NamedNode(set_iri))
    return {r[0].value for r in rows}


def descriptions_of(ctx: Context, set_iri: str) -> set[str]:
    """Outcome descriptions registered by the gold of a replay set."""
    rows = ctx.select("""SELECT ?d WHERE { GRAPH ?g { ?record dcterms:references ?set ; dcterms:hasPart ?d .
                         ?d a apeval:OutcomeDescription } FILTER(?g != ?this_graph) }""", set=ox.NamedNode(set_iri))
    return {r[0].value for r in rows}


# Ids per VALUES block when asking which of a file's ids the store already holds. Up to about a
# thousand, Oxigraph looks each one up (13 ms for 1,000 on a 10k-assertion store); from some size
# between 1,000 and 1,700 it switches to a plan that reads every instance of the class in the store
# (0.5 s for 1,700, 1.7 s for 5,000), so a load would grow with the store instead of with the file.
VALUES_CHUNK = 1000


def loaded_among(ctx: Context, iris, shape: str, chunk: int = VALUES_CHUNK) -> dict[str, str]:
    """Which of these IRIs another source already holds in the given shape (predicate and object
    after ?s, e.g. "a earl:Assertion" or "kg:oracleType ?o"): IRI → that source's path. Asked for
    this file's ids only, in chunks, so the cost follows the file and not the size of the store."""
    found: dict[str, str] = {}
    wanted = sorted(set(iris))
    for start in range(0, len(wanted), chunk):
        values = " ".join(str(ox.NamedNode(i)) for i in wanted[start:start + chunk])
        rows = ctx.select(f"""SELECT ?s ?g ?path WHERE {{ VALUES ?s {{ {values} }} GRAPH ?g {{ ?s {shape} }}
                              FILTER(?g != ?this_graph) OPTIONAL {{ GRAPH <urn:kg:catalogue> {{ ?g kg:path ?path }} }} }}""")
        # a graph without a record (none that kg wrote) is named by itself
        found.update({s.value: (path or g).value for s, g, path in rows})
    return found


def set_prefixes(ctx: Context, set_iri: str) -> dict[str, str]:
    """The prefixes a replay set's file declared (as sh:declare), so lines that name the set may use them."""
    rows = ctx.select("""SELECT ?prefix ?ns WHERE { GRAPH ?g { ?set sh:declare [ sh:prefix ?prefix ; sh:namespace ?ns ] } }""",
                      set=ox.NamedNode(set_iri))
    return {r[0].value: r[1].value for r in rows}


def gold_owner(ctx: Context, set_iri: str) -> str | None:
    """The path of another source holding gold for the set."""
    rows = ctx.select("""SELECT ?path WHERE { GRAPH ?g { ?r a kg:CriterionRecord ; dcterms:references ?set }
                         FILTER(?g != ?this_graph) GRAPH <urn:kg:catalogue> { ?g kg:path ?path } } LIMIT 1""",
                      set=ox.NamedNode(set_iri))
    return rows[0][0].value if rows else None


def set_by_identifier(ctx: Context, set_id: str) -> str | None:
    """The IRI of the loaded replay set whose file named it `set_id`."""
    rows = ctx.select("SELECT ?set WHERE { GRAPH ?g { ?set a apeval:ReplaySet ; dcterms:identifier ?id ; "
                      "apeval:setDigest ?d } FILTER(?g != ?this_graph) } LIMIT 1", id=ox.Literal(set_id))
    return rows[0][0].value if rows else None


def pinned_set_digest(ctx: Context, set_iri: str, set_id: str, pinned: str, what: str) -> str | None:
    """The loaded digest of the replay set a file pins (gold, an experiment plan); a problem at
    /replaySet when the set is not loaded, at /setDigest when the file pins another version."""
    loaded = set_digest(ctx, set_iri)
    if loaded is None:
        ctx.problem("/replaySet", f'replay set "{set_id}" is not loaded',
                    "load its *.replayset.json first, or in the same command")
    elif loaded != pinned:
        ctx.problem("/setDigest", f"expected the loaded set's digest {loaded}, found {pinned}: "
                    f"this {what} was registered against another version of {set_id}",
                    f"register the {what} against the loaded version, or load the version it names")
    return loaded
