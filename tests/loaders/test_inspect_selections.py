"""A team's Inspect AI log folder as Inspect itself writes it (tests/loaders/inspect/selections_task.py:
one task run on all its samples, on --limit 3, on --sample-id p3,p4,p5, by another model on --limit 1-4,
with epochs 1 to 3, and a run stopped by an error) loads whole through the real CLI: every log is a run
of the one replay set "popularity" (the task's dataset), none is refused for having run other samples.
Each run's figures equal the accuracy Inspect wrote into its own log header, and `kg compare` pairs
only the cases both runs ran (counted by hand from the logs' own samples)."""
import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.conftest import run_kg

inspect_ai = pytest.importorskip("inspect_ai", reason="the inspect extra is not installed (see README, Installing)")
from inspect_ai.log import read_eval_log  # noqa: E402

SCRIPT = Path(__file__).parent / "inspect" / "selections_task.py"
BASE = "https://kg.example/id/"


def write_logs(folder: Path, home: Path, *args) -> dict[str, Path]:
    done = subprocess.run([sys.executable, str(SCRIPT), str(folder), *args], capture_output=True, text=True,
                          timeout=600, env={"PATH": "/usr/bin:/bin", "HOME": str(home), "NO_PROXY": "*",
                                            "INSPECT_LOG_LEVEL": "warning"})
    assert done.returncode == 0, done.stderr[-3000:]
    return {name: Path(where) for name, where in (line.split(" ", 1) for line in done.stdout.split("\n") if line)}


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """The logs folder, loaded by `kg load logs/` into a store on disk; {run name: its log}."""
    folder, home = tmp_path_factory.mktemp("logs"), tmp_path_factory.mktemp("inspect-home")
    logs = write_logs(folder, home)
    store = tmp_path_factory.mktemp("kg") / "store"
    loaded = run_kg("load", "--store", store, folder)
    return folder, store, {name: read_eval_log(str(path)) for name, path in logs.items()}, loaded


def subject(log) -> str:
    return f"{BASE}system/{quote(log.eval.model, safe='')}/run/{log.eval.eval_id}"


def rows(store, *args) -> list[dict]:
    done = run_kg(*args, "--store", store, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def header_accuracy(log, reducer) -> float:
    """The accuracy Inspect wrote into the log's header for this reducer (None: one epoch, no reducer)."""
    [score] = [s for s in log.results.scores if s.name == "match" and s.reducer == reducer]
    return score.metrics["accuracy"].value


def test_every_log_of_the_folder_loads_as_a_run_of_one_replay_set(team):
    folder, store, logs, loaded = team
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    assert "load: 5 loaded" in loaded.stdout + loaded.stderr
    assert "already loaded" not in loaded.stdout + loaded.stderr
    by_system = {r["system"]: r for r in rows(store, "query", "pass-at-k", "-p", "k=1")}
    assert set(by_system) == {subject(log) for log in logs.values()}, "one row per run, none lost"
    assert {r["replay_set"] for r in by_system.values()} == {f"{BASE}replayset/popularity"}
    # the set's cases are every sample some run ran: the union of the logs' selections
    [summary] = [r for r in rows(store, "query", "replay-sets") if r["replay_set"].endswith("/popularity")]
    assert summary["intents"] == len({i for log in logs.values() for i in log.eval.dataset.sample_ids}) == 6


def test_each_run_s_figures_equal_the_accuracy_in_its_log_header(team):
    _, store, logs, _ = team
    at_1 = {r["system"]: r for r in rows(store, "query", "pass-at-k", "-p", "k=1")}
    at_2 = {r["system"]: r for r in rows(store, "query", "pass-at-k", "-p", "k=2")}
    checked = 0
    for name, log in logs.items():
        row1, row2 = at_1[subject(log)], at_2[subject(log)]
        epochs = log.eval.config.epochs or 1
        assert row1["cases"] == len({str(s.id) for s in log.samples}), name  # the samples it ran, no more
        if log.results is None:  # the stopped run: Inspect wrote no metrics, kg counts what it has
            errors = sum(1 for s in log.samples if s.error is not None)
            assert errors and row1["excluded_environment"] == errors, name
            assert row1["eligible_trials"] == len(log.samples) - errors
            continue
        if epochs == 1:
            assert row1["pass_at_1"] == pytest.approx(header_accuracy(log, None), abs=1e-12), name
            assert row1["cases_at_1"] == len(log.eval.dataset.sample_ids)
        else:  # Inspect's mean of epochs is pass^1; its pass_at_2 reducer is kg's pass@2
            assert row1["pass_hat_k"] == pytest.approx(header_accuracy(log, "mean"), abs=1e-12), name
            assert row2["pass_at_k"] == pytest.approx(header_accuracy(log, "pass_at_2"), abs=1e-12), name
            assert row2["trials"] == epochs * len(log.eval.dataset.sample_ids)
        checked += 1
    assert checked == 4
    rates = {round(r["pass_hat_k"], 9) for r in at_1.values()}
    assert len(rates) > 2, "the runs must differ, or the check would not tell them apart"


@pytest.mark.parametrize("baseline, candidate", [("full", "ids"), ("full", "limit"), ("limit", "other")])
def test_compare_pairs_only_the_cases_both_runs_ran(team, baseline, candidate):
    _, store, logs, _ = team
    b, c = logs[baseline], logs[candidate]
    [row] = rows(store, "compare", subject(b), subject(c))
    ran_b, ran_c = set(b.eval.dataset.sample_ids), set(c.eval.dataset.sample_ids)
    assert row["status"] == "compared"
    assert row["paired_cases"] == len(ran_b & ran_c)
    assert (row["baseline_only"], row["candidate_only"]) == (len(ran_b - ran_c), len(ran_c - ran_b))
    # pass@1 of each side over the shared cases, from the logs' own epoch-1 scores
    first = {name: {str(s.id): s.scores["match"].value == "C" for s in log.samples if s.epoch == 1}
             for name, log in ((baseline, b), (candidate, c))}
    shared = sorted(ran_b & ran_c)
    assert row["pass1_cases"] == len(shared)
    assert row["baseline_pass_at_1"] == pytest.approx(sum(first[baseline][i] for i in shared) / len(shared))
    assert row["candidate_pass_at_1"] == pytest.approx(sum(first[candidate][i] for i in shared) / len(shared))


def test_the_same_task_on_another_dataset_is_refused_and_named_apart_with_replay_set(team, tmp_path):
    folder, store, _, _ = team
    other = tmp_path / "other"
    other.mkdir()
    [log] = write_logs(other, tmp_path, "other-dataset").values()
    refused = run_kg("load", "--store", store, log)
    assert refused.returncode == 1
    assert 'replay set "popularity" is already loaded' in refused.stderr + refused.stdout
    assert "'colours'" in refused.stderr + refused.stdout and "--replay-set" in refused.stderr + refused.stdout
    apart = run_kg("load", "--store", store, "--replay-set", "popularity-colours", log)
    assert apart.returncode == 0, apart.stderr
