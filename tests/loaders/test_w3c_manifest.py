"""W3C test manifests load as a replay set of their entries, so that implementation reports give
coverage rows (set-reporting, unreported-cases) and the case × system matrix (cases × verdicts).

The suite here is written in the shape the W3C SHACL test suite publishes (data-shapes-test-suite/
tests: a top manifest that mf:includes folder manifests, each test file its own manifest `<>` with one
entry, shapes and data in the same file); the eight real implementation reports are read from
../shared/data when it is there, and what kg says of them is checked against the reports read here
directly, test IRI by test IRI."""
import json
from collections import defaultdict

import pyoxigraph as ox
import pytest

from kg import catalogue
from tests.conftest import SHARED_DATA

W3C = SHARED_DATA / "earl-w3c-shacl"
EARL = "http://www.w3.org/ns/earl#"
TESTS = ["core/node/and-001", "core/node/class-001", "core/node/minInclusive-002", "core/complex/shacl-shacl",
         "sparql/component/nodeValidator-001", "sparql/component/validator-001"]
STATUS = {"core/node/class-001": "sht:proposed"}
TEST_FILE = """@prefix ex: <http://datashapes.org/sh/tests/{path}.test#> .
@prefix mf: <http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix sht: <http://www.w3.org/ns/shacl-test#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

ex:Rectangle rdf:type rdfs:Class ; rdf:type sh:NodeShape ;
  sh:property [ sh:path ex:width ; sh:minCount 1 ] .
ex:InvalidRectangle1 rdf:type ex:Rectangle ; ex:height 3 .
<> rdf:type mf:Manifest ;
  mf:entries ( <{name}> ) .
<{name}> rdf:type sht:Validate ;
  rdfs:label "Test of {name}" ;
  mf:action [ sht:dataGraph <> ; sht:shapesGraph <> ] ;
  mf:result [ rdf:type sh:ValidationReport ; sh:conforms "false"^^xsd:boolean ;
              sh:result [ rdf:type sh:ValidationResult ; sh:focusNode ex:InvalidRectangle1 ;
                          sh:resultSeverity sh:Violation ] ] ;
  mf:status {status} .
"""
MANIFEST = """@prefix mf: <http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<> a mf:Manifest ; rdfs:label "{label}" ;
{includes} .
"""


def write_suite(root):
    """tests/manifest.ttl → FOLDER/manifest.ttl → FOLDER/SUB/manifest.ttl → FOLDER/SUB/TEST.ttl."""
    folders = defaultdict(set)
    for test in TESTS:
        parts = test.split("/")
        for depth in range(len(parts) - 1):
            folders["/".join(parts[:depth])].add(parts[depth] + "/manifest.ttl")
        folders["/".join(parts[:-1])].add(parts[-1] + ".ttl")
        (root / test).parent.mkdir(parents=True, exist_ok=True)
        (root / f"{test}.ttl").write_text(TEST_FILE.format(path=test, name=parts[-1],
                                                            status=STATUS.get(test, "sht:approved")))
    for folder, included in folders.items():
        includes = " ;\n".join(f"  mf:include <{i}>" for i in sorted(included))
        (root / folder / "manifest.ttl").write_text(MANIFEST.format(label=f"SHACL tests {folder}", includes=includes))
    return root / "manifest.ttl"


def rows(store, name, **params):
    return catalogue.run(catalogue.load()[name], store, params).rows


def test_a_suite_is_one_replay_set_of_every_entry_it_reaches(store, load, tmp_path):
    top = write_suite(tmp_path / "tests")
    outcome = load(top, options={"test_base": "urn:x-shacl-test:/"})["manifest.ttl"]
    assert outcome.status == "loaded" and outcome.kind == "w3c-manifest", outcome.problems
    cases = rows(store, "cases")
    assert sorted(c["case"] for c in cases) == sorted(f"urn:x-shacl-test:/{t}" for t in TESTS)
    assert {c["replay_set"] for c in cases} == {"urn:x-shacl-test:/manifest.ttl"}
    assert sorted(c["case_id"] for c in cases) == sorted(TESTS)
    [suite] = rows(store, "replay-sets")
    assert suite["intents"] == len(TESTS) and suite["set_digest"].startswith("sha256:")
    # the suite's test data (shapes and data graphs written into the test files) is not kept
    assert not store.select("SELECT ?s WHERE { GRAPH ?g { ?s a <http://www.w3.org/ns/shacl#NodeShape> } }")


def test_without_a_test_base_entries_are_named_from_the_files_themselves(store, load, tmp_path):
    top = write_suite(tmp_path / "tests")
    load(top)
    assert {c["case"] for c in rows(store, "cases")} == {(tmp_path / "tests" / t).as_uri() for t in TESTS}


def test_a_json_ld_manifest_loads_too(store, load, tmp_path):
    doc = {"@context": {"mf": "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#",
                        "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
                        "jld": "https://w3c.github.io/json-ld-api/tests/vocab#",
                        "name": "mf:name", "entries": {"@id": "mf:entries", "@container": "@list"}},
           "@id": "", "@type": "mf:Manifest", "name": "Expansion",
           "entries": [{"@id": "#t0001", "@type": ["jld:PositiveEvaluationTest", "jld:ExpandTest"],
                        "name": "drop free-floating nodes"},
                       {"@id": "#t0002", "@type": ["jld:PositiveEvaluationTest", "jld:ExpandTest"],
                        "name": "basic"}]}
    path = tmp_path / "expand-manifest.jsonld"
    path.write_text(json.dumps(doc))
    outcome = load(path)["expand-manifest.jsonld"]
    assert outcome.status == "loaded", outcome.problems
    assert sorted(c["case"] for c in rows(store, "cases")) == [path.as_uri() + "#t0001", path.as_uri() + "#t0002"]


def test_a_small_report_gives_coverage_unreported_tests_and_the_matrix(store, load, tmp_path):
    top = write_suite(tmp_path / "tests")
    report = tmp_path / "impl-earl.ttl"
    report.write_text("""@prefix earl: <http://www.w3.org/ns/earl#> .
<https://impl.example/> a earl:TestSubject .
[] a earl:Assertion ; earl:subject <https://impl.example/> ; earl:assertedBy <https://impl.example/dev> ;
   earl:test <urn:x-shacl-test:/core/node/and-001> ; earl:mode earl:automatic ;
   earl:result [ a earl:TestResult ; earl:outcome earl:passed ] .
[] a earl:Assertion ; earl:subject <https://impl.example/> ; earl:assertedBy <https://impl.example/dev> ;
   earl:test <urn:x-shacl-test:/core/node/class-001> ; earl:mode earl:automatic ;
   earl:result [ a earl:TestResult ; earl:outcome earl:failed ] .
""")
    load(top, options={"test_base": "urn:x-shacl-test:/"})
    load(report)
    [row] = rows(store, "set-reporting")
    assert (row["cases"], row["reported"], row["not_reported"], row["passed"], row["failed"], row["other"]) == \
        (6, 2, 4, 1, 1, 0)
    unreported = rows(store, "unreported-cases")
    assert sorted(r["case_id"] for r in unreported) == sorted(set(TESTS) - {"core/node/and-001", "core/node/class-001"})
    shacl = next(r for r in unreported if r["case_id"] == "core/complex/shacl-shacl")
    assert (shacl["name"], shacl["types"], shacl["approval"]) == (
        "Test of shacl-shacl", "http://www.w3.org/ns/shacl-test#Validate", "http://www.w3.org/ns/shacl-test#approved")
    # the matrix: every case of the suite a row, the implementation a column, its verdicts in the cells
    matrix_cases = {c["case"] for c in rows(store, "cases")}
    verdicts = rows(store, "verdicts")
    assert {v["case"] for v in verdicts} <= matrix_cases and {v["system"] for v in verdicts} == {"https://impl.example/"}


@pytest.mark.skipif(not W3C.is_dir(), reason=f"the W3C SHACL reports are not at {W3C}")
def test_the_real_shacl_reports_line_up_with_the_suite_s_entries(store, load, tmp_path):
    top = write_suite(tmp_path / "tests")
    assert load(top, options={"test_base": "urn:x-shacl-test:/"})["manifest.ttl"].status == "loaded"
    reports = sorted(W3C.glob("*.ttl"))
    assert all(o.status == "loaded" for o in load(*reports).values())
    # read here directly: which of the suite's tests each implementation's report names
    suite = {f"urn:x-shacl-test:/{t}" for t in TESTS}
    named = defaultdict(set)
    for report in reports:
        triples = [q.triple for q in ox.parse(path=str(report), format=ox.RdfFormat.TURTLE, base_iri=report.as_uri())]
        subject = {t.subject: t.object.value for t in triples if t.predicate.value == EARL + "subject"}
        for t in triples:
            if t.predicate.value == EARL + "test" and t.object.value in suite:
                named[subject[t.subject]].add(t.object.value)
    got = {r["system"]: r for r in rows(store, "set-reporting")}
    assert set(got) == set(named) and len(got) == 8
    for system, tests in named.items():
        assert (got[system]["cases"], got[system]["reported"], got[system]["not_reported"]) == \
            (len(TESTS), len(tests), len(TESTS) - len(tests)), system
    never = defaultdict(set)
    for r in rows(store, "unreported-cases"):
        never[r["system"]].add(r["case"])
    assert {s: never.get(s, set()) for s in named} == {s: suite - tests for s, tests in named.items()}
    assert any(never.values()), "the suite must hold tests some implementation never reported"
