"""RDF files: EARL reports and domain ontologies, in any syntax Oxigraph reads.

Both keep the file's triples as they are (relative IRIs resolved against the file's own
location, blank nodes renamed apart, named graphs of TriG/N-Quads folded into the source's
graph). What real EARL reports do loosely — blank-node assertions, earl:mode on the result,
outcomes outside EARL, ill-typed dates — is reported by shapes/earl.ttl as warnings, not
rejected."""
import pyoxigraph as ox

from kg.loading import Projection, loader
from kg.lookups import VALUES_CHUNK, check_supersessions, loaded_among

RDF_PATTERNS = ("*.ttl", "*.nt", "*.nq", "*.trig", "*.rdf", "*.owl", "*.xml", "*.jsonld", "*.n3")


EARL = "http://www.w3.org/ns/earl#"
RESULT, OUTCOME = ox.NamedNode(EARL + "result"), ox.NamedNode(EARL + "outcome")
SUPERSEDES = ox.NamedNode("https://agenticprimitives.dev/ns/evaluation#supersedes")
KEY = (ox.NamedNode(EARL + "subject"), ox.NamedNode(EARL + "test"), ox.NamedNode(EARL + "assertedBy"))


def triples_of(source) -> list[ox.Triple]:
    return list(dict.fromkeys(q.triple for q in source.quads()))  # a triple in two named graphs is one


def as_ntriples(triples: list[ox.Triple]) -> str:
    return ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES).decode("utf-8") if triples else ""


def refuse_restated_outcomes(triples: list[ox.Triple], ctx) -> None:
    """An assertion (by IRI) another source already holds may not be given another outcome here:
    both would stand, and the verdict would quietly turn "conflicting". A correction is a new
    assertion that supersedes the old one."""
    results: dict[ox.Term, set] = {}
    for t in triples:
        if t.predicate == RESULT and isinstance(t.subject, ox.NamedNode):
            results.setdefault(t.object, set()).add(t.subject)
    stated: dict[str, set[str]] = {}
    for t in triples:
        if t.predicate == OUTCOME:
            for assertion in results.get(t.subject, ()):
                stated.setdefault(assertion.value, set()).add(t.object.value)
    wanted = sorted(stated)
    for start in range(0, len(wanted), VALUES_CHUNK):
        values = " ".join(str(ox.NamedNode(i)) for i in wanted[start:start + VALUES_CHUNK])
        rows = ctx.select(f"""SELECT ?s ?o ?path WHERE {{ VALUES ?s {{ {values} }}
                                GRAPH ?g {{ ?s earl:result ?r }} GRAPH ?h {{ ?r earl:outcome ?o }}
                                FILTER(?g != ?this_graph) GRAPH <urn:kg:catalogue> {{ ?g kg:path ?path }} }}""")
        loaded: dict[str, tuple[set[str], str]] = {}
        for s, o, path in rows:
            loaded.setdefault(s.value, (set(), path.value))[0].add(o.value)
        for a, (outcomes, path) in sorted(loaded.items()):
            if outcomes != stated[a]:
                ctx.problem(f"focus node <{a}>",
                            f"assertion <{a}> is already loaded from {path} with outcome "
                            f"{_short(outcomes)}; this file gives it {_short(stated[a])}",
                            "an assertion is stated once; a correction is a new assertion with apeval:supersedes, "
                            "or drop the other source first")


def _short(outcomes: set[str]) -> str:
    return " and ".join(sorted(o.replace(EARL, "earl:") for o in outcomes))


def speaks_earl(path, head: bytes) -> bool:
    """EARL results, not a file that merely declares the namespace: it must use an assertion term."""
    return b"http://www.w3.org/ns/earl#" in head and any(t in head for t in (b"Assertion", b"result", b"outcome", b"TestSubject", b"Assertor"))


@loader(kind="earl", parse="rdf", patterns=RDF_PATTERNS, shapes="earl.ttl", order=40, sniff=speaks_earl)
def read_earl(source, ctx):
    triples = triples_of(source)
    refuse_restated_outcomes(triples, ctx)
    refuse_unsound_supersessions(triples, ctx)
    return Projection(as_ntriples(triples))


def refuse_unsound_supersessions(triples: list[ox.Triple], ctx) -> None:
    """apeval:supersedes must name an assertion in this file or loaded, of the same system, case and
    grader, and its chain must neither cycle nor end nowhere (kg.lookups.check_supersessions)."""
    edges = sorted((f"focus node <{t.subject.value}>", t.subject.value, t.object.value) for t in triples
                   if t.predicate == SUPERSEDES and isinstance(t.subject, ox.NamedNode) and isinstance(t.object, ox.NamedNode))
    if not edges:
        return
    parts: dict[str, dict] = {}
    for t in triples:
        if t.predicate in KEY and isinstance(t.subject, ox.NamedNode):
            parts.setdefault(t.subject.value, {})[t.predicate] = t.object.value
    keys = {a: tuple(ps[k] for k in KEY) for a, ps in parts.items() if len(ps) == len(KEY)}
    here = {t.subject.value for t in triples if t.predicate == RESULT and isinstance(t.subject, ox.NamedNode)}
    loaded = loaded_among(ctx, {older for _, _, older in edges if older not in here}, "earl:result ?result")
    for place, newer, older in edges:
        if older == newer:
            ctx.problem(place, "an assertion cannot supersede itself", "remove its apeval:supersedes")
        elif older not in here and older not in loaded:
            ctx.problem(place, f"assertion <{older}> is neither in this file nor loaded",
                        "supersede an assertion that exists; load its file first")
    check_supersessions(ctx, [e for e in edges if e[1] != e[2]], keys)


@loader(kind="ontology", parse="rdf", patterns=RDF_PATTERNS, shapes="ontology.ttl", order=5)
def read_ontology(source, ctx):
    return Projection(as_ntriples(triples_of(source)))
