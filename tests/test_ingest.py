"""Finding files in folders: one bad thing in a folder is rejected alone, the good files beside it
load, and nothing is passed over without a word (issue 18). kg runs as root on some machines,
where permissions do not bite, so unreadable files and folders are made by failing the call."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kg import ingest
from kg.store import Store

from .conftest import EXAMPLES, TESTS, run_kg, small_disk

BASE = TESTS / "bad" / "_base"


@pytest.fixture
def tree(tmp_path):
    """The good estate, its results in a subfolder reached both directly and through a link."""
    root = tmp_path / "estate"
    (root / "results").mkdir(parents=True)
    for name in ("mini.replayset.json", "mini.gold.json", "mini.situations.jsonl"):
        shutil.copy(BASE / name, root / name)
    shutil.copy(BASE / "mini.earl.jsonl", root / "results" / "mini.earl.jsonl")
    (root / "also-results").symlink_to("results")
    (root / "results" / "up").symlink_to("..")  # a loop
    return root


def by_name(outcomes):
    return {Path(o.path).name: o for o in outcomes}


def test_links_to_folders_are_followed_once_and_named(tree):
    outcomes = by_name(ingest.load(Store(":memory:"), [tree]))
    assert {n: o.status for n, o in outcomes.items()} == {
        "mini.replayset.json": "loaded", "mini.gold.json": "loaded", "mini.situations.jsonl": "loaded",
        "mini.earl.jsonl": "loaded", "also-results": "skipped", "up": "skipped"}
    assert outcomes["mini.earl.jsonl"].path == str(tree / "results" / "mini.earl.jsonl")  # its own path
    assert "a link to " + str(tree / "results") + ", which this command already walks" in \
        outcomes["also-results"].problems[0].message


def test_a_dangling_link_is_rejected_alone(tree):
    (tree / "gone.earl.jsonl").symlink_to("nowhere.earl.jsonl")
    outcomes = by_name(ingest.load(Store(":memory:"), [tree]))
    assert outcomes["gone.earl.jsonl"].status == "rejected"
    assert str(outcomes["gone.earl.jsonl"].problems[0]) == (
        f"{tree / 'gone.earl.jsonl'}: a symbolic link to nowhere.earl.jsonl, which does not exist "
        f"(fix: restore its target, or remove the link)")
    assert outcomes["mini.earl.jsonl"].status == "loaded"


def test_a_file_name_that_is_not_utf8_is_rejected_alone(tree):
    name = os.fsdecode(b"r\xe9sultats.earl.jsonl")
    shutil.copy(BASE / "mini.earl.jsonl", tree / name)
    outcomes = ingest.load(Store(":memory:"), [tree])
    bad = [o for o in outcomes if "sultats" in o.path]
    assert [(o.status, o.path) for o in bad] == [("rejected", str(tree / "r\\xe9sultats.earl.jsonl"))]
    assert "the file name is not UTF-8" in str(bad[0].problems[0])
    assert by_name(outcomes)["mini.earl.jsonl"].status == "loaded"


def test_an_unreadable_folder_is_rejected_alone(tree, monkeypatch):
    locked = tree / "locked"
    locked.mkdir()
    shutil.copy(BASE / "mini.earl.jsonl", locked / "other.earl.jsonl")
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)
    monkeypatch.setattr(os, "scandir", scandir)
    outcomes = by_name(ingest.load(Store(":memory:"), [tree]))
    assert outcomes["locked"].status == "rejected"
    assert str(outcomes["locked"].problems[0]) == (
        f"{locked}: cannot read the folder: Permission denied (fix: give kg read permission on it (chmod), "
        f"or move it out of the way)")
    assert outcomes["mini.earl.jsonl"].status == "loaded"


@pytest.mark.parametrize("name", ["report.ttl", "unreadable.earl.jsonl"])  # sniffed by content, or by name
def test_an_unreadable_file_is_rejected_alone(tree, monkeypatch, name):
    target = tree / name
    target.write_text("")
    real_open, real_read = open, Path.read_bytes

    def fail_on_target(path, *args, **kwargs):
        if Path(path) == target:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr(ingest, "open", fail_on_target, raising=False)  # recognise() sniffing the head
    monkeypatch.setattr(Path, "read_bytes", lambda self: fail_on_target(self) if self == target else real_read(self))
    outcomes = by_name(ingest.load(Store(":memory:"), [tree]))
    assert outcomes[name].status == "rejected"
    assert "Permission denied" in str(outcomes[name].problems[0]), outcomes[name].problems
    assert outcomes["mini.earl.jsonl"].status == "loaded"


def test_the_cli_names_what_it_could_not_load(tree, tmp_path):
    (tree / "gone.earl.jsonl").symlink_to("nowhere.earl.jsonl")
    shutil.copy(BASE / "mini.earl.jsonl", tree / os.fsdecode(b"\xff.earl.jsonl"))
    done = run_kg("load", tree, "--store", tmp_path / "store")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "\\xff.earl.jsonl: the file name is not UTF-8" in done.stderr
    assert "gone.earl.jsonl: a symbolic link to nowhere.earl.jsonl" in done.stderr
    assert "also-results: a link to" in done.stderr
    assert "load: 4 loaded, 2 skipped, 2 rejected" in done.stderr


def test_a_full_disk_under_the_store_fails_the_files_it_stops_says_why_and_a_rerun_completes(tmp_path):
    """A real full disk: a small tmpfs (root only, as CI runs), filled until a load cannot finish.
    The disk is several times the examples' store: a load of them peaks at about 24 MB on disk (write
    logs and tables before compaction, for a 15.6 MB store), so on a 20 MB disk the rerun itself
    filled it again, now and then, once the filler was gone."""
    import json

    with small_disk(tmp_path / "disk", "64m") as disk:
        store = disk / "store"
        assert run_kg("load", "--store", store, EXAMPLES / "cubby.ttl",
                      EXAMPLES / "cubby-routing.replayset.json").returncode == 0
        free = os.statvfs(disk)
        filler = disk / "filler"
        filler.write_bytes(b"\0" * (free.f_bavail * free.f_frsize - 4_000_000))  # about 4 MB left
        full = run_kg("load", "--store", store, EXAMPLES)
        assert full.returncode == 1 and "Traceback" not in full.stderr, full.stderr
        assert "the disk under the store" in full.stderr and "is full" in full.stderr
        assert "failed" in full.stderr.splitlines()[-1]  # the summary line counts the failed files
        assert "loaded    " in full.stdout  # and names what did load before the disk filled
        filler.unlink()
        again = run_kg("load", "--store", store, EXAMPLES)
        assert again.returncode == 0, again.stderr
        clean = tmp_path / "clean"
        assert run_kg("load", "--store", clean, EXAMPLES).returncode == 0
        query = ["query", "pass-at-k", "-p", "k=2", "--format", "json", "--store"]
        assert json.loads(run_kg(*query, store).stdout) == json.loads(run_kg(*query, clean).stdout)


def test_a_value_longer_than_the_engine_takes_is_refused_with_its_line_and_the_store_unchanged(tmp_path):
    """Oxigraph's parsers hold one term in at most 16 MiB: a 20 MB literal (Turtle) or a 50 MB line
    (EARL JSON Lines) is refused with its place and a fix — not 'this is a bug in kg'."""
    import json
    row = json.loads((EXAMPLES / "cubby-routing.earl.jsonl").read_text().splitlines()[0])
    row.update(id="long-1", info="x" * 50_000_000)
    for key in ("criterionDigest", "situation"):
        row.pop(key, None)
    (tmp_path / "long.earl.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "long.ttl").write_text(
        "@prefix earl: <http://www.w3.org/ns/earl#> .\n"
        "<urn:a> a earl:Assertion ; earl:subject <urn:s> ; earl:test <urn:t> ; earl:assertedBy <urn:g> ;\n"
        f' earl:result [ a earl:TestResult ; earl:outcome earl:passed ; earl:info "{"y" * 20_000_000}" ] .\n')
    store = Store(":memory:")
    ingest.load(store, [EXAMPLES / "cubby.ttl", EXAMPLES / "cubby-routing.replayset.json"])
    before = store.dump()
    outcomes = {Path(o.path).name: o for o in ingest.load(store, [tmp_path / "long.earl.jsonl", tmp_path / "long.ttl"])}
    for name, place in (("long.earl.jsonl", "line 1 (50.0 MB)"), ("long.ttl", "line 3 (20.0 MB)")):
        outcome = outcomes[name]
        assert outcome.status == "rejected", name
        [problem] = outcome.problems
        assert problem.place == place and "longer than kg stores in one term (16 MiB" in problem.message
        assert "bug in kg" not in str(problem)
    assert store.dump() == before
