"""Where a load's peak memory is: `kg load` of the files given into a store, with the peak resident
set size (VmHWM) of each step of a streamed load read around it. The peak is reset before each step
(`/proc/self/clear_refs`, Linux), so a step's figure is the most the process held while it ran, not
the most held so far; the time is the step's CPU time, summed over its calls.

    python benchmarks/rss_steps.py STORE FILE...

Steps: the loader's first pass (every line checked, each assertion's IRI kept), each chunk
projected and bulk-written, SHACL over the file's graph, the append-only check, marking and
deriving the verdicts in bulk, the closing flush (compaction). Linux only (reads /proc).

    python benchmarks/rss_steps.py --stop-after SHACL STORE FILE

stops the load once the step whose name starts so has run and prints the steps so far: the steps
before a long derive, measured for a change that does not touch it (the store is left with a graph
no record names, which the next writer drops)."""
from __future__ import annotations

import functools
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg import ingest, validation  # noqa: E402
from kg.store import Store  # noqa: E402

STEPS: dict[str, list] = {}  # name -> [calls, highest peak KiB, CPU seconds]
STOP_AFTER: str | None = None  # --stop-after: a step name's start
STARTED = time.monotonic()


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _noted(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _reset_peak()
        started = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            step = STEPS.setdefault(name, [0, 0, 0.0])
            step[0] += 1
            step[1] = max(step[1], _status("VmHWM"))
            step[2] += time.process_time() - started
            _reset_peak()
            if STOP_AFTER and name.startswith(STOP_AFTER):
                _print_steps(f"stopped after: {name}")
                os._exit(0)  # no clean-up: the store is a copy, left with a graph no record names
    return wrapper


def _noted_generator(name: str, make):
    """A loader's projection: its first pass runs when it is called, each chunk when it is asked for."""
    @functools.wraps(make)
    def wrapper(*args, **kwargs):
        projection = _noted(name + ": first pass", make)(*args, **kwargs)
        if projection.streams:
            chunks = projection.triples

            def timed():
                while True:
                    try:
                        chunk = _noted(name + ": a chunk projected", next)(chunks)
                    except StopIteration:
                        return
                    yield chunk
            projection.triples = timed()
        return projection
    return wrapper


def main(store_path: str, files: list[str]) -> None:
    Store.bulk_write = _noted("chunk bulk-written", Store.bulk_write)
    validation.check_graph = _noted("SHACL over the file's graph", validation.check_graph)
    ingest._against_loaded = _noted("append-only check", ingest._against_loaded)
    Store._mark_in_bulk = _noted("verdicts: keys marked in bulk", Store._mark_in_bulk)
    Store._derive_marked_in_bulk = _noted("verdicts: derived in bulk", Store._derive_marked_in_bulk)
    Store.flush = _noted("flush (compaction)", Store.flush)
    from kg.loading import registry
    for spec in registry().values():
        object.__setattr__(spec, "read", _noted_generator(spec.kind, spec.read))  # a frozen dataclass
    store = Store(store_path)
    outcomes = ingest.load(store, files)
    for o in outcomes:
        print(f"{o.status}: {o.path} ({o.triples} triples)" + "".join(f"\n  {p}" for p in o.problems[:3]))
    _print_steps(f"wall {time.monotonic() - STARTED:.0f} s")


def _print_steps(last: str) -> None:
    print(f"\n{'step':<40} {'calls':>6} {'peak MiB':>9} {'CPU s':>8}")
    for name, (calls, peak, cpu) in STEPS.items():
        print(f"{name:<40} {calls:>6} {peak / 1024:>9.0f} {cpu:>8.1f}")
    print(last, flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--stop-after"]:
        STOP_AFTER, args = args[1], args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    main(args[0], args[1:])
