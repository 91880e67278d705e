"""Each layer's derive steps for one chunk of keys (layers.CHUNK_KEYS (case, system) pairs taken
from the verdict layer), each timed as the query a bulk load runs (its CONSTRUCT); nothing is
written but the chunk's keys, so run it on a copy of a store. A step whose time grows with the
store, at the same chunk size, makes a bulk load grow faster than its file (BENCHMARKS.md, "A
loader's keys on disk"). Updates (DELETE steps) are listed, not run.

    cp -r STORE COPY && python benchmarks/derive_steps.py COPY
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pyoxigraph as ox

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg import layers  # noqa: E402

KG = "https://kg.example/ns#"


def main(path: str) -> None:
    store = ox.Store(path)
    store.update(f"""INSERT {{ GRAPH <{layers.DERIVING}> {{ ?case <{KG}touchedFor> ?system }} }}
                     WHERE {{ SELECT DISTINCT ?case ?system WHERE {{
                       GRAPH <urn:kg:layer:verdicts> {{ ?verdict <{KG}case> ?case ; <{KG}system> ?system }} }}
                       LIMIT {layers.CHUNK_KEYS} }}""")
    keys = sum(1 for _ in store.quads_for_pattern(None, None, None, ox.NamedNode(layers.DERIVING)))
    print(f"{keys} keys in the chunk")
    for layer in layers.load():
        for n, (text, graph) in enumerate(layers.as_constructs(layer.derive)):
            if graph is None:
                print(f"{layer.name:12s} op {n:2d}  update, not run")
                continue
            started = time.perf_counter()
            triples = sum(1 for _ in store.query(text))
            print(f"{layer.name:12s} op {n:2d} {time.perf_counter() - started:7.2f} s {triples:8d} triples")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
