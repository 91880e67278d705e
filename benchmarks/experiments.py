"""Experiments behind the proposals in BENCHMARKS.md: what each engine change would buy, measured
on one realistic EARL file (and its store), without changing kg.

    python benchmarks/experiments.py [--intents 1000] [--repeat 3] [--out benchmarks/experiments.json]

1. validation — one EARL file's triples (the loader's own N-Triples) checked by
   a) kg today: validation.check (rdflib parse + pyshacl with shapes/earl.ttl);
   b) the same without the "conflicting trial" SPARQL constraint of kgsh:FileLoose;
   c) the same without any sh:sparql constraint (kgsh:FileLoose, kgsh:FileNotes);
   d) pyoxigraph: parse into an in-memory store and run every constraint of earl.ttl as a SPARQL
      SELECT (hand-compiled here; a prototype of "compile the hot constraints to SPARQL");
   e) the "conflicting" check alone: as written (pairwise self-join) vs GROUP BY … HAVING, in pyoxigraph.
2. the store write — the same N-Triples into a fresh on-disk store: staging graph + MOVE (kg today)
   vs straight into the source's graph, vs bulk_load.
3. JSON Schema — the EARL rows through jsonschema (kg today) vs fastjsonschema (compiled).
4. lookups — `instances(ctx, "earl:Assertion")` (every loaded assertion, read to check for
   clashes) vs asking only about this file's ids (VALUES), at two store sizes.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

EARL = "http://www.w3.org/ns/earl#"
APEVAL = "https://agenticprimitives.dev/ns/evaluation#"
P = f"PREFIX earl: <{EARL}> PREFIX apeval: <{APEVAL}> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> " \
    f"PREFIX dcterms: <http://purl.org/dc/terms/> PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> "

# earl.ttl, constraint by constraint, as SELECTs of the offending focus nodes
COMPILED = {
    "AssertionFacts graderKind": """SELECT ?a WHERE { { ?a a earl:Assertion } UNION { ?a earl:result ?r0 }
        ?a apeval:graderKind ?k } GROUP BY ?a HAVING (COUNT(DISTINCT ?k) > 1 || SUM(IF(?k IN ("mechanical", "model", "human"), 0, 1)) > 0)""",
    "AssertionFacts trialIndex": """SELECT ?a WHERE { { ?a a earl:Assertion } UNION { ?a earl:result ?r0 }
        ?a apeval:trialIndex ?t } GROUP BY ?a HAVING (COUNT(DISTINCT ?t) > 1 ||
        SUM(IF(DATATYPE(?t) = xsd:integer && ?t >= 0, 0, 1)) > 0)""",
    "ResultFacts failureCause": """SELECT ?r WHERE { ?x earl:result ?r . ?r apeval:failureCause ?c } GROUP BY ?r
        HAVING (COUNT(DISTINCT ?c) > 1 || SUM(IF(?c IN (apeval:fc-agent, apeval:fc-grader, apeval:fc-environment), 0, 1)) > 0)""",
    "CauseOnlyOnCantTell": """SELECT ?r WHERE { ?r apeval:failureCause ?c FILTER NOT EXISTS { ?r earl:outcome earl:cantTell } }""",
    "JudgeKind": """SELECT ?j WHERE { ?j apeval:judgeKind ?k } GROUP BY ?j
        HAVING (COUNT(DISTINCT ?k) > 1 || SUM(IF(?k IN ("mechanical", "model", "human"), 0, 1)) > 0)""",
    "AssertionLoose": """SELECT DISTINCT ?a WHERE { { ?a a earl:Assertion } UNION { ?a earl:result ?r0 }
        { FILTER(!isIRI(?a)) } UNION { FILTER NOT EXISTS { ?a earl:test ?t } } UNION { FILTER NOT EXISTS { ?a earl:mode ?m } }
        UNION { { SELECT ?a (COUNT(?r) AS ?n) WHERE { ?a earl:result ?r } GROUP BY ?a } FILTER(?n != 1) } }""",
    "ResultLoose": """SELECT DISTINCT ?r WHERE { ?x earl:result ?r .
        { FILTER NOT EXISTS { ?r a earl:TestResult } } UNION { ?r earl:mode ?m }
        UNION { ?r earl:outcome ?o FILTER(?o NOT IN (earl:passed, earl:failed, earl:cantTell, earl:inapplicable, earl:untested)) }
        UNION { { SELECT ?r (COUNT(?o) AS ?n) WHERE { ?x2 earl:result ?r OPTIONAL { ?r earl:outcome ?o } } GROUP BY ?r } FILTER(?n != 1) } }""",
}
CONFLICT_PAIRWISE = """SELECT DISTINCT ?value WHERE {
        ?a earl:subject ?s ; earl:test ?value ; earl:result/earl:outcome ?o1 .
        ?b earl:subject ?s ; earl:test ?value ; earl:result/earl:outcome ?o2 .
        FILTER(?a != ?b && ?o1 != ?o2)
        OPTIONAL { ?a apeval:trialIndex ?ta } OPTIONAL { ?b apeval:trialIndex ?tb }
        FILTER(COALESCE(?ta, 0) = COALESCE(?tb, 0))
        OPTIONAL { ?a earl:assertedBy ?wa } OPTIONAL { ?b earl:assertedBy ?wb }
        FILTER(!BOUND(?wa) || !BOUND(?wb) || ?wa = ?wb)
        FILTER NOT EXISTS { ?a apeval:supersedes ?b } FILTER NOT EXISTS { ?b apeval:supersedes ?a } }"""
# the same question, linear: group the current assertions by (subject, test, trial, assertor) and keep
# the groups with two outcomes (an assertion that supersedes or is superseded within the group is
# left out, as the pairwise form does for each pair; assertions without an assertor need the pairwise
# form, so it stays as a fallback for those few)
CONFLICT_GROUPED = """SELECT DISTINCT ?value WHERE { {
        SELECT ?s ?value ?trial ?w (COUNT(DISTINCT ?o) AS ?n) WHERE {
          ?a earl:subject ?s ; earl:test ?value ; earl:result/earl:outcome ?o ; earl:assertedBy ?w .
          OPTIONAL { ?a apeval:trialIndex ?ta } BIND(COALESCE(?ta, 0) AS ?trial)
          FILTER NOT EXISTS { ?a apeval:supersedes ?x } FILTER NOT EXISTS { ?y apeval:supersedes ?a } }
        GROUP BY ?s ?value ?trial ?w } FILTER(?n > 1) }"""


def timed(fn, repeat):
    runs = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - t)
    return statistics.median(runs), runs, out


def strip_sparql(shapes_text: str, only_conflict: bool) -> str:
    """earl.ttl without the conflicting-trial constraint (or without every sh:sparql block)."""
    if only_conflict:
        start = shapes_text.index('  sh:sparql [ a sh:SPARQLConstraint ;\n    sh:message "the same test is asserted twice')
        end = shapes_text.index('}""" ] .', start) + len('}""" ] .')
        return shapes_text[:start].rstrip().rstrip(";") + " .\n" + shapes_text[end:]
    text = re.sub(r"kgsh:FileLoose a sh:NodeShape ;.*?\}\"\"\" \] \.\n", "", shapes_text, flags=re.S)
    return re.sub(r"kgsh:FileNotes a sh:NodeShape ;.*?\}\"\"\" \]\s*\.\n?", "", text, flags=re.S)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--intents", type=int, default=1000, help="intents of the one replay set the file is about")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "experiments.json")
    args = ap.parse_args(argv)

    import pyoxigraph as ox
    import generate
    from kg import ingest, loading, validation
    from kg.store import Store
    from kg.terms import DEFAULT_BASE

    tmp = Path(tempfile.mkdtemp(prefix="kg-exp-"))
    res = {"intents": args.intents, "trials": args.trials, "repeat": args.repeat}
    try:
        estate = tmp / "estate"
        generate.generate(estate, intents=2 * args.intents, trials=args.trials, systems=2, seed=3,
                          intents_per_set=args.intents)
        earl_path = sorted(estate.glob("bench-000.*.earl.jsonl"))[0]
        # everything but the one EARL file, loaded without validation, so the loader can project it
        real_check = validation.check
        ingest.validation.check = lambda text, shapes: []
        store = Store(":memory:")
        ingest.load(store, [p for p in sorted(estate.iterdir()) if p != earl_path and p.name != "manifest.json"])
        ingest.validation.check = real_check
        spec = loading.registry()["earl-jsonl"]
        source = loading.Source(earl_path, earl_path.read_bytes(), spec)
        ctx = loading.Context(store, source, DEFAULT_BASE)
        text = spec.read(source, ctx).text()
        triples = text.count("\n")
        rows = sum(1 for _ in earl_path.open())
        res["file"] = {"assertions": rows, "triples": triples}
        print(f"one EARL file: {rows} assertions, {triples} triples", flush=True)

        # 1. validation
        shapes_path = spec.shapes_path()
        shapes_text = shapes_path.read_text()
        v = {}
        v["rdflib_parse"], _, _ = timed(lambda: validation.parse_ntriples(text), args.repeat)
        v["kg_check"], _, results = timed(lambda: validation.check(text, shapes_path), args.repeat)
        v["kg_check_results"] = len(results)
        for name, only in (("without_conflict_constraint", True), ("without_sparql_constraints", False)):
            alt = tmp / f"{name}.ttl"
            alt.write_text(strip_sparql(shapes_text, only))
            v[name], _, alt_results = timed(lambda: validation.check(text, alt), args.repeat)
            v[name + "_results"] = len(alt_results)

        def oxigraph_all():
            st = ox.Store()
            st.load(text, format=ox.RdfFormat.N_TRIPLES)
            found = {name: len(list(st.query(P + q))) for name, q in COMPILED.items()}
            found["conflict (grouped)"] = len(list(st.query(P + CONFLICT_GROUPED)))
            return found
        v["pyoxigraph_compiled_all"], _, found = timed(oxigraph_all, args.repeat)
        v["pyoxigraph_compiled_found"] = found
        st = ox.Store()
        t = time.perf_counter()
        st.load(text, format=ox.RdfFormat.N_TRIPLES)
        v["pyoxigraph_parse_in_memory"] = time.perf_counter() - t
        v["conflict_pairwise_pyoxigraph"], _, a = timed(lambda: len(list(st.query(P + CONFLICT_PAIRWISE))), args.repeat)
        v["conflict_grouped_pyoxigraph"], _, b = timed(lambda: len(list(st.query(P + CONFLICT_GROUPED))), args.repeat)
        v["conflict_found_pairwise_grouped"] = [a, b]
        res["validation"] = v
        print(json.dumps(v, indent=1), flush=True)

        # 2. the store write
        w = {}

        def staged():
            path = tmp / "w1"
            shutil.rmtree(path, ignore_errors=True)
            s = Store(str(path))
            from kg.store import SourceRecord
            t0 = time.perf_counter()
            s.replace_source(SourceRecord(graph="urn:x:g", path="x", kind="earl-jsonl", sha256="0", loader="x",
                                          triples=triples), text)
            s.flush()
            return time.perf_counter() - t0

        def direct(how):
            path = tmp / "w2"
            shutil.rmtree(path, ignore_errors=True)
            s = ox.Store(str(path))
            t0 = time.perf_counter()
            if how == "load":
                s.load(text, format=ox.RdfFormat.N_TRIPLES, to_graph=ox.NamedNode("urn:x:g"))
            else:
                s.bulk_load(text, format=ox.RdfFormat.N_TRIPLES, to_graph=ox.NamedNode("urn:x:g"))
            s.flush()
            return time.perf_counter() - t0
        w["kg_staging_and_move"] = statistics.median(staged() for _ in range(args.repeat))
        w["load_into_graph"] = statistics.median(direct("load") for _ in range(args.repeat))
        w["bulk_load_into_graph"] = statistics.median(direct("bulk") for _ in range(args.repeat))
        res["store_write"] = w
        print(json.dumps(w, indent=1), flush=True)

        # 3. JSON Schema per row
        import fastjsonschema
        from kg.jsonio import load_schema
        lines = [json.loads(l) for l in earl_path.open()]
        validator = load_schema(spec.schema_path())
        schema = json.loads(Path(spec.schema_path()).read_text())
        fast = fastjsonschema.compile(schema, formats={"date-time": lambda s: True})
        j = {}
        j["jsonschema"], _, _ = timed(lambda: [list(validator.iter_errors(r)) for r in lines], args.repeat)
        j["fastjsonschema"], _, _ = timed(lambda: [fast(r) for r in lines], args.repeat)
        j["rows"] = len(lines)
        res["json_schema"] = j
        print(json.dumps(j, indent=1), flush=True)

        # 4. lookups: every loaded assertion vs only this file's ids
        from kg.lookups import instances
        ids = [f"{DEFAULT_BASE}assertion/{r['id']}" for r in lines]
        lk = {}
        for label, extra in (("store as loaded", 0), ("plus 10 more files", 10)):
            if extra:
                for n in range(extra):  # copies of the other EARL file under other graph names
                    other = sorted(estate.glob("bench-001.*.earl.jsonl"))[0]
                    fake = loading.Source(other, other.read_bytes(), spec)
                    fake_ctx = loading.Context(store, fake, DEFAULT_BASE)
                    t_ = spec.read(fake, fake_ctx).text().replace("/assertion/a-", f"/assertion/x{n}-a-")
                    store.ox.load(t_, format=ox.RdfFormat.N_TRIPLES, to_graph=ox.NamedNode(f"urn:x:copy{n}"))
            n_assert = len(instances(ctx, "earl:Assertion"))
            all_s, _, _ = timed(lambda: instances(ctx, "earl:Assertion"), args.repeat)
            values = " ".join(f"<{i}>" for i in ids)
            q = f"SELECT ?s WHERE {{ VALUES ?s {{ {values} }} GRAPH ?g {{ ?s a earl:Assertion }} FILTER(?g != ?this_graph) }}"
            own_s, _, _ = timed(lambda: ctx.select(q), args.repeat)
            lk[label] = {"assertions_in_store": n_assert, "all_instances": all_s, "this_files_ids": own_s}
        res["lookups"] = lk
        print(json.dumps(lk, indent=1), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    args.out.write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
