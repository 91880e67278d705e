"""How a value reads on a page: an IRI by its label (the code on hover), a rate as a percentage, a
case linking to its page, and the file names and anchors pages link by. The Site's Cells part is
what templates call once per value (`cell`, `cells`, `marks`, `label`, `short`)."""
from __future__ import annotations

import functools
import hashlib
import numbers
import re
from typing import Any

from markupsafe import Markup, escape

from .. import catalogue, names
from ..output import shorten


class Cells:
    """The Site's helpers that turn a value into what a page shows."""

    @property
    def labels(self) -> dict[str, str]:
        if self._labels is None:  # the one rule of display names: kg/names.py, as the CLI and notebook show them
            self._labels = names.labels(self.backend, self.cache)
        return self._labels

    @property
    def code_labels(self) -> dict[str, str]:
        """A code (a concept's skos:notation, as queries print it: "mis-sib", "tp") -> its concept's
        skos:prefLabel, for each code that names one concept of the store's vocabularies, so a page
        shows "sibling miss" with the code on hover. A code two concepts share is left as it is."""
        if "_code_labels" not in self.__dict__:
            _, rows = catalogue.select(self.backend, """
                PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
                SELECT ?code ?label WHERE { ?concept skos:notation ?code ; skos:prefLabel ?label
                  FILTER(isIRI(?concept) && (LANG(?label) = "" || LANGMATCHES(LANG(?label), "en"))) }""", self.cache)
            found: dict[str, set] = {}
            for code, label in rows:
                found.setdefault(str(code), set()).add(str(label))
            self.__dict__["_code_labels"] = {code: labels.pop() for code, labels in found.items()
                                             if len(labels) == 1 and labels != {code}}
        return self.__dict__["_code_labels"]

    def has_case_page(self, iri: str | None) -> bool:
        """Whether cases/<slug>.html is written for this case: a page per case is written for each
        case of all_cases(): the `cases` query's and every case a verdict names."""
        if not self.case_pages or iri is None:
            return False
        if self._cases_with_pages is None:
            self._cases_with_pages = {row["case"] for row in self.all_cases()}
        return iri in self._cases_with_pages

    def cell(self, column: str, value: Any, root: str = "", rates=()) -> Markup:
        """One table cell (the one definition behind _table.html's `cell` macro): empty as —, a
        boolean as yes/no, a number as a percentage when its query declares the column a rate
        (`rates`), else as num; a case linking to its page, an IRI shown by label with the IRI as
        title, anything else as text. Escaped. A Python method, not a macro, because the case pages
        call it once per value of every verdict: a Jinja macro call there cost most of their time."""
        # (f-strings of escaped values: Markup.format's string.Formatter cost most of a warm report's
        # rendering; an f-string of a Markup is its text, escaped once)
        if value is None:
            return _NONE_CELL
        if value is True or value is False:
            return _YES_CELL if value else _NO_CELL
        if type(value) in (int, float) or isinstance(value, numbers.Number):
            shown = pct(value) if column in rates else num(value)
            return Markup(f'<td class="num" data-sort="{escape(value)}">{escape(shown)}</td>')
        # a text's cell depends on the text, the root and whether the column is the case: the case
        # pages show the same systems, graders and statuses on every verdict (1.1M cells at 100k)
        return self._text_cells((value, root, column == "case", column not in _NOT_CODES))

    def _text_cell(self, key: tuple[str, str, bool, bool]) -> Markup:
        value, root, is_case, may_be_code = key
        if is_case and self.has_case_page(value):
            return Markup(f'<td><a href="{escape(root)}cases/{escape(slug(value))}.html">{escape(self.label(value))}</a></td>')
        if isinstance(value, str) and value.startswith(("http", "urn:", "file:")):
            return Markup(f'<td title="{escape(value)}">{escape(brief(self.label(value)))}</td>')
        if may_be_code and value in self.code_labels:  # a code of the vocabulary: its label, the code on hover
            return Markup(f'<td title="{escape(value)}" data-code="{escape(value)}">{escape(self.code_labels[value])}</td>')
        shown = brief(str(value))
        if shown != value:  # a digest shortened: whole on hover (and on the detail pages)
            return Markup(f'<td title="{escape(value)}">{escape(shown)}</td>')
        return Markup(f"<td>{escape(value)}</td>")

    def cells(self, row: dict, columns: list[str], root: str = "", rates=()) -> Markup:
        """The cells of these columns of a row, each as `cell` makes it: one call from a template per
        row, not one per value (the case pages' 101k verdict rows at 100k assertions)."""
        return Markup("".join([self.cell(c, row[c], root, rates) for c in columns]))

    @staticmethod
    def marks(verdicts: list[dict]) -> Markup:
        """A compare grid's side: one mark per verdict, linking to it (✓ passed, ✗ failed, ! conflicting,
        · excluded). A Python method, not a macro: the grid calls it twice per case and grader."""
        return Markup("".join(
            f'<a class="mark s-{escape(v["status"])}" href="{escape(v["href"])}" data-status="{escape(v["status"])}" '
            f'data-trial="{escape(v["trial"])}" title="trial {escape(v["trial"])}: {escape(v["status"])}">{_MARK.get(v["status"], "·")}</a>'
            for v in verdicts))

    def label(self, iri: str | None) -> str:
        """Its label, else the IRI shortened; a long digest in it cut to 12 hex digits (the IRI
        whole is on hover where a page shows it, and on the detail pages)."""
        if iri is None:
            return ""
        return brief(self.labels.get(iri) or shorten(iri, self.prefixes))

    def short(self, iri: str | None) -> str:
        return "" if iri is None else shorten(str(iri), self.prefixes)


# columns whose value is shown as it is, never as a vocabulary label: the code itself, and the verdict
# layer's statuses (kg's own words, "grader" meaning a grader failure, not the failure cause's label)
_NOT_CODES = frozenset({"notation", "status"})
_MARK = {"passed": "✓", "failed": "✗", "conflicting": "!"}
_NONE_CELL = Markup('<td class="num" data-sort="-1">—</td>')
_YES_CELL, _NO_CELL = Markup("<td>yes</td>"), Markup("<td>no</td>")


def _distinct(values) -> list[str]:
    """The values as text, each once, in order, compared regardless of case (as Jinja's `unique`)."""
    seen, kept = set(), []
    for value in map(str, values):
        if value.lower() not in seen:
            seen.add(value.lower())
            kept.append(value)
    return kept


_DIGEST = re.compile(r"(?<![0-9a-fA-F])([0-9a-fA-F]{12})[0-9a-fA-F]{20,}(?![0-9a-fA-F])")


def brief(text: str) -> str:
    """The text with each long hexadecimal digest (a sha256's 64 digits) cut to its first 12 and an
    ellipsis: the pages show the digest whole on hover, and on the detail pages."""
    return _DIGEST.sub(r"\1…", text) if isinstance(text, str) else text


@functools.lru_cache(maxsize=65536)  # a case's slug is asked once per verdict on it
def slug(iri: str) -> str:
    """A file name for a case page: readable tail plus a short hash, so two sets' "route-1" differ."""
    tail = re.sub(r"[^A-Za-z0-9._-]+", "-", iri.rstrip("/").rsplit("/", 1)[-1])[:60] or "case"
    return f"{tail}-{hashlib.sha256(iri.encode()).hexdigest()[:8]}"


def anchor(*parts) -> str:
    """The id of a verdict's row on its case page: a digest of what names it (system, case, trial,
    grader, kind, assertion), so a link to it stays the same from one render to the next."""
    return "v-" + hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:16]


def group_slug(replay_set, system, grader_kind, grader) -> str:
    """A file name for the verdicts behind one card (one pass-at-k row)."""
    tail = re.sub(r"[^A-Za-z0-9._@-]+", "-", f"{str(system).rsplit('/', 1)[-1]}-{grader_kind}")[:60]
    key = "\x1f".join(str(x) for x in (replay_set, system, grader_kind, grader))
    return f"{tail}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def drill_slug(tail: str, *key) -> str:
    """A file name for the rows behind one figure: a readable tail plus a digest of what names the figure."""
    tail = re.sub(r"[^A-Za-z0-9._@-]+", "-", tail)[:60]
    return f"{tail}-{hashlib.sha256(chr(31).join(str(x) for x in key).encode()).hexdigest()[:8]}"



def pct(value, digits: int = 1) -> str:
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def signed(value, digits: int = 1) -> str:
    """A difference as a signed percentage: +12.5%, −3.0%, 0.0%."""
    if value is None:
        return "—"
    text = f"{100 * abs(value):.{digits}f}%"
    return text if round(100 * value, digits) == 0 else ("+" if value > 0 else "−") + text


def num(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)

