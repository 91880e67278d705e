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
import shutil
from pathlib import Path

from .catalogue import IRI

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
        if kept.get("text") != text:  # a digest collision, or a file not ours
            self.misses += 1
            return None
        self.hits += 1
        return kept["variables"], [tuple(_typed(v) for v in row) for row in kept["rows"]]

    def put(self, text: str, variables: list[str], rows: list[tuple]) -> None:
        """Written whole, then renamed into place: a report running beside never reads half an answer;
        a cache that cannot be written (a read-only folder, a full disk) is only not kept."""
        keep(self._file(text), json.dumps({"text": text, "variables": variables,
                                           "rows": [[_tagged(v) for v in row] for row in rows]}))


def keep(path: Path, text: str) -> None:
    """A file kept for a later report (an answer, a drawn chart, a rendered download): written whole,
    then renamed into place, so a report running beside never reads half of one; a file that cannot
    be written (a read-only folder, a full disk) is only not kept, and leaves no scratch behind."""
    scratch = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch.write_text(text, encoding="utf-8")
        os.replace(scratch, path)
    except OSError:
        with contextlib.suppress(OSError):
            scratch.unlink(missing_ok=True)


def _tagged(value):
    """JSON keeps no Python type: an IRI is written {"@id": …}, as JSON-LD does, to come back an IRI."""
    return {"@id": str(value)} if isinstance(value, IRI) else value


def _typed(value):
    return IRI(value["@id"]) if isinstance(value, dict) else value
