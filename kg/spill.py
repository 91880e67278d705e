"""What a loader must remember across a whole file - each id's first line, the ids it cites, which
of them the store already holds - kept in a private temporary SQLite database instead of Python
dicts and sets. SQLite holds its pages in a cache of bounded size and writes the rest to a temporary
file it deletes on close, so the memory a load needs for these no longer grows with the file: in
Python they took about 0.8 KB an assertion, 805 MB for a 1 GB file (BENCHMARKS.md).

    with Spill("results.earl.jsonl") as spill:
        ids = spill.keys()
        first = ids.add("a-1", 12)     # 12: the value kept the first time a key is added
        "a-1" in ids                   # True

A temporary file that cannot be written (a full disk) rejects the file being loaded, saying where.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from .errors import Problem, Rejected
from .jsonio import MAX_PROBLEMS, duplicate_problem

# SQLite's page cache, per database (KiB): the most these keys hold in memory, however many there are
CACHE_KIB = 32 * 1024


class Spill:
    """One temporary database for a load's keys (of the file named `file`); each keys() is a table."""

    def __init__(self, file: str = "") -> None:
        self.file = file
        # "" is a private, temporary on-disk database: kept in the cache while it fits, deleted on close
        self._db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        self._tables = 0
        self.run(f"PRAGMA cache_size=-{CACHE_KIB}")
        self.run("PRAGMA journal_mode=OFF")
        self.run("PRAGMA synchronous=OFF")
        self.run("PRAGMA temp_store=FILE")
        # one transaction, never committed (the database goes with the load): a commit per statement
        # wrote the changed pages out each time, 4x slower
        self.run("BEGIN")

    def run(self, sql: str, params: Any = (), many: bool = False) -> sqlite3.Cursor:
        """A statement, its failure (SQLite's temporary file could not be written) a rejection."""
        try:
            return self._db.executemany(sql, params) if many else self._db.execute(sql, params)
        except sqlite3.Error as err:
            raise Rejected([Problem(
                self.file, "", f"kg keeps a large file's ids in a temporary file while it loads it, and SQLite "
                               f"could not write it: {err}",
                "free space in the temporary folder (SQLITE_TMPDIR, else TMPDIR, else /var/tmp), or point "
                "SQLITE_TMPDIR at a folder with room; then load the file again")]) from None

    def keys(self) -> Keys:
        self._tables += 1
        return Keys(self, f"keys{self._tables}")

    def unique(self, what: str) -> Unique:
        """Ids that must be unique in the file, each repeat a problem (jsonio.duplicate_problem)."""
        return Unique(self.keys(), self.file, what)

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def closed_on_error(self) -> Iterator[Spill]:
        """A loader's first pass: the keys go if it fails; else they stay for the second pass
        (`closing`)."""
        try:
            yield self
        except BaseException:
            self.close()
            raise

    def closing(self, chunks: Iterator[str]) -> Iterator[str]:
        """A loader's second pass (its chunks of N-Triples text), the keys dropped when it ends or is
        abandoned (closed)."""
        try:
            yield from chunks
        finally:
            self.close()

    def __enter__(self) -> Spill:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Unique:
    """An id seen at a place (`see`): a repeat is a problem naming where it was first, the first
    MAX_PROBLEMS of them kept (`problems`) for the loader to say first, as a whole-file check."""

    def __init__(self, keys: Keys, file: str, what: str) -> None:
        self.keys, self.file, self.what = keys, file, what
        self.problems: list[Problem] = []

    def see(self, ident: str, place: str) -> None:
        first = self.keys.add(ident, place)
        if first != place and len(self.problems) < MAX_PROBLEMS:
            self.problems.append(duplicate_problem(self.file, place, ident, first, self.what))


class Keys:
    """A set of strings, each kept with the value it was first added with (a line number, a path)."""

    def __init__(self, spill: Spill, table: str) -> None:
        self._run, self._table = spill.run, table
        self._run(f"CREATE TABLE {table} (key TEXT PRIMARY KEY, value) WITHOUT ROWID")
        self._insert = f"INSERT OR IGNORE INTO {table} VALUES (?, ?)"
        self._get = f"SELECT value FROM {table} WHERE key = ?"

    def add(self, key: str, value: Any = None) -> Any:
        """Keeps the key with this value unless it is there already; the value it is kept with."""
        if self._run(self._insert, (key, value)).rowcount:
            return value
        return self._run(self._get, (key,)).fetchone()[0]

    def update(self, items: Iterable[tuple[str, Any]]) -> None:
        """add() of many (key, value) pairs; a key there already keeps its value."""
        self._run(self._insert, items, many=True)

    def get(self, key: str, default: Any = None) -> Any:
        row = self._run(self._get, (key,)).fetchone()
        return default if row is None else row[0]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._run(self._get, (key,)).fetchone() is not None

    def __len__(self) -> int:
        return self._run(f"SELECT count(*) FROM {self._table}").fetchone()[0]

    def chunks(self, size: int) -> Iterator[list[str]]:
        """Every key in order, `size` at a time (read a chunk at a time, so the others may be written
        to meanwhile). Each chunk is a seek in the key's index: `?1 IS NULL OR key > ?1` would make
        every chunk a scan of the table."""
        rows = self._run(f"SELECT key FROM {self._table} ORDER BY key LIMIT ?", (size,)).fetchall()
        while rows:
            yield [key for key, in rows]
            rows = self._run(f"SELECT key FROM {self._table} WHERE key > ? ORDER BY key LIMIT ?",
                             (rows[-1][0], size)).fetchall()

    def common(self, other: Keys, limit: int) -> list[tuple[str, Any]]:
        """(key, value) of the first `limit` keys, in key order, that are also in `other` (of the same Spill)."""
        return self._run(f"SELECT a.key, a.value FROM {self._table} a JOIN {other._table} b "
                         f"ON a.key = b.key ORDER BY a.key LIMIT ?", (limit,)).fetchall()
