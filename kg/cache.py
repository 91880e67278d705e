"""Answers kept between reports: a scheduled `kg report` of a store that has not changed runs no
query.

An answer is kept under the store's state — every source's graph, sha256, load time and triple
count, the derived layers' version — and the query's bound text, so any
load, reload, drop or change of rules, and any change of a query or its parameters, asks the engine
again. What is kept is the engine's rows (variables and values), not the finished rows: finishing
is cheap, and a change of kg's finishers then needs no invalidation. Only the embedded store is
cached (a server may change behind kg's back); the cache lives beside the store, in `cache/`, one
folder per state, and a new state removes the older ones."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import shutil
from pathlib import Path

from .catalogue import IRI

FORMAT = 2  # the layout of an answer file; a file of another is not read
KEEP_STATES = 2  # the state being written and the one before it (a report running during a load)


class AnswerCache:
    def __init__(self, folder: Path, state: str):
        self.folder = folder / state
        self.hits = self.misses = 0

    @classmethod
    def for_store(cls, store) -> "AnswerCache | None":
        """The cache of an embedded store on disk, or None (a store in memory, a remote server)."""
        path = getattr(store, "path", "")
        if not path or path == ":memory:" or not hasattr(store, "ox"):
            return None
        records = sorted((s.graph, s.sha256, s.loaded_at, s.triples) for s in store.sources())
        state = hashlib.sha256(json.dumps([records, store.setting("layerVersion")])
                               .encode()).hexdigest()[:24]
        cache = cls(Path(path).parent / "cache", state)
        cache._forget_other_states()
        return cache

    def _forget_other_states(self) -> None:
        root = self.folder.parent
        if not root.is_dir():
            return
        others = sorted((p for p in root.iterdir() if p.is_dir() and p != self.folder),
                        key=lambda p: p.stat().st_mtime, reverse=True)
        for old in others[KEEP_STATES - 1:]:
            shutil.rmtree(old, ignore_errors=True)

    def _file(self, text: str) -> Path:
        return self.folder / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.json"

    def get(self, text: str) -> tuple[list[str], list[tuple]] | None:
        try:
            kept = json.loads(self._file(text).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.misses += 1
            return None
        if not isinstance(kept, dict) or kept.get("text") != text or kept.get("format") != FORMAT:
            self.misses += 1  # a digest collision, a file not ours, or one an older kg wrote
            return None
        self.hits += 1
        rows = kept["rows"]
        for column in kept["iris"]:  # columns of IRIs only: each value made an IRI again
            for row in rows:
                if row[column] is not None:
                    row[column] = IRI(row[column])
        for i, column in kept["tagged"]:  # a value among others of another kind
            rows[i][column] = _typed(rows[i][column])
        return kept["variables"], [tuple(row) for row in rows]

    def put(self, text: str, variables: list[str], rows: list[tuple]) -> None:
        """Written whole, then renamed into place: a report running beside never reads half an answer;
        a cache that cannot be written (a read-only folder, a full disk) is only not kept.

        JSON keeps no Python type: a column of IRIs (and None) is listed under "iris", and an IRI in
        a column of other values is written {"@id": …}, as JSON-LD does, listed under "tagged"; the
        rows themselves go to the C encoder whole, not each value through Python first (the 101k
        verdicts at 100k assertions: 1.01 s, 1.23 s before)."""
        iris, tagged = [], []
        # each column's value types, read by C loops (zip, map, set): a set built by a Python
        # expression per value cost 2 s of the first report at 100k assertions (17 columns x 101k rows)
        for column, values in enumerate(zip(*rows)):  # no rows: no column is listed, as before
            kinds = set(map(type, values)) - {type(None)}
            if kinds == {IRI}:
                iris.append(column)
            elif IRI in kinds:
                tagged.append(column)
        marked = []
        if tagged:
            rows = [list(row) for row in rows]
            for i, row in enumerate(rows):
                for column in tagged:
                    if type(row[column]) is IRI:
                        row[column] = _tagged(row[column])
                        marked.append((i, column))
        keep(self._file(text), json.dumps({"format": FORMAT, "text": text, "variables": variables, "iris": iris,
                                           "tagged": marked, "rows": rows}))


def keep(path: Path, text: str) -> None:
    """A file kept for a later report (an answer, a drawn chart, a rendered download): written whole,
    then renamed into place, so a report running beside never reads half of one; a file that cannot
    be written (a read-only folder, a full disk) is only not kept, and leaves no scratch behind."""
    scratch = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch.write_text(text, encoding="utf-8")
        os.replace(scratch, path)
    except OSError:
        with contextlib.suppress(OSError):
            scratch.unlink(missing_ok=True)


def keep_written(path: Path, written: Path, text: str) -> None:
    """Keeps a file a report has just written, as `keep` would keep its text: by a hard link where
    the file system allows (a site is replaced whole, never edited in place, so the two may share
    their bytes; the 185 MB of downloads at 100k assertions were written twice), else a copy."""
    scratch = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.link(written, scratch)
        os.replace(scratch, path)
    except OSError:
        with contextlib.suppress(OSError):
            scratch.unlink(missing_ok=True)
        keep(path, text)


def _tagged(value):
    """JSON keeps no Python type: an IRI is written {"@id": …}, as JSON-LD does, to come back an IRI."""
    return {"@id": str(value)} if isinstance(value, IRI) else value


def _typed(value):
    return IRI(value["@id"]) if isinstance(value, dict) else value
