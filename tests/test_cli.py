"""The CLI as users and schedulers run it: exit codes, summaries, output formats, and the
numbers of `kg query pass-at-k -p k=2` checked against an independent computation from the raw
JSON Lines files."""
import csv
import io
import json
import math
import re
import shutil
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_kg


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    store = tmp_path_factory.mktemp("cli") / "store"
    done = run_kg("load", "--store", store, EXAMPLES)
    assert done.returncode == 0, done.stderr
    return store


def test_load_reports_every_file_and_exits_0(loaded):
    again = run_kg("load", "--store", loaded, EXAMPLES)
    assert again.returncode == 0
    files = again.stdout.count("unchanged ")
    assert files >= 9 and f"load: {files} unchanged" in again.stdout


def test_stats_lists_sources_with_kind_digest_and_triples(loaded):
    done = run_kg("stats", "--store", loaded, "--format", "json")
    assert done.returncode == 0, done.stderr
    sources = {Path(s["path"]).name: s for s in json.loads(done.stdout)["sources"]}
    routing = sources["cubby-routing.replayset.json"]
    assert routing["kind"] == "replayset" and len(routing["sha256"]) == 64 and routing["triples"] > 0
    assert routing["pins"][0].startswith("sha256:")
    assert sources["cubby.ttl"]["kind"] == "ontology"
    table = run_kg("stats", "--store", loaded)
    assert "cubby-routing.earl.jsonl" in table.stdout and "earl-jsonl" in table.stdout


def test_a_rejected_file_exits_1_and_the_others_still_load(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(EXAMPLES / "cubby-routing.replayset.json", folder)
    (folder / "broken.gold.json").write_text('{"replaySet": "cubby-routing",\n  "revision": }')
    done = run_kg("load", "--store", tmp_path / "store", folder)
    assert done.returncode == 1
    assert "broken.gold.json: line 2, column 15: malformed JSON" in done.stderr
    assert "loaded    " in done.stdout and "1 loaded, 1 rejected" in done.stderr


def test_usage_errors_exit_2(tmp_path):
    assert run_kg("load", "--store", tmp_path / "s", "--kind", "nonsense", EXAMPLES).returncode == 2
    assert run_kg("query", "no-such-query", "--store", tmp_path / "s").returncode == 2
    assert run_kg("frobnicate").returncode == 2


def test_validate_writes_nothing(tmp_path):
    store = tmp_path / "store"
    done = run_kg("validate", "--store", store, EXAMPLES / "cubby.ttl", EXAMPLES / "cubby-routing.replayset.json",
                  EXAMPLES / "cubby-routing.gold.json")
    assert done.returncode == 0, done.stderr
    assert "validate: 3 valid" in done.stdout
    assert not store.exists()


def test_drop_removes_a_source(tmp_path):
    store = tmp_path / "store"
    assert run_kg("load", "--store", store, EXAMPLES / "cubby.ttl").returncode == 0
    assert run_kg("drop", "--store", store, EXAMPLES / "cubby.ttl").returncode == 0
    stats = json.loads(run_kg("stats", "--store", store, "--format", "json").stdout)
    assert all(s["kind"] == "vocabulary" for s in stats["sources"])
    assert run_kg("drop", "--store", store, EXAMPLES / "cubby.ttl").returncode == 1
    bad = run_kg("drop", "--store", store, "http://example.org/a>b")  # was a ValueError traceback
    assert (bad.returncode, "Traceback" in bad.stderr) == (2, False), bad.stderr
    assert "http://example.org/a>b is not a loaded file's path or graph IRI (Invalid IRI code point '>')" in bad.stderr



def eligibility(row) -> str:
    """A JSON Lines result's verdict class for pass@k, in plain Python: passed, failed (earl:failed or
    cantTell caused by the agent) or excluded (any other outcome)."""
    if row["outcome"] == "cantTell":
        return "failed" if row.get("failureCause") == "agent" else "excluded"
    return row["outcome"] if row["outcome"] in ("passed", "failed") else "excluded"


def not_preregistered(row, gold: dict) -> bool:
    """J2 in plain Python: a result breaks pre-registration when its case has gold and it cites a
    digest no criterion of the case has (the digest recomputed from the gold file's JSON), or it was
    judged before the gold's registeredAt (the examples give no run start time)."""
    from datetime import datetime

    from kg.digests import canonical_digest
    if (row["replaySet"], row["intent"]) not in gold:
        return False
    criteria, registered = gold[(row["replaySet"], row["intent"])]
    cited = row.get("criterionDigest")
    if cited and cited not in {canonical_digest(c) for c in criteria}:
        return True
    when = lambda text: datetime.fromisoformat(text.replace("Z", "+00:00"))  # noqa: E731
    return bool(row.get("date")) and when(row["date"]) < when(registered)


def independent_pass_at_k(k: int) -> dict:
    """pass@1 and pass^k from the raw files with plain Python, by the rules of the catalogue, not
    through SPARQL: superseded assertions dropped, one status per (system, case, trial, grader),
    disagreeing verdicts conflicting, one that breaks pre-registration excluded, eligible = passed,
    failed, cantTell/agent."""
    rows = [json.loads(line) for f in sorted(EXAMPLES.glob("cubby-r*.earl.jsonl")) for line in f.read_text().splitlines()]
    gold = defaultdict(lambda: ([], ""))
    for f in EXAMPLES.glob("cubby-r*.gold.json"):
        doc = json.loads(f.read_text())
        for c in doc["criteria"]:
            gold[(doc["replaySet"], c["intent"])] = (gold[(doc["replaySet"], c["intent"])][0] + [c], doc["registeredAt"])
    superseded = {r["supersedes"] for r in rows if r.get("supersedes")}
    verdicts = defaultdict(set)
    for r in rows:
        if r["id"] in superseded:
            continue
        status = "not-preregistered" if not_preregistered(r, gold) else eligibility(r)
        verdicts[(r["replaySet"], r["system"], r["grader"]["kind"], r["grader"]["id"], r["intent"], r.get("trial", 0))].add(status)
    cases = defaultdict(lambda: defaultdict(dict))
    for (rs, system, kind, grader, intent, trial), statuses in verdicts.items():
        status = ("not-preregistered" if "not-preregistered" in statuses
                  else statuses.pop() if len(statuses) == 1 else "conflicting")
        cases[(rs, system, kind, grader)][intent][trial] = status
    out = {}
    for group, per_case in cases.items():
        at1 = [t[0] for t in per_case.values() if t.get(0) in ("passed", "failed")]
        hats = []
        for trials in per_case.values():
            n = sum(s in ("passed", "failed") for s in trials.values())
            c = sum(s == "passed" for s in trials.values())
            if n >= k:
                hats.append(math.comb(c, k) / math.comb(n, k))
        out[group] = {"cases_at_1": len(at1), "pass_at_1": at1.count("passed") / len(at1) if at1 else None,
                      "cases_at_k": len(hats), "pass_hat_k": sum(hats) / len(hats) if hats else None}
    return out


def test_query_json_matches_an_independent_computation(loaded):
    done = run_kg("query", "pass-at-k", "-p", "k=2", "--format", "json", "--store", loaded)
    assert done.returncode == 0, done.stderr
    rows = [r for r in json.loads(done.stdout) if r["replay_set"] and "/cubby-r" in r["replay_set"]]
    expected = independent_pass_at_k(2)
    assert len(rows) == len(expected) == 12  # 2 sets x 2 systems x 3 graders, never pooled
    for row in rows:
        # a grader that names its implementation asserts as that version: {base}grader/{id}/version/{implementation}
        key = (row["replay_set"].rsplit("/", 1)[-1], row["system"].rsplit("/", 1)[-1], row["grader_kind"],
               row["grader"].split("/version/")[0].rsplit("/", 1)[-1])
        want = expected[key]
        assert row["cases_at_1"] == want["cases_at_1"] and row["cases_at_k"] == want["cases_at_k"], key
        assert row["pass_at_1"] == pytest.approx(want["pass_at_1"]), key
        assert row["pass_hat_k"] == pytest.approx(want["pass_hat_k"]), key


def test_query_formats(loaded):
    csv_out = run_kg("query", "pass-at-k", "--format", "csv", "--store", loaded).stdout.splitlines()
    assert csv_out[0].startswith("replay_set,suite_kind,system,grader_kind,grader,k,")
    assert sum("/replayset/cubby-r" in line for line in csv_out) == 12
    tsv_out = run_kg("query", "pass-at-k", "--format", "tsv", "--store", loaded).stdout.splitlines()
    assert "\t" in tsv_out[0]
    table = run_kg("query", "pass-at-k", "--store", loaded).stdout
    assert " cubby@1.4.0 " in table and f"({len(csv_out) - 1} rows)" in table
    assert "id:system/cubby@1.4.0" in run_kg("query", "pass-at-k", "--wide", "--store", loaded).stdout


def test_the_table_folds_rates_and_exclusions_and_csv_keeps_full_precision(loaded):
    rows = json.loads(run_kg("query", "pass-at-k", "-p", "k=2", "--format", "json", "--store", loaded).stdout)
    table = run_kg("query", "pass-at-k", "-p", "k=2", "--store", loaded, env={"COLUMNS": "400"}).stdout
    lines = table.splitlines()
    assert lines[0] == "k: 2"  # one value for every row: said once, above the table
    header = lines[1].split()
    assert "pass_at_1" in header and "excluded" in header
    assert not {"passed_at_1", "cases_at_1", "pass_at_1_low", "excluded_grader"} & set(header)
    # one row's cell, rebuilt from its JSON numbers by hand: passed/cases percent [low–high]
    row = next(r for r in rows if r["system"].endswith("/cubby@1.5.0-rc1") and r["grader_kind"] == "model"
               and r["replay_set"].endswith("/cubby-regression"))
    cell = (f"{row['passed_at_1']}/{row['cases_at_1']} {row['pass_at_1'] * 100:.1f}% "
            f"[{row['pass_at_1_low'] * 100:.1f}–{row['pass_at_1_high'] * 100:.1f}]")
    assert cell == "16/16 100.0% [80.6–100.0]" and cell in table
    assert "grader 1" in table  # its one grader-failed trial, folded into `excluded`
    # CSV carries every digit JSON does
    csv_rows = list(csv.DictReader(io.StringIO(run_kg("query", "pass-at-k", "-p", "k=2", "--format", "csv",
                                                       "--store", loaded).stdout)))
    assert [float(r["pass_at_1_low"]) for r in csv_rows] == [r["pass_at_1_low"] for r in rows]


def test_columns_chooses_and_a_narrow_terminal_names_what_it_left_out(loaded):
    chosen = run_kg("query", "pass-at-k", "--columns", "grader_kind,pass_at_1", "--format", "csv", "--store", loaded)
    assert chosen.stdout.splitlines()[0] == "grader_kind,pass_at_1"
    wrong = run_kg("query", "pass-at-k", "--columns", "pass_at_l", "--store", loaded)  # a typo of pass_at_1
    assert wrong.returncode == 2 and "did you mean" in wrong.stderr and "pass_at_1 or" in wrong.stderr
    narrow = run_kg("query", "pass-at-k", "--store", loaded, env={"COLUMNS": "120"}).stdout
    assert all(len(line) <= 120 for line in narrow.splitlines())
    assert "not shown to fit the terminal:" in narrow and any("pass_at_1" in line.split() for line in narrow.splitlines())


def test_help_teaches_by_example():
    for command in ("load", "query", "stats", "validate", "drop", "sparql", "queries", "compare"):
        done = run_kg(command, "--help")
        assert done.returncode == 0 and "Example" in done.stdout, command


def test_sparql_text_longer_than_a_file_name_is_a_query(loaded):
    # Path(text).is_file() raised "File name too long" on a 386-character query
    text = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }  " + "#" * 400
    done = run_kg("sparql", text, "--store", loaded, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["n"] > 0


# ── mistakes end in a message that says the rule and the exit code of the README's table ──
@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_parameter_below_its_min_is_a_usage_error_naming_the_rule(loaded, value):
    done = run_kg("query", "pass-at-k", "-p", f"k={value}", "--store", loaded)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"parameter k of pass-at-k must be ≥ 1 (trials a case needs for pass@k and pass^k), got {value}" \
        in done.stderr
    assert "(integer ≥ 1, default 3)" in run_kg("queries", "pass-at-k").stdout


def test_report_k_below_1_is_a_usage_error(loaded, tmp_path):
    done = run_kg("report", "-k", "0", "--store", loaded, "--out", tmp_path / "site")
    assert done.returncode == 2 and "Invalid value for '-k': 0 is not in the range x>=1" in done.stderr
    assert not (tmp_path / "site").exists()


def test_report_coverage_takes_store_after_the_subcommand(loaded, tmp_path):
    done = run_kg("report", "coverage", "--history", tmp_path / "h", "--out", tmp_path / "c", "--store", loaded)
    assert done.returncode == 0, done.stderr
    assert "class coverage" in done.stdout and (tmp_path / "c" / "coverage.html").exists()
    missing = run_kg("report", "coverage", "--history", tmp_path / "h", "--store", tmp_path / "none", cwd=tmp_path)
    assert missing.returncode == 1 and f"there is no store at {tmp_path / 'none'} (--store names it)" in missing.stderr
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize("text, form", [
    ("INSERT DATA { <urn:a> <urn:b> <urn:c> }", "a SPARQL Update (INSERT)"),
    ("PREFIX x: <urn:x#> # a comment\nDELETE WHERE { ?s x:p ?o }", "a SPARQL Update (DELETE)"),
    ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "CONSTRUCT"),
])
def test_sparql_says_it_runs_select_only(loaded, text, form):
    done = run_kg("sparql", text, "--store", loaded)
    assert done.returncode == 2
    assert f"kg sparql runs SELECT queries only, and this is {form}" in done.stderr
    assert "expected CONSTRUCT" not in done.stderr


def test_validate_checks_a_file_already_loaded_unchanged(loaded):
    done = run_kg("validate", "--store", loaded, EXAMPLES / "cubby-routing.gold.json")
    assert done.returncode == 0, done.stderr
    assert "valid     " in done.stdout and "validate: 1 valid" in done.stdout and "unchanged" not in done.stdout


def independent_regressions() -> dict:
    """Regressed cases of cubby@1.5.0-rc1 against cubby@1.4.0 from the raw JSON Lines files with plain
    Python, by the rules of `compare` (not through SPARQL): per replay set, grader kind and grader,
    superseded assertions dropped, one status per trial (disagreeing ones conflicting), eligible =
    passed, failed, cantTell/agent; a case regressed when both sides have an eligible trial and the
    candidate's pass rate is lower. Also which groups cite different criterion digests on a paired case."""
    rows = [json.loads(line) for f in sorted(EXAMPLES.glob("cubby-r*.earl.jsonl")) for line in f.read_text().splitlines()]
    superseded = {r["supersedes"] for r in rows if r.get("supersedes")}
    trials, digests = defaultdict(set), defaultdict(set)
    for r in rows:
        if r["id"] in superseded:
            continue
        status = eligibility(r)
        group = (r["replaySet"], r["grader"]["kind"], r["grader"]["id"])
        trials[(group, r["intent"], r["system"], r.get("trial", 0))].add(status)
        if r.get("criterionDigest"):
            digests[(group, r["intent"], r["system"])].add(r["criterionDigest"])
    counts = defaultdict(lambda: [0, 0])  # (group, intent, system) -> [n, c]
    for (group, intent, system, _), statuses in trials.items():
        status = ("not-preregistered" if "not-preregistered" in statuses
                  else statuses.pop() if len(statuses) == 1 else "conflicting")
        if status in ("passed", "failed"):
            counts[(group, intent, system)][0] += 1
            counts[(group, intent, system)][1] += status == "passed"
    regressed, refused = defaultdict(set), defaultdict(set)
    for (group, intent, system), (nb, cb) in list(counts.items()):
        if system != "cubby@1.4.0" or nb == 0:
            continue
        nc, cc = counts.get((group, intent, "cubby@1.5.0-rc1"), (0, 0))
        if nc == 0:
            continue
        if digests[(group, intent, "cubby@1.4.0")] != digests[(group, intent, "cubby@1.5.0-rc1")]:
            refused[group].add(intent)  # this case alone is refused (issue 43); the rest are compared
        elif Fraction(cc, nc) < Fraction(cb, nb):
            regressed[group].add(intent)
    return {group: (sorted(regressed[group]), sorted(refused[group])) for group in {*regressed, *refused}}


def test_compare_prints_the_regressed_cases_per_grader_kind_and_gates_with_exit_4(loaded):
    done = run_kg("compare", "cubby@1.4.0", "cubby@1.5.0-rc1", "--format", "json", "--store", loaded)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    expected = independent_regressions()
    assert expected, "the examples hold regressions to find"
    assert any(refused for _, refused in expected.values()), "the examples hold a case graded against other gold"
    for group, (cases, refused) in expected.items():
        row = next(r for r in rows if (r["replay_set"].rsplit("/", 1)[-1], r["grader_kind"],
                                       r["grader"].split("/version/")[0].rsplit("/", 1)[-1]) == group)
        assert row["status"].startswith("compared") and row["regressed"] == len(cases), group
        assert [c.rsplit("/", 1)[-1] for c in (row["regressed_cases"] or "").split(", ") if c] == cases, group
        assert row["refused_cases"] == len(refused), group
        assert [c.rsplit("/", 1)[-1] for c in (row["refused_case_list"] or "").split(", ") if c] == refused, group
    table = run_kg("compare", "cubby@1.4.0", "cubby@1.5.0-rc1", "--store", loaded)
    assert table.returncode == 0, table.stderr
    sections, kind = defaultdict(list), None
    for line in table.stdout.split("regressed cases, per grader kind:\n")[1].splitlines():
        if line.startswith("    "):
            sections[kind].append(line)
        elif line.startswith("  "):
            kind = line.strip().rstrip(":")
    for (replay_set, kind, grader), (cases, _) in expected.items():
        # a grader that names its implementation is shown as that version: id:grader/{id}/version/{implementation}
        line = next(line for line in sections[kind]
                    if re.search(rf"/{re.escape(replay_set)}, id:grader/{re.escape(grader)}(/version/[^:\s]+)?:", line))
        assert all(f"/intent/{case}" in line for case in cases) and (cases or "none of" in line), line
    gated = run_kg("compare", "cubby@1.4.0", "cubby@1.5.0-rc1", "--fail-on-regression", "--store", loaded)
    assert gated.returncode == 4, gated.stderr
    assert "gate failed: human, id:replayset/cubby-routing, id:grader/alice: 2 case(s) regressed" in gated.stderr
    # one kind on one set, with nothing regressed there: the gate passes
    passed = run_kg("compare", "cubby@1.4.0", "cubby@1.5.0-rc1", "--replay-set", "cubby-regression",
                    "--fail-on-regression", "--gate-kind", "mechanical", "--store", loaded)
    assert passed.returncode == 0, passed.stderr
    assert "gate passed (mechanical)" in passed.stderr


def test_compare_gates_on_new_wrong_answers_and_the_interval(loaded):
    strict = run_kg("compare", "cubby@1.4.0", "cubby@1.5.0-rc1", "--new-wrong-answers", "--gate-kind", "human",
                    "--store", loaded)
    assert strict.returncode == 4 and "2 new wrong answer(s)" in strict.stderr, strict.stderr
    # on cubby-regression the model grader's pass rate rose: no drop of any size fails it
    drop = run_kg("compare", "cubby@1.4.0", "cubby@1.5.0-rc1", "--replay-set", "cubby-regression", "--max-drop", "0",
                  "--gate-kind", "model", "--store", loaded)
    assert drop.returncode == 0, drop.stderr
    # the other way round the candidate's interval lies below 0 for the model grader: a drop beyond 0
    worse = run_kg("compare", "cubby@1.5.0-rc1", "cubby@1.4.0", "--replay-set", "cubby-regression", "--max-drop", "0",
                   "--gate-kind", "model", "--store", loaded)
    assert worse.returncode == 4 and "fell by more than 0" in worse.stderr, worse.stderr
    missing = run_kg("compare", "cubby@1.4.0", "cubby@1.5.0-rc1", "--fail-on-regression", "--gate-kind", "undeclared",
                     "--store", loaded)
    assert missing.returncode == 4 and "undeclared: no verdicts of this grader kind" in missing.stderr
    # a typo of a kind is a usage error (2), not a gate that failed (4)
    typo = run_kg("compare", "cubby@1.4.0", "cubby@1.5.0-rc1", "--fail-on-regression", "--gate-kind", "mechnical",
                  "--store", loaded)
    assert typo.returncode == 2 and "did you mean mechanical" in typo.stderr and "human" in typo.stderr
    unknown = run_kg("compare", "cubby@9", "cubby@1.5.0-rc1", "--store", loaded)
    assert unknown.returncode == 2 and "no system 'cubby@9' is loaded" in unknown.stderr


def test_the_readme_shows_the_table_as_it_prints(loaded):
    readme = (EXAMPLES.parent / "README.md").read_text()
    block = readme.split("$ kg query pass-at-k -p k=2\n", 1)[1].split("```", 1)[0]
    printed = run_kg("query", "pass-at-k", "-p", "k=2", "--store", loaded, env={"COLUMNS": "120"}).stdout
    lines = [line for line in block.splitlines() if line != "…"]
    assert len(lines) >= 8 and all(line in printed.splitlines() for line in lines), printed
    assert printed.splitlines()[:len(lines) - 3] == lines[:-3] and printed.splitlines()[-3:] == lines[-3:], printed
