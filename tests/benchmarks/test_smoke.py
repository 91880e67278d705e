"""The benchmark suite kept working by `make test`: a tiny estate through every step of
benchmarks/run.py (generate, kg load, raw engine, catalogue kg and bare, rdflib, pandas). Nothing
here asserts on a time; it checks that the generator's output loads whole and that the pandas
baseline gives kg's numbers."""
import importlib.util
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"


def _generator():
    spec = importlib.util.spec_from_file_location("bench_generate", BENCH / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generator_is_deterministic_and_has_every_trait(tmp_path):
    gen = _generator()
    a = gen.generate(tmp_path / "a", intents=20, trials=2, systems=2, seed=5)
    gen.generate(tmp_path / "b", intents=20, trials=2, systems=2, seed=5)
    for name in a["files"]:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    rows = [json.loads(line) for p in sorted((tmp_path / "a").glob("*.earl.jsonl")) for line in p.open()]
    assert len(rows) == a["assertions"]
    assert {r["grader"]["kind"] for r in rows} == {"mechanical", "model", "human"}
    causes = Counter(r["failureCause"] for r in rows if r["outcome"] == "cantTell")
    assert {"agent", "grader", "environment", None} <= set(causes)
    assert {"passed", "failed", "cantTell", "inapplicable", "untested"} <= {r["outcome"] for r in rows}
    assert any(r["supersedes"] for r in rows)
    buckets = {i["bucket"] for p in (tmp_path / "a").glob("*.replayset.json")
               for i in json.loads(p.read_text())["intents"]}
    assert len(buckets) == 9
    kinds = {json.loads(p.read_text())["suiteKind"] for p in (tmp_path / "a").glob("*.replayset.json")}
    assert kinds == {"capability", "regression"}
    assert a["classes"] >= 200 and a["schemes"] >= 3


def test_single_file_holds_every_earl_line_of_the_split_estate_in_one_file(tmp_path):
    """--single-file: the memory benchmark's one big EARL file, the split files' lines in order."""
    gen = _generator()
    split = gen.generate(tmp_path / "split", intents=20, trials=2, systems=2, seed=5)
    single = gen.generate(tmp_path / "single", intents=20, trials=2, systems=2, seed=5, single_file=True)
    [whole] = sorted((tmp_path / "single").glob("*.earl.jsonl"))
    assert whole.name == gen.SINGLE_EARL and single["assertions"] == split["assertions"]
    parts = b"".join(p.read_bytes() for p in sorted((tmp_path / "split").glob("*.earl.jsonl")))
    assert whole.read_bytes() == parts


def test_benchmark_smoke_run(tmp_path):
    work = tmp_path / "bench"
    proc = subprocess.run([sys.executable, str(BENCH / "run.py"), "--smoke", "--work", str(work)],
                          capture_output=True, text=True, timeout=1200, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    res = json.loads((work / "smoke.json").read_text())
    ingest = res["ingest"]
    assert res["quads"] > 0 and res["estate"]["assertions"] > 100
    for variant in ("kg", "kg_novalidate", "raw_bulk_load", "raw_load"):
        assert ingest[variant]["seconds"] > 0, variant
    assert res["catalogue"]["rdflib"]["complete"]
    check = res["catalogue"]["pandas"]["check"]
    assert res["catalogue"]["pandas"]["same_numbers"], check
    assert all(v["rows"] > 0 and v["mismatch_count"] == 0 for v in check.values())


def test_time_queries_counts_the_rows_kg_gives(tmp_path):
    """benchmarks/time_queries.py, the tool behind the per-query figures in BENCHMARKS.md, fetches
    every row: its counts are those of kg's own runs of the same queries (and of a direct COUNT for
    the probes)."""
    import pyoxigraph as ox
    from kg import catalogue, ingest
    from kg.store import Store
    from tests.conftest import EXAMPLES
    EARL = "http://www.w3.org/ns/earl#"
    path = tmp_path / "store"
    store = Store(path)
    assert all(o.status == "loaded" for o in ingest.load(store, [EXAMPLES]))
    named = catalogue.load()
    expected = {name: len(catalogue.run(named[name], store).rows) for name in ("cases", "verdicts")}
    assessed = sum(1 for _ in store.ox.quads_for_pattern(None, ox.NamedNode(EARL + "outcome"), None))
    del store
    old = tmp_path / "old.rq"
    old.write_text(named["cases"].bound_text({}))

    def counts(*args):
        done = subprocess.run([sys.executable, str(BENCH / "time_queries.py"), str(path), *args],
                              capture_output=True, text=True, timeout=300, check=True)
        return {line.split()[0]: int(line.split()[-2].replace(",", "")) for line in done.stdout.splitlines()}
    assert counts("cases", "verdicts", str(old)) == {**expected, str(old): expected["cases"]}
    probes = counts("--probes")
    assert len(probes) == 4 and expected["verdicts"] > 0
    assert {n for k, n in probes.items() if k != "probe-count-by-outcome"} == {assessed}
