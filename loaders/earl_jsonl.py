"""EARL results as JSON Lines (*.earl.jsonl) → earl:Assertion and earl:TestResult, one per line.

earl:subject is the system under test, earl:test the intent, earl:assertedBy the grader (an
apeval:Judge with its apeval:judgeKind); the assertion carries apeval:trialIndex and
apeval:graderKind, the result earl:outcome, apeval:failureCause, apeval:selectionOutcome and
apeval:deliveredSituation; the run (prov:Activity) its prov:startedAtTime from "runStartedAt" and, from "components", the
components it was built from (prov:used, each a prov:Entity with kg:componentKind and
kg:componentDigest, the terms an experiment plan pins a variant's components with).
A grader with no declared kind gets no apeval:graderKind: the
queries read it as "undeclared", never as any declared kind.

A line's "measurements" are apeval run measurements (apeval:RunMeasurement, one per metric, in
an apeval:RunMeasures record) of the run the line judges: dqv:computedOn its `run`, or the
assertion itself when the line names no run. A metric left out or null was not reported and
gets no triple (never estimated); two lines giving one run two values of a metric are refused."""
import json

import pyoxigraph as ox

from kg.jsonio import MAX_PROBLEMS
from kg.loading import Projection, loader
from kg.lookups import GoldSkills, check_selection, check_supersessions, loaded_into, path_of
from kg.runs import RunRows
from kg.spill import Keys, Spill
from kg.terms import METRIC_UNITS, XSD, Triples, decimal, declare, iri, literal, metric_iri, p

SELECTION = {"tp": "so-tp", "tp-alt": "so-tpAlt", "mis-sib": "so-misSib", "mis-far": "so-misFar",
             "miss": "so-miss", "tn": "so-tn", "spur": "so-spur", "undetected": "so-undetected"}


# lines projected per chunk of triples: a file is read, checked and written a chunk at a time, so
# what a load holds in memory is a chunk's rows and triples, not the file's (BENCHMARKS.md)
CHUNK_LINES = 5_000


@loader(kind="earl-jsonl", parse="jsonl", patterns=("*.earl.jsonl",), schema="earl-jsonl.schema.json",
        shapes="earl.ttl", order=40)
def read_earl_jsonl(source, ctx):
    """Two passes over the file, a line at a time. The first checks every line (JSON, schema) and
    gathers what the lines say about each other: each assertion's IRI and line (ids are unique in
    the file and in the store), the situations and assertions they cite. The second, lazily, makes
    the triples a chunk of CHUNK_LINES lines at a time; its problems (a line's own, and the
    supersessions of the whole file, checked at its end) are known once it is spent."""
    refs = RunRows(ctx)
    # the file's keys, kept on disk by SQLite (kg/spill.py): what they take does not grow with the file
    spill = Spill(source.name)
    with spill.closed_on_error():
        ids = spill.unique("assertion id")  # the file's ids, each with its first place
        here, cited_situations, cited_assertions = spill.keys(), spill.keys(), spill.keys()
        for n, row in source.jsonl_stream():
            ids.see(row["id"], f"line {n}, /id")
            mint = refs.minter(row)
            a = ctx.mint(f"line {n}, /id", lambda: mint.iri(row["id"], "assertion"))
            if a:
                here.add(a, n)
            for field, scope, cited in (("situation", "situation", cited_situations),
                                        ("supersedes", "assertion", cited_assertions)):
                if row.get(field):
                    try:
                        cited.add(mint.iri(row[field], scope))
                    except ValueError:
                        pass  # reported with its place in the main pass
        ctx.say_first(ids.problems)
        situations, earlier = spill.keys(), spill.keys()
        loaded_into(ctx, cited_situations, "a apeval:DeliveredSituation", situations)
        for keys in (here, cited_assertions):
            loaded_into(ctx, keys, "a earl:Assertion", earlier)
        for a, line in here.common(earlier, MAX_PROBLEMS):
            ctx.problem(f"line {line}, /id", f"assertion <{a}> is already loaded from another source",
                        "assertion ids are unique across the store; a correction is a new assertion that supersedes")
    return Projection(spill.closing(_triples(source, ctx, refs, spill, here, cited_assertions, situations, earlier)))


def _triples(source, ctx, refs, spill, here, cited_assertions, situations, earlier):
    """The second pass: N-Triples text a chunk at a time (see read_earl_jsonl)."""
    graders: dict[str, tuple[int, str | None]] = {}
    # the supersession check's facts, kept for the assertions a supersession names only
    edges, keys, names = [], {}, {}
    measured = spill.keys()  # (measured node, metric) -> (first line, value)
    built = spill.keys()  # (run, component kind) -> (first line, digest)
    checked_graders: set[str] = set()
    gold = GoldSkills(ctx)
    t, lines = Triples(), 0
    for n, row in source.jsonl_stream(checked=False):  # the first pass checked them
        lines += 1
        if lines % CHUNK_LINES == 0:
            yield t.text()
            t = Triples()
        mint = refs.minter(row)
        intent = refs.intent(n, row, mint)
        try:
            a_iri = mint.iri(row["id"], "assertion")
        except ValueError:
            continue  # reported in the first pass
        if intent is None:
            continue
        ran = refs.run(t, n, row, mint, intent)
        if ran is None:
            continue
        run, system = ran
        if row.get("runStartedAt"):
            if run is None:
                ctx.problem(f"line {n}, /runStartedAt", "a run start time needs the run it is the start of",
                            'give the line its "run" id, or remove "runStartedAt"')
            else:
                t.add(iri(run), p("prov:startedAtTime"), literal(row["runStartedAt"], XSD + "dateTime"))
        if row.get("components"):
            if run is None:
                ctx.problem(f"line {n}, /components", "components are those of the run that was built from them",
                            'give the line its "run" id, or remove "components"')
            else:
                components(t, ctx, built, n, run, row["components"])
        grader = row["grader"]
        g_iri = ctx.mint(f"line {n}, /grader/id", lambda: mint.iri(grader["id"], "grader"))
        if g_iri is None:
            continue
        kind = grader.get("kind")
        if g_iri in graders and graders[g_iri][1] != kind:
            first_line, first_kind = graders[g_iri]
            ctx.problem(f"line {n}, /grader/kind", f'grader "{grader["id"]}" is declared {kind or "without a kind"} '
                        f"here but {first_kind or 'without a kind'} on line {first_line}",
                        "a grader has one kind; give a different grader its own id")
        graders.setdefault(g_iri, (n, kind))
        if g_iri not in checked_graders:
            checked_graders.add(g_iri)
            refuse_other_kind(ctx, n, grader["id"], g_iri, kind)
        outcome = row["outcome"]
        cause = row.get("failureCause")
        if cause and outcome != "cantTell":
            ctx.problem(f"line {n}, /failureCause", f"a failure cause explains a cantTell, found one on {outcome}",
                        'remove "failureCause", or make the outcome "cantTell"')

        a, r, g = iri(a_iri), iri(mint.under(row["id"], "result")), iri(g_iri)
        asserted_by = g_iri
        declare(t, g_iri, "apeval:Judge", grader["id"])
        t.add(g, p("rdf:type"), p("earl:Assertor"))
        if kind:
            t.add(g, p("apeval:judgeKind"), literal(kind))
        implementation = grader.get("implementation")
        if implementation:
            # a grader version: another implementation (code, prompt) is another version, and the
            # verdicts of each are kept apart (asserted by the version, a prov:specializationOf the grader)
            version_iri = mint.under(implementation, "grader", grader["id"], "version")
            version = iri(version_iri)
            t.add(version, p("rdf:type"), p("apeval:Judge"))
            t.add(version, p("rdf:type"), p("earl:Assertor"))
            t.add(version, p("prov:specializationOf"), g)
            t.add(version, p("apeval:evaluatorImplementation"), literal(implementation))
            t.add(version, p("rdfs:label"), literal(f"{grader['id']} {short(implementation)}"))
            if kind:
                t.add(version, p("apeval:judgeKind"), literal(kind))
            g, asserted_by = version, version_iri
        if row.get("supersedes") or a_iri in cited_assertions:
            # keyed by who asserts it (the grader's version when it names one), as a loaded
            # assertion's earl:assertedBy is read: a correction by the same version is the same grader
            keys[a_iri] = (system, intent, asserted_by)
            names[a_iri] = row["id"]
        t.add(a, p("rdf:type"), p("earl:Assertion"))
        t.add(a, p("dcterms:identifier"), literal(row["id"]))
        t.add(a, p("earl:subject"), iri(system))
        t.add(a, p("earl:test"), iri(intent))
        t.add(a, p("earl:assertedBy"), g)
        t.add(a, p("earl:result"), r)
        t.add(a, p("apeval:trialIndex"), literal(int(row.get("trial") or 0)))
        if kind:
            t.add(a, p("apeval:graderKind"), literal(kind))
        if row.get("mode"):
            t.add(a, p("earl:mode"), p(f"earl:{row['mode']}"))
        if run:
            t.add(a, p("prov:used"), iri(run))
        if row.get("criterionDigest"):
            t.add(a, p("apeval:criterionDigest"), literal(row["criterionDigest"]))
        if row.get("supersedes"):
            old = ctx.mint(f"line {n}, /supersedes", lambda: mint.iri(row["supersedes"], "assertion"))
            if old and old not in here and old not in earlier:
                ctx.problem(f"line {n}, /supersedes", f'assertion "{row["supersedes"]}" is neither in this file nor loaded',
                            "supersede an assertion that exists; load its file first")
            elif old == a_iri:
                ctx.problem(f"line {n}, /supersedes", "an assertion cannot supersede itself")
            elif old:
                t.add(a, p("apeval:supersedes"), iri(old))
                edges.append((f"line {n}, /supersedes", a_iri, old))
        t.add(r, p("rdf:type"), p("earl:TestResult"))
        t.add(r, p("earl:outcome"), p(f"earl:{outcome}"))
        if cause:
            t.add(r, p("apeval:failureCause"), p(f"apeval:fc-{cause}"))
        if row.get("selectionOutcome"):
            check_selection(ctx, gold, f"line {n}, /selectionOutcome", intent, row["selectionOutcome"])
            t.add(r, p("apeval:selectionOutcome"), p(f"apeval:{SELECTION[row['selectionOutcome']]}"))
        if row.get("chargedTo"):
            t.add(r, p("apeval:chargedTo"), literal(row["chargedTo"]))
        if row.get("evidenceKind"):
            t.add(r, p("apeval:evidenceKind"), literal(row["evidenceKind"]))
        if row.get("date"):
            t.add(r, p("dcterms:date"), literal(row["date"], XSD + "dateTime"))
        if row.get("info"):
            t.add(r, p("earl:info"), literal(row["info"]))
        if row.get("measurements"):
            target, scope = (run, ("run", row["run"])) if run else (a_iri, ("assertion", row["id"]))
            measure(t, ctx, measured, n, target, mint.under("measures", "measurement", *scope),
                    row["measurements"])
        if row.get("situation"):
            sit = ctx.mint(f"line {n}, /situation", lambda: mint.iri(row["situation"], "situation"))
            if sit and sit not in situations:
                ctx.problem(f"line {n}, /situation", f'situation "{row["situation"]}" is not loaded',
                            "load the *.situations.jsonl that holds it first, or in the same command")
            elif sit:
                t.add(r, p("apeval:deliveredSituation"), iri(sit))
    check_supersessions(ctx, edges, keys, names)
    yield t.text()


def short(implementation: str) -> str:
    """A label's form of an implementation: a digest to its first 12 hex digits, other text as it is."""
    algorithm, _, digest = implementation.partition(":")
    return f"{algorithm}:{digest[:12]}" if algorithm == "sha256" and len(digest) > 12 else implementation


def refuse_other_kind(ctx, line: int, grader_id: str, grader: str, kind: str | None) -> None:
    """A grader has one kind across the store: another source declaring it with another kind (or
    with none) is named with its file.

    Asked as patterns the engine answers from its indexes, never as one join of every declaration:
    a folder of one-run files declares the grader in each, and a join over them all (with its
    catalogue path, or a NOT EXISTS per graph) made each file's load grow with the files before it
    (88 ms a file after 5,000; 3.6 ms so, BENCHMARKS.md)."""
    # kept for the rest of the load once another source declares the grader with this kind: no file
    # with another kind can then load beside it (BaseStore.checked)
    kept, key = ctx.store.checked, ("grader kind", grader, kind)
    if kept is not None and key in kept:
        return
    node = ox.NamedNode(grader)
    # another source giving the grader another kind (any kind at all, when this file gives none: "")
    other_kind = ("SELECT ?kind ?g WHERE { GRAPH ?g { ?grader apeval:judgeKind ?kind } "
                  "FILTER(?g != ?this_graph && STR(?kind) != ?declared) } LIMIT 1")
    rows = ctx.select(other_kind, grader=node, declared=ox.Literal(kind if kind is not None else ""))
    # how many other sources declare the grader, and how many of them give it a kind
    counts = ctx.select("""SELECT (COUNT(DISTINCT ?g) AS ?declared) (COUNT(DISTINCT ?k) AS ?kinded) WHERE {
                             { GRAPH ?g { ?grader a apeval:Judge } FILTER(?g != ?this_graph) } UNION
                             { GRAPH ?k { ?grader apeval:judgeKind ?any } FILTER(?k != ?this_graph) } }""",
                        grader=node) if not rows else []
    declared, kinded = (int(counts[0][0].value), int(counts[0][1].value)) if counts else (0, 0)
    if not rows and kind is not None and declared > kinded:
        # a declaration without a kind
        rows = ctx.select("""SELECT ?kind ?g WHERE { GRAPH ?g { ?grader a apeval:Judge }
                               FILTER(?g != ?this_graph)
                               FILTER NOT EXISTS { GRAPH ?g { ?grader apeval:judgeKind ?kind } } } LIMIT 1""",
                          grader=node)
    if not rows:
        if kept is not None and (kinded if kind is not None else declared > kinded):
            kept[key] = True
        return
    for other_kind, graph in rows:
        other = other_kind.value if other_kind is not None else None
        if other != kind:
            ctx.problem(f"line {line}, /grader/kind",
                        f'grader "{grader_id}" is declared {kind or "without a kind"} here but '
                        f"{other or 'without a kind'} in {path_of(ctx, graph)}",
                        "a grader has one kind; give a different grader its own id")
            return


def _once(ctx, seen: Keys, key: tuple[str, str], line: int, value, place: str, what: str, fix: str) -> bool:
    """Whether `value` agrees with the first line that gave `key` one (a run states a fact once);
    when not, a problem naming both lines."""
    first = json.loads(seen.add("\0".join(key), json.dumps([line, value])))
    if first[1] == value:
        return True
    ctx.problem(f"line {line}, {place}", f"the run is given {what} {value} here but {first[1]} on line {first[0]}", fix)
    return False


def components(t: Triples, ctx, built: Keys, line: int, run: str, stated: dict[str, str]) -> None:
    """The components the run was built from, in the terms an experiment plan pins a variant's with
    (kg:componentKind, kg:componentDigest on a prov:Entity), each one the run prov:used:
    {run}/component/{kind}. A run is one build: two lines of the file giving it two digests of a
    component are refused."""
    for kind, digest in sorted(stated.items()):
        if not _once(ctx, built, (run, kind), line, digest, f"/components/{kind}", kind,
                     "a run is one build; give each run its own id, or correct one line"):
            continue
        c = iri(f"{run}/component/{kind}")
        t.add(iri(run), p("prov:used"), c)
        t.add(c, p("rdf:type"), p("prov:Entity"))
        t.add(c, p("kg:componentKind"), literal(kind))
        t.add(c, p("kg:componentDigest"), literal(digest))


def measure(t: Triples, ctx, measured: Keys, line: int, target: str, record: str, values: dict) -> None:
    """apeval's form: a RunMeasures record of the run holding one RunMeasurement per reported metric,
    each a metric (dqv:isMeasurementOf), a value (dqv:value) and a unit (apeval:unit)."""
    reported = {notation: value for notation, value in values.items() if value is not None}
    for notation, value in reported.items():
        if not _once(ctx, measured, (target, notation), line, value, f"/measurements/{notation}", notation,
                     "a run has one value of each metric; give each run its own id, or correct one line"):
            return
    if not reported:
        return
    rec = iri(record)
    t.add(rec, p("rdf:type"), p("apeval:RunMeasures"))
    t.add(rec, p("prov:wasDerivedFrom"), iri(target))
    for notation, value in reported.items():
        m = iri(f"{record}/{notation}")
        t.add(rec, p("apeval:hasMeasurement"), m)
        t.add(m, p("rdf:type"), p("apeval:RunMeasurement"))
        t.add(m, p("dqv:isMeasurementOf"), iri(metric_iri(notation)))
        t.add(m, p("dqv:computedOn"), iri(target))
        t.add(m, p("dqv:value"), decimal(value))
        t.add(m, p("apeval:unit"), literal(METRIC_UNITS[notation]))
