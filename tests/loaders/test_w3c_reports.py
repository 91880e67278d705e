"""The eight real W3C SHACL implementation reports (../shared/data/earl-w3c-shacl), loaded through the
real CLI as a new user would, read sensibly: each system's figures equal the reports' own counts
(passed, failed, other, per implementation, read here from the files directly), each assertion's
grader kind is the one its earl:mode says (automatic, the suite's harness: mechanical; manual:
human; else undeclared), the ~2,700 SHACL warnings are summarised per kind on the terminal (each on
`kg stats --warnings`), and each system is shown by its doap:name in the CLI table and the notebook.
`kg query pass-at-k` and `kg report` then run on the store without failing."""
import json
import re
from collections import defaultdict

import pyoxigraph as ox
import pytest

from tests.conftest import SHARED_DATA, run_kg

W3C = SHARED_DATA / "earl-w3c-shacl"
pytestmark = pytest.mark.skipif(not W3C.is_dir(), reason=f"the W3C SHACL reports are not at {W3C}")
EARL = "http://www.w3.org/ns/earl#"
DOAP_NAME = "http://usefulinc.com/ns/doap#name"
KIND_OF_MODE = {EARL + "automatic": "mechanical", EARL + "manual": "human"}


def the_reports_own_counts():
    """Per (system, kind by mode): the distinct tests reported passed, failed and otherwise; and each
    system's doap:name. Read from the Turtle directly, as the files say it."""
    counts = defaultdict(lambda: {"passed": set(), "failed": set(), "other": set()})
    names = {}
    for report in sorted(W3C.glob("*.ttl")):
        triples = [q.triple for q in ox.parse(path=str(report), format=ox.RdfFormat.TURTLE, base_iri=report.as_uri())]
        by_subject = defaultdict(dict)
        for t in triples:
            by_subject[t.subject].setdefault(t.predicate.value, []).append(t.object)
        for s, props in by_subject.items():
            if DOAP_NAME in props and isinstance(s, ox.NamedNode):
                names[s.value] = props[DOAP_NAME][0].value
        for a, props in by_subject.items():
            if EARL + "result" not in props:
                continue
            result = by_subject[props[EARL + "result"][0]]
            modes = {m.value for m in props.get(EARL + "mode", []) + result.get(EARL + "mode", [])}
            kinds = {KIND_OF_MODE.get(m) for m in modes}
            kind = kinds.pop() if len(kinds) == 1 and None not in kinds else "undeclared"
            outcome = result[EARL + "outcome"][0].value
            bucket = {EARL + "passed": "passed", EARL + "failed": "failed"}.get(outcome, "other")
            counts[(props[EARL + "subject"][0].value, kind)][bucket].add(props[EARL + "test"][0].value)
    return counts, names


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    store = tmp_path_factory.mktemp("w3c") / "store"
    done = run_kg("load", "--store", store, W3C)
    assert done.returncode == 0, done.stdout + done.stderr
    return store, done.stdout


def test_each_system_s_figures_are_the_reports_own_counts_per_kind(loaded):
    store, _ = loaded
    counts, _ = the_reports_own_counts()
    done = run_kg("query", "pass-at-k", "-p", "k=1", "--store", store, "--format", "json")
    rows = {(r["system"], r["grader_kind"]): r for r in json.loads(done.stdout)}
    assert set(rows) == set(counts), "one row per system and kind its assertions' modes say"
    for key, c in counts.items():
        row = rows[key]
        assert row["passed_at_1"] == len(c["passed"]), key
        assert row["cases_at_1"] - row["passed_at_1"] == len(c["failed"]), key
        assert row["excluded_other"] == len(c["other"]), key
    kinds = {kind for _, kind in counts}
    assert kinds == {"mechanical", "human", "undeclared"}, "the reports use automatic, manual and semiAuto"
    assert sum(r["cases"] for r in rows.values() if r["grader_kind"] == "undeclared") < 10, \
        "an automatic harness is no longer undeclared"


def test_warnings_are_summarised_per_kind_with_the_details_on_stats(loaded):
    store, out = loaded
    per_file = sum(int(n) for n in re.findall(r"\(earl, \d+ triples, (\d+) warning\(s\)\)", out))
    assert per_file > 2000
    summary = re.search(r"(\d+) warning\(s\) in 8 file\(s\), by kind:\n((?:  .*\n)+)", out)
    assert summary and int(summary.group(1)) == per_file
    lines = [line for line in summary.group(2).splitlines() if re.match(r"\s+\d+  ", line)]
    assert 2 <= len(lines) <= 10, "a few kinds, one line each, not thousands"
    assert sum(int(line.split()[0]) for line in lines) == per_file
    assert "kg stats --warnings" in summary.group(2)
    stats = run_kg("stats", "--warnings", "--store", store)
    assert stats.returncode == 0 and stats.stdout.count("warnings in ") == 8


def test_a_system_is_shown_by_its_doap_name_in_the_cli_and_the_notebook(loaded):
    store, _ = loaded
    _, names = the_reports_own_counts()
    table = run_kg("query", "pass-at-k", "-p", "k=1", "--store", store, env={"COLUMNS": "200"})
    assert table.returncode == 0, table.stderr
    shown = {line.split("  ")[0].strip() for line in table.stdout.splitlines()[table.stdout.splitlines().index(
        next(l for l in table.stdout.splitlines() if l.startswith("---"))) + 1:] if line and not line.startswith("(")}
    systems = json.loads(run_kg("query", "pass-at-k", "--store", store, "--format", "json").stdout)
    expected = {names[r["system"]] for r in systems if r["system"] in names}
    assert len(expected) == 8 and expected <= shown, (expected, shown)
    assert "shacl/api" not in table.stdout and "earl/api" not in table.stdout
    import kg
    frame = kg.open(store=str(store)).query("pass-at-k", k=1)
    assert expected <= set(frame["system_id"]), set(frame["system_id"])


def test_the_whole_path_runs_on_the_shared_data(loaded, tmp_path):
    store, _ = loaded
    assert run_kg("query", "pass-at-k", "-p", "k=2", "--store", store).returncode == 0
    report = run_kg("report", "--store", store, "--out", tmp_path / "site")
    assert report.returncode == 0, report.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").is_file()
