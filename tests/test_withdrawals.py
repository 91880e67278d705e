"""No path rewrites the record (issue 41): `kg drop` withdraws a source and keeps what it held
readable; a file loaded into its graph again is judged against the withdrawn version by the same
append-only rules as a reload, seals included, and `kg history` shows both versions; only `kg erase`
destroys, and says so in the history. Each test fails on a kg whose drop erased (before issue 41):
the edited file then loaded as if new. Run on a copy of the examples, through the real CLI."""
import json
import re

import pytest

from kg.store import writing
from kg.store import Store
from tests.conftest import run_kg
from tests.test_revisions import ROUTING, dump, edit_first_line, estate, outcome_of_a0001  # noqa: F401


def history(store, of):
    done = run_kg("history", of, "--store", store, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def drop(store, path):
    done = run_kg("drop", path, "--store", store)
    assert done.returncode == 0 and "withdrawn" in done.stdout, done.stderr
    return done


def rewrite_json(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def test_drop_then_an_edited_earl_file_is_refused_unless_revised_and_history_has_both(estate):
    folder, store = estate
    drop(store, folder / ROUTING)
    assert outcome_of_a0001(store) == []  # out of every rate: gone from the live graphs
    events = [row["event"] for row in history(store, "a-0001")]
    assert events == ["withdrawn"]
    edit_first_line(folder, outcome="failed")
    before = dump(store)
    refused = run_kg("load", "--store", store, folder / ROUTING)
    assert refused.returncode == 1, refused.stdout
    assert "withdrawn by kg drop on" in refused.stderr and "now earl:failed" in refused.stderr
    assert "kg load --revise" in refused.stderr
    assert dump(store) == before  # the rejected load wrote nothing
    revised = run_kg("load", "--revise", "--store", store, folder / ROUTING)
    assert revised.returncode == 0, revised.stderr
    assert outcome_of_a0001(store) == ["http://www.w3.org/ns/earl#failed"]
    rows = history(store, "a-0001")
    assert [row["event"] for row in rows] == ["withdrawn", "revised", "asserted"], [(r["time"], r["event"]) for r in rows]
    assert "earl:outcome was earl:passed, now earl:failed" in rows[1]["detail"]
    assert rows[0]["digest"] == rows[1]["digest"] != rows[1]["new_digest"]


def test_the_same_file_loaded_again_after_a_drop_is_linked_to_its_withdrawal(estate):
    folder, store = estate
    drop(store, folder / ROUTING)
    assert "withdrawn: 1 source(s) by kg drop, 359 assertion(s)" in run_kg("stats", "--store", store).stdout
    assert withdrawn_issues(store) == [(str((folder / ROUTING).resolve()), "withdrawn by kg drop")]
    again = run_kg("load", "--store", store, folder / ROUTING)
    assert again.returncode == 0, again.stderr
    assert outcome_of_a0001(store) == ["http://www.w3.org/ns/earl#passed"]
    s = Store(store, read_only=True)
    linked = s.select("SELECT ?w WHERE { GRAPH <urn:kg:catalogue> { ?g prov:wasRevisionOf ?w . ?w a kg:Withdrawal } }",
                      g=__import__("pyoxigraph").NamedNode((folder / ROUTING).resolve().as_uri()))
    assert len(linked) == 1
    stats = run_kg("stats", "--store", store, "--no-warnings")
    assert "withdrawn:" not in stats.stdout and not withdrawn_issues(store)  # reloaded: nothing is out of the rates


def withdrawn_issues(store):
    """data-quality's withdrawn rows (the report's data-quality page lists them): (path, message start)."""
    done = run_kg("query", "data-quality", "--store", store, "--format", "json")
    assert done.returncode == 0, done.stderr
    return [(row["path"], row["message"][:20]) for row in json.loads(done.stdout) if row["issue"] == "withdrawn"]


def test_a_gold_description_changed_across_a_drop_is_sealed_by_its_pins(estate):
    folder, store = estate
    gold = folder / "cubby-routing.gold.json"
    drop(store, gold)

    def describe_another_class(data):
        data["descriptions"][1]["describesClasses"] = ["cubby:Helper"]
    rewrite_json(gold, describe_another_class)
    before = dump(store)
    plain = run_kg("load", "--store", store, gold)
    assert plain.returncode == 1 and "withdrawn by kg drop" in plain.stderr, plain.stderr
    revised = run_kg("load", "--revise", "--store", store, gold)
    assert revised.returncode == 1 and "every criterion digest the gold pins stays the same" in revised.stderr
    assert dump(store) == before


def test_a_judged_anticipation_stays_sealed_across_a_drop(estate):
    folder, store = estate
    anticipation = folder / "cubby-po-check.anticipation.json"
    drop(store, anticipation)
    rewrite_json(anticipation, lambda data: data["grading_policy"].update(passing_threshold=0.4))
    before = dump(store)
    plain = run_kg("load", "--store", store, anticipation)
    assert plain.returncode == 1 and "withdrawn by kg drop" in plain.stderr, plain.stderr
    revised = run_kg("load", "--revise", "--store", store, anticipation)
    assert revised.returncode == 1 and "the anticipation is sealed" in revised.stderr, revised.stderr
    assert dump(store) == before


def test_a_plan_edited_across_a_drop_is_refused_and_history_shows_both(estate):
    folder, store = estate
    plan = folder / "cubby-rc1-vs-1.4.experiment.json"
    drop(store, plan)
    rewrite_json(plan, lambda data: data.update(title="Another question, asked after the runs"))
    plain = run_kg("load", "--store", store, plan)
    assert plain.returncode == 1 and "withdrawn by kg drop" in plain.stderr, plain.stderr
    revised = run_kg("load", "--revise", "--store", store, plan)
    assert revised.returncode == 0, revised.stderr
    rows = history(store, plan.resolve().as_uri())
    assert [row["event"] for row in rows if row["event"] != "loaded"] == ["withdrawn", "revised"]
    assert any("Another question" in row["detail"] for row in rows if row["event"] == "revised")


def test_a_large_source_dropped_in_parts_is_withdrawn_too(estate, monkeypatch):
    """The bulk path (a source of BULK_TRIPLES triples or more) writes the withdrawal with the record's removal."""
    folder, store = estate
    monkeypatch.setattr(writing, "BULK_TRIPLES", 10)
    s = Store(store)
    graph = (folder / ROUTING).resolve().as_uri()
    held = s.graph_size(graph)
    assert s.drop_source(graph)
    parts = s.select("SELECT ?part ?n WHERE { GRAPH <urn:kg:catalogue> { ?w a kg:Withdrawal ; kg:content ?part ; "
                     "void:triples ?n } }")
    assert sum(part.value.count("\n") for part, _ in parts) == held == int(parts[0][1].value)


def test_erase_destroys_the_words_and_leaves_the_event(estate):
    folder, store = estate
    drop(store, folder / ROUTING)
    asked = run_kg("erase", folder / ROUTING, "--store", store, input="n\n")
    assert asked.returncode == 2  # declined at the prompt: nothing destroyed
    assert b"now" not in b"" and 'kg:content' not in asked.stdout
    s = Store(store, read_only=True)
    assert s.select("SELECT ?c WHERE { GRAPH <urn:kg:catalogue> { ?w kg:content ?c } }")
    del s
    done = run_kg("erase", folder / ROUTING, "--store", store, "--yes")
    assert done.returncode == 0 and re.search(r"erased .*1 version", done.stdout), done.stderr
    s = Store(store, read_only=True)
    assert not s.select("SELECT ?c WHERE { GRAPH <urn:kg:catalogue> { ?w kg:content ?c } }")
    del s
    events = [row["event"] for row in history(store, (folder / ROUTING).resolve().as_uri())]
    assert events == ["withdrawn", "erased"]
    again = run_kg("erase", folder / ROUTING, "--store", store, "--yes")
    assert again.returncode == 1 and "nothing of" in again.stderr
