"""Times the catalogue queries kg runs with parameters, and writes their rows, for comparing two
checkouts of kg on one store (benchmarks/HISTORY.md, "Parameters bound by substitution"):

    git worktree add /tmp/old-kg 6f44904
    for side in /tmp/old-kg .; do python benchmarks/bind_check.py $side STORE OUT-$(basename $side); done
    cmp OUT-old-kg/compare.txt OUT-./compare.txt   # and so on: byte-equal rows
"""
import sys
import time
from pathlib import Path

sys.path.insert(0, sys.argv[1])  # the checkout of kg to time
from kg import catalogue  # noqa: E402
from kg.store import Store  # noqa: E402

CASES = [("graduation", {}), ("graduation-runs", {}), ("pass-at-k", {"k": 3}),
         ("compare", {"baseline": "https://kg.example/id/system/agent@1.1.0",
                      "candidate": "https://kg.example/id/system/agent@1.2.0"}),
         ("verdicts", {"system": "https://kg.example/id/system/agent@1.2.0"})]

if __name__ == "__main__":
    store, out = Store(sys.argv[2]), Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    entries = catalogue.load()
    for name, params in CASES:
        start = time.process_time()
        rows = catalogue.run(entries[name], store, params).rows
        print(f"{name}: {time.process_time() - start:.2f} s CPU, {len(rows)} rows")
        (out / f"{name}.txt").write_text(repr(rows), encoding="utf-8")
