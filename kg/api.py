"""The Python API, for notebooks: `g = kg.open()`, then `g.query("pass-at-k", k=3)` and
`g.sparql("SELECT …")` return pandas DataFrames with typed columns."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from . import catalogue, ingest
from .store import Store, Where, locate


class Graph:
    """A kg store (embedded or remote) with its catalogue of named queries."""

    def __init__(self, store, where: Where | None = None):
        self.store = store
        self.where = where or Where(getattr(store, "path", "") or None, None, "given")
        self._catalogue: dict[str, catalogue.NamedQuery] | None = None

    def __repr__(self) -> str:
        return f"<kg.Graph {self.where} ({self.where.chosen_by})>"

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
        return catalogue.run(catalogue.lookup(self.catalogue, name, "g.queries()"), self.store, params)

    def query(self, name: str, **params):
        """A named query's rows as a DataFrame; df.attrs says what made it (see `_provenance`)."""
        named = catalogue.lookup(self.catalogue, name, "g.queries()")
        frame = catalogue.run(named, self.store, params).dataframe()
        return self._provenance(frame, name, named.parameter_values(params), named.bound_text(params))

    def query_chunks(self, name: str, size: int = 10_000, **params):
        """A named query's rows as DataFrames of at most `size` rows each, in the query's order, read
        from the engine's answer as they are used (never the whole answer at once):

            for frame in g.query_chunks("verdicts", size=50_000):
                counts = counts.add(frame.groupby("status").size(), fill_value=0)
        """
        from itertools import islice
        named = catalogue.lookup(self.catalogue, name, "g.queries()")
        with catalogue.stream(named, self.store, params) as (columns, rows):
            while chunk := list(islice(rows, size)):
                frame = catalogue.Result(columns, chunk, named).dataframe()
                yield self._provenance(frame, name, named.parameter_values(params), named.bound_text(params))

    def sparql(self, text: str):
        """Ad-hoc SPARQL SELECT over the union of all graphs, as a DataFrame."""
        variables, rows = self.store.select_values(text)
        frame = catalogue.Result(variables, [dict(zip(variables, r)) for r in rows]).dataframe()
        return self._provenance(frame, None, {}, text)

    def _provenance(self, frame, name, params, text):
        """df.attrs: enough to say where a number came from and to run the same query again."""
        frame.attrs.update(query=name, params=dict(params), sparql=text,
                           store=self.where.path, endpoint=self.where.endpoint,
                           at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
        return frame

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


def open(store: str | Path | None = None, *, endpoint: str | None = None,  # noqa: A001
         read_only: bool = False) -> Graph:
    """The store the CLI would use (kg.store.locate): `store`, `endpoint`, KG_ENDPOINT, KG_STORE,
    kg.toml's store, then .kg/store found from the working directory upward; ":memory:" for a
    scratch one. read_only=True never creates a store (kg.errors.NoStore when there is none)."""
    where = locate(store, endpoint)
    if where.endpoint:
        from .remote import Endpoint, RemoteStore
        remote = RemoteStore(Endpoint.resolve(where.endpoint))
        remote.ensure_layers()
        return Graph(remote, where)
    return Graph(Store(where.path, read_only=read_only), where)
