"""What kg refuses, found by the third hostile round (issue 45): each case through the real CLI in a
subprocess, against a real store on disk, its dump compared before and after where a store is there."""
import os

import pytest

from tests.conftest import TESTS, run_kg
from tests.test_revisions import dump

BASE = TESTS / "bad" / "_base"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    store = tmp_path_factory.mktemp("refusals") / "store"
    done = run_kg("load", "--store", store, BASE)
    assert done.returncode == 0, done.stderr
    return store


def usage_error(done, *fragments):
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    for fragment in fragments:
        assert fragment in done.stderr, done.stderr


def test_compare_a_system_with_itself_is_a_usage_error(loaded):
    done = run_kg("compare", "--store", loaded, "sys@1", "sys@1", "--fail-on-regression")
    usage_error(done, "the baseline and the candidate are the same system")


@pytest.mark.parametrize("args", [["history", "http://ex.org/x y"], ["compare", "http://x y", "sys@1"]])
def test_an_iri_with_a_space_is_a_usage_error_not_a_traceback(loaded, args):
    done = run_kg(args[0], "--store", loaded, *args[1:])
    usage_error(done, "is not an IRI kg can read", "x y")


@pytest.mark.parametrize("value", ["NaN", "inf", "-Infinity"])
def test_a_decimal_parameter_is_finite(loaded, value):
    done = run_kg("query", "graduation", "--store", loaded, "-p", f"threshold={value}")
    usage_error(done, "parameter threshold takes a decimal")


def test_kg_wait_not_a_number_is_refused(loaded):
    done = run_kg("stats", "--store", loaded, env={"KG_WAIT": "abc"})
    usage_error(done, "KG_WAIT='abc' is not a number of seconds")


def test_a_fifo_given_to_load_is_refused_not_waited_on(loaded, tmp_path):
    fifo = tmp_path / "pipe.earl.jsonl"
    os.mkfifo(fifo)
    before = dump(loaded)
    done = run_kg("load", "--store", loaded, fifo)  # on main this blocked for ever (run_kg's timeout)
    assert done.returncode == 1, done.stderr
    assert "pipe.earl.jsonl: a named pipe (FIFO), not a regular file" in done.stderr
    assert dump(loaded) == before


def test_a_fifo_and_a_link_loop_in_a_folder_are_refused_by_name(loaded, tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    os.mkfifo(folder / "pipe.earl.jsonl")
    (folder / "a.earl.jsonl").symlink_to("b.earl.jsonl")
    (folder / "b.earl.jsonl").symlink_to("a.earl.jsonl")
    before = dump(loaded)
    done = run_kg("load", "--store", loaded, folder)
    assert done.returncode == 1, done.stderr
    assert "pipe.earl.jsonl: a named pipe (FIFO), not a regular file" in done.stderr  # on main: skipped silently
    assert "a.earl.jsonl: a symbolic link in a loop" in done.stderr  # on main: "which does not exist"
    assert "b.earl.jsonl: a symbolic link in a loop" in done.stderr
    assert dump(loaded) == before


def test_a_link_loop_given_to_load_is_called_a_loop(loaded, tmp_path):
    (tmp_path / "x.ttl").symlink_to("y.ttl")
    (tmp_path / "y.ttl").symlink_to("x.ttl")
    done = run_kg("load", "--store", loaded, tmp_path / "x.ttl")
    assert done.returncode == 1, done.stderr
    assert "x.ttl: a symbolic link in a loop" in done.stderr
    assert "does not exist" not in done.stderr


@pytest.mark.parametrize("args", [["--base", "not an iri", str(BASE)], [str(BASE / "no-such-file.earl.jsonl")]])
def test_a_refused_load_creates_no_store(tmp_path, args):
    store = tmp_path / "new-store"
    done = run_kg("load", "--store", store, *args)
    assert done.returncode == 2, done.stderr
    assert not store.exists()


def damaged_copy(store, to):
    """The store copied, one byte flipped every 100 kB of each table file's data (as the hostile
    round did), the files' ends (their index and footer) left whole: the store opens, and a query
    meets the damage only when it reads those blocks."""
    import shutil
    shutil.copytree(store, to)
    for table in to.glob("*.sst"):
        data = bytearray(table.read_bytes())
        for at in range(5000, len(data) - 200_000, 100_000):
            data[at] ^= 0xFF
        table.write_bytes(bytes(data))
    return to


@pytest.fixture(scope="module")
def examples_store(tmp_path_factory):
    from tests.conftest import EXAMPLES
    store = tmp_path_factory.mktemp("examples") / "store"
    done = run_kg("load", "--store", store, EXAMPLES)
    assert done.returncode == 0, done.stderr
    return store


@pytest.mark.parametrize("args", [["stats"], ["query", "pass-at-k"], ["load", str(BASE)]])
def test_a_damaged_store_is_a_clear_error_not_a_spin(examples_store, tmp_path, args):
    """On main every one of these spun at 99% CPU until killed (run_kg's timeout here): the engine's
    evaluation of some queries asks a failed iterator again for ever (kg/damage.py)."""
    bad = damaged_copy(examples_store, tmp_path / "damaged")
    if not any(len(t.read_bytes()) > 205_000 for t in bad.glob("*.sst")):
        pytest.skip("no table file big enough to damage in its data blocks")
    done = run_kg(args[0], "--store", bad, *args[1:])
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert f"the store {bad} is damaged" in done.stderr, done.stderr
    assert "load" in done.stderr.split("damaged", 1)[1] and "Traceback" not in done.stderr


def test_a_file_compacted_away_under_the_check_is_no_damage(tmp_path):
    """The check reads the store beside whoever writes it: a table file a compaction deleted while it
    read is a race (RocksDB words it "Corruption: IO error: No such file or directory"), never damage
    — on first writing, that mistake ended a healthy `kg load` with "the store is damaged"."""
    import threading
    import pyoxigraph as ox
    from kg import damage
    path = tmp_path / "store"
    writer = ox.Store(str(path))
    stop = threading.Event()

    def churn():  # writes and compactions, as a load makes them
        n = 0
        while not stop.is_set():
            writer.extend([ox.Quad(ox.NamedNode(f"http://x/{n}-{i}"), ox.NamedNode("http://x/p"), ox.Literal("v" * 200),
                                   ox.NamedNode("http://x/g")) for i in range(2000)])
            writer.flush()
            writer.optimize()
            n += 1
    thread = threading.Thread(target=churn)
    thread.start()
    try:
        assert [damage.damage(str(path)) for _ in range(3)] == [None] * 3
    finally:
        stop.set()
        thread.join()
