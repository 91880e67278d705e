"""pandas on the raw files against kg's pass-at-k + judge-kind-metrics on the same store (k=3), the
way benchmarks/run.py compares them: seconds of each, and every value checked."""
import json, os, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent)); sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench
from kg import catalogue
from kg.store import Store
store = Store(sys.argv[1], read_only=True)
named = catalogue.load()
kg_rows, kg_seconds = {}, {}
for name in ("pass-at-k", "judge-kind-metrics"):
    t = time.perf_counter()
    kg_rows[name] = catalogue.run(named[name], store, {"k": 3} if name == "pass-at-k" else {}).rows
    kg_seconds[name] = time.perf_counter() - t
runs = []
for _ in range(2):
    t = time.perf_counter(); pd_rows = bench.pandas_metrics(Path(sys.argv[2]), 3); runs.append(time.perf_counter() - t)
check = bench.compare_with_kg(json.loads(json.dumps(kg_rows, default=str)), json.loads(json.dumps(pd_rows, default=str)))
print("kg seconds", {k: round(v, 2) for k, v in kg_seconds.items()}, "sum", round(sum(kg_seconds.values()), 2))
print("pandas seconds", [round(r, 2) for r in runs], "ratio (fastest pandas)", round(sum(kg_seconds.values()) / min(runs), 2))
print("values checked", {k: (v["values_checked"], v["mismatch_count"]) for k, v in check.items()}, "load", os.getloadavg())
