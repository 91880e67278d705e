"""Every catalogue query gives the same rows on rdflib's SPARQL engine as on Oxigraph for the
example estate: the catalogue is plain SPARQL 1.1, which remote engines rely on."""
import math

import pytest

from kg import catalogue, ingest
from kg.engines import RdflibEngine
from kg.store import Store
from tests.conftest import EXAMPLES

QUERIES = sorted(catalogue.load())


@pytest.fixture(scope="module")
def engines():
    store = Store(":memory:")
    outcomes = ingest.load(store, [EXAMPLES])
    assert all(o.status == "loaded" for o in outcomes)
    return store, RdflibEngine.from_store(store)


def normal(value):
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 9)
    return value


@pytest.mark.parametrize("name", QUERIES)
def test_same_rows_on_rdflib_and_oxigraph(name, engines):
    oxigraph, rdflib_engine = engines
    query = catalogue.load()[name]
    expected = catalogue.run(query, oxigraph).rows
    actual = catalogue.run(query, rdflib_engine).rows
    assert expected, f"{name} returns no row on the example estate: the comparison would prove nothing"
    assert [{k: normal(v) for k, v in r.items()} for r in actual] == \
           [{k: normal(v) for k, v in r.items()} for r in expected]
