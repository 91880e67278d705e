"""Many small files in one load (issue 45: 10,000 one-line EARL files, ~1.4 s a file, no progress shown):
each new small file is written and flagged, and the keys of up to DEFER_FILES files marked and derived
together (kg.ingest.load, Store.derive_deferred). What they make must be what loading them one by one
makes (each file's verdicts derived in its own update): the independent method here."""
import json
import subprocess
import sys
import textwrap

from kg import catalogue, ingest
from kg.store import Store, writer_pid
from tests.conftest import EXAMPLES, run_kg

SETS = [EXAMPLES / name for name in ("cubby.ttl", "cubby-routing.replayset.json", "cubby-routing.gold.json",
                                     "cubby-routing.situations.jsonl")]


def one_line_files(folder, n):
    """n one-assertion EARL files cut from the example's routing results, one of them a correction."""
    folder.mkdir()
    rows = [json.loads(line) for line in (EXAMPLES / "cubby-routing.earl.jsonl").read_text().splitlines()[:n]]
    for i, row in enumerate(rows):
        row = dict(row, id=f"one-{i:03d}", supersedes=None)
        if i == n - 1:  # a correction of the first, in a file of its own
            row = dict(rows[0], id=f"one-{i:03d}", supersedes="one-000", outcome="failed")
        (folder / f"r{i:03d}.earl.jsonl").write_text(json.dumps(row) + "\n")
    return sorted(folder.iterdir())


def layers_and_answers(store):
    layer_triples = sorted(tuple(map(str, row)) for row in store.select("SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } "
                                        "FILTER(STRSTARTS(STR(?g), 'urn:kg:layer:')) FILTER(!isBLANK(?s) && !isBLANK(?o)) }"))
    answers = {name: catalogue.run(catalogue.load()[name], store, {}).rows for name in ("pass-at-k", "judge-kind-metrics")}
    return layer_triples, answers


def test_a_folder_of_small_files_makes_what_loading_them_one_by_one_makes(tmp_path, monkeypatch):
    files = one_line_files(tmp_path / "runs", 12)
    monkeypatch.setattr(ingest, "DEFER_FILES", 5)  # derived in three batches: 5, 5 and 2 files

    together = Store(":memory:")
    assert {o.status for o in ingest.load(together, SETS)} == {"loaded"}
    derived = []
    real = Store.derive_deferred
    monkeypatch.setattr(Store, "derive_deferred", lambda self: derived.append(self._deferred) or real(self))
    outcomes = ingest.load(together, [tmp_path / "runs"])
    assert [o.status for o in outcomes] == ["loaded"] * 12, [p for o in outcomes for p in o.problems]
    assert [n for n in derived if n] == [5, 5, 2]
    assert together.layers_current()

    apart = Store(":memory:")
    assert {o.status for o in ingest.load(apart, SETS)} == {"loaded"}
    for path in files:
        assert [o.status for o in ingest.load(apart, [path])] == ["loaded"]
    assert layers_and_answers(together) == layers_and_answers(apart)


def test_a_long_load_shows_its_progress_on_stderr_as_it_goes(tmp_path):
    store = tmp_path / "store"
    assert run_kg("load", "--store", store, *SETS).returncode == 0
    one_line_files(tmp_path / "runs", 3)
    done = run_kg("load", "--store", store, tmp_path / "runs")
    assert done.returncode == 0, done.stderr
    assert "kg load: 3 of 3 files done in" in done.stderr


def test_the_process_writing_a_store_is_named(tmp_path):
    """A reader's message says which process holds the store (kg.store.writer_pid, from /proc/locks)."""
    path = tmp_path / "store"
    Store(path)  # made, then closed
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, pyoxigraph as ox
        s = ox.Store({str(path)!r})
        print("open", flush=True)
        sys.stdin.read()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        assert writer_pid(str(path)) == holder.pid
    finally:
        holder.stdin.close()
        holder.wait()
    assert writer_pid(str(path)) is None


def _with_kind(row: dict, i: int, kind: str) -> dict:
    return dict(row, id=f"kind-{i:03d}", supersedes=None, grader=dict(row["grader"], kind=kind))


def test_a_grader_kind_kept_for_the_load_never_lets_another_kind_in(tmp_path):
    """One load keeps "no other source gives this grader another kind" once a source declares it with
    the kind (BaseStore.checked), never sooner: a first file that is rejected for another reason
    declares nothing, so a second file of another kind loads and a third of the first kind is refused,
    naming the second. The independent method: the files loaded one by one, each in its own load."""
    rows = [json.loads(line) for line in (EXAMPLES / "cubby-routing.earl.jsonl").read_text().splitlines()[:3]]
    folder = tmp_path / "runs"
    folder.mkdir()
    first = _with_kind(rows[0], 0, "mechanical")
    # a failure cause on a pass: rejected whole, found after the grader's kind was checked
    first.update(outcome="passed", failureCause="agent")
    # rows 0 and 2 are check-state's (row 1 is another grader's)
    for i, row in enumerate([first, _with_kind(rows[2], 1, "model"), _with_kind(rows[0], 2, "mechanical")]):
        (folder / f"r{i}.earl.jsonl").write_text(json.dumps(row) + "\n")

    def statuses(outcomes):
        return [(o.path.rsplit("/", 1)[-1], o.status) for o in outcomes]

    together = Store(":memory:")
    ingest.load(together, SETS)
    outcomes = ingest.load(together, [folder])
    assert statuses(outcomes) == [("r0.earl.jsonl", "rejected"), ("r1.earl.jsonl", "loaded"), ("r2.earl.jsonl", "rejected")]
    assert "declared mechanical here but model in" in str(outcomes[2].problems[0])
    assert together.checked is None  # kept for one load only

    apart = Store(":memory:")
    ingest.load(apart, SETS)
    assert [s for path in sorted(folder.iterdir()) for s in statuses(ingest.load(apart, [path]))] == statuses(outcomes)
