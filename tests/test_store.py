"""The store: one graph per source, atomic replacement, no-op reloads, drop, and recovery from a
load killed half-way."""
import json
import re
import subprocess
import sys
import shutil
import tempfile
import textwrap
import time
from pathlib import Path

import pyoxigraph as ox
import pytest

from kg import ingest
from kg.store import Store

from tests.conftest import EXAMPLES, run_kg


def test_every_source_gets_its_own_graph_and_record(store, load):
    load(EXAMPLES)
    sources = {s.path.rsplit("/", 1)[-1]: s for s in store.sources()}
    assert {"cubby.ttl", "cubby-routing.replayset.json", "cubby-routing.gold.json",
            "cubby-routing.situations.jsonl", "cubby-routing.earl.jsonl"} <= set(sources)
    for s in sources.values():
        graph = ox.NamedNode(s.graph)
        held = sum(1 for _ in store.ox.quads_for_pattern(None, None, None, graph))
        assert held == s.triples, f"{s.path}: the record says {s.triples} triples, the graph holds {held}"
        assert len(s.sha256) == 64
    routing = sources["cubby-routing.replayset.json"]
    assert routing.kind == "replayset" and routing.pins and routing.pins[0].startswith("sha256:")
    assert sources["apeval.ttl"].kind == "vocabulary"


def test_loading_twice_changes_nothing(store, load):
    load(EXAMPLES)
    first = store.dump()
    outcomes = load(EXAMPLES)
    assert {o.status for o in outcomes.values()} == {"unchanged"}
    assert store.dump() == first


def test_a_changed_file_replaces_its_graph(store, load, tmp_path):
    ttl = tmp_path / "tiny.ttl"
    ttl.write_text("<http://x/a> a <http://www.w3.org/2002/07/owl#Class> .\n")
    load(ttl)
    ttl.write_text("<http://x/b> a <http://www.w3.org/2002/07/owl#Class> .\n")
    assert load(ttl)["tiny.ttl"].status == "loaded"
    graph = ox.NamedNode(ttl.resolve().as_uri())
    subjects = {q.subject.value for q in store.ox.quads_for_pattern(None, None, None, graph)}
    assert subjects == {"http://x/b"}
    assert len([s for s in store.sources() if s.graph == graph.value]) == 1


def test_drop_removes_graph_and_record(store, load):
    load(EXAMPLES / "cubby.ttl")
    before = store.dump()
    load(EXAMPLES / "cubby-routing.replayset.json")
    graph = (EXAMPLES / "cubby-routing.replayset.json").resolve().as_uri()
    assert store.drop_source(graph)
    # everything as before, but for the withdrawal kept in the catalogue graph (issue 41)
    withdrawal = f"<{graph}?revision=1> "
    after = store.dump().decode().splitlines(keepends=True)
    assert "".join(line for line in after if not line.startswith(withdrawal)).encode() == before
    assert any(line.startswith(withdrawal) and "#Withdrawal>" in line for line in after)
    assert not store.drop_source(graph)


def test_a_loader_failing_midway_writes_nothing(store, load, monkeypatch):
    load(EXAMPLES / "cubby.ttl")
    before = store.dump()
    from kg import validation

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(validation, "check", broken)
    outcome = load(EXAMPLES / "cubby-routing.replayset.json")["cubby-routing.replayset.json"]
    assert outcome.status == "rejected" and "disk on fire" in str(outcome.problems[0])
    assert store.dump() == before


def test_a_load_killed_between_staging_and_swap_leaves_the_store_as_it_was(tmp_path):
    """The first half of a replacement (the staging graph) is written, then the process dies
    without any cleanup; reopening the store must show exactly what it held before."""
    path = tmp_path / "store"
    store = Store(path)
    ingest.load(store, [EXAMPLES / "cubby.ttl"])
    before = store.dump()
    del store
    script = textwrap.dedent(f"""
        import os, pyoxigraph as ox
        from kg.store import Store, STAGING_SUFFIX
        s = Store({str(path)!r})
        graph = {(EXAMPLES / 'cubby-routing.replayset.json').resolve().as_uri()!r}
        s.ox.load('<http://x/a> <http://x/b> <http://x/c> .', format=ox.RdfFormat.N_TRIPLES,
                  to_graph=ox.NamedNode(graph + STAGING_SUFFIX))
        s.ox.flush()
        os._exit(9)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 9, done.stderr
    assert Store(path).dump() == before


def test_minting_base_is_fixed_by_the_first_load(tmp_path):
    import pytest
    from kg.errors import UsageError
    store = Store(":memory:")
    ingest.load(store, [EXAMPLES / "cubby.ttl"], base="https://example.org/ids/")
    with pytest.raises(UsageError, match="mints IRIs under https://example.org/ids/"):
        ingest.load(store, [EXAMPLES / "cubby.ttl"], base="https://other.example/")


def _without_load_times(dump: bytes) -> list[bytes]:
    """The dump's lines, load and withdrawal times left out and blank nodes unnamed (each load names
    them afresh)."""
    import re
    return sorted(re.sub(rb"_:[0-9a-z]+", b"_:b", line) for line in dump.splitlines()
                  if b"generatedAtTime" not in line and b"invalidatedAtTime" not in line)


def test_bulk_loaded_sources_hold_what_a_transactional_load_holds(monkeypatch):
    """Large new sources go in by bulk_load; with the threshold at 0 every source does."""
    from kg.store import writing
    transactional = Store(":memory:")
    ingest.load(transactional, [EXAMPLES])
    monkeypatch.setattr(writing, "BULK_TRIPLES", 0)
    bulk = Store(":memory:")
    ingest.load(bulk, [EXAMPLES])
    assert _without_load_times(bulk.dump()) == _without_load_times(transactional.dump())


def test_verdicts_derived_in_bulk_a_chunk_of_keys_at_a_time_are_those_of_one_pass(monkeypatch):
    """A bulk load derives its verdicts CHUNK_KEYS keys (a case and a system) at a time, so that its
    memory does not grow with the file; with two keys a chunk the examples' results take several
    chunks, and the store holds what the transactional load makes in one update."""
    from kg import layers
    from kg.store import writing
    transactional = Store(":memory:")
    ingest.load(transactional, [EXAMPLES])
    monkeypatch.setattr(writing, "BULK_TRIPLES", 0)
    monkeypatch.setattr(layers, "CHUNK_KEYS", 2)
    chunks = []
    take = layers.take
    monkeypatch.setattr(layers, "take", lambda limit=None: chunks.append(limit) or take(limit))
    bulk = Store(":memory:")
    ingest.load(bulk, [EXAMPLES])
    assert len(chunks) > 3 and set(chunks) == {2}, chunks
    assert _without_load_times(bulk.dump()) == _without_load_times(transactional.dump())


def test_a_bulk_load_killed_before_its_record_is_cleared_by_the_next_writer(tmp_path):
    """bulk_load is not atomic: the graph goes in, then the record. A process that dies in between
    leaves a graph no record names; a reader reads the state before that load (and says so), the
    next writer drops the graph."""
    path = tmp_path / "store"
    store = Store(path)
    ingest.load(store, [EXAMPLES / "cubby.ttl"])
    before = store.dump()
    answer_before = store.select_values("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    del store
    graph = (EXAMPLES / "cubby-routing.replayset.json").resolve().as_uri()
    script = textwrap.dedent(f"""
        import os, pyoxigraph as ox
        from kg.store import Store
        s = Store({str(path)!r})
        s.ox.bulk_load('<http://x/a> <http://x/b> <http://x/c> .\\n', format=ox.RdfFormat.N_TRIPLES,
                       to_graph=ox.NamedNode({graph!r}))
        s.ox.flush()
        os._exit(9)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 9, done.stderr
    reader = Store(path, read_only=True)
    assert reader.select_values("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }") == answer_before
    assert not reader.ask("ASK { GRAPH ?g { <http://x/a> ?p ?o } }")  # the partial graph is not read
    assert reader.dump() != before  # it is there on disk, all the same
    del reader
    assert Store(path).dump() == before  # the next writer clears it


def test_readers_during_a_replacement_read_the_state_before_it_and_are_not_refused(tmp_path):
    """A replaced source's new triples sit in a staging graph until one update moves them in; a
    reader opening meanwhile (the writer still holding the store) answers from the old state."""
    path = tmp_path / "store"
    assert run_kg("load", "--store", path, EXAMPLES).returncode == 0
    query = ["query", "pass-at-k", "-p", "k=2", "--format", "json", "--store", path]
    before = run_kg(*query)
    count = ["sparql", "SELECT (COUNT(*) AS ?n) WHERE { ?a <http://www.w3.org/ns/earl#result> ?r }",
             "--format", "json", "--store", path]
    results_before = run_kg(*count)
    graph = (EXAMPLES / "cubby-routing.earl.jsonl").resolve().as_uri()  # the source being replaced
    script = textwrap.dedent(f"""
        import sys, time, pyoxigraph as ox
        from kg.store import Store, STAGING_SUFFIX
        s = Store({str(path)!r})
        s.ox.load('<http://x/a> <http://www.w3.org/ns/earl#result> <http://x/r> .\\n',
                  format=ox.RdfFormat.N_TRIPLES, to_graph=ox.NamedNode({graph!r} + STAGING_SUFFIX))
        s.ox.flush()
        print("staged", flush=True)
        sys.stdin.readline()  # holds the store, as a load between its two steps does
    """)
    writer = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "staged"
        during = run_kg(*query)
        assert during.returncode == 0, during.stderr
        assert json.loads(during.stdout) == json.loads(before.stdout)
        assert "a load in progress or cut short" in during.stderr
        assert run_kg(*count).stdout == results_before.stdout  # the staged triple is not read
    finally:
        writer.communicate("done\n", timeout=60)


class _CountingCompactions:
    """The real pyoxigraph store, with its optimize() calls counted (each is passed through)."""

    def __init__(self, ox_store):
        self._store, self.compactions = ox_store, 0

    def optimize(self):
        self.compactions += 1
        return self._store.optimize()

    def __getattr__(self, name):
        return getattr(self._store, name)


def test_bulk_loads_are_compacted_when_they_add_up_to_a_quarter_of_the_store(tmp_path, monkeypatch):
    """Compacting rewrites the whole store (51 s at 1M assertions, for a day's file that loads in
    8 s), so a small bulk load waits, counted in the catalogue, and loads that add up to
    COMPACT_SHARE of the store are compacted together — across processes."""
    from kg.store import writing
    monkeypatch.setattr(writing, "BULK_TRIPLES", 0)  # every new source bulk-loaded, as large ones are
    path = tmp_path / "store"

    def load_new(name, n):
        store = Store(path)
        store.ox = _CountingCompactions(store.ox)
        source = tmp_path / f"{name}.ttl"
        source.write_text("".join(f"<http://x/{name}/{i}> <http://x/p> \"{i}\" .\n" for i in range(n)))
        assert ingest.load(store, [source])[0].status == "loaded"
        return store, store.ox.compactions

    store = Store(path)
    store.ox = _CountingCompactions(store.ox)
    ingest.load(store, [EXAMPLES])
    assert store.ox.compactions == 1 and store.uncompacted_triples() == 0  # a first load: all of it new
    examples = sum(s.triples for s in store.sources())
    del store
    small = examples // 10  # 10% of the store: waits
    store, compactions = load_new("first", small)
    assert compactions == 0 and store.uncompacted_triples() == small
    del store
    store, compactions = load_new("second", small)  # 2 x 10% of a store now 120% as big: still < 25%
    assert compactions == 0 and store.uncompacted_triples() == 2 * small
    del store
    store, compactions = load_new("third", small)  # 30% of examples, 23% of the store: waits
    assert compactions == 0 and store.uncompacted_triples() == 3 * small
    del store
    store, compactions = load_new("fourth", small)  # 40% of examples, 29% of the store: compacted
    assert compactions == 1 and store.uncompacted_triples() == 0
    # a load that only changes nothing, or a transactional one, never compacts
    del store
    store = Store(path)
    store.ox = _CountingCompactions(store.ox)
    assert {o.status for o in ingest.load(store, [EXAMPLES])} == {"unchanged"}
    assert store.ox.compactions == 0 and store.uncompacted_triples() == 0


@pytest.mark.parametrize("base, message", [
    ("not an iri/", "is not an IRI"),
    ("ids/", "is not an IRI"),
    ("urn:kg", "must be an absolute IRI ending in /, # or :"),
    ("https://example.org/ids", "must be an absolute IRI ending in /, # or :"),
])
def test_a_bad_base_is_refused_before_anything_is_written(base, message):
    from kg.errors import UsageError
    store = Store(":memory:")
    with pytest.raises(UsageError, match=message):
        ingest.load(store, [EXAMPLES / "cubby.ttl"], base=base)
    assert len(store) == 0


def test_a_first_load_that_loads_nothing_fixes_no_base(tmp_path):
    # a mistyped --base on a first load whose files were all rejected was kept for good, and every
    # later load with the right base was refused until `kg reset`
    bad = tmp_path / "broken.replayset.json"
    bad.write_text("{")
    store = Store(":memory:")
    [outcome] = ingest.load(store, [bad], base="https://typo.example/")
    assert outcome.status == "rejected"
    assert store.setting("mintingBase") is None
    [outcome] = ingest.load(store, [EXAMPLES / "cubby.ttl"], base="https://example.org/ids/")
    assert outcome.status == "loaded" and store.minting_base() == "https://example.org/ids/"


@pytest.fixture
def a_store(tmp_path):
    from tests.conftest import run_kg
    path = tmp_path / "store"
    assert run_kg("load", "--store", path, EXAMPLES / "cubby.ttl").returncode == 0
    return path


@pytest.mark.parametrize("damage, message", [
    (lambda p: (p / "CURRENT").write_text(""), "is damaged and cannot be opened (Corruption: CURRENT file"),
    (lambda p: next(p.glob("MANIFEST-*")).unlink(), "is damaged and cannot be opened"),
    (lambda p: (shutil.rmtree(p), p.write_text("not a store")), "is a file, not a store: a store is a folder"),
])
@pytest.mark.parametrize("command", ["stats", "load"])
def test_a_damaged_store_is_a_clear_error(a_store, damage, message, command):
    from tests.conftest import run_kg
    damage(a_store)
    args = ["stats"] if command == "stats" else ["load", EXAMPLES / "cubby-routing.replayset.json"]
    done = run_kg(*args, "--store", a_store)
    assert (done.returncode, "Traceback" in done.stderr) == (1, False), done.stderr
    assert f"kg: {a_store}" in done.stderr or f"kg: the store {a_store}" in done.stderr, done.stderr
    assert message in done.stderr, done.stderr


@pytest.mark.parametrize("args", [["stats"], ["query", "pass-at-k"], ["report", "--out", "{tmp}/site"]])
def test_flipped_bytes_in_a_stores_files_are_a_clear_error_when_a_read_meets_them(a_store, tmp_path, args):
    """Open-time damage is refused on open (above); bytes flipped inside the data blocks are met by
    the first read of them, inside a query: an error naming the damage, never a traceback or an answer."""
    from tests.conftest import run_kg
    for sst in a_store.glob("*.sst"):
        size = sst.stat().st_size
        if size < 100_000:
            continue
        with open(sst, "r+b") as f:
            for offset in range(size // 4, size * 3 // 4, 4096):
                f.seek(offset)
                block = f.read(16)
                f.seek(offset)
                f.write(bytes(b ^ 0xFF for b in block))
    done = run_kg(*[a.replace("{tmp}", str(tmp_path)) for a in args], "--store", a_store)
    assert (done.returncode, "Traceback" in done.stderr) == (1, False), done.stderr
    # one message wherever the damage is met (kg/damage.py): the store named, the repair from its sources
    assert f"the store {a_store} is damaged: a read met a corrupted block (Corruption: block checksum mismatch" \
        in done.stderr, done.stderr
    assert "Restore it from a backup" in done.stderr and "pass_at_1" not in done.stdout
    assert not (tmp_path / "site").exists()  # no report of a store that could not be read whole


def test_a_store_this_user_cannot_write_is_a_clear_error(a_store):
    import os
    from tests.conftest import run_kg
    command = [sys.executable, "-m", "kg", "load", "--store", str(a_store), str(EXAMPLES / "cubby-routing.replayset.json")]
    if os.geteuid() == 0:  # root writes anywhere: run kg as nobody instead
        if not shutil.which("setpriv"):
            pytest.skip("running as root without setpriv")
        command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
        probe = subprocess.run([*command[:4], sys.executable, "-c", "import kg"], capture_output=True, text=True,
                               timeout=60, env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent)))
        if probe.returncode != 0:  # a checkout in a private folder (mktemp -d is 0700): nobody cannot run kg
            pytest.skip(f"nobody cannot run kg from this checkout: {probe.stderr.strip()[:200]}")
        for path in [a_store, *a_store.parents]:
            if path == Path(tempfile.gettempdir()):
                break
            path.chmod(path.stat().st_mode | 0o055)  # nobody may read it, and reach it
        for path in a_store.iterdir():
            path.chmod(0o644)
    a_store.chmod(0o555)
    before = sorted(p.name for p in a_store.iterdir())
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=a_store.parent,
                          env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent)))
    a_store.chmod(0o755)
    assert (done.returncode, "Traceback" in done.stderr) == (1, False), done.stderr
    assert f"kg: the store {a_store} cannot be opened for writing: permission denied" in done.stderr
    assert "give this user write permission on the folder, or use another --store" in done.stderr
    assert sorted(p.name for p in a_store.iterdir()) == before
    assert run_kg("stats", "--store", a_store).returncode == 0  # reading it still works


def test_a_reader_waits_for_verdicts_being_derived_in_bulk_and_then_reads_the_whole_state(tmp_path):
    """A bulk load derives its verdicts in several transactions (scratch graphs in between): a reader
    then waits for the loading kg (saying so) instead of reading half-derived verdicts or failing."""
    path = tmp_path / "store"
    assert run_kg("load", "--store", path, EXAMPLES).returncode == 0
    query = ["query", "pass-at-k", "-p", "k=2", "--format", "json", "--store", path]
    before = run_kg(*query)
    graph = (EXAMPLES / "cubby-routing.earl.jsonl").resolve().as_uri()
    script = textwrap.dedent(f"""
        import sys
        from kg import layers
        from kg.store import Store
        s = Store({str(path)!r})
        s.ox.update(layers.flag([{graph!r}]))  # a write between its steps: the scratch graphs hold marks
        s.ox.flush()
        print("marked", flush=True)
        sys.stdin.readline()
        s.ox.update(layers.finish())
        s.ox.flush()
    """)
    writer = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "marked"
        gave_up = run_kg(*query, env={"KG_WAIT": "1"})
        assert gave_up.returncode == 1 and "did not finish within KG_WAIT" in gave_up.stderr, gave_up.stderr
        reader = subprocess.Popen([sys.executable, "-m", "kg", *map(str, query)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        # the writer is released only once the reader has said it waits (on a busy machine the reader
        # may take seconds to start; released earlier, it would find nothing to wait for)
        said = reader.stderr.readline()
        assert "waiting for it to finish" in said and reader.poll() is None, said
        writer.communicate("done\n", timeout=60)
        out, err = reader.communicate(timeout=120)
        assert reader.returncode == 0, said + err
        assert json.loads(out) == json.loads(before.stdout)
    finally:
        if writer.poll() is None:
            writer.kill()


def test_a_second_writer_is_refused_and_changes_nothing(tmp_path):
    path = tmp_path / "store"
    assert run_kg("load", "--store", path, EXAMPLES / "cubby.ttl").returncode == 0
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        from kg.store import Store
        s = Store({str(path)!r})
        print("holding", flush=True)
        sys.stdin.readline()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        second = run_kg("load", "--store", path, EXAMPLES / "cubby-routing.replayset.json")
        assert second.returncode == 1 and "Traceback" not in second.stderr
        assert "is in use by another kg process; wait for it to finish, or use another --store" in second.stderr
    finally:
        holder.communicate("done\n", timeout=60)
    sources = json.loads(run_kg("query", "sources", "--format", "json", "--store", path).stdout)
    assert [s["kind"] for s in sources if s["kind"] != "vocabulary"] == ["ontology"]  # nothing else went in


# ── a large replacement killed at each of its steps (Store.swap_staged): old state or new, never a mix ──
SWAP_STEPS = ("differences copied", "old keys marked", "swapped", "new keys marked", "staging dropped")


def _settled(dump: bytes) -> list[bytes]:
    """A dump without what differs between two runs of one load: load times, blank-node names, and
    the count of triples bulk-loaded since compaction (written by the closing flush a killed
    process never reaches)."""
    return [line for line in _without_load_times(dump) if b"bulkLoadedSinceCompaction" not in line]


def _appended_estate(tmp_path: Path) -> tuple[Path, Path]:
    """The examples, and the routing results with one line appended that supersedes the first
    assertion with another outcome (an evidence file only grows): its verdict, and its tally, change."""
    estate = tmp_path / "estate"
    shutil.copytree(EXAMPLES, estate)
    results = estate / "cubby-routing.earl.jsonl"
    first = json.loads(results.read_text().splitlines()[0])
    results.write_text(results.read_text() + json.dumps(
        {**first, "id": "a-9999", "outcome": "failed", "selectionOutcome": None, "supersedes": first["id"]}) + "\n")
    return estate, results


def _write_in_a_process(path: Path, write: str, bulk_triples: int, kill_at: str | None) -> subprocess.CompletedProcess:
    """`write` (Python, given the store as `s`) run in a process of its own with BULK_TRIPLES set,
    killed as by kill -9 when it reaches the step `kill_at` (`_reached`); prints the steps reached."""
    script = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from kg import ingest, store as store_module
        from kg.store import writing
        writing.BULK_TRIPLES = {bulk_triples}
        steps = []
        def reached(step):
            steps.append(step)
            if step == {kill_at!r}:
                os._exit(9)  # no cleanup, as kill -9
        writing._reached = reached
        s = store_module.Store({str(path)!r})
    """) + textwrap.dedent(write) + '\nprint("|".join(steps))\n'
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)


def _replace_in_a_process(path: Path, results: Path, kill_at: str | None) -> subprocess.CompletedProcess:
    # a replacement of any size goes through swap_staged, as a large one does
    return _write_in_a_process(path, f"""
        [outcome] = ingest.load(s, [Path({str(results)!r})])
        assert outcome.status == "loaded", outcome.problems
    """, 0, kill_at)


def _loaded_before_it_grew(tmp_path: Path, name: str) -> tuple[Path, Path, str]:
    """A store of the examples as they are, and the routing results grown (_appended_estate)."""
    estate, results = _appended_estate(tmp_path)
    grown = results.read_text()
    results.write_text((EXAMPLES / "cubby-routing.earl.jsonl").read_text())
    path = tmp_path / name
    store = Store(path)
    assert all(o.status == "loaded" for o in ingest.load(store, [estate]))
    del store
    results.write_text(grown)
    return path, results, grown


def test_a_large_replacement_goes_through_every_step_the_kill_tests_stop_at(tmp_path):
    path, results, _ = _loaded_before_it_grew(tmp_path, "store")
    done = _replace_in_a_process(path, results, None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().split("|") == list(SWAP_STEPS)


@pytest.mark.parametrize("step", SWAP_STEPS)
def test_a_large_replacement_killed_at_each_step_leaves_the_old_state_or_the_new_one(tmp_path, step):
    """Killed before its one update commits ("swapped"), the store reopens exactly as it was; killed
    at or after it, exactly as the replacement run to its end leaves it: the new source, its
    record and the verdicts made of it (the next writer drops the staging graph and rebuilds the
    layers the kill left half derived). Never a mix."""
    old_path, results, _ = _loaded_before_it_grew(tmp_path, "old")
    new_path = tmp_path / "new"
    shutil.copytree(old_path, new_path)
    killed_path = tmp_path / "killed"
    shutil.copytree(old_path, killed_path)
    old = _settled(Store(old_path).dump())
    done = _replace_in_a_process(new_path, results, None)
    assert done.returncode == 0, done.stderr
    new = _settled(Store(new_path).dump())
    assert new != old
    killed = _replace_in_a_process(killed_path, results, step)
    assert killed.returncode == 9, killed.stderr
    reopened = _settled(Store(killed_path).dump())
    expected = old if SWAP_STEPS.index(step) < SWAP_STEPS.index("swapped") else new
    assert reopened == expected, f"killed at {step!r}: the store reopened neither as it was nor as the replacement leaves it"


# ── a large source dropped in parts (Store.drop_source), killed at each of its steps ──
DROP_STEPS = ("dropped keys marked", "record deleted", "graph emptied")


def _drop_in_a_process(path: Path, source: Path, kill_at: str | None, bulk: bool = True) -> subprocess.CompletedProcess:
    # a source of any size dropped in parts, as a large one is; or in one update, as a small one
    return _write_in_a_process(path, f"""
        assert s.drop_source(Path({str(source)!r}).resolve().as_uri())
    """, 0 if bulk else 10 ** 9, kill_at)


@pytest.fixture(scope="module")
def dropped_stores(tmp_path_factory) -> dict[str, Path]:
    """The examples loaded ("loaded"), and copies with the routing results dropped in one update
    ("one update") and in parts ("in parts")."""
    root = tmp_path_factory.mktemp("drops")
    store = Store(root / "loaded")
    assert all(o.status == "loaded" for o in ingest.load(store, [EXAMPLES]))
    del store
    results = EXAMPLES / "cubby-routing.earl.jsonl"
    for name, bulk in (("one update", False), ("in parts", True)):
        shutil.copytree(root / "loaded", root / name)
        done = _drop_in_a_process(root / name, results, None, bulk=bulk)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().split("|") == (list(DROP_STEPS) if bulk else [""])
    return {name: root / name for name in ("loaded", "one update", "in parts")}


def test_a_source_dropped_in_parts_leaves_what_the_one_update_drop_leaves(dropped_stores):
    """The same sources, records and layers - the routing results' verdicts, tallies and reaches gone -
    whichever way the results file was dropped."""
    loaded, one, parts = (_settled(Store(dropped_stores[n]).dump()) for n in ("loaded", "one update", "in parts"))
    assert one != loaded
    assert parts == one


@pytest.mark.parametrize("step", DROP_STEPS)
def test_a_large_drop_killed_at_each_step_leaves_the_source_in_place_or_dropped(dropped_stores, tmp_path, step):
    """Killed before its record goes, the store reopens as it was (the layers the marks left not
    current rebuilt); killed at or after, as the drop run to its end leaves it (the next writer
    empties what is left of the graph, which no record names). Never a mix."""
    killed = tmp_path / "killed"
    shutil.copytree(dropped_stores["loaded"], killed)
    done = _drop_in_a_process(killed, EXAMPLES / "cubby-routing.earl.jsonl", step)
    assert done.returncode == 9, done.stderr
    reopened = _settled(Store(killed).dump())
    expected = "loaded" if DROP_STEPS.index(step) < DROP_STEPS.index("record deleted") else "one update"
    assert reopened == _settled(Store(dropped_stores[expected]).dump()), \
        f"killed at {step!r}: the store reopened neither with the source in place nor with it dropped"


def test_a_revised_file_swapped_in_by_its_differences_holds_what_the_one_update_replacement_does(tmp_path, monkeypatch):
    """A revision (--revise) takes triples out as well as putting others in: swapped in by its
    differences (swap_staged), the store holds what the one-update replacement makes of it — the
    changed line's old triples gone, its verdict and tally derived again, the revision recorded."""
    import re
    from kg.store import writing
    estate = tmp_path / "estate"
    shutil.copytree(EXAMPLES, estate)
    results = estate / "cubby-routing.earl.jsonl"
    original = results.read_text()
    first, *rest = original.splitlines(keepends=True)
    row = json.loads(first)
    changed = json.dumps({**row, "outcome": "cantTell", "failureCause": "grader", "selectionOutcome": None}) + "\n"
    swapped = []
    real = Store.swap_staged
    monkeypatch.setattr(Store, "swap_staged", lambda self, record, history="": (swapped.append(record.graph),
                                                                               real(self, record, history))[1])
    dumps = {}
    for name, threshold in (("one update", 10 ** 9), ("differences", 0)):
        monkeypatch.setattr(writing, "BULK_TRIPLES", threshold)
        results.write_text(original)
        store = Store(tmp_path / name.replace(" ", "-"))
        assert all(o.status == "loaded" for o in ingest.load(store, [estate]))
        before = store.dump()
        results.write_text(changed + "".join(rest))
        [outcome] = ingest.load(store, [results], revise=True)
        assert outcome.status == "loaded", outcome.problems
        assert store.dump() != before
        # load and revision times differ between the two runs
        dumps[name] = [line for line in _settled(store.dump())
                       if not (line.endswith(b"<urn:kg:catalogue> .") and re.search(rb'T[0-9:]+(Z|\+00:00)"\^\^', line))]
    assert swapped == [results.resolve().as_uri()]
    assert dumps["differences"] == dumps["one update"], (set(dumps["differences"]) ^ set(dumps["one update"]))


# ── the scratch copy `kg validate` loads into ──

def _examples_on_disk(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    store = Store(path)
    ingest.load(store, [EXAMPLES / "cubby.ttl", EXAMPLES / "cubby-routing.replayset.json",
                        EXAMPLES / "cubby-routing.gold.json"])
    tiny = tmp_path / "tiny.ttl"
    tiny.write_text("<http://x/a> a <http://www.w3.org/2002/07/owl#Class> .\n")
    ingest.load(store, [tiny])
    del store
    # a last write still in the engine's write-ahead log only, not in the store's files (kg flushes its
    # own writes; a process killed before that does not): a checkpoint from a reader's handle leaves it out
    writer = ox.Store(str(path))
    writer.add(ox.Quad(ox.NamedNode("http://x/late"), ox.NamedNode("http://x/p"), ox.Literal("in the log"),
                       ox.NamedNode(tiny.resolve().as_uri())))
    del writer
    return path


def _blank_nodes_unlabelled(dump: bytes) -> list[bytes]:
    return sorted(re.sub(rb"_:[0-9a-f]+", b"_:", line) for line in dump.splitlines())


@pytest.mark.parametrize("how", ["in memory", "checkpoint", "dump"])
def test_a_scratch_copy_holds_the_store_and_writes_nothing_to_it(tmp_path, monkeypatch, how):
    """`kg validate` loads into a copy: in memory for a small store, else a checkpoint beside the store
    (a writer's handle, for a moment) or, while another process writes it, a dump bulk-loaded. Each
    holds every quad of the store, the last transaction's too; a load into it leaves the store's dump
    as it was and no scratch folder behind."""
    from kg.store import scratch
    path = _examples_on_disk(tmp_path)
    if how != "in memory":
        monkeypatch.setattr(scratch, "SCRATCH_IN_MEMORY", 10)
    reader = Store(path, read_only=True)
    before = reader.dump()
    writer_elsewhere = ox.Store(str(path)) if how == "dump" else None  # holds the lock, as a load would
    used = []
    real_backup = scratch._backed_up_by_writer
    monkeypatch.setattr(scratch, "_backed_up_by_writer", lambda *a: used.append(real_backup(*a)) or used[-1])
    assert b"<http://x/late>" in before
    with reader.scratch_copy() as copy:
        # a copy read from a dump gives its blank nodes new labels; a checkpoint keeps them
        assert (copy.dump() if how == "checkpoint" else _blank_nodes_unlabelled(copy.dump())) == \
            (before if how == "checkpoint" else _blank_nodes_unlabelled(before))
        assert (copy.path == ":memory:") == (how == "in memory")
        outcome = ingest.load(copy, [EXAMPLES / "cubby-routing.situations.jsonl"])[0]
        assert outcome.status == "loaded", outcome.problems
        assert copy.dump() != before
    assert used == {"in memory": [], "checkpoint": [True], "dump": [False]}[how]
    del writer_elsewhere
    assert Store(path, read_only=True).dump() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store", "tiny.ttl"]


def test_validate_of_a_large_store_holds_no_copy_of_it_in_memory(tmp_path, monkeypatch):
    """Above SCRATCH_IN_MEMORY quads the store is never read into Python (Store.dump, or the engine's
    dump to bytes, would hold it all: 2 GB at 100k assertions)."""
    from kg.store import scratch
    path = _examples_on_disk(tmp_path)
    monkeypatch.setattr(scratch, "SCRATCH_IN_MEMORY", 10)
    reader = Store(path, read_only=True)
    monkeypatch.setattr(Store, "dump", lambda self: pytest.fail("the whole store was read into memory"))
    with reader.scratch_copy() as copy:
        assert copy.path != ":memory:"
        outcome = ingest.load(copy, [EXAMPLES / "cubby-routing.situations.jsonl"])[0]
        assert outcome.status == "loaded", outcome.problems


# every kind of value an answer can hold, and the texts that test a TSV reader: escapes, quotes, tabs
# and line breaks inside literals, characters outside ASCII, control characters, bare numbers
_XSD = "http://www.w3.org/2001/XMLSchema#"
_TRICKY_TERMS = [
    ox.NamedNode("https://x.example/a%20b?c=d#é"), ox.BlankNode("b0"),
    ox.Literal("plain"), ox.Literal(""), ox.Literal('a\tb\nc"d\\e\r\x01 é \u2028 \x7f'), ox.Literal('"quoted"'),
    ox.Literal("\\"), ox.Literal("hi", language="en-GB"), ox.Literal('tab\there "q"', language="fr"),
    ox.Literal("x", datatype=ox.NamedNode("https://x.example/type")),
    ox.Literal('esc\\aped"', datatype=ox.NamedNode("https://x.example/type")),
    *(ox.Literal(v, datatype=ox.NamedNode(_XSD + t)) for v, t in [
        ("1", "integer"), ("-5", "integer"), ("+7", "integer"), ("007", "int"), ("1.50", "decimal"), (".5", "decimal"),
        ("5.", "decimal"), ("-0.0", "decimal"), ("1e3", "double"), ("1.0E0", "double"), ("INF", "double"),
        ("NaN", "double"), ("1.5", "float"), ("true", "boolean"), ("0", "boolean"), ("abc", "integer"),
        (" 7 ", "integer"), ("2024-01-01T00:00:00Z", "dateTime"), ("2024-01-01", "date"), ("P1D", "duration")])]


def test_an_answer_read_as_tsv_holds_the_values_of_the_terms_read_row_by_row():
    """select_values reads the engine's answer as SPARQL TSV (catalogue.tsv_term, tsv_value). The
    independent method is pyoxigraph's own terms, row by row, decoded by term_value: every value of
    every kind, unbound ones and rows binding nothing included, must be the same, of the same type."""
    from kg.catalogue import term_value
    store = Store(":memory:")
    graph = ox.NamedNode("https://x.example/g")
    store.ox.extend(ox.Quad(ox.NamedNode(f"https://x.example/s/{i:02d}"), ox.NamedNode("https://x.example/p"), term, graph)
                    for i, term in enumerate(_TRICKY_TERMS))
    queries = ["SELECT ?s ?o ?unbound WHERE { ?s ?p ?o }",
               "SELECT ?o WHERE { ?s ?p ?o } ORDER BY ?s",  # sorted in Python where kg can
               "SELECT * WHERE { }", "SELECT ?x WHERE { FILTER(false) }",
               'SELECT ?n ?avg ?flag ?s WHERE { { SELECT (COUNT(*) AS ?n) (AVG(1.5) AS ?avg) WHERE { ?s ?p ?o } } '
               'BIND(?n > 3 AS ?flag) BIND(STR(?n) AS ?s) }']
    for text in queries:
        expected = [tuple(term_value(t) for t in row) for row in store.ox.query(text, use_default_graph_as_union=True)]
        names, rows = store.select_values(text)
        assert len(rows) == len(expected), text
        # by repr, which tells types apart and finds NaN equal to NaN
        assert [[(type(v), repr(v)) for v in row] for row in rows] == [[(type(v), repr(v)) for v in row] for row in expected], text
        assert names == [v.value for v in store.ox.query(text).variables]
    assert len(store.select_values(queries[0])[1]) == len(_TRICKY_TERMS)
    assert store.select_values("SELECT * WHERE { }")[1] == [()]  # one row binding nothing, not none


def test_a_tsv_value_is_read_as_the_term_it_writes():
    """catalogue.tsv_term against pyoxigraph's serialisation: each term, as the query states it (not
    normalised by a store: "+7", "007", "0" stay as written) and as a store holds it, written as TSV
    by the engine and read back, is the term the engine gives row by row."""
    from kg.catalogue import tsv_term
    store = Store(":memory:")
    graph = ox.NamedNode("https://x.example/g")
    store.ox.extend(ox.Quad(ox.NamedNode(f"https://x.example/s/{i:02d}"), ox.NamedNode("https://x.example/p"), term, graph)
                    for i, term in enumerate(_TRICKY_TERMS))
    texts = [f"SELECT ?v WHERE {{ VALUES ?v {{ {term} }} }}" for term in _TRICKY_TERMS if not isinstance(term, ox.BlankNode)]
    texts += [f"SELECT ?v WHERE {{ <https://x.example/s/{i:02d}> ?p ?v }}" for i in range(len(_TRICKY_TERMS))]
    for text in texts:
        answer = store.ox.query(text, use_default_graph_as_union=True).serialize(format=ox.QueryResultsFormat.TSV)
        field = answer.decode("utf-8").split("\n")[1]
        read = tsv_term(field)
        written = next(iter(store.ox.query(text, use_default_graph_as_union=True)))[0]
        assert type(read) is type(written) and read == written, (text, field, read, written)
    assert len(texts) == 2 * len(_TRICKY_TERMS) - 1
