"""Each layer's derive steps for one set of keys, each timed as the query a bulk load runs (its
CONSTRUCT; a DELETE's WHERE counted as a SELECT). A step whose time grows with the store, for the same
keys, makes a bulk load grow faster than its file (benchmarks/HISTORY.md, "A loader's keys on disk").

    python benchmarks/derive_steps.py STORE --source GRAPH   # the keys a source's mark steps give
    python benchmarks/derive_steps.py STORE [--keys N]       # the first N verdict keys (CHUNK_KEYS)

Nothing is written: the store is opened read-only, the changed-sources pattern of a mark step is
replaced by a VALUES of the source, and the keys bound into a derive step as a bulk load binds them
(`layers.with_keys`). Compare two stores with the
same keys (e.g. `--keys 159` on a 10k and a 100k store, or one set's file on each).
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import pyoxigraph as ox

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg import layers  # noqa: E402

KG = "https://kg.example/ns#"
_CHANGED = re.compile(r"GRAPH\s*<urn:kg:layer:changed>\s*\{\s*\?changed\s+a\s+kg:ChangedSource\s*\}")
_DELETE = re.compile(r"\bDELETE\s*\{.*?\}\s*\}\s*(WHERE\b.*)$", re.S)


def mark_keys(store: ox.Store, layer, source: str) -> list[tuple[ox.Term, ox.Term]]:
    keys = set()
    for text, graph in layers.as_constructs(layer.mark):
        if graph is not None:
            keys |= {(t.subject, t.object) for t in store.query(_CHANGED.sub(f"VALUES ?changed {{ <{source}> }}", text))}
    return sorted(keys, key=str)


def first_keys(store: ox.Store, n: int) -> list[tuple[ox.Term, ox.Term]]:
    return [(row["case"], row["system"]) for row in store.query(
        f"SELECT DISTINCT ?case ?system WHERE {{ GRAPH <urn:kg:layer:verdicts> "
        f"{{ ?v <{KG}case> ?case ; <{KG}system> ?system }} }} ORDER BY ?case ?system LIMIT {n}")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store")
    parser.add_argument("--source", help="a source graph: each layer's keys are those its mark step gives for it")
    parser.add_argument("--keys", type=int, default=layers.CHUNK_KEYS, help="without --source: this many verdict keys")
    args = parser.parse_args(argv)
    store = ox.Store.read_only(args.store)
    marked, shared = {}, set()
    for layer in layers.load():
        if args.source:
            started = time.perf_counter()
            marked[layer.name] = mark_keys(store, layer, args.source)
            print(f"{layer.name:12s} mark   {time.perf_counter() - started:7.2f} s {len(marked[layer.name]):8d} keys", flush=True)
            if not layers.own_deriving(layer):
                shared |= set(marked[layer.name])
    for layer in layers.load():
        if args.source:
            # a layer of the shared keys derives every key any such layer's mark step gave
            keys = marked[layer.name] if layers.own_deriving(layer) else sorted(shared, key=str)
        else:
            keys = first_keys(store, args.keys)
        if not keys:
            continue
        # the keys bound as a bulk load binds them (layers.with_keys), so that the plans are the load's
        by_graph = {layers.own_deriving(layer) or layers.DERIVING: keys}
        for n, (text, graph) in enumerate(layers.as_constructs(layer.derive)):
            text = layers.with_keys(text, by_graph)
            if graph is None:
                deleting = _DELETE.search(text)
                if not deleting:
                    print(f"{layer.name:12s} op {n:2d}  update, not run")
                    continue
                text = f"{text[:deleting.start()]}SELECT (COUNT(*) AS ?n) {deleting.group(1)}"
            started = time.perf_counter()
            found = sum(1 for _ in store.query(text)) if graph else int(next(iter(store.query(text)))[0].value)
            print(f"{layer.name:12s} op {n:2d} {time.perf_counter() - started:7.2f} s {found:8d} {'triples' if graph else 'to delete'}",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
