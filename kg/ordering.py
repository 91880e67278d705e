"""A query's final ORDER BY, done in Python for the embedded store.

Oxigraph sorts by comparing terms it decodes from the store at every comparison: at 100k assertions
`verdicts` spends 13.4 of its 18.9 s sorting, `verdict-sources` 7 of 14 s sorting by one IRI column
(BENCHMARKS.md). Sorting the decoded rows in Python costs well under a second. So the embedded store
runs a query whose last clause is `ORDER BY` of projected variables without that clause and sorts
the rows here, by SPARQL's order (§15.1): unbound first, then blank nodes (by label: SPARQL leaves
their order among themselves open, and a label means nothing outside one answer), then IRIs by their
characters, then literals by value.

This is only done where kg knows the order: each sort column's bound values are IRIs, blank nodes,
and literals that are strings, numbers, booleans or date-times. Among literals of one kind the order
is SPARQL's, and the engine's; where SPARQL leaves it open (a string beside a number), kg orders the
kinds (numbers, booleans, date-times with a zone, without, strings), as Oxigraph's own sort may abort
the process on such a column (docs/engines.md). A column with anything else (a language-tagged
string, a datatype kg does not know, exact numbers beside doubles, which the engine compares in
binary floating point) makes `sort` answer None, and the caller runs the query as written, so the
engine orders it. Rows equal on every key keep the engine's order, as
ties are unordered in SPARQL. `tests/test_ordering.py` compares both on data made to mix every kind.
"""
from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation

import pyoxigraph as ox

from .catalogue import _FLOAT_TYPES, _INTEGER_TYPES, XSD, _code_spans, remembered, tsv_iri, tsv_term

_STRING = {XSD + "string"}
# exact numbers compare by value; doubles and floats too, as binary floating point (the engine turns
# a decimal beside a double into a double, so a column mixing the two is left to it). The datatypes
# are the ones the catalogue reads as numbers (kg/catalogue/values.py)
_EXACT = _INTEGER_TYPES | {XSD + "decimal"}
_BINARY = _FLOAT_TYPES - {XSD + "decimal"}
_DATETIME = {XSD + "dateTime", XSD + "dateTimeStamp"}

# the last clause: ORDER BY, then only variables and ASC(?v) / DESC(?v), to the end of the query
_KEY = re.compile(r"\s*(?:(ASC|DESC)\s*\(\s*\?(\w+)\s*\)|\?(\w+))", re.IGNORECASE)
_ORDER_BY = re.compile(r"\bORDER\s+BY\b", re.IGNORECASE)


class Unsortable(Exception):
    """A value whose SPARQL order kg does not reproduce: let the engine sort."""


def split_order_by(text: str) -> tuple[str, list[tuple[str, bool]]] | None:
    """(the query without its final ORDER BY, [(variable, descending)]), or None when the query
    does not end with an ORDER BY of plain variables outside every brace (a LIMIT or OFFSET after it,
    an expression, or an ORDER BY of a sub-select only)."""
    code = list(_code_spans(text))
    found = None
    depth = 0
    for start, end in code:
        segment = text[start:end]
        pos = 0
        for m in _ORDER_BY.finditer(segment):
            depth += segment.count("{", pos, m.start()) - segment.count("}", pos, m.start())
            pos = m.start()
            if depth == 0:
                found = start + m.start(), start + m.end()
        depth += segment.count("{", pos) - segment.count("}", pos)
    if found is None:
        return None
    tail = " ".join(text[max(s, found[1]):e] for s, e in code if e > found[1])
    keys, pos = [], 0
    while pos < len(tail.rstrip()):
        m = _KEY.match(tail, pos)
        if not m:
            return None
        keys.append((m.group(2) or m.group(3), (m.group(1) or "").upper() == "DESC"))
        pos = m.end()
    projected = _projection(" ".join(text[s:e] for s, e in code))
    if not keys or projected is not None and any(name not in projected for name, _ in keys):
        return None  # sorting by a variable not projected: only the engine still has it
    return text[:found[0]], keys


_SELECT = re.compile(r"\bSELECT\b(.*?)(?:\bWHERE\b|\{|\bFROM\b)", re.IGNORECASE | re.DOTALL)
_AS = re.compile(r"\bAS\s+\?(\w+)\s*\)\s*$", re.IGNORECASE)


def _projection(code: str) -> set[str] | None:
    """The variables the outer SELECT projects (None for SELECT *): each `?v`, and the `?v` of each
    `(expression AS ?v)`."""
    m = _SELECT.search(code)
    if not m:
        return set()
    clause, names, depth, group = m.group(1), set(), 0, ""
    for token in re.findall(r"\(|\)|\?\w+|\*|[^()?*]+", clause):
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
            if depth == 0:
                if (a := _AS.search(group + ")")):
                    names.add(a.group(1))
                group = ""
                continue
        elif token == "*" and depth == 0:
            return None
        elif token.startswith("?") and depth == 0:
            names.add(token[1:])
        if depth > 0:
            group += token
    return names


def _key(term) -> tuple:
    """A term's place in SPARQL's order, with the family the column must not mix."""
    if term is None:
        return ("", (0,))
    if isinstance(term, ox.NamedNode):
        return ("", (2, term.value))
    if isinstance(term, ox.BlankNode):  # SPARQL orders blank nodes before IRIs, and not among themselves
        return ("", (1, term.value))
    if not isinstance(term, ox.Literal) or term.language:
        raise Unsortable(term)
    datatype = term.datatype.value
    if datatype in _STRING:
        return ("string", (3, term.value))
    if datatype in _EXACT or datatype in _BINARY:
        try:
            number = Decimal(term.value.strip()) if datatype in _EXACT else float(term.value)
        except (InvalidOperation, ValueError):
            raise Unsortable(term) from None
        if not (number.is_finite() if isinstance(number, Decimal) else math.isfinite(number)):
            raise Unsortable(term)
        return ("exact" if datatype in _EXACT else "binary", (3, number))
    if datatype == XSD + "boolean" and term.value in ("true", "false", "1", "0"):
        return ("boolean", (3, term.value in ("true", "1")))
    if datatype in _DATETIME:
        try:
            moment = datetime.fromisoformat(term.value)
        except ValueError:
            raise Unsortable(term) from None
        return ("zoned" if moment.tzinfo else "local", (3, moment))
    raise Unsortable(term)


def _tsv_key(field: str) -> tuple:
    """_key of a TSV answer's value: an IRI's from its text (most keys are IRIs), the rest from its term."""
    iri = tsv_iri(field)
    return _key(tsv_term(field)) if iri is None else ("", (2, iri))


def sort(variables: list[str], rows, keys: list[tuple[str, bool]], convert=tuple, tsv=False) -> list | None:
    """The rows (pyoxigraph solutions or tuples of terms, in `variables`' order; with `tsv`, lists of
    a TSV answer's values as text) sorted by `keys`, each made `convert(row)` as it is read (so the
    terms are not all held at once), or None when a key is not projected or a column's values are not
    ones this module orders."""
    try:
        columns = [variables.index(name) for name, _ in keys]
    except ValueError:
        return None
    key = remembered(_tsv_key if tsv else _key)
    try:
        keyed = []
        for row in rows:
            keyed.append(([key(row[c]) for c in columns], convert(row)))
    except Unsortable:
        return None
    mixed = []
    for i in range(len(columns)):
        families = {key[i][0] for key, _ in keyed} - {""}
        if {"exact", "binary"} <= families:
            return None  # SPARQL compares these as numbers, the engine in binary floating point
        mixed.append(len(families) > 1)
    # stable sorts, least significant key first: each keeps the order the later ones set. Keys next to
    # each other that sort the same way (one direction, no kinds mixed) are one sort by their tuple,
    # which orders as their sorts one after the other would (one sort of 101k rows, not seven)
    end = len(columns)
    while end > 0:
        start = end - 1
        if mixed[start]:  # literals of kinds SPARQL does not order among each other: kg's order of kinds first
            keyed.sort(key=lambda item: _kind_first(item[0][start]), reverse=keys[start][1])
        else:
            while start > 0 and not mixed[start - 1] and keys[start - 1][1] == keys[end - 1][1]:
                start -= 1
            keyed.sort(key=lambda item: tuple(k[1] for k in item[0][start:end]), reverse=keys[end - 1][1])
        end = start
    return [row for _, row in keyed]


# where SPARQL leaves literals of different kinds unordered ("1" beside 2), kg puts numbers first,
# then booleans, date-times with a time zone, without one, and strings; Oxigraph's own sort of such
# a column can abort the process (docs/engines.md), so kg never hands it one
_KINDS = {"exact": 0, "binary": 0, "boolean": 1, "zoned": 2, "local": 3, "string": 4}


def _kind_first(key: tuple) -> tuple:
    family, (rank, *value) = key
    return (rank, _KINDS.get(family, -1), *value)


# ── the same order, sorted on disk: for answers streamed out (kg query --format csv|tsv|json) ──
# SQLite sorts a table larger than its page cache by merging runs in temporary files, so the memory
# a sort needs is bounded, whatever the answer's size; each sort key is three columns (rank, kind,
# value) that SQLite orders as _key and _kind_first do, the TSV line itself is kept as text
SORT_CACHE_KIB = 32 * 1024


def _sql_key(key: tuple) -> tuple:
    """(rank, kind, value) of a _key, as SQLite orders them: NULL, then numbers, then text, as SPARQL
    (and `sort` above) orders the terms; an exact number a double cannot hold exactly is left to the engine."""
    family, (rank, *value) = key
    if rank < 3:
        return rank, -1, (value[0] if value else None)
    v = value[0]
    if family == "exact":
        if v == v.to_integral_value() and -2 ** 63 <= v < 2 ** 63:
            v = int(v)
        elif Decimal(float(v)) == v:
            v = float(v)
        else:
            raise Unsortable(v)
    elif family == "boolean":
        v = int(v)
    elif family == "zoned":
        v = v.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")
    elif family == "local":
        v = v.strftime("%Y-%m-%dT%H:%M:%S.%f")
    return rank, _KINDS[family], v


def sort_on_disk(variables: list[str], lines, keys: list[tuple[str, bool]], folder: str):
    """The rows of a TSV answer (`lines`: each row's fields as text) in the order of `keys`, sorted on
    disk in `folder`: an iterator of the rows' fields, or None when `sort` would answer None (a key
    not projected, a value this module does not order, exact numbers beside doubles)."""
    import sqlite3
    try:
        columns = [variables.index(name) for name, _ in keys]
    except ValueError:
        return None
    db = sqlite3.connect(f"{folder}/sort.sqlite3", isolation_level=None, check_same_thread=False)
    db.execute(f"PRAGMA cache_size=-{SORT_CACHE_KIB}")
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("PRAGMA temp_store=FILE")
    names = [f"k{i}{part}" for i in range(len(columns)) for part in ("r", "k", "v")]
    db.execute(f"CREATE TABLE answer ({', '.join(names)}, seq INTEGER, line TEXT)")
    key = remembered(_tsv_key)
    families = [set() for _ in columns]
    insert = f"INSERT INTO answer VALUES ({', '.join('?' * (len(names) + 2))})"

    def keyed():
        for seq, fields in enumerate(lines):
            values = []
            for i, c in enumerate(columns):
                k = key(fields[c])
                families[i].add(k[0])
                values += _sql_key(k)
            yield (*values, seq, "\t".join(fields))
    db.execute("BEGIN")
    try:
        batch = []
        for row in keyed():
            batch.append(row)
            if len(batch) >= 10_000:
                db.executemany(insert, batch)
                batch.clear()
        db.executemany(insert, batch)
    except Unsortable:
        db.close()
        return None
    if any({"exact", "binary"} <= f for f in families):
        db.close()
        return None
    order = ", ".join(f"k{i}{part}{' DESC' if desc else ''}" for i, (_, desc) in enumerate(keys) for part in ("r", "k", "v"))

    def rows():
        try:
            for (line,) in db.execute(f"SELECT line FROM answer ORDER BY {order}, seq"):
                yield line.split("\t") if variables else []
        finally:
            db.close()
    return rows()
