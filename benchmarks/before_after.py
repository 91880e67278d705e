"""Before/after timing on one read-only store: each query's old text ($OLD/NAME.rq, default
build/old, e.g. `git show b0b993c:queries/results/pass-at-k.rq > build/old/pass-at-k.rq`) and new text (the catalogue), bound alike, interleaved, fastest of --repeat kept; rows
compared."""
import argparse, os, sys, time
from pathlib import Path
import pyoxigraph as ox
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from kg import catalogue

p = argparse.ArgumentParser()
p.add_argument("store"); p.add_argument("names", nargs="+"); p.add_argument("--repeat", type=int, default=1)
a = p.parse_args()
store = ox.Store.read_only(a.store)
named = catalogue.load()
systems = [r[0] for r in store.query("PREFIX earl: <http://www.w3.org/ns/earl#> SELECT DISTINCT ?s WHERE { ?a earl:subject ?s }", use_default_graph_as_union=True)]
def params(q):
    out = {}
    if "k" in q.params: out["k"] = 3
    if "baseline" in q.params: out.update(baseline=systems[0].value, candidate=systems[1].value)
    return out
def run(text):
    t = time.perf_counter()
    res = store.query(text, use_default_graph_as_union=True)
    names = [v.value for v in res.variables]
    def norm(t):
        if t is None: return None
        v = t.value if hasattr(t, "value") else str(t)
        return " ".join(sorted(v.split())) if " " in v else v  # GROUP_CONCATs: same tokens, any order
    rows = [tuple(norm(r[n]) for n in names) for r in res]
    return time.perf_counter() - t, rows
for name in a.names:
    new = named[name]
    old = catalogue.parse_file(Path(f"{os.environ.get('OLD', 'build/old')}/{name}.rq"))
    best = {"old": None, "new": None}; rows = {}
    for _ in range(a.repeat):
        for which, q in (("old", old), ("new", new)):
            s, r = run(q.bound_text(params(q)))
            best[which] = s if best[which] is None else min(best[which], s)
            rows[which] = r
    same = sorted(map(repr, rows["old"])) == sorted(map(repr, rows["new"]))
    print(f"{name:24s} old {best['old']:8.2f} s  new {best['new']:8.2f} s  rows {len(rows['new'])}  same rows: {same}  load {os.getloadavg()[0]:.1f}", flush=True)
