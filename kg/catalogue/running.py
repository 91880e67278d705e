"""Running a named query on a backend (`run`, `stream`, through a cache with `select`) and finishing
the engine's rows as they come (`finish`, `finished`): booleans read the same from every engine, packed
tokens decoded, derived columns computed, statuses made, bound parameters' columns filled in."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..finishers import FINISHERS
from ..status import Status
from .model import TOKEN_TYPES, CatalogueError, NamedQuery
from .values import IRI


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
        from ..errors import StoreUnavailable
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
    from ..names import name_systems
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
