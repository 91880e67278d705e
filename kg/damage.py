"""A damaged store is a clear error within seconds, for every command.

RocksDB checks each block it reads, and Oxigraph raises the mismatch ("Corruption: block checksum
mismatch") where a read hands it to Python — but some of its query evaluation (an aggregate, an ASK
over graphs) takes the iterator's error for no row and asks again, and the iterator, stopped at the
bad block, gives the same error for ever: the command spun at 99% CPU with no output (issue 45: a
store with one byte flipped every 100 kB of each .sst file; `kg stats` in `ASK` at open,
`pass-at-k` killed after 645 s). Nothing in Python can stop that loop, so a command that runs past
WATCH_AFTER seconds has the store read through once, on another thread and its own read-only handle,
the way that raises (every quad, every term decoded, by the engine's dump to /dev/null); a corrupt
block ends the process with exit status 1 and a message naming the store and how to repair it.

Only the CLI watches (`watching(True)`): a notebook's process is the user's, never ended by kg."""
from __future__ import annotations

import os
import sys
import threading
import time

import pyoxigraph as ox

WATCH_AFTER = 3.0  # seconds: a command done sooner needs no check; a damaged store is named about this soon after
_WATCH = False
_watched: set[str] = set()
_settled: set[str] = set()  # stores whose check is called off: a writer that opened them empty


def watching(on: bool) -> None:
    global _WATCH
    _WATCH = on


def watch(path: str) -> None:
    """Starts the check of the store at `path` (once per process and store) if this process watches."""
    if not _WATCH or path == ":memory:" or path in _watched:
        return
    _watched.add(path)
    threading.Thread(target=_check_later, args=(path,), name="kg-damage-check", daemon=True).start()


def settle(path: str) -> None:
    """Calls off the check of `path` if it has not begun: a writer that opened the store empty (what
    it reads is what it wrote, and a read of the whole store beside a first bulk load would cost the
    load as much again)."""
    _settled.add(path)


def _check_later(path: str) -> None:
    time.sleep(WATCH_AFTER)
    if path in _settled:
        return
    try:  # the check yields the cores to the command it watches (Linux: a thread's own nice value)
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):
        pass
    problem = damage(path)
    if problem:
        sys.stderr.write(message(path, problem) + "\n")
        sys.stderr.flush()
        os._exit(1)  # the main thread may be in the engine's endless loop: nothing else ends it


def damage(path: str, attempts: int = 3) -> str | None:
    """The engine's words for a corrupt block met reading the whole store, or None. A file a writer
    (this process, or another) compacted away while the view read it is a race, not damage: RocksDB
    words it "Corruption: IO error: No such file or directory", so a new view tries again, and a
    store still changing under it after `attempts` is left alone."""
    for attempt in range(attempts):
        try:
            handle = ox.Store.read_only(path)
            handle.dump(os.devnull, format=ox.RdfFormat.N_QUADS)
            return None
        except (OSError, RuntimeError) as err:
            text = " ".join(str(err).split())
            if "No such file or directory" in text or "Corruption" not in text:
                time.sleep(0.5 * (attempt + 1))
                continue
            return text
        finally:
            handle = None
    return None


def sources(path: str) -> list[tuple[str, str]]:
    """(path, sha256) of each source the damaged store's catalogue still gives, read quad by quad
    (a read that raises, never one that spins); none when the catalogue itself is damaged."""
    from .terms import CATALOGUE_GRAPH, KG
    found: dict[str, dict[str, str]] = {}
    try:
        handle = ox.Store.read_only(path)
        wanted = {KG + "path": "path", KG + "sha256": "sha256"}
        for q in handle.quads_for_pattern(None, None, None, ox.NamedNode(CATALOGUE_GRAPH)):
            if q.predicate.value in wanted:
                found.setdefault(q.subject.value, {})[wanted[q.predicate.value]] = q.object.value
    except (OSError, RuntimeError):
        return []
    return sorted((v["path"], v.get("sha256", "?")) for g, v in found.items()
                  if "path" in v and not g.startswith("urn:kg:vocab:"))


def message(path: str | None, problem: str) -> str:
    """The one message for a damaged store: which store (when the engine's words name it), what the
    engine met, and the repair from the sources its catalogue still names."""
    known = sources(path) if path else []
    if known:
        listed = "".join(f"\n  {p}  sha256 {sha}" for p, sha in known[:20])
        more = f"\n  … and {len(known) - 20} more" if len(known) > 20 else ""
        repair = (f"move it aside and load its sources again into a new store (kg load PATH…); its catalogue "
                  f"names {len(known)} source file(s), with the digest each had:{listed}{more}")
    elif path is None:  # the engine's words named no file of the store: its catalogue was not read
        repair = "move it aside and load your files again into a new store (kg load PATH…)"
    else:
        repair = ("move it aside and load your files again into a new store (kg load PATH…); its catalogue, "
                  "which lists the files and their digests, cannot be read either")
    return (f"kg: the store{f' {path}' if path else ''} is damaged: a read met a corrupted block ({problem}); no answer was given "
            f"from it. Restore it from a backup, or {repair}")
