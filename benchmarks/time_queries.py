"""Times SPARQL on a store kg loaded, read-only, every row fetched as kg fetches it (the embedded
store's `select_values`: a final ORDER BY sorted in Python, kg/ordering.py; `--engine-order` times
the engine's own sort instead, as this script did before): named catalogue queries, .rq
files (an older version of a query, say `git show HEAD~3:queries/sets/cases.rq > old.rq`), or the
engine probes below — the joins every verdict query starts from, with and without a sort — whose
growth from one estate size to the next is the engine's own, to set a query's growth beside.

    python benchmarks/time_queries.py STORE                     # the whole catalogue
    python benchmarks/time_queries.py STORE cases old.rq        # a query, and a file
    python benchmarks/time_queries.py STORE --probes            # the engine probes

Stores: `kg load build/bench/100k/estate --store S` after `benchmarks/generate.py --assertions
100000 --seed 1 build/bench/100k/estate` (the benchmark's own estates)."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pyoxigraph as ox

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kg import catalogue  # noqa: E402

_EARL = "PREFIX earl: <http://www.w3.org/ns/earl#>\n"
_JOIN = "?a a earl:Assertion ; earl:result ?r ; earl:test ?t . ?r earl:outcome ?o"
PROBES = {
    "probe-count-by-outcome": _EARL + f"SELECT ?o (COUNT(*) AS ?n) WHERE {{ {_JOIN} }} GROUP BY ?o",
    "probe-rows": _EARL + f"SELECT ?a ?t ?o WHERE {{ {_JOIN} }}",
    "probe-rows-sorted-by-few-values": _EARL + f"SELECT ?a ?t ?o WHERE {{ {_JOIN} }} ORDER BY ?o",
    "probe-rows-sorted-by-iris": _EARL + f"SELECT ?a ?t ?o WHERE {{ {_JOIN} }} ORDER BY ?t ?a",
}


def texts(names: list[str], probes: bool, store=None) -> dict[str, str]:
    if probes:
        return dict(PROBES)
    from run import SYSTEMS_QUERY, required_params  # the benchmark's own choice of systems for compare
    systems = [row[0].value for row in store.query(SYSTEMS_QUERY, use_default_graph_as_union=True)] if store else []
    named = catalogue.load()
    if not names:
        names = sorted(named)
    out = {}
    for name in names:
        if name.endswith(".rq"):
            out[name] = Path(name).read_text()
        else:
            query = named[name]
            out[name] = query.bound_text({**({"k": 2} if "k" in query.params else {}),
                                          **required_params(query, systems)})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store")
    parser.add_argument("queries", nargs="*", help="catalogue names or .rq files (default: the catalogue)")
    parser.add_argument("--probes", action="store_true", help="the engine probes instead")
    parser.add_argument("--repeat", type=int, default=1, help="runs per query (the fastest is kept)")
    parser.add_argument("--engine-order", action="store_true",
                        help="the query as written, sorted by Oxigraph, its terms not made Python values")
    args = parser.parse_args(argv)
    from kg.store import Store
    kg_store = Store(args.store, read_only=True)
    store = kg_store.ox
    for name, text in texts(args.queries, args.probes, store).items():
        best, rows = None, 0
        for _ in range(args.repeat):
            started = time.perf_counter()
            rows = sum(1 for _ in store.query(text, use_default_graph_as_union=True)) if args.engine_order \
                else len(kg_store.select_values(text)[1])
            elapsed = time.perf_counter() - started
            best = elapsed if best is None else min(best, elapsed)
        print(f"{name:36s} {best:9.2f} s  {rows:>9,} rows", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
