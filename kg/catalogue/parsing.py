"""Reading the catalogue: a query file's `#+` header parsed and checked against its SPARQL (what a
header holds: model.py), every query file of the catalogue's folders loaded, a name looked up."""
from __future__ import annotations

import copy
import difflib
import functools
import re
from pathlib import Path

import yaml

from .. import paths
from ..finishers import FINISHERS
from .binding import ParameterError, code_only, to_term
from .model import (COLUMN_TYPES, HEADER_KEYS, PARAM_KEYS, PARAM_TYPES, RATE_KEYS, TOKEN_TYPES, CatalogueError,
                    Derivation, NamedQuery, Param, Rate)
from .values import term_value

_DERIVE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$")


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
