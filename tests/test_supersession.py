"""Supersession is sound (issue 13): a chain of corrections that ends nowhere is refused with its
ids, and the store is left as it was (cycles and corrections of another system, case or grader are
in tests/bad/79-81); and J2 through the loaders, from EARL JSON Lines' runStartedAt to the verdict."""
from kg import ingest
from kg.store import Store

HEAD = ("@prefix earl: <http://www.w3.org/ns/earl#> .\n"
        "@prefix apeval: <https://agenticprimitives.dev/ns/evaluation#> .\n")


def assertion(name, outcome, supersedes=None):
    corr = f" apeval:supersedes <http://t.example/{supersedes}> ;" if supersedes else ""
    return (f"<http://t.example/{name}> a earl:Assertion ; earl:subject <http://t.example/S> ; "
            f"earl:test <http://t.example/c> ; earl:assertedBy <http://t.example/g> ;{corr} "
            f"earl:result [ a earl:TestResult ; earl:outcome earl:{outcome} ] .\n")


def test_a_chain_that_ends_nowhere_is_refused(tmp_path):
    store = Store(":memory:")
    files = {"a.ttl": assertion("a1", "passed"), "b.ttl": assertion("b1", "failed", "a1"),
             "c.ttl": assertion("c1", "passed", "b1")}
    for name, text in files.items():
        (tmp_path / name).write_text(HEAD + text)
    for name in ("a.ttl", "b.ttl"):
        assert [o.status for o in ingest.load(store, [tmp_path / name], kind="earl")] == ["loaded"]
    assert store.drop_source((tmp_path / "a.ttl").resolve().as_uri())  # b1 now corrects nothing loaded
    before = store.dump()
    [outcome] = ingest.load(store, [tmp_path / "c.ttl"], kind="earl")
    assert outcome.status == "rejected"
    text = "\n".join(map(str, outcome.problems))
    assert ("the supersession chain from <http://t.example/c1> ends nowhere: <http://t.example/c1> supersedes "
            "<http://t.example/b1> supersedes <http://t.example/a1>, and <http://t.example/a1> is not loaded") in text
    assert store.dump() == before


def test_a_run_begun_before_its_gold_was_registered_is_excluded(tmp_path):
    """J2 through the loaders: EARL JSON Lines' runStartedAt becomes the run's prov:startedAtTime,
    and the verdict layer excludes a run begun before mini's gold was registered (2026-10-01T09:00Z),
    however late it was judged; a run begun after counts."""
    from tests.conftest import TESTS
    store = Store(":memory:")
    base = TESTS / "bad" / "_base"
    assert {o.status for o in ingest.load(store, [base / "mini.replayset.json", base / "mini.gold.json"])} == {"loaded"}
    digest = store.select("SELECT ?d WHERE { GRAPH ?g { ?c apeval:criterionDigest ?d ; "
                          "<https://w3id.org/ep-plan#constrains> ?i } GRAPH ?h { ?i dcterms:identifier \"i2\" } }")[0][0].value
    row = {"system": "sys@9", "replaySet": "mini", "intent": "i2", "grader": {"id": "judge", "kind": "model"},
           "outcome": "passed", "criterionDigest": digest, "date": "2026-11-01T00:00:00Z"}
    lines = [dict(row, id="early", run="r-early", trial=0, runStartedAt="2026-10-01T08:59:00Z"),
             dict(row, id="late", run="r-late", trial=1, runStartedAt="2026-10-01T10:00:00+01:00"),  # 09:00Z: not earlier
             dict(row, id="unknown", trial=2)]
    path = tmp_path / "j2.earl.jsonl"
    import json
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert [o.status for o in ingest.load(store, [path])] == ["loaded"]
    _, rows = store.select_values("""PREFIX kg: <https://kg.example/ns#> PREFIX dcterms: <http://purl.org/dc/terms/>
        SELECT ?id ?status (GROUP_CONCAT(?note; separator=",") AS ?notes) WHERE {
          ?v kg:assertion ?a ; kg:status ?status . ?a dcterms:identifier ?id OPTIONAL { ?v kg:preregistration ?note } }
        GROUP BY ?id ?status ORDER BY ?id""")
    assert rows == [("early", "not-preregistered", "registered-after"), ("late", "passed", None),
                    ("unknown", "passed", "order-unknown")]
    bad = tmp_path / "no-run.earl.jsonl"
    bad.write_text(json.dumps(dict(row, id="orphan", runStartedAt="2026-10-02T00:00:00Z")) + "\n")
    [outcome] = ingest.load(store, [bad])
    assert outcome.status == "rejected" and "a run start time needs the run it is the start of" in str(outcome.problems[0])


def test_a_correction_of_a_versioned_grader_loads_in_its_own_file_as_in_one(tmp_path):
    """Issue 45: a correction naming the same grader id and implementation as the assertion it
    supersedes loaded inside one file, and was refused from a file of its own ("an assertion of another
    grader": the loaded one's grader version against the new line's bare grader). Both ways now load
    and make the same verdicts (the verdict layer's triples compared)."""
    import json

    from tests.conftest import TESTS
    base = TESTS / "bad" / "_base"
    grader = {"id": "judge", "kind": "model", "implementation": "sha256:" + "ab" * 32}
    row = {"system": "sys@1", "replaySet": "mini", "intent": "i1", "trial": 0, "grader": grader}
    first = dict(row, id="v1", outcome="passed")
    correction = dict(row, id="v1-fix", outcome="failed", supersedes="v1")
    other = dict(row, id="v1-other", outcome="failed", supersedes="v1",
                 grader=dict(grader, implementation="sha256:" + "cd" * 32))

    def write(name, *rows):
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return path

    def verdicts(files):  # (no gold: these lines cite no criterion digest, which on a case with gold excludes them, J2)
        store = Store(":memory:")
        assert {o.status for o in ingest.load(store, [base / "mini.replayset.json"])} == {"loaded"}
        for path in files:
            outcomes = ingest.load(store, [path])
            assert [o.status for o in outcomes] == ["loaded"], [str(p) for o in outcomes for p in o.problems]
        return sorted(store.select("SELECT ?a ?status WHERE { GRAPH ?g { ?v kg:assertion ?a ; kg:status ?status } }"))

    together = verdicts([write("one.earl.jsonl", first, correction)])
    apart = verdicts([write("first.earl.jsonl", first), write("fix.earl.jsonl", correction)])
    assert apart == together
    assert [str(s) for _, s in together] == ['"failed"']  # the correction is current, the first superseded

    # a correction by another version of the grader is another grader's, refused alike both ways
    store = Store(":memory:")
    ingest.load(store, [base / "mini.replayset.json", base / "mini.gold.json", write("a.earl.jsonl", first)])
    before = store.dump()
    [outcome] = ingest.load(store, [write("b.earl.jsonl", other)])
    assert outcome.status == "rejected" and "an assertion of another grader" in str(outcome.problems[0])
    assert store.dump() == before
    store = Store(":memory:")
    ingest.load(store, [base / "mini.replayset.json", base / "mini.gold.json"])
    [outcome] = ingest.load(store, [write("c.earl.jsonl", first, other)])
    assert outcome.status == "rejected" and "an assertion of another grader" in "\n".join(map(str, outcome.problems))
