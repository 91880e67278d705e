"""kg load's options for facts another tool's files do not state (--system, --replay-set,
--grader-kind, --threshold, --test-base), through the real CLI."""
import json

from tests.conftest import EXAMPLES, run_kg


def test_an_option_no_loader_of_the_files_reads_is_a_usage_error(tmp_path):
    store = tmp_path / "store"
    done = run_kg("load", EXAMPLES / "cubby-routing.replayset.json", "--system", "x", "--store", store)
    assert done.returncode == 2, done.stderr
    assert "--system" in done.stderr and "taubench" in done.stderr and "inspect" in done.stderr
    done = run_kg("stats", "--format", "json", "--store", store)
    assert json.loads(done.stdout)["sources"] == [], "a refused command loads nothing"


def test_a_malformed_pair_is_a_usage_error(tmp_path):
    done = run_kg("load", tmp_path, "--grader-kind", "match", "--store", tmp_path / "store")
    assert done.returncode == 2 and "NAME=VALUE" in done.stderr
    done = run_kg("load", tmp_path, "--grader-kind", "match=robot", "--store", tmp_path / "store")
    assert done.returncode == 2 and "mechanical, model, human" in done.stderr


def test_tau_bench_results_with_system_and_replay_set(tmp_path):
    results = tmp_path / "results.json"
    results.write_text(json.dumps([{"task_id": t, "trial": n, "reward": float((t + n) % 2), "info": {}, "traj": []}
                                   for t in range(3) for n in range(2)]))
    store = tmp_path / "store"
    done = run_kg("load", results, "--store", store)
    assert done.returncode == 1 and "--system" in done.stderr and "--replay-set" in done.stderr
    done = run_kg("load", results, "--system", "my-agent", "--replay-set", "tau-bench-retail", "--store", store)
    assert done.returncode == 0, done.stderr
    assert "taubench" in done.stdout
    done = run_kg("query", "pass-at-k", "-p", "k=2", "--format", "json", "--store", store)
    [row] = json.loads(done.stdout)
    assert row["system"].startswith("https://kg.example/id/system/my-agent/run/")
    assert row["replay_set"] == "https://kg.example/id/replayset/tau-bench-retail"
    assert (row["cases"], row["trials"], row["pass_at_k"], row["pass_hat_k"]) == (3, 6, 1, 0)
