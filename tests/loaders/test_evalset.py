"""The eval-set loader's rules that are data: the shipped case-profile schema is the published one,
the admissibility table covers the schema's codes and admits its six examples, every inadmissible
pair is refused with the admissible evaluators named, and verdicts reach a case by its plain id."""
import json
from pathlib import Path

import pytest

from kg import paths
from tests.conftest import ROOT

LOADERS = paths.loaders()
SCHEMA = json.loads((LOADERS / "case-profile.schema.json").read_text(encoding="utf-8"))
TABLE = json.loads((LOADERS / "case-profile-admissibility.json").read_text(encoding="utf-8"))
ORACLES = SCHEMA["properties"]["oracleType"]["enum"]
EVALUATORS = SCHEMA["properties"]["evaluator"]["enum"]
SEED = ROOT.parent / "shared" / "seeds" / "003_4631136db02a1385.txt"


@pytest.mark.skipif(not SEED.exists(), reason="the seed is not beside this checkout")
def test_the_shipped_profile_schema_is_the_published_one_unchanged():
    assert (LOADERS / "case-profile.schema.json").read_bytes() == SEED.read_bytes()


def test_the_table_covers_every_oracle_type_with_known_evaluators_and_a_reason():
    assert list(TABLE["admissible"]) == ORACLES
    for oracle, entry in TABLE["admissible"].items():
        assert entry["evaluators"], oracle
        assert set(entry["evaluators"]) <= set(EVALUATORS), oracle
        assert len(set(entry["evaluators"])) == len(entry["evaluators"]), oracle
        assert entry["why"].strip(), oracle
    assert TABLE["profileSchema"] == SCHEMA["$id"]


@pytest.mark.parametrize("example", SCHEMA["examples"], ids=[e["caseId"] for e in SCHEMA["examples"]])
def test_the_schema_examples_are_admissible(example):
    assert example["evaluator"] in TABLE["admissible"][example["oracleType"]]["evaluators"]


def test_the_schema_examples_load_as_rows(tmp_path, load):
    rows = [{"id": e["caseId"], "metadata": {"case": e}} for e in SCHEMA["examples"]]
    path = tmp_path / "seed.evalset.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    outcome = load(path)["seed.evalset.jsonl"]
    assert outcome.status == "loaded", outcome.problems
    # support-behavior-006 is expected-behavior-only and no expert has written its pass logic yet
    assert [w["focus"] for w in outcome.warnings] == ["<https://kg.example/id/test/support-behavior-006>"]


@pytest.mark.parametrize("oracle", ORACLES)
def test_every_inadmissible_pair_is_refused_naming_the_admissible_evaluators(oracle, tmp_path, load):
    admissible = TABLE["admissible"][oracle]["evaluators"]
    refused = [e for e in EVALUATORS if e not in admissible]
    rows = [{"id": f"c{n}", "metadata": {"case": {"caseId": f"c{n}", "oracleType": oracle, "evaluator": e,
                                                  "expectedBehavior": "x", "provenance": "expert-authored",
                                                  "evaluationCriteria": ["x"]}}}
            for n, e in enumerate(refused)]
    if not rows:
        pytest.skip(f"every evaluator is admissible for {oracle}")
    path = tmp_path / "pairs.evalset.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    outcome = load(path)["pairs.evalset.jsonl"]
    assert outcome.status == "rejected"
    messages = [str(p) for p in outcome.problems]
    assert len(messages) == len(refused)
    for n, evaluator in enumerate(refused):
        assert f'line {n + 1}, /metadata/case/evaluator: evaluator "{evaluator}" is not admissible for oracleType ' \
               f'"{oracle}" (admissible: {", ".join(admissible)})' in messages[n]


def test_reviewer_expertise_on_a_programmatic_evaluator_is_warned_of(tmp_path, load):
    # the profile schema: reviewerExpertise is "Empty where the evaluator is programmatic"
    def case(id, evaluator, expertise):
        return {"id": id, "metadata": {"case": {"caseId": id, "oracleType": "expected-final-state", "evaluator": evaluator,
                                                "expectedBehavior": "x", "provenance": "expert-authored",
                                                "reviewerExpertise": expertise}}}
    rows = [case("prog", "exact-or-programmatic", "A billing clerk."), case("state", "trajectory-or-state-check", "Ops."),
            case("empty", "exact-or-programmatic", ""), case("expert", "human-expert", "A billing clerk.")]
    path = tmp_path / "expertise.evalset.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    outcome = load(path)[path.name]
    assert outcome.status == "loaded", outcome.problems
    flagged = sorted(w["focus"] for w in outcome.warnings if w["message"].startswith("reviewerExpertise is given"))
    assert flagged == ["<https://kg.example/id/test/prog>", "<https://kg.example/id/test/state>"]


def test_an_earl_row_names_a_case_by_its_plain_id(tmp_path, load, store):
    (tmp_path / "desk.evalset.jsonl").write_text(json.dumps(
        {"id": "desk-1", "metadata": {"case": {"caseId": "desk-1", "oracleType": "rubric", "evaluator": "llm-judge", "evaluationCriteria": ["x"],
                                              "expectedBehavior": "x", "provenance": "expert-authored"}}}) + "\n")
    (tmp_path / "desk.earl.jsonl").write_text(json.dumps(
        {"id": "v1", "system": "sys", "intent": "desk-1", "grader": {"id": "j", "kind": "model"},
         "outcome": "passed"}) + "\n")
    assert {o.status for o in load(tmp_path).values()} == {"loaded"}
    _, rows = store.select_values("""PREFIX earl: <http://www.w3.org/ns/earl#> PREFIX kg: <https://kg.example/ns#>
        PREFIX dcterms: <http://purl.org/dc/terms/>
        SELECT ?id ?set WHERE { ?a earl:test ?case . ?case kg:oracleType ?o ; dcterms:identifier ?id ; dcterms:isPartOf ?set }""")
    assert rows == [("desk-1", "https://kg.example/id/evalset/desk")]
