"""Where `kg load` spends its time: every update, query and bulk write kg sends the engine during a
load, timed and summed by the operation's first line (a layer step's opening comment, say), the
slowest first. A bulk-inserted CONSTRUCT's time is the insert's, which is when its rows are read.

    python benchmarks/load_steps.py --top 25 load --store S --no-validate ESTATE

Everything after the script's own options is `kg`'s command line. The store is written as by kg:
the figures are a real load's, plus the wrapper's small cost per call."""
from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from kg import cli, store as kg_store  # noqa: E402

TIMED = ("update", "query", "bulk_load", "load", "bulk_extend")
seconds: collections.Counter = collections.Counter()
calls: collections.Counter = collections.Counter()
last_query = [""]


def first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("PREFIX")]
    return lines[0][:100] if lines else "?"


class Timed:
    """The engine's store, its writes and queries timed; anything else passed through."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        attribute = getattr(self._inner, name)
        if name not in TIMED:
            return attribute

        def timed(*args, **kwargs):
            started = time.perf_counter()
            result = attribute(*args, **kwargs)
            text = args[0] if args and isinstance(args[0], str) else ""
            if name == "query":
                last_query[0] = first_line(text)
            key = f"{name}: " + (first_line(text) if text else f"after {last_query[0]}" if name == "bulk_extend" else "")
            seconds[key] += time.perf_counter() - started
            calls[key] += 1
            return result
        return timed

    def __len__(self):
        return len(self._inner)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=25, help="how many operations to list")
    own, kg_args = parser.parse_known_args()
    opened = kg_store.Store.__init__

    def opening(self, *args, **kwargs):
        opened(self, *args, **kwargs)
        self.ox = Timed(self.ox)
    kg_store.Store.__init__ = opening
    sys.argv = ["kg"] + kg_args
    started = time.perf_counter()
    try:
        cli.main()
    except SystemExit as done:
        if done.code:
            print(f"kg exited with {done.code}", file=sys.stderr)
    print(f"\n{time.perf_counter() - started:.1f} s in all; engine calls, slowest first:", file=sys.stderr)
    for key, spent in seconds.most_common(own.top):
        print(f"{spent:9.2f} s {calls[key]:6d}x  {key}", file=sys.stderr)


if __name__ == "__main__":
    main()
