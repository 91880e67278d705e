"""RDF files: EARL reports and domain ontologies, in any syntax Oxigraph reads.

Both keep the file's triples as they are (relative IRIs resolved against the file's own
location, blank nodes renamed apart, named graphs of TriG/N-Quads folded into the source's
graph). What real EARL reports do loosely — blank-node assertions, earl:mode on the result,
outcomes outside EARL, ill-typed dates — is reported by shapes/earl.ttl as warnings, not
rejected."""
from typing import Iterator

import pyoxigraph as ox

from kg.loading import Projection, as_ntriples, loader
from kg.lookups import SELECTION_NOTATIONS, VALUES_CHUNK, GoldSkills, check_selection, check_supersessions, loaded_among
from kg.store import SPARQL_PREFIXES

RDF_PATTERNS = ("*.ttl", "*.nt", "*.nq", "*.trig", "*.rdf", "*.owl", "*.xml", "*.jsonld", "*.n3")


EARL = "http://www.w3.org/ns/earl#"
RESULT, OUTCOME = ox.NamedNode(EARL + "result"), ox.NamedNode(EARL + "outcome")
APEVAL = "https://agenticprimitives.dev/ns/evaluation#"
SUPERSEDES = ox.NamedNode(APEVAL + "supersedes")
SELECTION, TEST = ox.NamedNode(APEVAL + "selectionOutcome"), ox.NamedNode(EARL + "test")
KEY = (ox.NamedNode(EARL + "subject"), ox.NamedNode(EARL + "test"), ox.NamedNode(EARL + "assertedBy"))


def triples_of(source) -> list[ox.Triple]:
    return list(dict.fromkeys(q.triple for q in source.quads()))  # a triple in two named graphs is one


def projection_of(source, ctx, check=None) -> Projection:
    """The file's triples as they are, with `check(facts)` run over what they state (InMemory or
    Written): held whole, or, for a streamed load of a big file in a syntax read as it goes, a chunk
    at a time, the checks then reading the graph the chunks were written to."""
    if ctx.streamed and source.streams_rdf():
        return Projection(source.triple_chunks(),  # triples, not text: a blank node is one across chunks
                          check_written=(lambda graph: check(Written(ctx, graph))) if check else None)
    triples = triples_of(source)
    if check:
        check(InMemory(triples))
    return Projection(as_ntriples(triples))


class InMemory:
    """What the EARL checks read of a file, from its triples held in memory."""

    def __init__(self, triples: list[ox.Triple]):
        results: dict[ox.Term, set[str]] = {}
        for t in triples:
            if t.predicate == RESULT and isinstance(t.subject, ox.NamedNode):
                results.setdefault(t.object, set()).add(t.subject.value)
        self._outcomes: dict[str, set[str]] = {}
        for t in triples:
            if t.predicate == OUTCOME:
                for assertion in results.get(t.subject, ()):
                    self._outcomes.setdefault(assertion, set()).add(t.object.value)
        self._with_result = {a for assertions in results.values() for a in assertions}
        self._edges = [(t.subject.value, t.object.value) for t in triples
                       if t.predicate == SUPERSEDES and isinstance(t.subject, ox.NamedNode) and isinstance(t.object, ox.NamedNode)]
        self._triples = triples if self._edges else []  # keys are only asked for when the file supersedes
        selected = {t.subject: t.object.value for t in triples if t.predicate == SELECTION and isinstance(t.object, ox.NamedNode)}
        tests = {t.subject.value: t.object.value for t in triples
                 if t.predicate == TEST and isinstance(t.subject, ox.NamedNode) and isinstance(t.object, ox.NamedNode)}
        self._selections = sorted((a, tests[a], selected[r]) for r in selected for a in results.get(r, ()) if a in tests)

    def selections(self) -> list[tuple[str, str, str]]:
        """(assertion, its earl:test, its result's apeval:selectionOutcome) for each IRI assertion."""
        return self._selections

    def stated_outcomes(self) -> Iterator[dict[str, set[str]]]:
        wanted = sorted(self._outcomes)
        for start in range(0, len(wanted), VALUES_CHUNK):
            yield {a: self._outcomes[a] for a in wanted[start:start + VALUES_CHUNK]}

    def supersessions(self) -> list[tuple[str, str]]:
        return self._edges

    def with_result(self, assertions: set[str]) -> set[str]:
        return assertions & self._with_result

    def keys(self) -> dict[str, tuple[str, str, str]]:
        parts: dict[str, dict] = {}
        for t in self._triples:
            if t.predicate in KEY and isinstance(t.subject, ox.NamedNode):
                parts.setdefault(t.subject.value, {})[t.predicate] = t.object.value
        return {a: tuple(ps[k] for k in KEY) for a, ps in parts.items() if len(ps) == len(KEY)}


class Written:
    """What the EARL checks read of a file, from the graph its chunks were written to (a streamed
    load): asked a chunk of assertions at a time, never the whole file in Python. Of the file's
    stated outcomes only those of assertions another graph also holds are read: no other can be
    restated."""

    def __init__(self, ctx, graph: str):
        self._ctx, self._graph = ctx, ox.NamedNode(graph)

    def select(self, query: str, **bindings) -> list[tuple]:
        """A SELECT with ?written bound to the written graph and ?this_graph to the source's own."""
        return self._ctx.select(query, written=self._graph, **bindings)

    def stated_outcomes(self) -> Iterator[dict[str, set[str]]]:
        # elsewhere: in a graph that is neither what is written now nor this file's old version
        elsewhere = sorted({s.value for s, in self.select("""SELECT DISTINCT ?s WHERE {
            GRAPH ?written { ?s earl:result ?r } GRAPH ?g { ?s earl:result ?other }
            FILTER(isIRI(?s) && ?g != ?written && ?g != ?this_graph) }""")})
        for start in range(0, len(elsewhere), VALUES_CHUNK):
            values = " ".join(str(ox.NamedNode(a)) for a in elsewhere[start:start + VALUES_CHUNK])
            stated: dict[str, set[str]] = {}
            for s, o in self.select(f"""SELECT ?s ?o WHERE {{ VALUES ?s {{ {values} }}
                                      GRAPH ?written {{ ?s earl:result ?r . ?r earl:outcome ?o }} }}"""):
                stated.setdefault(s.value, set()).add(o.value)
            yield stated

    def supersessions(self) -> list[tuple[str, str]]:
        return [(n.value, o.value) for n, o in self.select(
            "SELECT ?n ?o WHERE { GRAPH ?written { ?n apeval:supersedes ?o } FILTER(isIRI(?n) && isIRI(?o)) }")]

    def with_result(self, assertions: set[str]) -> set[str]:
        found: set[str] = set()
        wanted = sorted(assertions)
        for start in range(0, len(wanted), VALUES_CHUNK):
            values = " ".join(str(ox.NamedNode(a)) for a in wanted[start:start + VALUES_CHUNK])
            found |= {s.value for s, in self.select(f"""SELECT DISTINCT ?s WHERE {{
                VALUES ?s {{ {values} }} GRAPH ?written {{ ?s earl:result ?r }} }}""")}
        return found

    def keys(self) -> "WrittenKeys":
        return WrittenKeys(self)

    def selections(self) -> list[tuple[str, str, str]]:
        # one row per distinct (test, outcome) would do for the check; the assertion names the place
        return [(a.value, t.value, o.value) for a, t, o in self.select("""SELECT ?a ?t ?o WHERE { GRAPH ?written {
            ?a earl:test ?t ; earl:result ?r . ?r apeval:selectionOutcome ?o } FILTER(isIRI(?a) && isIRI(?t) && isIRI(?o)) }""")]


class WrittenKeys:
    """A written file's assertions → (system, case, grader), looked up as the supersession check asks."""

    def __init__(self, written: Written):
        self._written = written
        self._known: dict[str, tuple | None] = {}

    def get(self, assertion: str, default=None):
        if assertion not in self._known:
            rows = self._written.select("""SELECT ?system ?case ?grader WHERE {
                GRAPH ?written { ?assertion earl:subject ?system ; earl:test ?case ; earl:assertedBy ?grader } }""",
                                        assertion=ox.NamedNode(assertion))
            # one of each, as the in-memory reading keeps the last of several: the shapes refuse several
            self._known[assertion] = tuple(term.value for term in rows[-1]) if rows else None
        found = self._known[assertion]
        return default if found is None else found

    def __contains__(self, assertion: str) -> bool:
        return self.get(assertion) is not None


def refuse_restated_outcomes(facts, ctx) -> None:
    """An assertion (by IRI) another source already holds may not be given another outcome here:
    both would stand, and the verdict would quietly turn "conflicting". A correction is a new
    assertion that supersedes the old one."""
    for stated in facts.stated_outcomes():
        values = " ".join(str(ox.NamedNode(i)) for i in sorted(stated))
        rows = ctx.select(f"""SELECT ?s ?o ?path WHERE {{ VALUES ?s {{ {values} }}
                                GRAPH ?g {{ ?s earl:result ?r }} GRAPH ?h {{ ?r earl:outcome ?o }}
                                FILTER(?g != ?this_graph) GRAPH <urn:kg:catalogue> {{ ?g kg:path ?path }} }}""") if stated else []
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


# The grader kind of an assertion that states none, read from what EARL says of how it was made (the
# one definition, run over the file's triples held in memory, or over the graph a streamed file was
# written to): its assertor's apeval:judgeKind; else its earl:mode (on the assertion, or on its result
# where real reports put it) - earl:automatic, "carried out automatically by the software tool and
# without any human intervention" (EARL 1.0), is a mechanical grader: a W3C implementation report's
# assertor is the suite's test harness comparing an implementation's output with the expected result;
# earl:manual, "carried out by human evaluators", is a human one. semiAuto, undisclosed, unknownMode
# and no mode say nothing of the kind: left undeclared. An assertion whose modes say two kinds is
# left undeclared too. A model grader writing EARL states apeval:graderKind "model", and is read so.
DEFAULT_KIND = """SELECT ?a (SAMPLE(?k) AS ?kind) WHERE {
  ?a earl:result ?r .
  FILTER NOT EXISTS { ?a apeval:graderKind ?stated }
  OPTIONAL { ?a earl:assertedBy ?assertor . ?assertor apeval:judgeKind ?judge_kind }
  OPTIONAL { { ?a earl:mode ?mode } UNION { ?r earl:mode ?mode } }
  BIND(COALESCE(?judge_kind, IF(?mode = earl:automatic, "mechanical", IF(?mode = earl:manual, "human", ?none))) AS ?k)
} GROUP BY ?a HAVING (COUNT(DISTINCT ?k) = 1 && COUNT(?k) = COUNT(*))"""
GRADER_KIND = ox.NamedNode("https://agenticprimitives.dev/ns/evaluation#graderKind")


def default_kinds(triples: list[ox.Triple]) -> list[ox.Triple]:
    """apeval:graderKind for the assertions of these triples that state none (DEFAULT_KIND)."""
    scratch = ox.Store()
    scratch.extend(ox.Quad(t.subject, t.predicate, t.object) for t in triples)
    return [ox.Triple(row["a"], GRADER_KIND, row["kind"])
            for row in scratch.query(SPARQL_PREFIXES + DEFAULT_KIND) if row["kind"] is not None]


def write_default_kinds(ctx, graph: str) -> None:
    """DEFAULT_KIND over the graph a streamed file was written to, its kinds written there."""
    ctx.store.update(SPARQL_PREFIXES + f"INSERT {{ GRAPH <{graph}> {{ ?a apeval:graderKind ?kind }} }} "
                     f"WHERE {{ GRAPH <{graph}> {{ {DEFAULT_KIND} }} FILTER(BOUND(?kind)) }}")


@loader(kind="earl", parse="rdf", patterns=RDF_PATTERNS, shapes="earl.ttl", order=40, sniff=speaks_earl)
def read_earl(source, ctx):
    def check(facts) -> None:
        refuse_restated_outcomes(facts, ctx)
        refuse_unsound_supersessions(facts, ctx)
        refuse_impossible_selections(facts, ctx)
    if ctx.streamed and source.streams_rdf():
        def check_written(graph: str) -> None:
            check(Written(ctx, graph))
            write_default_kinds(ctx, graph)
        return Projection(source.triple_chunks(), check_written=check_written)
    triples = triples_of(source)
    check(InMemory(triples))
    return Projection(as_ntriples(triples + default_kinds(triples)))


def refuse_impossible_selections(facts, ctx) -> None:
    """A selection outcome the loaded gold rules out (kg.lookups.check_selection), as in JSON Lines."""
    gold = GoldSkills(ctx)
    for assertion, test, outcome in facts.selections():
        notation = SELECTION_NOTATIONS.get(outcome.removeprefix(APEVAL))
        if notation:
            check_selection(ctx, gold, f"focus node <{assertion}>", test, notation)


def refuse_unsound_supersessions(facts, ctx) -> None:
    """apeval:supersedes must name an assertion in this file or loaded, of the same system, case and
    grader, and its chain must neither cycle nor end nowhere (kg.lookups.check_supersessions)."""
    edges = sorted((f"focus node <{newer}>", newer, older) for newer, older in facts.supersessions())
    if not edges:
        return
    olders = {older for _, _, older in edges}
    here = facts.with_result(olders)
    loaded = loaded_among(ctx, {older for older in olders if older not in here}, "earl:result ?result")
    for place, newer, older in edges:
        if older == newer:
            ctx.problem(place, "an assertion cannot supersede itself", "remove its apeval:supersedes")
        elif older not in here and older not in loaded:
            ctx.problem(place, f"assertion <{older}> is neither in this file nor loaded",
                        "supersede an assertion that exists; load its file first")
    check_supersessions(ctx, [e for e in edges if e[1] != e[2]], facts.keys())


@loader(kind="ontology", parse="rdf", patterns=RDF_PATTERNS, shapes="ontology.ttl", order=5)
def read_ontology(source, ctx):
    return projection_of(source, ctx)
