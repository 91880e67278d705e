"""Scheduled coverage reports (kg report coverage): a snapshot of the coverage figures per run,
written whole into a history folder, and the trend read back from it."""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

from .. import catalogue
from ..cache import AnswerCache
from ..errors import OutputUnwritable


def coverage_snapshot(backend, sources) -> dict:
    """The coverage figures of this moment, with the digests of what they were computed from."""
    cache = AnswerCache.for_store(backend)
    classes = catalogue.run(catalogue.load()["coverage-classes"], backend, cache=cache).rows
    summary = catalogue.run(catalogue.load()["coverage-summary"], backend, cache=cache).rows
    covered = sum(1 for r in classes if r["covered"])
    return {
        "taken_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "class_coverage": {"covered": covered, "total": len(classes),
                           "rate": covered / len(classes) if classes else None},
        "summary": summary,
        "sources": [{"path": s.path, "kind": s.kind, "sha256": s.sha256, "pins": s.pins}
                    for s in sources if s.kind != "vocabulary"],
    }


def write_snapshot(history: Path, snapshot: dict) -> Path:
    """One JSON file per run, named by its time; written whole, then renamed into place."""
    history.mkdir(parents=True, exist_ok=True)
    stamp = snapshot["taken_at"].replace(":", "").replace("+0000", "Z").replace("+00:00", "Z")
    path = history / f"coverage-{stamp}-{os.getpid()}.json"
    tmp = history / f".{path.name}.tmp"
    try:
        tmp.write_text(json.dumps(snapshot, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as err:  # a full disk: no snapshot cut short is left for the trend to trip on
        tmp.unlink(missing_ok=True)
        raise OutputUnwritable(f"cannot write the coverage snapshot into {history}: {err.strerror or err}; "
                               f"nothing was written — free space there, or give another --history") from None
    return path


def read_history(history: Path) -> tuple[list[tuple[str, float]], list[str]]:
    """The trend's points (time, class coverage rate) from the snapshots in `history`, and a line
    for each file there that is not one: another tool's file, or one cut short. Those are skipped
    and left as they are; kg never deletes anything in the history folder."""
    points, foreign = [], []
    for path in sorted(history.glob("coverage-*.json")):
        try:
            snap = json.loads(path.read_text(encoding="utf-8"))
            rate = snap["class_coverage"]["rate"]
            taken_at = snap["taken_at"]
            if not isinstance(taken_at, str) or not (rate is None or isinstance(rate, (int, float))):
                raise TypeError("taken_at or class_coverage.rate of the wrong type")
            datetime.fromisoformat(taken_at)
        except (OSError, UnicodeDecodeError) as err:
            foreign.append(f"{path}: could not be read ({err.__class__.__name__})")
            continue
        except (ValueError, KeyError, TypeError) as err:
            foreign.append(f"{path}: not a coverage snapshot kg wrote ({err.__class__.__name__}: {err})")
            continue
        if rate is not None:
            points.append((taken_at, float(rate)))
    return sorted(points), foreign
