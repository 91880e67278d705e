"""A status column's value: a state word, optionally followed by ": " and why, as a catalogue query
makes it ("compared", "refused: the replay set is stated with two digests"). Declared in a query's
header (`types: {status: status}`) and read into a Status by kg.catalogue.finish for every engine,
so that code and templates test the word (`.kind`, `.refused`), never a prefix of the text."""
from __future__ import annotations

from typing import Any


class Status(str):
    """A status column's value (`types: {column: status}`): the text as the query made it, with the
    state word apart from why. A refusal is a value: `Status("refused: two digests").kind` is
    "refused", `.why` "two digests"."""
    __slots__ = ()

    @property
    def kind(self) -> str:
        return self.split(":", 1)[0].strip()

    @property
    def why(self) -> str | None:
        parts = self.split(":", 1)
        return parts[1].strip() or None if len(parts) == 2 else None

    @property
    def refused(self) -> bool:
        return self.kind == "refused"


def status_kind(value: Any) -> str | None:
    """The state word of a status column's value, or None when there is none."""
    return None if value is None else Status(value).kind
