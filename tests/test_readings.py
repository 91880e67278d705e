"""Issue 41's seed readings that show at load: a reference answer below apeval's bar and a cantTell
that does not say why each load with a warning naming the place (docs/formats.md, "Readings"), and
what they leave out of a rate is counted beside it. Real loaders, a real store."""
from pathlib import Path

from kg import catalogue, ingest
from kg.store import Store
from tests.test_docs import formats_files

SET = '{"replaySet": "w", "version": 1, "suiteKind": "capability", "intents": [' \
      '{"id": "c1", "split": "development", "bucket": "explicit", "message": "one"}]}'


def loaded(tmp_path: Path, files: dict[str, str]) -> tuple[Store, dict]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    store = Store(":memory:")
    ingest.ensure_vocabularies(store)
    outcomes = {Path(o.path).name: o for o in ingest.load(store, [tmp_path / n for n in files])}
    assert all(o.status == "loaded" for o in outcomes.values()), {n: o.problems for n, o in outcomes.items()}
    return store, outcomes


def test_a_reference_answer_below_the_bar_warns_at_load_naming_the_case(tmp_path):
    """apeval:referenceScore: "1.0 is the bar; below it the case or the grader is wrong, and the build
    says which". formats.md's desk gold gives route-po a referenceScore of 0.8."""
    docs = formats_files()
    store, outcomes = loaded(tmp_path, {"desk.replayset.json": docs["desk.replayset.json"],
                                        "desk.gold.json": docs["desk.gold.json"]})
    warnings = [w for w in outcomes["desk.gold.json"].warnings if "below 1.0" in w["message"]]
    assert [(w["focus"], w["value"]) for w in warnings] == \
        [("<https://kg.example/id/replayset/desk/intent/route-po>",
          '"0.8"^^<http://www.w3.org/2001/XMLSchema#decimal>')], outcomes["desk.gold.json"].warnings
    assert "the case or the grader is wrong" in warnings[0]["message"]
    # and the build says which case: reference-answers lists it (the report's data-quality page)
    rows = catalogue.run(catalogue.load()["reference-answers"], store, {}).rows
    assert [(r["case_id"], float(r["reference_score"])) for r in rows] == [("route-po", 0.8)]


def test_a_reference_answer_at_the_bar_loads_without_a_warning(tmp_path):
    docs = formats_files()
    _, outcomes = loaded(tmp_path, {"desk.replayset.json": docs["desk.replayset.json"],
                                    "desk.gold.json": docs["desk.gold.json"].replace('"referenceScore": 0.8',
                                                                                     '"referenceScore": 1.0')})
    assert not [w for w in outcomes["desk.gold.json"].warnings if "below 1.0" in w["message"]]


def test_a_cant_tell_without_a_cause_warns_at_load_and_is_counted_beside_as_unexplained(tmp_path):
    """W1: "A test result that is NOT a verdict says WHY". The cantTell loads, with a warning on its
    result; pass-at-k leaves it out of the denominator and counts it in excluded_unexplained."""
    earl = ('{"id": "u1", "system": "S", "replaySet": "w", "intent": "c1", "grader": {"id": "g", "kind": "mechanical"}, '
            '"mode": "automatic", "outcome": "cantTell"}\n'
            '{"id": "u2", "system": "S", "replaySet": "w", "intent": "c1", "trial": 1, "grader": {"id": "g", "kind": "mechanical"}, '
            '"mode": "automatic", "outcome": "cantTell", "failureCause": "environment"}\n'
            '{"id": "u3", "system": "S", "replaySet": "w", "intent": "c1", "trial": 2, "grader": {"id": "g", "kind": "mechanical"}, '
            '"mode": "automatic", "outcome": "passed"}\n')
    store, outcomes = loaded(tmp_path, {"w.replayset.json": SET, "w.earl.jsonl": earl})
    warned = [w["focus"] for w in outcomes["w.earl.jsonl"].warnings if "a cantTell says why" in w["message"]]
    assert warned == ["<https://kg.example/id/result/u1>"], outcomes["w.earl.jsonl"].warnings
    [row] = catalogue.run(catalogue.load()["pass-at-k"], store, {"k": 1}).rows
    assert (row["trials"], row["eligible_trials"], row["excluded_unexplained"], row["excluded_environment"]) == (3, 1, 1, 1)


def test_a_far_miss_judged_passed_is_flagged_at_load(tmp_path):
    earl = ('{"id": "f1", "system": "S", "replaySet": "w", "intent": "c1", "grader": {"id": "g", "kind": "mechanical"}, '
            '"mode": "automatic", "outcome": "passed", "selectionOutcome": "mis-far", "chargedTo": "k"}\n')
    _, outcomes = loaded(tmp_path, {"w.replayset.json": SET, "w.earl.jsonl": earl})
    assert [w["focus"] for w in outcomes["w.earl.jsonl"].warnings if "far miss" in w["message"]] == \
        ["<https://kg.example/id/result/f1>"]


def test_the_report_lists_what_the_readings_flag(tmp_path):
    """The overview's "needs attention" names the case whose reference answer is below the bar."""
    from tests.conftest import run_kg
    docs = formats_files()
    for name in ("desk.replayset.json", "desk.gold.json"):
        (tmp_path / name).write_text(docs[name])
    assert run_kg("load", "--store", tmp_path / "store", tmp_path / "desk.replayset.json",
                  tmp_path / "desk.gold.json").returncode == 0
    result = run_kg("report", "--store", tmp_path / "store", "--out", tmp_path / "site")
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "site" / "index.html").read_text()
    assert 'data-attention="reference-below-bar"' in page
    assert "route-po (0.8)" in page


def test_an_impossible_selection_is_refused_from_streamed_turtle_as_from_a_small_file(tmp_path, monkeypatch):
    """The RDF check reads the written graph when a big file is streamed (STREAM_BYTES 0: every file)."""
    from kg import ingest as ingest_module
    docs = formats_files()
    turtle = ('@prefix earl: <http://www.w3.org/ns/earl#> .\n'
              '@prefix apeval: <https://agenticprimitives.dev/ns/evaluation#> .\n'
              '<urn:x:s1> a earl:Assertion ; earl:subject <urn:x:S> ; earl:assertedBy <urn:x:g> ; earl:mode earl:automatic ;\n'
              '  earl:test <https://kg.example/id/replayset/desk/intent/joke> ;\n'
              '  earl:result [ a earl:TestResult ; earl:outcome earl:passed ; apeval:selectionOutcome apeval:so-tp ] .\n')
    for streamed in (False, True):
        monkeypatch.setattr(ingest_module, "STREAM_BYTES", 0 if streamed else 1 << 20)
        folder = tmp_path / f"streamed-{streamed}"
        folder.mkdir()
        store, _ = loaded(folder, {"desk.replayset.json": docs["desk.replayset.json"],
                                   "desk.gold.json": docs["desk.gold.json"]})
        (folder / "sel.ttl").write_text(turtle)
        [outcome] = ingest.load(store, [folder / "sel.ttl"])
        assert outcome.status == "rejected", streamed
        assert "selection outcome tp needs a gold skill, but the gold expects none of " \
               "<https://kg.example/id/replayset/desk/intent/joke> (a decline case)" in str(outcome.problems), \
            (streamed, outcome.problems)
