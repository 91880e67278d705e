"""The catalogue of named queries: one `.rq` file per query under queries/, named by its stem,
documented by a YAML header in `#+` comment lines (grlc-style), so the file stays plain SPARQL
that any engine runs.

    #+ summary: one line
    #+ description: optional, longer
    #+ params:
    #+   k: {type: integer, default: 3, min: 1, doc: trials a case needs for pass@k}
    #+ columns:
    #+   replay_set: the replay set
    #+ derive:
    #+   pass_at_1: ratio(passed_at_1, cases_at_1)
    #+ hide: [case_counts]
    #+ tokens:
    #+   case_counts: [integer, integer]
    #+ rates:
    #+   pass_at_1: {count: passed_at_1, of: cases_at_1, low: pass_at_1_low, high: pass_at_1_high}
    #+ types:
    #+   covered: boolean
    #+ tags: [results]

`tokens` declares a column that packs one tuple per group into a GROUP_CONCAT ("n:c n:c ...":
tokens apart by spaces, fields by ':', the last field keeping any ':' of its own) and each
field's type (integer or string): finishers receive it decoded, as a list of typed tuples, by
`decode_tokens` here, never a string they split again.

`types` declares the type of a column whose values an engine may not give typed, so that every
engine's answer reads the same. `status`: a state word, optionally followed by ": " and why
("compared", "refused: the replay set is stated with two digests"), read into a `Status` — still
the text, so tables, CSV and JSON show it as it is, with `.kind` (the word) and `.why` (the rest,
or None) for code and templates to test (`r.status.kind == "refused"`), never a prefix matched
again by hand. `boolean` turns the value into a Python bool. Virtuoso 7 has no boolean at run
time — a computed `(?n > 0 AS ?covered)` comes back as the integer 1 or 0 — so a column computed as a boolean is declared here; an integer 1/0 or a
"true"/"false" in it becomes True/False, and any other value is an error naming the query and
column, never a guess. Stored `xsd:boolean` values need no declaration (kg/remote.py reads them).

`rates` says which columns are rates and what each is made of — the count (when the rate is a
count over its denominator), the denominator, the interval — so that a terminal table shows them
in one cell (`14/16 87.5% [64.0–96.5]`) and pages show percentages, with no guessing from column
names. `signed: true` marks a difference of rates (shown in percentage points).

A parameter's `min` and `max` (integer, decimal) and `choices` (a list) are checked before the
query runs: a value outside them is refused with the rule (`kg query` exits 2), not left for a
finisher to fail on.

Parameters are bound as RDF terms by substitution: each use of the variable, outside strings,
comments and IRIs, becomes the term in pyoxigraph's own syntax (escaped by the engine; a number in
SPARQL's short form), so a value can never change the query's structure and the same text runs on
any SPARQL 1.1 engine. Where a term cannot stand for a variable the form changes and the meaning
does not: a projected `?v` is left out (the query's own column is filled in by `finish`, as its
value is the parameter's), a `GROUP BY`/`ORDER BY` key on it dropped, `BOUND(?v)` made `true`. This
is what the `VALUES` block opening every `WHERE` clause that kg used before meant; Virtuoso 7
wedged on those blocks (docs/engines.md). (Oxigraph's `substitutions` would need every parameter
projected and does not reach sub-selects.)"""
from __future__ import annotations

import copy
import difflib
import functools
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import yaml

from . import paths
from .finishers import FINISHERS
from .status import Status

HEADER_KEYS = {"summary", "description", "params", "columns", "derive", "hide", "rates", "tags", "unsupported",
               "tokens", "types"}
TOKEN_TYPES = {"integer": int, "string": str}
COLUMN_TYPES = {"boolean", "status"}
RATE_KEYS = {"of", "count", "low", "high", "signed"}
PARAM_KEYS = {"type", "default", "required", "doc", "min", "max", "choices"}
PARAM_TYPES = {"iri", "string", "integer", "decimal", "boolean"}
XSD = "http://www.w3.org/2001/XMLSchema#"
_DERIVE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$")


class CatalogueError(Exception):
    """A query file whose header is wrong or disagrees with its SPARQL."""


class ParameterError(ValueError):
    """A parameter value that is missing, unknown or not of its declared type."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: Any = None
    required: bool = False
    doc: str = ""
    min: Any = None  # the smallest value allowed (integer and decimal), checked before the query runs
    max: Any = None
    choices: tuple = ()  # the only values allowed, when the header lists them

    def rule(self) -> str:
        """The values allowed, said as a reader of `kg queries NAME` would want it."""
        parts = [f"≥ {self.min}" if self.min is not None else "", f"≤ {self.max}" if self.max is not None else "",
                 f"one of {', '.join(map(str, self.choices))}" if self.choices else ""]
        return " and ".join(p for p in parts if p)

    def check(self, value: Any, query: str) -> None:
        """Refuses a value outside the header's min, max or choices, saying the rule."""
        low = self.min is not None and value < self.min
        high = self.max is not None and value > self.max
        if low or high or (self.choices and value not in self.choices):
            why = f" ({self.doc})" if self.doc else ""
            raise ParameterError(f"parameter {self.name} of {query} must be {self.rule()}{why}, got {value!r}")


@dataclass(frozen=True)
class Derivation:
    column: str
    function: str
    arguments: tuple[str, ...]


@dataclass(frozen=True)
class Rate:
    """A rate column and the columns it is made of (the `rates` header)."""
    column: str
    of: str  # the denominator: cases, trials or situations the rate is over
    count: str | None = None  # the numerator, when the rate is count / of
    low: str | None = None  # the 95% interval's bounds
    high: str | None = None
    signed: bool = False  # a difference of two rates, shown in percentage points

    @property
    def parts(self) -> list[str]:
        return [c for c in (self.count, self.of, self.low, self.high) if c]


@dataclass
class NamedQuery:
    name: str
    path: Path
    summary: str
    text: str
    description: str = ""
    params: dict[str, Param] = field(default_factory=dict)
    columns: dict[str, str] = field(default_factory=dict)
    derive: list[Derivation] = field(default_factory=list)
    hide: list[str] = field(default_factory=list)
    rates: dict[str, Rate] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    unsupported: dict[str, str] = field(default_factory=dict)  # engine → why it computes this wrongly
    tokens: dict[str, tuple[str, ...]] = field(default_factory=dict)  # packed column → its fields' types
    types: dict[str, str] = field(default_factory=dict)  # column → its declared type (boolean), read the same from any engine

    @property
    def rate_columns(self) -> list[str]:
        """Every column holding a proportion in [0, 1] or a difference of two (a rate and its
        interval's bounds), shown as percentages on pages."""
        return [c for r in self.rates.values() for c in (r.column, r.low, r.high) if c]

    @property
    def output_columns(self) -> list[str]:
        return [c for c in self.columns if c not in self.hide]

    def bound_text(self, values: dict[str, Any] | None = None) -> str:
        """The query with its parameters bound (defaults filled in, values checked)."""
        return bind(self.text, self.terms(values or {}), echo=False)  # finish fills the parameters' columns in

    def terms(self, values: dict[str, Any]) -> dict[str, ox.NamedNode | ox.Literal]:
        unknown = sorted(set(values) - set(self.params))
        if unknown:
            known = ", ".join(self.params) or "none"
            raise ParameterError(f"{self.name} has no parameter {', '.join(unknown)} (its parameters: {known})")
        terms = {}
        for name, param in self.params.items():
            value = values.get(name, param.default)
            if value is None:
                if param.required:
                    raise ParameterError(f"{self.name} needs -p {name}=… ({param.type}: {param.doc})")
                continue  # an absent optional parameter leaves its variable free
            terms[name] = to_term(param, value)
            param.check(term_value(terms[name]), self.name)
        return terms

    def parameter_values(self, values: dict[str, Any]) -> dict[str, Any]:
        """Parameter values as Python values (for finishers), defaults filled in."""
        terms = self.terms(values)
        return {name: term_value(terms[name]) if name in terms else None for name in self.params}


def to_term(param: Param, value: Any) -> ox.NamedNode | ox.Literal:
    try:
        if param.type == "iri":
            return ox.NamedNode(str(value))
        if param.type == "integer":
            if isinstance(value, bool) or (isinstance(value, str) and not re.fullmatch(r"[+-]?\d+", value.strip())):
                raise ValueError
            return ox.Literal(str(int(value)), datatype=ox.NamedNode(XSD + "integer"))
        if param.type == "decimal":
            number = Decimal(str(value))
            if not number.is_finite():  # NaN and infinities are no xsd:decimal
                raise ValueError
            return ox.Literal(format(number, "f"), datatype=ox.NamedNode(XSD + "decimal"))
        if param.type == "boolean":
            text = str(value).lower()
            if text not in ("true", "false", "1", "0"):
                raise ValueError
            return ox.Literal("true" if text in ("true", "1") else "false", datatype=ox.NamedNode(XSD + "boolean"))
        return ox.Literal(str(value))
    except (ValueError, InvalidOperation):
        raise ParameterError(f"parameter {param.name} takes a{'n' if param.type[0] in 'aeiou' else ''} "
                             f"{param.type}, got {value!r}") from None


# ── binding ──
_IRIREF = re.compile(r'<[^<>"{}|^`\\\s]*>')


def _code_spans(text: str):
    """(start, end) spans of the text that are SPARQL code: strings and comments left out (an
    IRI's `#` starts no comment)."""
    i, start, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "<" and (m := _IRIREF.match(text, i)):
            i = m.end()
        elif ch == "#":
            yield start, i
            i = text.find("\n", i)
            i = n if i < 0 else i
            start = i
        elif ch in "'\"":
            yield start, i
            quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
            j = i + len(quote)
            while j < n and not text.startswith(quote, j):
                j += 2 if text[j] == "\\" else 1
            i = start = min(n, j + len(quote))
        else:
            i += 1
    yield start, n


_WHERE = re.compile(r"\bWHERE\s*\{", re.IGNORECASE)


def where_positions(text: str) -> list[int]:
    """Offsets just inside each WHERE clause's opening brace (outside strings and comments)."""
    found = []
    for start, end in _code_spans(text):
        found += [start + m.end() for m in _WHERE.finditer(text[start:end])]
    return found


# the tokens the binder tells apart in code: IRIs and prefixed names (which may hold `?` or a
# keyword's letters), variables, keywords, and the brackets that scope clauses
_VARNAME = r"[A-Za-z0-9_\u00B7-\uFFFF]+"
_TOKEN = re.compile(rf"""(?P<iri>{_IRIREF.pattern})
    | (?P<pname>[A-Za-z][\w.-]*:[\w.:%-]*|:[\w.:%-]*|_:[\w.-]+)
    | (?P<var>[?$]{_VARNAME})
    | (?P<word>[A-Za-z]+)
    | (?P<punct>[(){{}}])""", re.VERBOSE)
_BOUND_CALL = re.compile(rf"BOUND\s*\(\s*[?$]({_VARNAME})\s*\)", re.IGNORECASE)
_CLAUSE_END = {"WHERE", "FROM", "HAVING", "ORDER", "LIMIT", "OFFSET", "VALUES", "GROUP"}


def bind(text: str, terms: dict[str, ox.NamedNode | ox.Literal], echo: bool = True) -> str:
    """The query with each variable of `terms` replaced by its term (the module's docstring says why
    and how). A variable the query binds itself (`AS ?v`) is left as it is. With `echo`, a bound
    variable the query projects stays a column, `(TERM AS ?v)`; without, it is left out and the
    caller knows its value (a catalogue query's `finish` fills it in: Virtuoso 7 refuses a constant
    projected by a grouped query, `SR128 Numeric value out of range`)."""
    if not terms:
        return text
    return _Binder({name: sparql_term(term) for name, term in terms.items()}, echo).bind(text)


def sparql_term(term: ox.NamedNode | ox.Literal) -> str:
    """A term in SPARQL's syntax: N-Triples', but a non-negative integer or decimal in its short
    form (`0.95` is the xsd:decimal `"0.95"^^xsd:decimal`, `1.0` the decimal 1), the one Virtuoso 7
    reads in an expression (the long form there: `SR128 Numeric value out of range`)."""
    if isinstance(term, ox.Literal) and re.fullmatch(r"\d+(\.\d+)?", term.value):
        if term.datatype.value == XSD + "integer" and "." not in term.value:
            return term.value
        if term.datatype.value == XSD + "decimal":
            return term.value if "." in term.value else term.value + ".0"
    return str(term)


class _Binder:
    """One pass over a query's code (strings and comments copied as they are), replacing each bound
    variable by its term in the form its place takes."""

    def __init__(self, terms: dict[str, str], echo: bool):
        self.terms, self.echo = terms, echo
        self.out: list[str] = []
        self.clause: str | None = None  # "select", "group" or "order" while reading that clause's keys
        self.depth = 0  # brackets deep within the clause
        self.braces = 0  # groups deep in the query: a SELECT at 0 is the query's own, not a sub-select
        self.top = False
        self.dropped: list[tuple[int, str]] = []  # the clause's bound variables left out: where in out, which
        self.keeps = False  # whether the clause being read has anything else (a column, a key)

    def bind(self, text: str) -> str:
        last, previous = 0, ""
        for start, end in _code_spans(text):
            code = _BOUND_CALL.sub(lambda m: "true" if m.group(1) in self.terms else m.group(0), text[start:end])
            self.out.append(text[last:start])
            done = 0
            for m in _TOKEN.finditer(code):
                kind, token = m.lastgroup, m.group()
                prior, previous = previous, token.upper() if kind == "word" else ""
                if kind == "word":
                    self.word(previous, prior)
                elif kind == "punct":
                    self.punct(token)
                elif kind == "var" and self.clause and self.depth == 0 and token[1:] not in self.terms:
                    self.keeps = True
                if kind == "var" and token[1:] in self.terms and prior != "AS":
                    self.out.append(code[done:m.start()])
                    self.out.append(self.replacement(token))
                    done = m.end()
            self.out.append(code[done:])
            last = end
        self.end_clause()  # a query may end in its ORDER BY's keys
        return "".join(self.out) + text[last:]

    def word(self, word: str, prior: str) -> None:
        if word == "SELECT":
            self.clause, self.depth, self.top, self.dropped, self.keeps = "select", 0, self.braces == 0, [], False
        elif word == "BY" and prior in ("GROUP", "ORDER"):
            self.clause, self.depth, self.dropped, self.keeps = prior.lower(), 0, [], False
        elif self.clause and self.depth == 0 and word in _CLAUSE_END:
            self.end_clause()

    def punct(self, token: str) -> None:
        if self.clause and self.depth == 0 and token == "(":
            self.keeps = True
        self.depth += {"(": 1, ")": -1}.get(token, 0)
        self.braces += {"{": 1, "}": -1}.get(token, 0)
        if self.clause and (token in "{}" or self.depth < 0):
            self.end_clause()

    def end_clause(self) -> None:
        if self.dropped and not self.keeps:
            # a clause of bound variables alone: a SELECT of them (`SELECT DISTINCT ?v WHERE …`, whether
            # any row has it) keeps a column of its own, which no pattern outside reads; a GROUP BY of
            # them one constant key (one group, none when no row matches, as before)
            at, token = self.dropped[0]
            term = self.terms[token[1:]]
            self.out[at] = f"({term} AS ?kg_bound_{token[1:]})" if self.clause == "select" else f"({term})"
        self.clause, self.depth = None, 0

    def replacement(self, token: str) -> str:
        term = self.terms[token[1:]]
        if self.clause == "select" and self.depth == 0:
            if self.top and self.echo:
                return f"({term} AS {token})"  # the query's column keeps its name and holds the term
            # a sub-select's is left out: the term stands for it wherever the sub-select is joined
            # (projected there too, it would be a variable the SELECT above binds twice)
            self.dropped.append((len(self.out), token))
            return ""
        if self.clause in ("group", "order") and self.depth == 0:
            # a constant key groups or orders nothing (and rdflib cannot evaluate one)
            self.dropped.append((len(self.out), token))
            return ""
        return term


def code_only(text: str) -> str:
    return " ".join(text[s:e] for s, e in _code_spans(text))


# ── values out ──
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
    term it stands for. The embedded store reads its answers so (kg/store.py `select_values`): the
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


# ── reading the catalogue ──
def parse_file(path: Path, deep: bool = True) -> NamedQuery:
    """A query file, its header checked. deep=True also parses the SPARQL with rdflib to check the
    projection against the declared columns — seconds for the whole catalogue, so commands skip it
    and the test suite runs it on every shipped query. Parsed once per text: the same file read
    again (each report render, each coverage snapshot loads the catalogue) is not parsed again."""
    return copy.deepcopy(_parse(path, path.read_text(encoding="utf-8"), deep))


@functools.lru_cache(maxsize=1024)
def _parse(path: Path, text: str, deep: bool) -> NamedQuery:
    header_lines = []
    for line in text.splitlines():
        if line.startswith("#+"):
            header_lines.append(line[3:] if line.startswith("#+ ") else line[2:])
        elif header_lines or line.strip():
            break
    if not header_lines:
        raise CatalogueError(f"{path}: no `#+` header (summary and columns are required)")
    try:
        header = yaml.safe_load("\n".join(header_lines)) or {}
    except yaml.YAMLError as err:
        raise CatalogueError(f"{path}: the `#+` header is not valid YAML: {err}") from None
    if not isinstance(header, dict):
        raise CatalogueError(f"{path}: the `#+` header must be a mapping of keys")
    unknown = set(header) - HEADER_KEYS
    if unknown:
        raise CatalogueError(f"{path}: unknown header key(s) {', '.join(sorted(unknown))} "
                             f"(known: {', '.join(sorted(HEADER_KEYS))})")
    if not isinstance(header.get("summary"), str) or "\n" in header["summary"].strip():
        raise CatalogueError(f"{path}: `summary` is required and is one line")
    columns = header.get("columns")
    if not isinstance(columns, dict) or not columns:
        raise CatalogueError(f"{path}: `columns` is required: name → one-line doc, in result order")
    params = {}
    for name, spec in (header.get("params") or {}).items():
        if not isinstance(spec, dict) or set(spec) - PARAM_KEYS or spec.get("type") not in PARAM_TYPES:
            raise CatalogueError(f"{path}: parameter {name} needs {{type: {'|'.join(sorted(PARAM_TYPES))}, "
                                 f"default, required, doc}}, got {spec!r}")
        bounds = {k: spec[k] for k in ("min", "max") if k in spec}
        if bounds and (spec["type"] not in ("integer", "decimal")
                       or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in bounds.values())):
            raise CatalogueError(f"{path}: parameter {name}: min and max are numbers, for an integer or decimal "
                                 f"parameter; got {bounds!r} on a{'n' if spec['type'][0] in 'aeiou' else ''} {spec['type']}")
        choices = spec.get("choices", [])
        if not isinstance(choices, list):
            raise CatalogueError(f"{path}: parameter {name}: choices is a list, e.g. choices: [a, b]")
        params[name] = Param(name, spec["type"], spec.get("default"), bool(spec.get("required", False)),
                             str(spec.get("doc", "")), spec.get("min"), spec.get("max"), tuple(choices))
        if params[name].default is not None:
            try:
                params[name].check(term_value(to_term(params[name], params[name].default)), path.stem)
            except ParameterError as err:
                raise CatalogueError(f"{path}: the default breaks its own rule: {err}") from None
    derive = []
    for column, expression in (header.get("derive") or {}).items():
        match = _DERIVE.match(str(expression))
        if not match or match.group(1) not in FINISHERS:
            raise CatalogueError(f"{path}: derive {column}: {expression!r} must call a finisher "
                                 f"({', '.join(sorted(FINISHERS))})")
        args = tuple(a.strip() for a in match.group(2).split(",") if a.strip())
        derive.append(Derivation(column, match.group(1), args))
    tokens = {}
    for column, types in (header.get("tokens") or {}).items():
        if not isinstance(types, list) or not types or any(t not in TOKEN_TYPES for t in types):
            raise CatalogueError(f"{path}: tokens {column}: a list of field types ({', '.join(TOKEN_TYPES)}), "
                                 f"e.g. [integer, integer]; got {types!r}")
        tokens[str(column)] = tuple(types)
    types = header.get("types") or {}
    if not isinstance(types, dict) or any(t not in COLUMN_TYPES for t in types.values()):
        raise CatalogueError(f"{path}: types maps a column to its type ({', '.join(sorted(COLUMN_TYPES))}), "
                             f"e.g. types: {{covered: boolean}}; got {types!r}")
    rates = {}
    for column, spec in (header.get("rates") or {}).items():
        if not isinstance(spec, dict) or set(spec) - RATE_KEYS or "of" not in spec:
            raise CatalogueError(f"{path}: rate {column} needs {{of: DENOMINATOR_COLUMN}} and may have count, "
                                 f"low, high, signed; got {spec!r}")
        rates[str(column)] = Rate(str(column), str(spec["of"]), spec.get("count"), spec.get("low"),
                                  spec.get("high"), bool(spec.get("signed", False)))
    query = NamedQuery(name=path.stem, path=path, summary=header["summary"].strip(), text=text,
                       description=str(header.get("description", "")).strip(), params=params,
                       columns={str(k): str(v) for k, v in columns.items()}, derive=derive,
                       hide=list(header.get("hide") or []), rates=rates, tags=list(header.get("tags") or []),
                       unsupported={str(k).lower(): str(v) for k, v in (header.get("unsupported") or {}).items()},
                       tokens=tokens, types={str(k): str(v) for k, v in types.items()})
    check_consistency(query, deep)
    return query


def projected_variables(text: str) -> list[str]:
    """The variables the query projects, read by rdflib's SPARQL 1.1 parser (which also proves
    the text is standard SPARQL)."""
    from rdflib.plugins.sparql import parser, algebra
    try:
        tree = algebra.translateQuery(parser.parseQuery(text))
    except Exception as err:  # rdflib raises pyparsing and its own errors
        raise CatalogueError(f"not valid SPARQL 1.1: {err}") from None
    return [str(v) for v in tree.algebra.get("PV", [])]


def check_consistency(query: NamedQuery, deep: bool = True) -> None:
    where = query.path
    derived = [d.column for d in query.derive]
    expected = [c for c in query.columns if c not in derived]
    try:
        projected = projected_variables(query.text) if deep else expected
    except CatalogueError as err:
        raise CatalogueError(f"{where}: {err}") from None
    if projected != expected:
        raise CatalogueError(f"{where}: the query projects {projected} but the header declares "
                             f"{expected} (+ derived {derived}); they must agree, in order")
    code = code_only(query.text)
    for name in query.params:
        if not re.search(rf"[?$]{name}\b", code):
            raise CatalogueError(f"{where}: parameter {name} is declared but the query never uses ?{name}")
    known = set(query.columns) | set(query.params)
    for d in query.derive:
        if d.column not in query.columns:
            raise CatalogueError(f"{where}: derived column {d.column} is not declared under columns")
        missing = [a for a in d.arguments if a not in known]
        if missing:
            raise CatalogueError(f"{where}: derive {d.column} uses {missing}, which are neither columns nor params")
    for t in query.tokens:
        if t not in query.columns or t in derived:
            raise CatalogueError(f"{where}: tokens names {t}, which is not a column the query projects")
    for t, kind in query.types.items():
        # a boolean is read before the finishers run, from what the engine answered; a status after
        if t not in query.columns or (t in derived and kind != "status"):
            raise CatalogueError(f"{where}: types names {t}, which is not a column the query projects"
                                 + (" (a derived column may be a status, not a boolean)" if t in derived else ""))
    for h in query.hide:
        if h not in query.columns:
            raise CatalogueError(f"{where}: hide names {h}, which is not a column")
    shown = set(query.output_columns)
    for rate in query.rates.values():
        missing = [c for c in [rate.column, *rate.parts] if c not in shown]
        if missing:
            raise CatalogueError(f"{where}: rate {rate.column} names {missing}, which are not shown columns")


def load(root: Path | None = None, deep: bool = False) -> dict[str, NamedQuery]:
    """Every named query under queries/ (or root); deep=True checks each one's SPARQL too.

    Without root: the built-in queries, then the project's queries/ (kg/paths.py), whose query of
    a built-in's name replaces it, said on stderr."""
    catalogue: dict[str, NamedQuery] = {}
    for folder in ([root] if root else paths.folders("queries")):
        own: dict[str, NamedQuery] = {}
        for path in sorted(folder.rglob("*.rq")):
            query = parse_file(path, deep)
            if query.name in own:
                raise CatalogueError(f"{path}: the name {query.name} is taken by {own[query.name].path}")
            own[query.name] = query
            if query.name in catalogue:
                paths.warn_override(path, catalogue[query.name].path)
        catalogue.update(own)
    return catalogue


class UnknownQuery(LookupError):
    """A query name the catalogue does not have; the message suggests close names."""

    def __init__(self, name: str, known, hint: str):
        close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
        suggestion = f"; did you mean {' or '.join(close)}?" if close else ""
        self.name, self.close = name, close
        super().__init__(f"no query named {name!r}{suggestion} ({hint} lists them)")

    def __str__(self) -> str:  # not KeyError's repr of the message
        return self.args[0]


def lookup(entries: dict[str, NamedQuery], name: str, hint: str = "`kg queries`") -> NamedQuery:
    """entries[name], or an UnknownQuery that names the close matches."""
    if name not in entries:
        raise UnknownQuery(name, entries, hint)
    return entries[name]


# ── running ──
@dataclass
class Result:
    columns: list[str]
    rows: list[dict[str, Any]]
    query: NamedQuery | None = None

    def dataframe(self):
        """The rows as a typed DataFrame; beside each column of IRIs, its short ids (`system` →
        `system_id`: cubby@1.4.0), for grouping and plotting, the IRI kept for joining."""
        import pandas as pd
        data: dict[str, Any] = {}
        # typed from the Python values, column by column: a DataFrame built from the rows would
        # already have turned a None among integers into NaN and the integers into floats
        for column in self.columns:
            cells = [row.get(column) for row in self.rows]
            values = [v for v in cells if v is not None]
            if values and all(isinstance(v, bool) for v in values):
                data[column] = pd.array(cells, dtype="boolean")
            elif values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                data[column] = pd.array(cells, dtype="Int64")
            elif values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                data[column] = pd.array([float("nan") if v is None else float(v) for v in cells], dtype="float64")
            elif values:
                data[column] = pd.array(cells, dtype="string")
            else:
                data[column] = pd.array(cells, dtype="object")
            if values and all(isinstance(v, IRI) for v in values) and f"{column}_id" not in self.columns:
                data[f"{column}_id"] = pd.array([None if v is None else v.short for v in cells], dtype="string")
        frame = pd.DataFrame(data, index=pd.RangeIndex(len(self.rows)))
        return frame


def decode_tokens(text: Any, types: tuple[str, ...]) -> list[tuple]:
    """A packed column ("n:c n:c ...", see `tokens` above) as a list of tuples of typed fields, in
    the engine's order; empty when the column is empty or unbound."""
    decoded = []
    for token in str(text or "").split():
        fields = token.split(":", len(types) - 1)
        if len(fields) != len(types):
            raise ValueError(f"a token of {len(types)} fields ({':'.join(types)}) expected, got {token!r}")
        decoded.append(tuple(TOKEN_TYPES[t](v) for t, v in zip(types, fields)))
    return decoded


_BOOLEANS = {True: True, False: False, 1: True, 0: False, "true": True, "false": False, "1": True, "0": False}


def as_boolean(query: NamedQuery, column: str, value: Any) -> bool | None:
    """A value of a column the header declares boolean, from any engine: a bool stays, Virtuoso's
    computed 1/0 (an integer) and a "true"/"false" become a bool; anything else is refused."""
    if value is None or isinstance(value, bool):
        return value
    try:
        return _BOOLEANS[value]
    except (KeyError, TypeError):
        raise CatalogueError(f"{query.name}: column {column} is declared boolean (`types` in its header), "
                             f"but the engine answered {value!r}") from None


def finish(query: NamedQuery, rows: Iterable[dict[str, Any]], params: dict[str, Any]) -> Result:
    return Result(query.output_columns, list(finished(query, rows, params)), query)


def finished(query: NamedQuery, rows: Iterable[dict[str, Any]], params: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Each engine row finished as it comes (booleans, packed tokens, derived columns, statuses)."""
    values = query.parameter_values(params)
    columns = query.output_columns
    booleans = [c for c, t in query.types.items() if t == "boolean"]
    statuses = [c for c, t in query.types.items() if t == "status"]
    for row in rows:
        for c in booleans:
            row[c] = as_boolean(query, c, row.get(c))
        decoded = {c: decode_tokens(row.get(c), types) for c, types in query.tokens.items()}
        for d in query.derive:
            args = [decoded[a] if a in decoded else row[a] if a in row else values.get(a) for a in d.arguments]
            row[d.column] = FINISHERS[d.function](*args)
        for c in statuses:  # a derived column may be one too (variant-comparison's gate)
            if row.get(c) is not None:
                row[c] = Status(row[c])
        # a column that is a bound parameter holds its value: the bound text does not project it
        yield {c: row[c] if c in row else values.get(c) for c in columns}


def run_check(query: NamedQuery, backend) -> None:
    """Refuses a query on an engine known to compute it wrongly (its header's `unsupported`)."""
    engine = getattr(backend, "engine", None)
    if engine is None and query.unsupported and hasattr(backend, "identify_engine"):
        engine = backend.identify_engine()
    if engine in query.unsupported:
        from .errors import StoreUnavailable
        raise StoreUnavailable(f"{query.name} is not run on {engine}: {query.unsupported[engine]} — "
                               f"kg refuses rather than report its wrong numbers (see docs/engines.md)")


def run(query: NamedQuery, backend, params: dict[str, Any] | None = None, cache=None) -> Result:
    """Runs a named query on a backend (anything with `select_values(text) -> (variables, rows)`);
    with a cache (kg/cache.py), an answer kept for the store's present state is used instead."""
    params = params or {}
    run_check(query, backend)
    variables, rows = select(backend, query.bound_text(params), cache)
    # each engine row is let go as its finished row is made, so that a million-row answer is held
    # once, not three times (the rows, their dicts, the finished dicts)
    rows.reverse()

    def taken():
        while rows:
            yield dict(zip(variables, rows.pop()))
    result = finish(query, taken(), params)
    from .names import name_systems
    name_systems(backend, result.columns, result.rows, cache)  # shown by their names, as the report shows them
    return result


@contextmanager
def stream(query: NamedQuery, backend, params: dict[str, Any] | None = None):
    """As `run`, but (columns, an iterator of finished rows) as the backend gives them: the embedded
    store's answer read from a file (Store.stream_values), never held whole; a backend without
    stream_values answers as select_values does."""
    params = params or {}
    run_check(query, backend)
    text = query.bound_text(params)
    if hasattr(backend, "stream_values"):
        with backend.stream_values(text) as (variables, rows):
            yield query.output_columns, finished(query, (dict(zip(variables, r)) for r in rows), params)
        return
    variables, rows = backend.select_values(text)
    yield query.output_columns, finished(query, (dict(zip(variables, r)) for r in rows), params)


def select(backend, text: str, cache=None) -> tuple[list[str], list[tuple]]:
    kept = cache.get(text) if cache is not None else None
    if kept is not None:
        return kept[0], list(kept[1])
    variables, rows = backend.select_values(text)
    if cache is not None:
        cache.put(text, variables, rows)
    return variables, rows


def markdown(entries: dict[str, NamedQuery]) -> str:
    """The catalogue's reference page, generated from the headers (docs/queries.md)."""
    home = paths.home()
    lines = ["# The query catalogue", "",
             "Generated from the `#+` headers of `queries/**/*.rq` by `kg queries --format markdown`;",
             "a test fails when this page is stale. Run any of them with `kg query NAME -p key=value`,",
             "or from Python with `kg.open().query(NAME, key=value)`. A column marked *boolean* is declared",
             "so in the query's header (`types`): it is true or false from every engine (Virtuoso answers",
             "a computed boolean as 1 or 0; kg reads it back as the header says). A column marked *status*",
             "holds a state word, optionally followed by \": \" and why (\"refused: …\"); code and templates",
             "test its word (`kg.status.Status`: `.kind`, `.why`, `.refused`), never a prefix of its text.", "",
             "| query | summary |", "|---|---|"]
    lines += [f"| [`{q.name}`](#{q.name}) | {q.summary} |" for q in entries.values()]
    for q in entries.values():
        try:
            where = q.path.relative_to(home)
        except ValueError:
            where = q.path
        lines += ["", f"## {q.name}", "", q.summary + ".", ""]
        if q.description:
            lines += [q.description, ""]
        lines += [f"File: `{where}`" + (f" · tags: {', '.join(q.tags)}" if q.tags else ""), ""]
        if q.params:
            lines += ["| parameter | type | default | meaning |", "|---|---|---|---|"]
            for p in q.params.values():
                default = "required" if p.required else ("—" if p.default is None else f"`{p.default}`")
                kind = f"{p.type} {p.rule()}" if p.rule() else p.type
                lines.append(f"| `{p.name}` | {kind} | {default} | {p.doc} |")
            lines.append("")
        derived = {d.column: f"{d.function}({', '.join(d.arguments)})" for d in q.derive}
        lines += ["| column | meaning |", "|---|---|"]
        for c in q.output_columns:
            how = f" (computed: `{derived[c]}`)" if c in derived else ""
            if c in q.types:
                how += f" · *{q.types[c]}*"
            if c in q.rates:
                r = q.rates[c]
                what = "difference over" if r.signed else (f"`{r.count}` /" if r.count else "over")
                interval = f", 95% interval `{r.low}`–`{r.high}`" if r.low and r.high else ""
                how += f" · rate: {what} `{r.of}`{interval}"
            lines.append(f"| `{c}` | {q.columns[c]}{how} |")
    return "\n".join(lines + _statuses_markdown()) + "\n"


def _statuses_markdown() -> list[str]:
    """The scheme of verdict statuses (kg/statuses.py): what each kg:status means to every rate."""
    from . import statuses
    lines = ["", "## Verdict statuses", "",
             "What each status of the verdict layer (`kg:status`) means to every rate, from the SKOS scheme",
             "`kg:verdictStatuses` in kg's vocabulary (`kg/vocab/kg.ttl`, and a project's `vocab/*.ttl`): the",
             "queries and the tally layer read it from the store, the report from the same files. A status that",
             "counts is in a rate's denominator; an excluded one is counted beside it, in the `excluded_*` column",
             "its exclusion names.", "", "| status | label | counts | exclusion |", "|---|---|---|---|"]
    for s in statuses.scheme():
        where = f"`excluded_{s.reason}`" if s.reason else "—"
        lines.append(f"| `{s.notation}` | {s.label} | {'yes' if s.counts else 'no'} | {where} |")
    return lines
