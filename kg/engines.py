"""Other SPARQL engines behind the same `select_values(text)` the embedded store offers, so the
catalogue can be run — and compared — anywhere. rdflib's engine serves the portability test and
the benchmarks: it proves the queries are standard SPARQL 1.1, independent of Oxigraph."""
from __future__ import annotations

from .catalogue import literal_value


class RdflibEngine:
    """rdflib's SPARQL engine over a copy of a store's quads, default graph = union of all graphs."""

    def __init__(self, nquads: bytes | str):
        import rdflib
        previous, rdflib.NORMALIZE_LITERALS = rdflib.NORMALIZE_LITERALS, False  # compare literals as stored
        try:
            self.dataset = rdflib.Dataset(default_union=True)
            self.dataset.parse(data=nquads, format="nquads")
        finally:
            rdflib.NORMALIZE_LITERALS = previous

    @classmethod
    def from_store(cls, store) -> "RdflibEngine":
        return cls(store.dump())

    def select_values(self, text: str) -> tuple[list[str], list[tuple]]:
        import rdflib
        from .catalogue import IRI
        result = self.dataset.query(text)
        names = [str(v) for v in result.vars]

        def value(term):
            if term is None:
                return None
            if isinstance(term, rdflib.Literal):
                return literal_value(str(term), str(term.datatype) if term.datatype else None)
            if isinstance(term, rdflib.BNode):
                return f"_:{term}"
            return IRI(str(term))
        return names, [tuple(value(row[n]) for n in names) for row in result]
