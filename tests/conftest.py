import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from kg import ingest
from kg.store import Store

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
EXAMPLES = ROOT / "examples"
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def store():
    return Store(":memory:")


@pytest.fixture
def load(store):
    """Loads paths into the test store and returns {file name: Outcome}."""
    def _load(*paths, **options):
        outcomes = ingest.load(store, paths, **options)
        return {Path(o.path).name: o for o in outcomes}
    return _load


def run_kg(*args, cwd=None, env=None, input=None):
    """The real CLI in a subprocess: what a user or cron would run."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "kg", *map(str, args)], cwd=cwd, env=full_env,
                          capture_output=True, text=True, input=input, timeout=600)


# values from the example estate for the parameters a catalogue query requires (compare's two
# systems), so that the tests running every query on every engine run those too
EXAMPLE_REQUIRED = {"baseline": "https://kg.example/id/system/cubby@1.4.0",
                    "candidate": "https://kg.example/id/system/cubby@1.5.0-rc1"}


def required_params(query) -> dict:
    return {p.name: EXAMPLE_REQUIRED[p.name] for p in query.params.values() if p.required}


@contextmanager
def small_disk(where: Path, size: str):
    """A real disk of `size` (a tmpfs mounted at `where`) for full-disk tests, unmounted on leaving;
    the test skips where mounting needs root the run does not have (CI runs as root)."""
    where.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)
