"""A folded table laid out in a terminal's width, without leaving out what the query is for.

kg/output.py folds an answer into display cells; this module fits them to the width. Three kinds
of column: what a row is about (its text columns: replay set, system, grader kind, grader — never
left out: a row without its grader kind would read as pooled), the query's results (the rates its
header declares: never left out either, they are what was asked), and the rest (plain counts, the
folded exclusions), which may go, each named below the table. It tries, in this order, the first
layout that fits:

1. the table as it is, then with plain counts left out, rightmost first;
2. the leading about-columns said once as a section heading over the rows that share them
   (`cubby-regression · regression · cubby@1.4.0`), one column more at a time;
3. cells wrapped onto more lines (a rate's interval under its value, a long id at its `@` or `/`),
   with as few section columns as fit;
4. the same without the folded exclusions;
5. one block per row, a line per column (as psql's expanded display), which always fits.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

GAP = 2  # spaces between columns
MAX_HEADS = 3  # columns a section heading is made of, at most
_BREAKS = re.compile(r"(?<=[ @/,])(?=\S)")


@dataclass
class Layout:
    """What to print: the lines of the table, and the columns left out to fit (in column order)."""
    lines: list[str]
    dropped: list[str] = field(default_factory=list)


def pieces(text: str) -> list[str]:
    """Where a cell may break: after a space, `@`, `/` or `,` (`of 16` stays whole)."""
    parts = _BREAKS.split(text)
    merged: list[str] = []
    for part in parts:
        if merged and merged[-1] == "of ":
            merged[-1] += part
        else:
            merged.append(part)
    return merged


def wrap(text: str, width: int) -> list[str]:
    """The cell's lines, each at most `width` long (a piece longer than that is cut)."""
    lines, line = [], ""
    for part in pieces(text):
        if line and len((line + part).rstrip()) > width:
            lines.append(line.rstrip())
            line = ""
        line += part
    lines.append(line.rstrip())
    out = []
    for line in lines:
        while len(line) > width:
            out.append(line[:width])
            line = line[width:]
        out.append(line)
    return out or [""]


def _natural(column: str, cells: list[dict[str, str]]) -> int:
    return max([len(column)] + [len(r[column]) for r in cells])


def _least(column: str, cells: list[dict[str, str]]) -> int:
    return max([len(column)] + [len(p.rstrip()) for r in cells for p in pieces(r[column])])


def _total(widths) -> int:
    return sum(widths) + GAP * (len(widths) - 1)


def _widths(columns: list[str], cells: list[dict[str, str]], width: int | None,
            wrapping: set[str]) -> dict[str, int] | None:
    """Each column's width, the `wrapping` ones narrowed as far as their cells break, or None when
    the columns cannot fit `width`."""
    widths = {c: _natural(c, cells) for c in columns}
    if width is None or _total(widths.values()) <= width:
        return widths
    if not wrapping:
        return None
    least = {c: _least(c, cells) if c in wrapping else widths[c] for c in columns}
    if _total(least.values()) > width:
        return None
    while _total(widths.values()) > width:  # narrow the widest column that can still narrow
        column = max((c for c in columns if widths[c] > least[c]), key=lambda c: widths[c])
        widths[column] -= 1
    return widths


def _rows(columns: list[str], cells: list[dict[str, str]], widths: dict[str, int], right: set[str]) -> list[str]:
    lines = []
    for row in cells:
        wrapped = {c: wrap(row[c], widths[c]) for c in columns}
        for i in range(max(len(w) for w in wrapped.values())):
            parts = []
            for c in columns:
                text = wrapped[c][i] if i < len(wrapped[c]) else ""
                parts.append(text.rjust(widths[c]) if c in right else text.ljust(widths[c]))
            lines.append((" " * GAP).join(parts).rstrip())
    return lines


def _header(columns: list[str], widths: dict[str, int]) -> list[str]:
    return [(" " * GAP).join(c.ljust(widths[c]) for c in columns).rstrip(),
            (" " * GAP).join("-" * widths[c] for c in columns)]


def _sectioned(columns: list[str], cells: list[dict[str, str]], heads: list[str], width: int | None,
               right: set[str], wrapping: set[str]) -> list[str] | None:
    """The table under section headings made of the `heads` columns (consecutive rows sharing them
    are one section), or None when it does not fit."""
    inner = [c for c in columns if c not in heads]
    widths = _widths(inner, cells, width, wrapping)
    if widths is None:
        return None
    if not heads:
        return _header(inner, widths) + _rows(inner, cells, widths, right)
    lines = _fill(f"each section: {' · '.join(heads)}", width) + _header(inner, widths)
    section: tuple | None = None
    for row in cells:
        key = tuple(row[h] or "(none)" for h in heads)
        if key != section:
            section = key
            lines += [""] + _fill(" · ".join(key), width)
        lines += _rows(inner, [row], widths, right)
    return lines


def _sections(cells: list[dict[str, str]], heads: list[str]) -> int:
    """How many sections the rows make under headings of these columns (a new one where they change)."""
    keys = [tuple(row[h] for h in heads) for row in cells]
    return sum(1 for i, key in enumerate(keys) if i == 0 or key != keys[i - 1])


def _records(columns: list[str], cells: list[dict[str, str]], width: int | None) -> list[str]:
    """One block per row, a line per column: fits any width a column's name leaves room in."""
    name_width = max(len(c) for c in columns)
    room = max(12, (width or 80) - name_width - GAP)
    lines = []
    for n, row in enumerate(cells, 1):
        lines.append(f"-[ row {n} ]" + "-" * max(0, min(width or 40, 40) - len(f"-[ row {n} ]")))
        for c in columns:
            for i, text in enumerate(wrap(row[c], room)):
                lines.append(f"{(c if i == 0 else '').ljust(name_width)}{' ' * GAP}{text}".rstrip())
    return lines


def _fill(text: str, width: int | None) -> list[str]:
    if width is None or len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, break_on_hyphens=False) or [text]


def lay_out(columns: list[str], cells: list[dict[str, str]], width: int | None, results: set[str],
            right: set[str]) -> Layout:
    """The table fitted to `width` (None: as it is); `results` are the columns never left out, `right`
    the right-aligned (numeric) ones."""
    if not columns:
        return Layout([])
    about = [c for c in columns if c not in results and c not in right and not c.endswith("excluded")]
    counts = [c for c in columns if c in right and c not in results and c != columns[0]]
    shown, dropped = list(columns), []

    def attempt(wrap: str, keep_columns: int) -> list[str] | None:
        """Sections of as few leading about-columns as fit, `keep_columns` of them left as columns;
        cells wrapped in no column, all but the about-columns (`results`), or `all`."""
        keep = [c for c in about if c in shown]
        wrapping = {"none": set(), "results": set(shown) - set(about), "all": set(shown)}[wrap]
        for n in range(0, min(MAX_HEADS, len(keep) - keep_columns) + 1):
            if n and _sections(cells, keep[:n]) * 2 > len(cells):
                break  # headings over rows of their own (most sections one row) say nothing once
            lines = _sectioned(shown, cells, keep[:n], width, right, wrapping)
            if lines is not None:
                return lines
        return None

    lines = _sectioned(shown, cells, [], width, right, set())
    for victim in reversed(counts):  # plain counts first, the rightmost first
        if lines is not None:
            break
        shown.remove(victim)
        dropped.append(victim)
        lines = _sectioned(shown, cells, [], width, right, set())
    # ids whole before ids wrapped, and rows of their own (two about-columns) before sections of one row
    lines = lines or attempt("none", 1) or attempt("results", 2) or attempt("all", 1)
    if lines is None:
        folded = [c for c in shown if c.endswith("excluded") and c not in results and c not in about]
        if folded:
            shown = [c for c in shown if c not in folded]
            dropped += folded
            lines = attempt("results", 2) or attempt("all", 1)
    if lines is None:  # nothing narrower: every column, one row at a time
        shown = list(columns)
        return Layout(_records(shown, cells, width), [])
    return Layout(lines, [c for c in columns if c in dropped])


def fill(text: str, width: int | None) -> list[str]:
    """A line of prose (a note above or below a table) folded to the width."""
    return _fill(text, width)
