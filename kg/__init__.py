"""kg — the evaluation knowledge graph."""
from .store import Store

__all__ = ["Store", "open"]


def open(store: str | None = None) -> Store:  # noqa: A001 - kg.open() reads as the API it is
    """The store the CLI would use: `store`, else KG_STORE, else .kg/store."""
    return Store(store)
