"""Documentation generated from the catalogue must match the catalogue."""
from kg import catalogue
from tests.conftest import ROOT


def test_the_query_reference_is_not_stale():
    page = ROOT / "docs" / "queries.md"
    assert page.read_text() == catalogue.markdown(catalogue.load()), \
        "docs/queries.md is stale: run `kg queries --format markdown > docs/queries.md`"
