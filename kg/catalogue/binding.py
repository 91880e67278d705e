"""Binding a named query's parameters into its text (`to_term`, `bind`), and reading its code apart
from its strings and comments (`code_only`, `where_positions`).

Parameters are bound as RDF terms by substitution: each use of the variable, outside strings,
comments and IRIs, becomes the term in pyoxigraph's own syntax (escaped by the engine; a number in
SPARQL's short form), so a value can never change the query's structure and the same text runs on
any SPARQL 1.1 engine. Where a term cannot stand for a variable the form changes and the meaning
does not: a projected `?v` is left out (the query's own column is filled in by `finish` in
running.py, as its value is the parameter's), a `GROUP BY`/`ORDER BY` key on it dropped,
`BOUND(?v)` made `true`. This is what the `VALUES` block opening every `WHERE` clause that kg used
before meant; Virtuoso 7 wedged on those blocks (docs/engines.md). (Oxigraph's `substitutions`
would need every parameter projected and does not reach sub-selects.)"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox

from .values import XSD

if TYPE_CHECKING:
    from .model import Param


class ParameterError(ValueError):
    """A parameter value that is missing, unknown or not of its declared type."""


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
