"""Errors that say which file, where in it, what was expected and how to fix it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one input file."""

    file: str
    place: str  # "line 3, column 7", a JSON pointer "/criteria/2/intent", or "focus node <iri>"
    message: str  # what was expected and what was found
    fix: str = ""  # how to fix it, when we can tell

    def __str__(self) -> str:
        where = f"{self.file}: {self.place}" if self.place else self.file
        text = f"{where}: {self.message}"
        text = f"{text} (fix: {self.fix})" if self.fix else text
        # a lone surrogate (a file name that is not UTF-8, a "\ud800" in a key) cannot be printed
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


class Rejected(Exception):
    """The file is rejected whole; nothing of it was written."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class UsageError(Exception):
    """The command was called wrongly (exit status 2)."""


class StoreBusy(Exception):
    """Another process holds the store."""


class StoreUnavailable(Exception):
    """The store could not be read or written (a remote engine down, refusing, or timing out)."""


class NoStore(StoreUnavailable):
    """A command that only reads found no store where it looked; it never creates one."""


class OutputUnwritable(Exception):
    """A report or snapshot could not be written (a full or read-only disk); nothing was published."""
