"""Many small files, as Inspect and CI harnesses write them (issue 40): a folder of one-run EARL files
loaded by one `kg load`, against the same assertions loaded as one file.

    python benchmarks/small_files.py --files 10000 build/small     # the target: ≤ 2 min, RSS < 1 GiB

An estate of `benchmarks/generate.py` (seed 1, 3 systems, 5 trials, about --files assertions) is
written to OUT/estate; its EARL lines are split one per file into OUT/runs (ids and everything else
as generated: each file is one grader's verdict on one trial of one run). Everything else of the
estate (replay sets, gold, situations, domain) is loaded first, untimed, into OUT/base-store; then,
each in a fresh copy of it:

* `kg load OUT/runs` — the folder, timed from outside, its peak RSS read by os.wait4;
* `kg load OUT/one.earl.jsonl` — the same lines as one file (the baseline for the store's size);

and the store folders' sizes after each. Prints one JSON object; `--json FILE` writes it too.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
KG = [sys.executable, "-m", "kg"]


def run_with_rusage(cmd: list[str]) -> dict:
    """Wall seconds and peak RSS (MiB) of a child process: its own rusage, read by os.wait4."""
    # the output goes to a file, not a pipe: a pipe unread until the child ends fills (64 KiB; a line per
    # file loaded) and blocks the child in its next write
    with tempfile.TemporaryFile() as said:
        started = time.monotonic()
        child = subprocess.Popen(cmd, stdout=said, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.monotonic() - started
        said.seek(0)
        out = said.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(cmd)} failed ({code}):\n{out[-2000:]}")
    return {"seconds": round(seconds, 1), "rss_mib": round(usage.ru_maxrss / 1024, 1),
            "said": out.strip().splitlines()[-1:]}


def folder_mib(path: Path) -> float:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=10_000, help="about this many one-line EARL files")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("out", type=Path, help="a work folder (emptied)")
    args = ap.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    estate, runs, base = args.out / "estate", args.out / "runs", args.out / "base"
    subprocess.run([sys.executable, str(HERE / "generate.py"), "--assertions", str(args.files), "--trials", "5",
                    "--systems", "3", "--seed", "1", str(estate)], check=True, stdout=subprocess.DEVNULL)
    runs.mkdir(parents=True)
    base.mkdir()
    lines = []
    for path in sorted(estate.iterdir()):
        if path.name.endswith(".earl.jsonl"):
            lines += [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        else:
            shutil.copy(path, base / path.name)
    width = len(str(len(lines)))
    for n, line in enumerate(lines):
        (runs / f"run-{n:0{width}d}.earl.jsonl").write_text(line + "\n", encoding="utf-8")
    one = args.out / "one.earl.jsonl"
    one.write_text("\n".join(lines) + "\n", encoding="utf-8")

    base_store = args.out / "base-store"
    run_with_rusage(KG + ["load", "--store", str(base_store), str(base)])
    figures = {"files": len(lines), "base_store_mib": folder_mib(base_store)}
    for name, target in (("folder", runs), ("one_file", one)):
        store = args.out / f"store-{name}"
        shutil.copytree(base_store, store)
        result = run_with_rusage(KG + ["load", "--store", str(store), str(target)])
        figures[name] = {**result, "store_mib": folder_mib(store)}
    figures["folder"]["per_file_ms"] = round(1000 * figures["folder"]["seconds"] / len(lines), 1)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
