"""kg — the evaluation knowledge graph.

    import kg
    g = kg.open()                       # the store the CLI uses (kg.store.locate: same order)
    g.query("pass-at-k", k=3)           # a named query → pandas DataFrame
    g.sparql("SELECT * WHERE { ?s ?p ?o } LIMIT 5")
"""
from .api import Graph, open
from .catalogue import NamedQuery, Result
from .store import Store

__all__ = ["Graph", "NamedQuery", "Result", "Store", "open"]
