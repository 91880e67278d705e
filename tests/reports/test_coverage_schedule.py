"""`kg report coverage` as cron runs it: a snapshot per run, a trend after two, the --fail-under
gate's exit status 3, atomic output under concurrent runs, errors on stderr."""
import json
import subprocess
import sys

import pytest

from tests.conftest import EXAMPLES, run_kg


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("cov") / "store"
    assert run_kg("load", "--store", path, EXAMPLES).returncode == 0
    return path


def test_snapshots_trend_and_gate(store, tmp_path):
    history, out = tmp_path / "history", tmp_path / "coverage"
    first = run_kg("report", "--store", store, "coverage", "--history", history, "--out", out, "--fail-under", "90")
    assert first.returncode == 3, first.stderr  # the example estate leaves classes unexercised on purpose
    assert "below --fail-under 90%" in first.stderr
    snapshots = sorted(history.glob("coverage-*.json"))
    assert len(snapshots) == 1
    snap = json.loads(snapshots[0].read_text())
    # 10 Cubby classes; HelperRejection and SandboxRun are left unexercised by design -> 8 of 10
    assert snap["class_coverage"]["total"] == 10 and snap["class_coverage"]["covered"] == 8
    assert {s["kind"] for s in snap["sources"]} >= {"replayset", "gold", "earl-jsonl", "ontology"}
    assert all(len(s["sha256"]) == 64 for s in snap["sources"])
    assert "<h2>Trend</h2>" not in (out / "coverage.html").read_text()

    second = run_kg("report", "--store", store, "coverage", "--history", history, "--out", out, "--fail-under", "50")
    assert second.returncode == 0, second.stderr  # nothing changed: still a snapshot, and 80% clears 50%
    assert len(list(history.glob("coverage-*.json"))) == 2
    page = (out / "coverage.html").read_text()
    assert "<h2>Trend</h2>" in page and "charts/coverage-trend.svg" in page
    assert (out / "charts" / "coverage-trend.svg").exists()


def test_two_runs_at_once_do_not_corrupt_each_other(store, tmp_path):
    history, out = tmp_path / "history", tmp_path / "coverage"
    cmd = [sys.executable, "-m", "kg", "report", "--store", str(store), "coverage", "--history", str(history),
           "--out", str(out)]
    runs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for run in runs:
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
    assert len(list(history.glob("coverage-*.json"))) == 3
    for snapshot in history.glob("coverage-*.json"):
        json.loads(snapshot.read_text())  # each whole
    assert out.is_symlink() and (out / "coverage.html").read_text().rstrip().endswith("</html>")
    leftovers = [p.name for p in out.parent.iterdir() if p.name.startswith(".coverage.") and p.is_dir()]
    assert len(leftovers) == 1, leftovers  # only the build the link points at


def test_errors_go_to_stderr_with_a_non_zero_status(tmp_path):
    done = run_kg("report", "--store", tmp_path / "nothing-here", "coverage", "--history", tmp_path / "h")
    assert done.returncode == 1 and "there is no store" in done.stderr and done.stdout == ""
