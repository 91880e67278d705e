"""Real EARL loads as it is: the traits of real reports are warnings, never rejections.

The messy Turtle report of the golden case earl-turtle-messy carries every trait the W3C reports
show (and a few more); the eight W3C SHACL implementation reports are read from ../shared/data
when it is there."""
from pathlib import Path

import pytest

from kg import ingest
from kg.store import Store
from tests.conftest import SHARED_DATA

MESSY = Path(__file__).parent / "golden" / "earl-turtle-messy" / "report.ttl"
W3C = SHARED_DATA / "earl-w3c-shacl"

TRAITS = [
    "the assertion is a blank node",
    "the assertion has no earl:mode",
    "earl:mode is on the result",
    "the result is not typed earl:TestResult",
    "the outcome is not an EARL outcome value",
    "the date is typed xsd:date but holds a date-time",
    "a test IRI was relative and was resolved against the file's own location",
    "the assertion names no earl:test",
]


def test_every_trait_of_a_messy_report_is_a_warning_not_a_rejection(store, load):
    outcome = load(MESSY)["report.ttl"]
    assert outcome.status == "loaded", outcome.problems
    messages = {w["message"] for w in outcome.warnings}
    for trait in TRAITS:
        assert any(m.startswith(trait) for m in messages), f"no warning for: {trait}\n{sorted(messages)}"
    recorded = store.warnings()[MESSY.resolve().as_uri()]
    assert len(recorded) == len(outcome.warnings), "warnings are kept in the catalogue"


def test_a_report_that_only_describes_a_project_loads_with_a_warning(store, load, tmp_path):
    project = tmp_path / "project.ttl"
    project.write_text("""@prefix earl: <http://www.w3.org/ns/earl#> . @prefix doap: <http://usefulinc.com/ns/doap#> .
<> a earl:TestSubject, doap:Project ; doap:name "an implementation" .""")
    outcome = load(project)["project.ttl"]
    assert outcome.status == "loaded"
    assert any(w["message"].startswith("the file holds no EARL assertion") for w in outcome.warnings)


def test_the_same_test_asserted_twice_with_different_outcomes_is_a_warning(load, tmp_path):
    twice = tmp_path / "twice.ttl"
    twice.write_text("""@prefix earl: <http://www.w3.org/ns/earl#> .
[] a earl:Assertion ; earl:assertedBy <#me> ; earl:subject <#impl> ; earl:test <#t1> ; earl:mode earl:automatic ;
   earl:result [ a earl:TestResult ; earl:outcome earl:passed ] .
[] a earl:Assertion ; earl:assertedBy <#me> ; earl:subject <#impl> ; earl:test <#t1> ; earl:mode earl:automatic ;
   earl:result [ a earl:TestResult ; earl:outcome earl:failed ] .""")
    outcome = load(twice)["twice.ttl"]
    assert outcome.status == "loaded"
    assert any("asserted twice" in w["message"] for w in outcome.warnings)


@pytest.mark.skipif(not W3C.is_dir(), reason="../shared/data/earl-w3c-shacl is not here")
def test_the_w3c_shacl_implementation_reports_load():
    store = Store(":memory:")
    outcomes = ingest.load(store, [W3C])
    assert len(outcomes) == 8
    assert [o.path for o in outcomes if o.status != "loaded"] == []
    messages = {w["message"] for o in outcomes for w in o.warnings}
    assert any(m.startswith("earl:mode is on the result") for m in messages)
    assert any(m.startswith("the outcome is not an EARL outcome value") for m in messages)
    # about 888 assertions over 121 tests, as the data's README says
    assertions = store.select("SELECT (COUNT(DISTINCT ?a) AS ?n) WHERE { GRAPH ?g { ?a <http://www.w3.org/ns/earl#result> ?r } }")
    assert 850 <= int(assertions[0][0].value) <= 900
    partial = store.select("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?r <http://www.w3.org/ns/earl#outcome> "
                           "<http://www.w3.org/ns/shacl-test#partial> } }")
    assert int(partial[0][0].value) == 20  # kept as they are, not turned into verdicts
