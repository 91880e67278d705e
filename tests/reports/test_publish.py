"""`kg report --out` never deletes what kg did not write (issue 11): a folder, file or link kg did
not make, the working folder, home and the store are refused with exit 2 and left untouched; a
site kg made is replaced as before; a crashed run's leftovers go only when they carry kg's marker;
history files kg did not write are skipped with a warning and kept."""
import json
import os

import pytest

from kg import report
from tests.conftest import EXAMPLES, run_kg, small_disk


def build(folder):
    (folder / "index.html").write_text("<html></html>\n")


def tree(folder):
    """Every path under a folder with its bytes (links as their target): what 'untouched' compares."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            found[os.path.relpath(path, folder)] = (os.readlink(path) if os.path.islink(path)
                                                     else open(path, "rb").read() if os.path.isfile(path) else None)
    return found


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("publish") / "store"
    assert run_kg("load", "--store", path, EXAMPLES / "cubby.ttl").returncode == 0
    return path


def test_a_folder_with_a_users_file_is_refused_and_the_file_survives(store, tmp_path):
    (tmp_path / "site" / "docs").mkdir(parents=True)
    (tmp_path / "site" / "docs" / "a.txt").write_text("precious")
    (tmp_path / ".site.keep").mkdir()  # a sibling whose name looks like kg's temporaries
    (tmp_path / ".site.keep" / "b.txt").write_text("mine")
    before = tree(tmp_path)
    done = run_kg("report", "--store", store, "--out", tmp_path / "site")
    assert done.returncode == 2, done.stderr
    assert "a folder kg did not make" in done.stderr and "docs" in done.stderr and "--out" in done.stderr
    assert "report written" not in done.stdout
    after = tree(tmp_path)
    after.pop(".site.lock", None)
    assert after == before


@pytest.mark.parametrize("where", ["dot", "home", "store", "store-parent", "cwd-parent"])
def test_the_working_folder_home_and_the_store_are_refused(store, tmp_path, where):
    project = tmp_path / "project"
    (project / ".kg").mkdir(parents=True)
    (project / "evidence.earl.jsonl").write_text("{}\n")
    local_store = project / ".kg" / "store"
    local_store.mkdir()
    (local_store / "CURRENT").write_text("x")
    out = {"dot": ".", "home": "~", "store": local_store, "store-parent": project / ".kg",
           "cwd-parent": ".."}[where]
    out = os.path.expanduser(str(out)) if where != "home" else str(tmp_path / "home")
    (tmp_path / "home").mkdir()
    before = tree(tmp_path)
    done = run_kg("report", "--store", local_store, "--out", out, cwd=project,
                  env={"HOME": str(tmp_path / "home")})
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "refuses" in done.stderr or "is the store" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert tree(tmp_path) == before


def test_a_file_and_a_foreign_link_are_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("keep")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "c.txt").write_text("keep")
    (tmp_path / "link").symlink_to("elsewhere")
    before = tree(tmp_path)
    with pytest.raises(report.UnsafeOutput, match="is a file"):
        report.publish(tmp_path / "notes.txt", build)
    with pytest.raises(report.UnsafeOutput, match="symbolic link kg did not make"):
        report.publish(tmp_path / "link", build)
    assert tree(tmp_path) == before


def test_coverage_out_is_checked_too(store, tmp_path):
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "index.php").write_text("<?php")
    done = run_kg("report", "--store", store, "coverage", "--history", tmp_path / "h", "--out", tmp_path / "www")
    assert done.returncode == 2 and "a folder kg did not make" in done.stderr
    assert (tmp_path / "www" / "index.php").read_text() == "<?php"
    assert not (tmp_path / "h").exists()  # refused before any work: no snapshot either


def test_a_site_kg_made_is_replaced_and_its_old_build_removed(store, tmp_path):
    out = tmp_path / "report"
    first = run_kg("report", "--store", store, "--out", out)
    assert first.returncode == 0, first.stderr
    first_build = os.path.realpath(out)
    assert (out / report.MARKER).read_text() == report.MARKER_TEXT
    second = run_kg("report", "--store", store, "--out", out)
    assert second.returncode == 0, second.stderr
    assert os.path.realpath(out) != first_build and not os.path.exists(first_build)
    assert (out / "index.html").exists()


def test_a_rerun_keeps_what_the_user_put_in_the_report_folder_since(store, tmp_path):
    """Issue 45: a report folder kg made once was wiped whole on the next run, with the user's files."""
    out = tmp_path / "report"
    assert run_kg("report", "--store", store, "--out", out).returncode == 0
    (out / "notes.txt").write_text("mine")
    (out / "mine" / "deep").mkdir(parents=True)
    (out / "mine" / "deep" / "x.csv").write_text("1,2")
    (out / "data" / "my-note.md").write_text("about a table")  # inside a folder kg writes into
    again = run_kg("report", "--store", store, "--out", out)
    assert again.returncode == 0, again.stderr
    assert "kept in" in again.stderr and "notes.txt" in again.stderr
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "mine" / "deep" / "x.csv").read_text() == "1,2"
    assert (out / "data" / "my-note.md").read_text() == "about a table"
    assert (out / "index.html").exists()
    assert "notes.txt" not in (out / report.WRITTEN).read_text().splitlines()  # still the user's, next time too
    assert run_kg("report", "--store", store, "--out", out).returncode == 0
    assert (out / "notes.txt").read_text() == "mine"


def test_a_users_file_where_kg_now_writes_is_refused_and_the_site_left_as_it_was(tmp_path):
    out = tmp_path / "site"
    report.publish(out, build)
    (out / "extra.html").write_text("mine")

    def builds_more(folder):
        build(folder)
        (folder / "extra.html").write_text("kg's")
    before = tree(out)
    with pytest.raises(report.UnsafeOutput, match="extra.html"):
        report.publish(out, builds_more)
    assert tree(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site.2")
                and os.path.realpath(out) != str(p)]  # no half-made build left beside it


def test_an_empty_folder_may_be_used(tmp_path):
    (tmp_path / "site").mkdir()
    report.publish(tmp_path / "site", build)
    assert (tmp_path / "site").is_symlink() and (tmp_path / "site" / "index.html").exists()


def test_a_crashed_runs_leftovers_go_only_when_they_carry_the_marker(tmp_path):
    out = tmp_path / "site"
    report.publish(out, build)
    crashed = tmp_path / ".site.20260101T000000-1-1"
    crashed.mkdir()
    (crashed / report.MARKER).write_text(report.MARKER_TEXT)
    foreign = tmp_path / ".site.backup"
    foreign.mkdir()
    (foreign / "x").write_text("mine")
    stale_link = tmp_path / ".site.link-20260101T000000-1-1"
    stale_link.symlink_to(crashed.name)

    def fails(folder):
        raise RuntimeError("a build that fails")
    with pytest.raises(RuntimeError):
        report.publish(out, fails)
    assert (out / "index.html").exists()  # a failed build leaves the published site as it was
    report.publish(out, build)
    assert not crashed.exists() and not stale_link.is_symlink()
    assert (foreign / "x").read_text() == "mine"
    builds = [p for p in tmp_path.iterdir() if p.name.startswith(".site.") and p.is_dir() and not p.is_symlink()]
    assert sorted(p.name for p in builds) == sorted([".site.backup", os.path.basename(os.path.realpath(out))])


def test_a_site_from_before_the_marker_is_replaced_but_its_folder_kept(tmp_path):
    old = tmp_path / ".site.20250101T000000-7-7"  # what an earlier kg left: a link to an unmarked build
    old.mkdir()
    (old / "index.html").write_text("old")
    (tmp_path / "site").symlink_to(old.name)
    report.publish(tmp_path / "site", build)
    assert (tmp_path / "site" / report.MARKER).exists() and (old / "index.html").read_text() == "old"


def test_history_files_kg_did_not_write_are_skipped_with_a_warning(store, tmp_path):
    history = tmp_path / "history"
    history.mkdir()
    (history / "coverage-notes.json").write_text("[1, 2]")
    (history / "coverage-broken.json").write_text("{not json")
    (history / "coverage-old.json").write_text(json.dumps({"taken_at": "2026-01-01T00:00:00+00:00",
                                                           "class_coverage": {"rate": 0.5}}))
    (history / "README.txt").write_text("our notes")
    done = run_kg("report", "--store", store, "coverage", "--history", history, "--out", tmp_path / "cov")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("not a coverage snapshot kg wrote") == 2
    assert "coverage-notes.json" in done.stderr and "coverage-broken.json" in done.stderr
    assert (history / "coverage-notes.json").read_text() == "[1, 2]"
    assert (history / "README.txt").read_text() == "our notes"
    assert len(list(history.glob("coverage-*.json"))) == 4  # the three above and this run's snapshot
    page = (tmp_path / "cov" / "coverage.html").read_text()
    assert "<h2>Trend</h2>" in page  # the old snapshot and this run's: two points


def test_a_full_disk_under_the_report_publishes_nothing_and_leaves_no_partial_build(store, tmp_path):
    """A real full disk: a 300 KB tmpfs (root only, as CI runs); a report needs more."""
    with small_disk(tmp_path / "disk", "300k") as disk:
        done = run_kg("report", "--store", store, "--out", disk / "site")
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert "the disk is full" in done.stderr and "nothing was published" in done.stderr
        # only the lock file stays: no half-built folder, no link, no page
        assert sorted(p.name for p in disk.iterdir()) == [".site.lock"]
        # the coverage snapshot is small: the disk is filled to the last byte first
        (disk / "history").mkdir()
        filler = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(filler, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(filler)
        history = run_kg("report", "coverage", "--store", store, "--out", tmp_path / "cov",
                         "--history", disk / "history")
        assert history.returncode == 1 and "Traceback" not in history.stderr, history.stderr
        assert "cannot write the coverage snapshot" in history.stderr
        assert list((disk / "history").iterdir()) == []  # no snapshot cut short for the trend to trip on


def test_a_run_checking_out_while_another_publishes_it_never_mistakes_the_site_for_a_foreign_folder(tmp_path):
    """Three cron runs at once failed so in CI: one run looked at --out while another put its first
    link there, saw 'not a link' and then 'a folder', and refused the site as a folder kg did not make.
    Here one thread puts up and takes down a link to a marked build as fast as it can while the
    other checks --out over and over; every look must be of one state of it."""
    import threading
    import time

    out, built = tmp_path / "site", tmp_path / ".site.20260101T000000-1-1"
    built.mkdir()
    (built / report.MARKER).write_text(report.MARKER_TEXT)
    (built / "index.html").write_text("<html></html>\n")
    stop, refusals, checks = threading.Event(), [], 0

    def flip():
        while not stop.is_set():
            link = tmp_path / ".site.link-x"
            link.symlink_to(built.name)
            os.replace(link, out)
            os.unlink(out)
    flipper = threading.Thread(target=flip)
    flipper.start()
    try:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not refusals:
            checks += 1
            try:
                report.check_out(out)
            except report.UnsafeOutput as err:
                refusals.append(str(err))
    finally:
        stop.set()
        flipper.join()
    assert checks > 1000 and refusals == [], refusals[:1]
