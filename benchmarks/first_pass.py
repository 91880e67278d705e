"""A JSON Lines loader's first pass alone: its peak memory (VmHWM) and CPU time, then the load is
abandoned (the store is left as it was). The pass that checks every line and keeps what the lines
say about each other - ids unique in the file and the store, the situations and assertions cited -
is the part of a streamed load whose memory grew with the file (benchmarks/HISTORY.md, "A loader's keys on
disk"). Linux only (reads /proc).

    python benchmarks/first_pass.py STORE FILE [--profile]

STORE's layers must be this kg's (run `kg stats --store STORE` first): a store of another version has
its layers rebuilt when it is opened, and that would be measured too.
"""
from __future__ import annotations

import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg import ingest  # noqa: E402
from kg.loading import registry  # noqa: E402
from kg.store import Store  # noqa: E402


class _Done(Exception):
    """Raised once the first pass has run: nothing of the file is written."""


def _status(field: str) -> str:
    with open("/proc/self/status") as f:
        return next((line.split(":", 1)[1].strip() for line in f if line.startswith(field + ":")), "?")


def main(store_path: str, file: str, profile: bool) -> None:
    for spec in registry().values():
        read = spec.read

        def first_pass(source, ctx, read=read):
            print(f"before the first pass: {_status('VmRSS')}")
            profiler = cProfile.Profile() if profile else None
            started = time.process_time()
            if profiler:
                profiler.enable()
            read(source, ctx)  # a streaming loader's first pass runs here; its chunks would come later
            if profiler:
                profiler.disable()
            print(f"first pass: {time.process_time() - started:.1f} s CPU, peak {_status('VmHWM')}, "
                  f"{len(ctx.problems)} problems")
            if profiler:
                pstats.Stats(profiler).sort_stats("cumtime").print_stats(20)
            raise _Done
        object.__setattr__(spec, "read", first_pass)  # a frozen dataclass
    try:
        ingest.load(Store(store_path), [file])
    except _Done:
        pass


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--profile"]
    if len(args) != 2:
        sys.exit(__doc__)
    main(*args, profile="--profile" in sys.argv)
