"""The query model: a named query as the YAML header of its `.rq` file declares it, in `#+` comment
lines (grlc-style), so the file stays plain SPARQL that any engine runs (parsing.py reads it).

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
`decode_tokens` (running.py), never a string they split again.

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
finisher to fail on."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from .binding import ParameterError, bind, to_term
from .values import term_value

HEADER_KEYS = {"summary", "description", "params", "columns", "derive", "hide", "rates", "tags", "unsupported",
               "tokens", "types"}
TOKEN_TYPES = {"integer": int, "string": str}
COLUMN_TYPES = {"boolean", "status"}
RATE_KEYS = {"of", "count", "low", "high", "signed"}
PARAM_KEYS = {"type", "default", "required", "doc", "min", "max", "choices"}
PARAM_TYPES = {"iri", "string", "integer", "decimal", "boolean"}


class CatalogueError(Exception):
    """A query file whose header is wrong or disagrees with its SPARQL."""



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
