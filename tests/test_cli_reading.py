"""Issue 43: a CLI that shows what was asked, through the real CLI on the examples. In 80-, 120- and
200-column terminals the results a query's header declares (pass-at-k: pass@1, pass@k, pass^k with
their n/N) are shown and every line fits; every IRI parameter takes the id kg prints, and one that
names nothing is refused (exit 2) with the nearest names, never answered with zeros."""
import csv
import io
import json

import pytest

from kg import catalogue
from tests.conftest import EXAMPLES, run_kg


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    store = tmp_path_factory.mktemp("reading") / "store"
    done = run_kg("load", "--store", store, EXAMPLES)
    assert done.returncode == 0, done.stderr
    return store


@pytest.mark.parametrize("columns", [80, 120, 200])
def test_pass_at_k_shows_its_three_rates_with_their_denominators_at_any_width(loaded, columns):
    done = run_kg("query", "pass-at-k", "-p", "k=2", "--store", loaded, env={"COLUMNS": str(columns)})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= columns for line in lines), max(lines, key=len)
    header = next(line.split() for line in lines if "pass_at_1" in line.split())
    assert {"pass_at_1", "pass_at_k", "pass_hat_k"} <= set(header)
    left_out = " ".join(lines[next(i for i, line in enumerate(lines) if line.startswith("not shown")):])
    assert not {"pass_at_1", "pass_at_k", "pass_hat_k"} & set(left_out.replace(",", " ").split())
    # each rate's figures, from the JSON by hand, whatever lines the cell was wrapped over: the
    # mechanical grader of cubby@1.4.0 on cubby-routing (pass@1 14/27; pass@k and pass^k over 28 cases)
    rows = json.loads(run_kg("query", "pass-at-k", "-p", "k=2", "--format", "json", "--store", loaded).stdout)
    row = next(r for r in rows if r["replay_set"].endswith("/cubby-routing") and r["system"].endswith("/cubby@1.4.0")
               and r["grader_kind"] == "mechanical")
    text = " ".join(done.stdout.split())
    assert f"{row['passed_at_1']}/{row['cases_at_1']} {row['pass_at_1'] * 100:.1f}%" in text
    for rate in ("pass_at_k", "pass_hat_k"):
        assert f"{row[rate] * 100:.1f}%" in text and f"of {row['cases_at_k']}" in text
        assert f"[{row[rate + '_low'] * 100:.1f}–{row[rate + '_high'] * 100:.1f}]" in text


def test_columns_shows_the_values_the_table_shows_and_takes_excluded(loaded):
    table = run_kg("query", "pass-at-k", "--columns", "system,grader_kind,excluded,pass_at_1", "--store", loaded,
                   env={"COLUMNS": "200"})
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[0].split() == ["system", "grader_kind", "excluded", "pass_at_1"]
    assert "id:system/" not in table.stdout and "\ncubby@1.4.0 " in table.stdout
    assert "16/16 100.0% [80.6–100.0]" in table.stdout and "grader 1" in table.stdout
    rows = list(csv.DictReader(io.StringIO(run_kg("query", "pass-at-k", "--columns", "system,excluded",
                                                  "--format", "csv", "--store", loaded).stdout)))
    assert "excluded_grader" in rows[0] and "excluded_environment" in rows[0]


def iri_parameters():
    return sorted({(name, p.name) for name, q in catalogue.load().items() for p in q.params.values()
                   if p.type == "iri"})


@pytest.mark.parametrize("query,param", iri_parameters())
def test_an_iri_parameter_naming_nothing_is_refused_with_exit_2(loaded, query, param):
    required = {"compare": ["-p", "baseline=cubby@1.4.0", "-p", "candidate=cubby@1.5.0-rc1"]}.get(query, [])
    required = [a for i, a in enumerate(required) if not (a.startswith(param + "=") or
                                                           (i + 1 < len(required) and required[i + 1].startswith(param + "=")))]
    # one form per parameter (the three forms are checked on replay_set below): a subprocess each
    value = {"replay_set": "id:replayset/no-such-thing", "of": "https://kg.example/id/none/no-such-thing"}.get(
        param, "no-such-thing")
    done = run_kg("query", query, "-p", f"{param}={value}", *required, "--store", loaded)
    assert done.returncode == 2, (query, param, value, done.stdout[-300:], done.stderr)
    assert "no-such-thing" in done.stderr and "Traceback" not in done.stderr


def test_a_replay_set_is_named_as_kg_prints_it(loaded):
    """Today's silent wrong: `-p replay_set=id:replayset/cubby-routing` answered zeros."""
    def answer(value):
        done = run_kg("query", "coverage-summary", "-p", f"replay_set={value}", "--format", "json", "--store", loaded)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)
    full = answer("https://kg.example/id/replayset/cubby-routing")
    assert full and any(r.get("intents") or r.get("covered") for r in full)
    assert answer("cubby-routing") == full == answer("id:replayset/cubby-routing")
    for value in ("cubby-routin", "id:replayset/cubby-routin", "https://kg.example/id/replayset/cubby-routin"):
        wrong = run_kg("query", "coverage-summary", "-p", f"replay_set={value}", "--store", loaded)
        assert wrong.returncode == 2 and "the nearest: cubby-routing" in wrong.stderr, wrong.stderr


def test_sparql_has_the_catalogue_prefixes_and_says_where_a_query_is_wrong(loaded):
    done = run_kg("sparql", "SELECT (COUNT(?a) AS ?n) WHERE { ?a a earl:Assertion }", "--format", "csv",
                  "--store", loaded)
    assert done.returncode == 0 and int(done.stdout.splitlines()[1]) > 0, done.stderr
    listed = run_kg("sparql", "--prefixes", "--store", loaded).stdout
    assert "earl:" in listed and "apeval:" in listed and "id:" in listed
    unknown = run_kg("sparql", "SELECT ?a WHERE { ?a a nope:Thing }", "--store", loaded)
    assert unknown.returncode == 2 and "line 1, column" in unknown.stderr and "nope:" in unknown.stderr
    assert len(unknown.stderr.splitlines()) <= 8 and "\\u{" not in unknown.stderr
    missing = run_kg("sparql", "queries/no-such-query.rq", "--store", loaded)
    assert missing.returncode == 2 and "no query file queries/no-such-query.rq" in missing.stderr


def test_queries_and_history_fit_the_terminal(loaded):
    for args in (["queries"], ["history", "--store", loaded], ["history", "a-0001", "--store", loaded]):
        done = run_kg(*args, env={"COLUMNS": "80"})
        assert done.returncode == 0, done.stderr
        assert all(len(line) <= 80 for line in done.stdout.splitlines()), (args, max(done.stdout.splitlines(), key=len))


def test_stats_keeps_information_apart_from_warnings(loaded):
    out = run_kg("stats", "--store", loaded).stdout
    assert "information (not warnings) in " in out
    for block in out.split("\n\n"):
        if block.startswith("warnings in "):
            assert "  info:" not in block


def test_history_names_the_system_and_trial_of_an_assertion(loaded):
    # examples/cubby-routing.earl.jsonl: a-0003 is cubby@1.4.0's trial 1 on route-001
    rows = json.loads(run_kg("history", "a-0003", "--format", "json", "--store", loaded).stdout)
    asserted = [r for r in rows if r["event"] == "asserted"]
    assert len(asserted) == 1 and asserted[0]["system"].endswith("/system/cubby@1.4.0") and asserted[0]["trial"] == 1
    loaded_rows = json.loads(run_kg("history", "--format", "json", "--store", loaded).stdout)
    assert all(r["system"] is None and r["trial"] is None for r in loaded_rows if r["event"] == "loaded")
