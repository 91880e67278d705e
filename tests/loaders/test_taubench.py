"""tau-bench results load as sierra-research/tau-bench publishes them, and kg's pass^k equals the
tau-bench estimator computed here independently (its run.py's display_metrics: per task c passes
among the file's trials, pass^k = mean over tasks of C(c, k) / C(num_trials, k))."""
import json
import random
from math import comb

import pytest

from kg import catalogue

SYSTEM = "https://kg.example/id/system/gpt-4o/run/"


def write_results(path, tasks=6, trials=4, seed=17, error_at=None):
    """A file in the published shape: a list of {task_id, reward, info, traj, trial}, trial by trial."""
    rng = random.Random(seed)
    rows = []
    for trial in range(trials):
        for task in range(tasks):
            reward = rng.choice([0.0, 1.0, 1.0, 0.9999996])  # 1 within 1e-6 passes
            info = {"task": {"user_id": f"user_{task}", "actions": [], "instruction": "…", "outputs": []},
                    "source": "user", "user_cost": 0.0035,
                    "reward_info": {"reward": reward, "info": {"r_actions": reward}, "actions": []}}
            if error_at == (task, trial):
                reward, info = 0.0, {"error": "RateLimitError", "traceback": "Traceback …"}
            rows.append({"task_id": task, "reward": reward, "info": info,
                         "traj": [{"role": "system", "content": "# Airline Agent Policy"},
                                  {"role": "user", "content": "Hi"}], "trial": trial})
    path.write_text(json.dumps(rows, indent=2))
    return rows


def tau_pass_hat(rows, k):
    """tau-bench's estimator, as its run.py computes it."""
    num_trials = len({r["trial"] for r in rows})
    c = {}
    for r in rows:
        c[r["task_id"]] = c.get(r["task_id"], 0) + (1 if 1 - 1e-6 <= r["reward"] <= 1 + 1e-6 else 0)
    return sum(comb(v, k) / comb(num_trials, k) for v in c.values()) / len(c)


def pass_at_k(store, k):
    return catalogue.run(catalogue.load()["pass-at-k"], store, {"k": k}).rows


def test_pass_hat_1_to_4_equal_the_tau_bench_estimator(store, load, tmp_path):
    rows = write_results(tmp_path / "gpt-4o-airline.json")
    outcome = load(tmp_path / "gpt-4o-airline.json")["gpt-4o-airline.json"]
    assert outcome.status == "loaded" and outcome.kind == "taubench", outcome.problems
    for k in range(1, 5):
        [row] = pass_at_k(store, k)
        assert row["system"].startswith(SYSTEM)
        assert row["replay_set"] == "https://kg.example/id/replayset/tau-bench-airline"
        assert (row["grader_kind"], row["cases"], row["cases_at_k"], row["trials"]) == ("mechanical", 6, 6, 24)
        assert row["pass_hat_k"] == pytest.approx(tau_pass_hat(rows, k), abs=1e-9)
    assert 0 < tau_pass_hat(rows, 4) < tau_pass_hat(rows, 1) < 1, "the sample must exercise the estimator"


def test_a_crashed_trial_is_the_environment_s_not_a_failure(store, load, tmp_path):
    write_results(tmp_path / "gpt-4o-retail.json", error_at=(2, 1))
    load(tmp_path / "gpt-4o-retail.json")
    [row] = pass_at_k(store, 2)
    assert (row["trials"], row["eligible_trials"], row["excluded_environment"]) == (24, 23, 1)


def test_a_name_that_does_not_say_the_environment_needs_replay_set(store, load, tmp_path):
    name = "tool-calling-gpt-4o-0.0_range_0-6_user-gpt-4o-llm_0612073827.json"
    write_results(tmp_path / name)
    outcome = load(tmp_path / name)[name]
    assert outcome.status == "rejected"
    assert "--replay-set" in outcome.problems[0].fix
    outcome = load(tmp_path / name, options={"replay_set": "tau-bench-retail"})[name]
    assert outcome.status == "loaded", outcome.problems
    [row] = pass_at_k(store, 1)
    assert row["system"].startswith(SYSTEM) and row["replay_set"].endswith("/tau-bench-retail")


def test_two_runs_are_two_rows_never_conflicting_verdicts(store, load, tmp_path):
    first, second = tmp_path / "a" / "gpt-4o-airline.json", tmp_path / "b" / "gpt-4o-airline.json"
    first.parent.mkdir(), second.parent.mkdir()
    rows_1, rows_2 = write_results(first, seed=1), write_results(second, seed=2)
    load(first, second)
    rows = pass_at_k(store, 2)
    assert len(rows) == 2 and len({r["system"] for r in rows}) == 2
    assert all(r["excluded_conflicting"] == 0 for r in rows)
    assert sorted(r["pass_hat_k"] for r in rows) == pytest.approx(sorted([tau_pass_hat(rows_1, 2),
                                                                          tau_pass_hat(rows_2, 2)]), abs=1e-9)


def test_a_run_over_part_of_the_tasks_is_a_run_of_the_same_set(store, load, tmp_path):
    """run.py's --start-index/--end-index: a file over tasks 0-2 is a run of tau-bench-airline with
    tasks 3-5 not run, loaded beside the run over 0-5 (one set, one digest), its rate over its tasks."""
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    write_results(tmp_path / "a" / "gpt-4o-airline.json", tasks=6)
    part = write_results(tmp_path / "b" / "gpt-4o-airline.json", tasks=3, seed=5)
    for folder in ("a", "b"):
        outcome = load(tmp_path / folder / "gpt-4o-airline.json")["gpt-4o-airline.json"]
        assert outcome.status == "loaded", outcome.problems
    rows = pass_at_k(store, 2)
    assert sorted(r["cases"] for r in rows) == [3, 6] and len({r["replay_set"] for r in rows}) == 1
    [row] = [r for r in rows if r["cases"] == 3]
    assert row["pass_hat_k"] == pytest.approx(tau_pass_hat(part, 2), abs=1e-9)
    digests = store.select("SELECT DISTINCT ?d WHERE { GRAPH ?g { ?s apeval:setDigest ?d } }")
    assert len(digests) == 1, "every run states the set with one digest, whatever tasks it ran"
