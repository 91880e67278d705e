"""Engine answers decoded into Python values: a term as the value a table, JSON or DataFrame shows
(`term_value`, `literal_value`), an IRI kept typed (`IRI`, `NamedIRI`), a value of a SPARQL TSV answer
read from its text (`tsv_term`, `tsv_iri`, `tsv_value`), and the memo that decodes each distinct term
of an answer once (`remembered`)."""
from __future__ import annotations

import re
from typing import Any

import pyoxigraph as ox

XSD = "http://www.w3.org/2001/XMLSchema#"

_INTEGER_TYPES = {XSD + t for t in ("integer", "int", "long", "short", "byte", "nonNegativeInteger",
                                     "positiveInteger", "negativeInteger", "nonPositiveInteger",
                                     "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte")}
_FLOAT_TYPES = {XSD + t for t in ("decimal", "double", "float")}


class IRI(str):
    """An IRI in an answer: a str, so it prints, compares and serialises as the IRI itself, and
    typed, so that tables shorten it and DataFrames add its short id beside it. Every engine's
    answer is read into it (term_value here, kg/remote.py, kg/engines.py)."""
    __slots__ = ()

    @property
    def short(self) -> str:
        """The IRI's last path segment or fragment, as an id: id:system/cubby@1.4.0 → cubby@1.4.0."""
        from urllib.parse import unquote
        tail = re.split(r"[/#]", self.rstrip("/#"))[-1]
        return unquote(tail) or str(self)


class NamedIRI(IRI):
    """An IRI with a display name (kg/names.py): its short id is the name."""

    def __new__(cls, value: str, name: str):
        made = super().__new__(cls, value)
        made.name = name
        return made

    @property
    def short(self) -> str:
        return self.name


def term_value(term) -> Any:
    """A pyoxigraph term as the Python value a table, JSON or DataFrame shows."""
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return IRI(term.value)
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, ox.Literal):
        return literal_value(term.value, term.datatype.value if term.datatype else None)
    return str(term)


_XSD_INTEGER, _XSD_DECIMAL, _XSD_DOUBLE, _XSD_BOOLEAN = (ox.NamedNode(XSD + t) for t in ("integer", "decimal", "double", "boolean"))
# the bare numbers of Turtle's syntax (a SPARQL TSV answer writes integers and decimals so)
_BARE = ((re.compile(r"[+-]?[0-9]+"), _XSD_INTEGER), (re.compile(r"[+-]?[0-9]*\.[0-9]+"), _XSD_DECIMAL),
         (re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+"), _XSD_DOUBLE))


def tsv_term(field: str):
    """A value of a SPARQL TSV answer (a term in Turtle's syntax, empty when unbound) as the pyoxigraph
    term it stands for. The embedded store reads its answers so (kg/store/reading.py `select_values`): the
    engine writes them without taking Python's lock, where each row read as terms takes it. The forms
    the engine writes are read here; one with an escape (a backslash) is read by pyoxigraph's own
    parser of the format, as is any form not recognised."""
    if not field:
        return None
    if "\\" not in field:
        first = field[0]
        if first == "<":
            return ox.NamedNode(field[1:-1])
        if first == '"':  # no escape, so no quote inside: the last one closes the lexical form
            end = field.rindex('"')
            rest = field[end + 1:]
            if not rest:
                return ox.Literal(field[1:end])
            if rest[0] == "@":
                return ox.Literal(field[1:end], language=rest[1:])
            if rest.startswith("^^<") and rest[-1] == ">":
                return ox.Literal(field[1:end], datatype=ox.NamedNode(rest[3:-1]))
        elif field.startswith("_:"):
            return ox.BlankNode(field[2:])
        elif field == "true" or field == "false":
            return ox.Literal(field, datatype=_XSD_BOOLEAN)
        else:
            for pattern, datatype in _BARE:
                if pattern.fullmatch(field):
                    return ox.Literal(field, datatype=datatype)
    return next(iter(ox.parse_query_results(f"?v\n{field}\n", format=ox.QueryResultsFormat.TSV)))[0]


def tsv_iri(field: str) -> str | None:
    """The IRI a SPARQL TSV value writes, read straight from its text (most of an answer's values are
    IRIs); None for any other value, and for an IRI with an escape (tsv_term reads those)."""
    return field[1:-1] if field[:1] == "<" and "\\" not in field else None


def tsv_value(field: str) -> Any:
    """A value of a SPARQL TSV answer as term_value makes its term: an IRI and a plain string (most
    of an answer's values) read straight from the text, the rest through tsv_term."""
    if (iri := tsv_iri(field)) is not None:
        return IRI(iri)
    if field[:1] == '"' and field[-1:] == '"' and len(field) > 1 and "\\" not in field:
        return field[1:-1]
    return term_value(tsv_term(field))


# distinct terms remembered per answer by `remembered`: enough for every system, case, grader, status
# and date of an estate's answer, bounded so that an answer of a million unique IRIs adds no more
MEMO_LIMIT = 50_000


def remembered(decode):
    """`decode` (a function of one term) answering a term seen before from a memo: an answer repeats
    its systems, cases, graders and statuses on every row, and a lookup costs a tenth of decoding
    (0.06 against 0.2-0.65 µs). Unique terms past MEMO_LIMIT are decoded each time, not kept."""
    memo: dict = {}
    absent = object()

    def decoded(term):
        hit = memo.get(term, absent)
        if hit is absent:
            hit = decode(term)
            if len(memo) < MEMO_LIMIT:
                memo[term] = hit
        return hit
    return decoded


def literal_value(lexical: str, datatype: str | None) -> Any:
    try:
        if datatype in _INTEGER_TYPES:
            return int(lexical)
        if datatype in _FLOAT_TYPES:
            return float(lexical)
        if datatype == XSD + "boolean":
            return lexical in ("true", "1")
    except ValueError:
        return lexical
    return lexical

