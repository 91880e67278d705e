"""Answers streamed, not held (issue 40): the notebook's chunks are the whole answer's rows, in order."""
import pandas as pd
import pytest

import kg
from kg import ingest
from kg.store import Store
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("stream") / "store"
    store = Store(path)
    assert all(o.status == "loaded" for o in ingest.load(store, [EXAMPLES]))
    store.flush()
    del store
    return path


def test_chunks_are_the_whole_answer_in_order(store_path):
    g = kg.open(store_path)
    whole = g.query("verdicts")
    chunks = list(g.query_chunks("verdicts", size=100))
    assert len(whole) > 300 and [len(c) for c in chunks[:-1]] == [100] * (len(chunks) - 1)
    def values(frame):  # a chunk whose column is all unbound types it as object: compare the values
        return [tuple(None if pd.isna(v) else v for v in row) for row in frame[whole.columns].itertuples(index=False)]
    assert [row for chunk in chunks for row in values(chunk)] == values(whole)
    assert chunks[0].attrs["query"] == "verdicts"
