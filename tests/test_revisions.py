"""Evidence is append-only (issue 13): a reloaded file may add items, never change or remove what
was loaded from it, except as an explicit revision (kg load --revise) that keeps the earlier
version readable and linked. Run on a copy of the examples, through the real CLI and store."""
import json
import shutil

import pyoxigraph as ox
import pytest

from kg import catalogue
from kg.store import Store
from tests.conftest import EXAMPLES, run_kg

ROUTING = "cubby-routing.earl.jsonl"
RESULT_OUTCOME = """PREFIX earl: <http://www.w3.org/ns/earl#> PREFIX dcterms: <http://purl.org/dc/terms/>
SELECT ?outcome WHERE { ?a dcterms:identifier "a-0001" ; earl:result/earl:outcome ?outcome }"""


@pytest.fixture
def estate(tmp_path):
    """A copy of the examples, loaded into a store of its own."""
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    store = tmp_path / "store"
    done = run_kg("load", "--store", store, folder)
    assert done.returncode == 0, done.stderr
    return folder, store


def dump(store) -> bytes:
    s = Store(store, read_only=True)
    try:
        return s.dump()
    finally:
        del s


def outcome_of_a0001(store) -> list[str]:
    s = Store(store, read_only=True)
    return sorted(str(row[0]) for row in s.select_values(RESULT_OUTCOME)[1])


def edit_first_line(folder, **changes):
    path = folder / ROUTING
    lines = path.read_text().splitlines(keepends=True)
    row = json.loads(lines[0])
    row.update(changes)
    lines[0] = json.dumps(row) + "\n"
    path.write_text("".join(lines))
    return path


def test_loading_the_examples_twice_is_a_no_op(estate):
    folder, store = estate
    before = dump(store)
    again = run_kg("load", "--store", store, folder)
    assert again.returncode == 0 and "rejected" not in again.stdout + again.stderr
    assert dump(store) == before


def test_an_edited_verdict_is_refused_and_the_store_is_unchanged(estate):
    """The issue's first bullet: a-0001 passed → failed in place, loaded again."""
    folder, store = estate
    before = dump(store)
    edit_first_line(folder, outcome="failed")
    done = run_kg("load", "--store", store, folder)
    assert done.returncode == 1
    assert f"rejected {folder / ROUTING}" in done.stderr
    assert 'earl:Assertion "a-0001": changed since it was loaded' in done.stderr
    assert "earl:outcome was earl:passed, now earl:failed" in done.stderr
    assert '"supersedes": "a-0001"' in done.stderr and "kg load --revise" in done.stderr
    assert dump(store) == before
    assert outcome_of_a0001(store) == ["http://www.w3.org/ns/earl#passed"]


def test_new_lines_are_added(estate):
    folder, store = estate
    path = folder / ROUTING
    first = json.loads(path.read_text().splitlines()[0])
    correction = dict(first, id="a-0001-fix", outcome="failed", supersedes="a-0001")
    with path.open("a") as f:
        f.write(json.dumps(correction) + "\n")
    done = run_kg("load", "--store", store, path)
    assert done.returncode == 0, done.stderr
    s = Store(store, read_only=True)
    # the old assertion is still there, superseded: the verdict reads the correction
    assert sorted(str(r[0]) for r in s.select_values(RESULT_OUTCOME)[1]) == ["http://www.w3.org/ns/earl#passed"]
    rows = s.select_values("""PREFIX kg: <https://kg.example/ns#> PREFIX dcterms: <http://purl.org/dc/terms/>
        SELECT ?status WHERE { ?a dcterms:identifier "a-0001-fix" . ?v kg:assertion ?a ; kg:status ?status }""")[1]
    assert rows == [("failed",)]


def test_revise_keeps_the_earlier_version_readable_and_linked(estate):
    folder, store = estate
    edit_first_line(folder, outcome="failed")
    done = run_kg("load", "--store", store, "--revise", folder / ROUTING)
    assert done.returncode == 0, done.stderr
    assert outcome_of_a0001(store) == ["http://www.w3.org/ns/earl#failed"]  # the metrics read the new one
    s = Store(store, read_only=True)
    graph = (folder / ROUTING).resolve().as_uri()
    rows = s.select(f"""SELECT ?r ?old ?new ?at ?loaded ?content ?change WHERE {{ GRAPH <urn:kg:catalogue> {{
        <{graph}> prov:wasRevisionOf ?r ; kg:sha256 ?current ; prov:generatedAtTime ?loaded .
        ?r a kg:SourceRevision ; prov:specializationOf <{graph}> ; kg:sha256 ?old ; kg:revisedAs ?new ;
           prov:invalidatedAtTime ?at ; kg:content ?content ; kg:change ?change . FILTER(?new = ?current) }} }}""")
    assert len(rows) == 1
    r, old, new, at, loaded, content, change = rows[0]
    assert r.value == graph + "?revision=1" and old.value != new.value and at.value == loaded.value
    assert "earl:outcome was earl:passed, now earl:failed" in change.value
    # the earlier triples, readable: a-0001's result said passed
    earlier = list(ox.parse(content.value.encode(), format=ox.RdfFormat.N_TRIPLES))
    assert any(t.subject.value.endswith("/result/a-0001") and t.object.value.endswith("#passed") for t in earlier)
    del s
    # a second revision chains to the first
    edit_first_line(folder, outcome="cantTell", failureCause="grader")
    assert run_kg("load", "--store", store, "--revise", folder / ROUTING).returncode == 0
    s = Store(store, read_only=True)
    chain = s.select(f"""SELECT ?r ?earlier WHERE {{ GRAPH <urn:kg:catalogue> {{
        <{graph}> prov:wasRevisionOf ?r . ?r prov:wasRevisionOf ?earlier }} }}""")
    assert [(a.value, b.value) for a, b in chain] == [(graph + "?revision=2", graph + "?revision=1")]


def test_data_quality_lists_every_revision(estate):
    folder, store = estate
    edit_first_line(folder, outcome="failed")
    assert run_kg("load", "--store", store, "--revise", folder / ROUTING).returncode == 0
    s = Store(store, read_only=True)
    result = catalogue.run(catalogue.load()["data-quality"], s, {})
    revised = [r for r in result.rows if r["issue"] == "revision"]
    assert len(revised) == 1 and revised[0]["path"] == str((folder / ROUTING).resolve())
    assert revised[0]["message"].startswith("revision 1 on ") and revised[0]["count"] == 1
    assert revised[0]["example"].endswith("/assertion/a-0001")


def test_kg_history_reads_the_record_back(estate):
    """A reviewer's audit trail: a file's versions, and one assertion's statement, revision and correction."""
    folder, store = estate
    edit_first_line(folder, outcome="failed")
    assert run_kg("load", "--store", store, "--revise", folder / ROUTING).returncode == 0
    path = folder / ROUTING
    first = json.loads(path.read_text().splitlines()[0])
    with path.open("a") as f:
        f.write(json.dumps(dict(first, id="a-0001-fix", outcome="passed", supersedes="a-0001")) + "\n")
    assert run_kg("load", "--store", store, path).returncode == 0  # an addition: no revision needed
    done = run_kg("history", "--store", store, path, "--format", "json")
    assert done.returncode == 0, done.stderr
    events = [(r["event"], r["subject"].rsplit("/", 1)[-1]) for r in json.loads(done.stdout)]
    assert ("revised", ROUTING) in events and ("loaded", ROUTING) in events
    assert ("superseded", "a-0001") in events
    one = json.loads(run_kg("history", "--store", store, "a-0001", "--format", "json").stdout)
    by_event = {r["event"]: r for r in one}
    assert set(by_event) == {"asserted", "revised", "superseded"}
    assert by_event["asserted"]["detail"].startswith("outcome failed")
    assert "earl:outcome was earl:passed, now earl:failed" in by_event["revised"]["detail"]
    assert by_event["revised"]["digest"] != by_event["revised"]["new_digest"]
    assert by_event["superseded"]["by"].endswith("/assertion/a-0001-fix")
    unknown = run_kg("history", "--store", store, "no-such-id")
    assert unknown.returncode == 2 and "neither a file, an IRI, nor the id" in unknown.stderr
