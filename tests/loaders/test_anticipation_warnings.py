"""The anticipation loader's warning that a weighted score cannot be computed (issue 14). Every
criterion scores with its weight, anti-criteria included (RFC-032 gives every criterion a weight
"for weighted scoring"; docs/anticipation.md), so a weighted policy warns only when every criterion,
anti-criteria included, weighs 0."""
import json

WARNING = "weighted scoring, but every"  # the message's start, before and after issue 14


def declaration(tmp_path, name, outcome_weight, anti_weight, weighted=True):
    body = {
        "anticipation_id": name, "agent_id": "cubby", "app_id": "desk", "scope_envelope_id": "scope-1",
        "session_id": f"session-{name}", "timestamp": "2026-11-03T09:00:00Z",
        "expectations": {
            "outcome_criteria": [{"criterion_id": "o", "description": "o", "measurement": "DETERMINISTIC",
                                  "assertion": "o", "weight": outcome_weight}],
            "anti_criteria": [{"criterion_id": "x", "description": "x", "measurement": "DETERMINISTIC",
                               "assertion": "x", "weight": anti_weight}]},
        "grading_policy": {"grader_type": "CODE", "passing_threshold": 0.5, "weighted_scoring": weighted,
                           "fail_on_any_anti_criteria": False}}
    path = tmp_path / f"{name}.anticipation.json"
    path.write_text(json.dumps(body))
    return path


def warned(outcome):
    return [w for w in outcome.warnings if w["message"].startswith(WARNING)]


def test_an_anti_criterion_with_weight_gives_the_score_a_denominator(load, tmp_path):
    path = declaration(tmp_path, "anti-weighs", outcome_weight=0, anti_weight=0.5)
    outcome = load(path)[path.name]
    assert outcome.status == "loaded", outcome.problems
    assert warned(outcome) == []


def test_every_weight_zero_is_warned_of(load, tmp_path):
    path = declaration(tmp_path, "all-zero", outcome_weight=0, anti_weight=0)
    outcome = load(path)[path.name]
    assert outcome.status == "loaded", outcome.problems
    assert [w["message"].split(":")[0] for w in warned(outcome)] == ["weighted scoring, but every criterion weighs 0"]


def test_unweighted_scoring_is_not_warned_of(load, tmp_path):
    path = declaration(tmp_path, "counted", outcome_weight=0, anti_weight=0, weighted=False)
    outcome = load(path)[path.name]
    assert outcome.status == "loaded", outcome.problems
    assert warned(outcome) == []
