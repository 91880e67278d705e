"""Readings of apeval's words on EARL input that are warnings, not rejections (issue 14):
the grader kind against earl:mode (apeval:graderKind: "automatic for mechanical and model graders;
manual for an adjudication by a person"), and an undetected selection on a pass or a fail
(apeval:so-undetected: "a verdict of cantTell, never a pass or a fail"). The failure cause, legal
only on a cantTell, is refused alike from JSON Lines (tests/bad/23) and from RDF (tests/bad/83)."""
import json

MODE = "the grader kind and earl:mode disagree"
UNDETECTED = "the selection is undetected, which apeval makes a cantTell"


def lines(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def row(id, kind, mode, outcome="passed", **more):
    return {"id": id, "system": "S", "intent": f"case-{id}", "grader": {"id": f"g-{kind}", "kind": kind},
            "mode": mode, "outcome": outcome, **more}


def flagged(outcome, message):
    return sorted(w["focus"].strip("<>").rsplit("/", 1)[-1] for w in outcome.warnings if w["message"].startswith(message))


def test_a_person_asserting_automatic_and_a_machine_manual_are_warned_of(load, tmp_path):
    path = lines(tmp_path, "modes.earl.jsonl", [
        row("h-auto", "human", "automatic"), row("h-manual", "human", "manual"),
        row("m-manual", "mechanical", "manual"), row("m-auto", "mechanical", "automatic"),
        row("j-manual", "model", "manual"), row("j-auto", "model", "automatic"),
        row("j-semi", "model", "semiAuto")])
    outcome = load(path)[path.name]
    assert outcome.status == "loaded", outcome.problems
    assert flagged(outcome, MODE) == ["h-auto", "j-manual", "m-manual"]


def test_an_undetected_selection_on_a_pass_or_a_fail_is_warned_of(load, tmp_path):
    path = lines(tmp_path, "undetected.earl.jsonl", [
        row("p", "mechanical", "automatic", "passed", selectionOutcome="undetected"),
        row("f", "mechanical", "automatic", "failed", selectionOutcome="undetected"),
        row("c", "mechanical", "automatic", "cantTell", selectionOutcome="undetected", failureCause="agent"),
        row("t", "mechanical", "automatic", "passed", selectionOutcome="tp")])
    outcome = load(path)[path.name]
    assert outcome.status == "loaded", outcome.problems
    assert flagged(outcome, UNDETECTED) == ["f", "p"]
