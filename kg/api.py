"""The Python API, for notebooks: `g = kg.open()`, then `g.query("pass-at-k", k=3)` and
`g.sparql("SELECT …")` return pandas DataFrames with typed columns."""
from __future__ import annotations

from pathlib import Path

from . import catalogue, ingest
from .store import Store


class Graph:
    """A kg store with its catalogue of named queries."""

    def __init__(self, store: Store):
        self.store = store
        self._catalogue: dict[str, catalogue.NamedQuery] | None = None

    @property
    def catalogue(self) -> dict[str, catalogue.NamedQuery]:
        if self._catalogue is None:
            self._catalogue = catalogue.load()
        return self._catalogue

    def queries(self):
        """The catalogue as a DataFrame: name, summary, parameters, columns."""
        import pandas as pd
        return pd.DataFrame([{"name": q.name, "summary": q.summary,
                              "params": ", ".join(f"{p.name}: {p.type}" for p in q.params.values()),
                              "columns": ", ".join(q.output_columns)} for q in self.catalogue.values()])

    def result(self, name: str, **params) -> catalogue.Result:
        if name not in self.catalogue:
            raise KeyError(f"no query named {name!r}; see g.queries()")
        return catalogue.run(self.catalogue[name], self.store, params)

    def query(self, name: str, **params):
        """A named query's rows as a DataFrame."""
        return self.result(name, **params).dataframe()

    def sparql(self, text: str):
        """Ad-hoc SPARQL SELECT over the union of all graphs, as a DataFrame."""
        variables, rows = self.store.select_values(text)
        return catalogue.Result(variables, [dict(zip(variables, r)) for r in rows]).dataframe()

    def load(self, *paths, **options):
        """Loads files or folders; returns a DataFrame of outcomes (path, kind, status, triples, problems)."""
        import pandas as pd
        outcomes = ingest.load(self.store, paths, **options)
        return pd.DataFrame([{"path": o.path, "kind": o.kind, "status": o.status, "triples": o.triples,
                              "warnings": len(o.warnings), "problems": "; ".join(map(str, o.problems))}
                             for o in outcomes])

    def sources(self):
        import pandas as pd
        return pd.DataFrame([{"path": s.path, "kind": s.kind, "sha256": s.sha256, "triples": s.triples,
                              "pins": len(s.pins), "warnings": len(s.warnings), "loaded_at": s.loaded_at}
                             for s in self.store.sources()])


def open(store: str | Path | None = None, *, read_only: bool = False) -> Graph:  # noqa: A001
    """The store the CLI would use: `store`, else KG_STORE, else .kg/store; ":memory:" for a scratch one."""
    return Graph(Store(store, read_only=read_only))
