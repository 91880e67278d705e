"""The JSON-LD test suite's manifests load as w3c/json-ld-api publishes them in tests/: manifest.jsonld
(`"@context": "context.jsonld"`, `"@id": ""`, a "sequence" of manifest files), context.jsonld beside
it (copied here whole, as published: "sequence" is mf:entries as an @list of @id), and the manifests
it lists (`"@context": ["context.jsonld", {"@base": "compact-manifest"}]`, a "baseIri", tests
`"#t0001"` with input, context and expect files). Through the real CLI, without --kind: the context
is read from the manifest's folder and never fetched, the sequence is followed, and the tests are
named as the suite's reports name them (https://w3c.github.io/json-ld-api/tests/compact-manifest#t0001,
the manifests' own baseIri). A context outside the folder, or on the network, is refused."""
import json

from tests.conftest import run_kg

BASE = "https://w3c.github.io/json-ld-api/tests/"
CONTEXT = {"@context": {
    "@vocab": "https://w3c.github.io/json-ld-api/tests/vocab#",
    "dc": "http://purl.org/dc/terms/",
    "jld": "https://w3c.github.io/json-ld-api/tests/vocab#",
    "mf": "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "context": {"@type": "@id"},
    "expect": {"@id": "mf:result", "@type": "@id"},
    "frame": {"@type": "@id"},
    "input": {"@id": "mf:action", "@type": "@id"},
    "option": {"@type": "@id"},
    "sequence": {"@id": "mf:entries", "@type": "@id", "@container": "@list"},
    "redirectTo": {"@type": "@id"},
    "name": "mf:name",
    "purpose": "rdfs:comment",
    "description": "rdfs:comment",
    "base": {"@type": "@id"},
    "compactArrays": {"@type": "xsd:boolean"},
    "compactToRelative": {"@type": "xsd:boolean"},
    "contentType": {"@type": "xsd:boolean"},
    "expandContext": {"@type": "xsd:string"},
    "httpAccept": {"@type": "xsd:string"},
    "httpLink": {"@type": "xsd:string", "@container": "@set"},
    "httpStatus": {"@type": "xsd:integer"},
    "processingMode": {"@type": "xsd:string"},
    "produceGeneralizedRdf": {"@type": "xsd:boolean"},
    "specVersion": {"@type": "xsd:string"},
    "useNativeTypes": {"@type": "xsd:boolean"}}}
TOP = {"@context": "context.jsonld", "@id": "", "@type": "mf:Manifest", "name": "JSON-LD Test Suite",
       "description": "This manifest loads additional manifests for specific behavior tests",
       "sequence": ["compact-manifest.jsonld", "expand-manifest.jsonld"]}


def manifest(kind, name, tests):
    return {"@context": ["context.jsonld", {"@base": f"{kind}-manifest"}], "@id": "", "@type": "mf:Manifest",
            "name": name, "description": f"These tests implement the requirements for the JSON-LD {name} Algorithm.",
            "baseIri": BASE,
            "sequence": [{"@id": f"#t{n:04d}", "@type": ["jld:PositiveEvaluationTest", f"jld:{kind.capitalize()}Test"],
                          "name": title, "purpose": title, "input": f"{kind}/{n:04d}-in.jsonld",
                          **({"context": f"{kind}/{n:04d}-context.jsonld"} if kind == "compact" else {}),
                          "expect": f"{kind}/{n:04d}-out.jsonld",
                          **({"option": {"specVersion": "json-ld-1.1"}} if n == 2 else {})}
                         for n, title in tests]}


def write_suite(tests_folder):
    tests_folder.mkdir(parents=True)
    files = {"context.jsonld": CONTEXT, "manifest.jsonld": TOP,
             "compact-manifest.jsonld": manifest("compact", "Compaction", [(1, "drop free-floating nodes"),
                                                                            (2, "basic"), (3, "drop null")]),
             "expand-manifest.jsonld": manifest("expand", "Expansion", [(1, "drop free-floating nodes"), (2, "basic")])}
    for name, doc in files.items():
        (tests_folder / name).write_text(json.dumps(doc, indent=2))
    return tests_folder / "manifest.jsonld"


def query(store, name, *params):
    done = run_kg("query", name, *params, "--store", store, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_suite_loads_as_published_its_tests_named_as_its_reports_name_them(tmp_path):
    top, store = write_suite(tmp_path / "json-ld-api" / "tests"), tmp_path / "store"
    loaded = run_kg("load", "--store", store, top)  # no --kind: recognised as a manifest
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    assert "w3c-manifest" in loaded.stdout + loaded.stderr
    cases = query(store, "cases")
    expected = [f"compact-manifest#t000{n}" for n in (1, 2, 3)] + [f"expand-manifest#t000{n}" for n in (1, 2)]
    assert sorted(c["case"] for c in cases) == [BASE + e for e in expected]
    assert sorted(c["case_id"] for c in cases) == expected
    assert {c["replay_set"] for c in cases} == {top.as_uri()}, "the top manifest is the suite; its sequence no case"
    [suite] = query(store, "replay-sets")
    assert (suite["title"], suite["intents"]) == ("JSON-LD Test Suite", 5)


def test_a_json_ld_report_with_its_own_relative_context_lines_up_with_the_suite(tmp_path):
    top, store = write_suite(tmp_path / "tests"), tmp_path / "store"
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "earl-context.jsonld").write_text(json.dumps({"@context": {
        "earl": "http://www.w3.org/ns/earl#", "subject": {"@id": "earl:subject", "@type": "@id"},
        "test": {"@id": "earl:test", "@type": "@id"}, "assertedBy": {"@id": "earl:assertedBy", "@type": "@id"},
        "result": {"@id": "earl:result"}, "outcome": {"@id": "earl:outcome", "@type": "@id"},
        "mode": {"@id": "earl:mode", "@type": "@id"}}}))
    (reports / "impl-earl.jsonld").write_text(json.dumps({"@context": "earl-context.jsonld", "@graph": [
        {"@id": f"https://impl.example/a{n}", "@type": "earl:Assertion", "subject": "https://impl.example/",
         "assertedBy": "https://impl.example/harness", "mode": "earl:automatic", "test": BASE + test,
         "result": {"@type": "earl:TestResult", "outcome": f"earl:{outcome}"}}
        for n, (test, outcome) in enumerate([("compact-manifest#t0001", "passed"), ("expand-manifest#t0002", "failed")])]}))
    assert run_kg("load", "--store", store, top).returncode == 0
    loaded = run_kg("load", "--store", store, reports / "impl-earl.jsonld")
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    [row] = query(store, "set-reporting")
    assert (row["cases"], row["reported"], row["not_reported"], row["passed"], row["failed"]) == (5, 2, 3, 1, 1)


def test_a_context_outside_the_manifest_s_folder_is_refused_and_nothing_is_written(tmp_path):
    top, store = write_suite(tmp_path / "tests"), tmp_path / "store"
    (tmp_path / "elsewhere.jsonld").write_text(json.dumps(CONTEXT))
    doc = json.loads(top.read_text())
    doc["@context"] = "../elsewhere.jsonld"
    top.write_text(json.dumps(doc))
    refused = run_kg("load", "--store", store, top)
    assert refused.returncode == 1
    assert "outside the folder" in refused.stderr and "elsewhere.jsonld" in refused.stderr and "fix:" in refused.stderr
    assert not (store.exists() and query(store, "cases")), "nothing of the suite is written"


def test_a_context_on_the_network_is_refused_never_fetched(tmp_path):
    top, store = write_suite(tmp_path / "tests"), tmp_path / "store"
    compact = top.parent / "compact-manifest.jsonld"
    doc = json.loads(compact.read_text())
    doc["@context"] = ["https://w3c.github.io/json-ld-api/tests/context.jsonld", {"@base": "compact-manifest"}]
    compact.write_text(json.dumps(doc))
    refused = run_kg("load", "--store", store, top)
    assert refused.returncode == 1
    assert "never fetches over the network" in refused.stderr and "compact-manifest.jsonld" in refused.stderr
