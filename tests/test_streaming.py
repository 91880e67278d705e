"""Big JSON Lines files are streamed (issue 18, part 2): read, projected and written a chunk at a
time into a graph no record names, checked there, and recorded last. The file is still one unit:
a problem found after chunks were written rejects it whole and leaves the store's dump as it was;
a good file holds exactly what the whole-file path makes of it. Real stores on disk, the real
loader; the chunks are made small so that a file of a few hundred lines spans many of them."""
from __future__ import annotations

import json
import re
import shutil
import sys

import pytest

from kg import ingest
from kg.loading import registry
from kg.store import Store

from .conftest import SHARED_DATA, TESTS

BASE = TESTS / "bad" / "_base"
STREAMING_LOADERS = ("earl-jsonl", "situations")  # the JSON Lines loaders that project a chunk at a time
LINES = 600
CHUNK = 50  # lines per chunk: the file spans twelve


def row(k: int, **changes) -> dict:
    value = {"id": f"b{k}", "run": f"run-{k}", "system": "sys@1", "replaySet": "mini", "intent": f"i{1 + k % 2}",
             "trial": k % 7, "grader": {"id": "judge", "kind": "model"}, "mode": "automatic",
             "outcome": ("passed", "failed", "passed")[k % 3], "date": "2026-11-20T10:11:12Z"}
    value.update(changes)
    return value


def big_file(path, extra=(), replace=None):
    """LINES lines across many chunks: a correction near the end superseding a line of the first
    chunk, and a conflicting pair (one case, trial, grader; two outcomes) split across chunks, which
    only a check of the whole file sees (a warning of the file's own shape)."""
    rows = [row(k) for k in range(LINES)]
    rows[3] = row(3, run="run-conflict", trial=9, intent="i1", outcome="passed")
    rows[LINES - 20] = row(LINES - 20, run="run-conflict-2", trial=9, intent="i1", outcome="failed")
    rows[LINES - 10] = row(LINES - 10, intent=rows[5]["intent"], trial=rows[5]["trial"], run="run-fix",
                           outcome="failed", supersedes="b5")
    for k, value in (replace or {}).items():
        rows[k] = value
    rows += list(extra)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def estate(tmp_path):
    root = tmp_path / "estate"
    root.mkdir()
    for name in ("mini.replayset.json", "mini.gold.json", "mini.situations.jsonl"):
        shutil.copy(BASE / name, root / name)
    return root


@pytest.fixture
def streaming(monkeypatch):
    """Every JSON Lines file streamed, CHUNK lines a chunk; the chunks written are counted (the real
    bulk write runs)."""
    monkeypatch.setattr(ingest, "STREAM_BYTES", 0)
    for kind in STREAMING_LOADERS:
        monkeypatch.setattr(sys.modules[registry()[kind].module], "CHUNK_LINES", CHUNK)
    written = []
    real = Store.bulk_write

    def counting(self, graph, ntriples):
        written.append((graph, ntriples.count("\n")))
        return real(self, graph, ntriples)
    monkeypatch.setattr(Store, "bulk_write", counting)
    return written


def without_load_times(dump: bytes) -> list[bytes]:
    return sorted(re.sub(rb"_:[0-9a-z]+", b"_:b", line) for line in dump.splitlines() if b"generatedAtTime" not in line)


def loaded(store_path, *paths):
    store = Store(store_path)
    outcomes = ingest.load(store, paths)
    assert all(o.status == "loaded" for o in outcomes), [(o.path, o.status, o.problems) for o in outcomes]
    dump = store.dump()
    del store
    return outcomes, dump


def test_a_big_file_is_written_in_chunks_and_holds_what_the_whole_file_path_makes(estate, tmp_path, streaming,
                                                                                monkeypatch):
    results = big_file(tmp_path / "big.earl.jsonl")
    _, base_dump = loaded(tmp_path / "streamed", estate)
    outcomes, streamed = loaded(tmp_path / "streamed", results)
    chunks = [n for graph, n in streaming if graph == results.resolve().as_uri()]
    assert len(chunks) >= LINES // CHUNK  # written a chunk at a time, into the source's own graph
    monkeypatch.setattr(ingest, "STREAMING", False)
    loaded(tmp_path / "whole", estate)
    whole_outcomes, whole = loaded(tmp_path / "whole", results)
    assert streamed != base_dump
    assert without_load_times(streamed) == without_load_times(whole)
    assert outcomes[0].triples == whole_outcomes[0].triples
    # the check of the file as a whole saw the conflicting pair across chunks
    assert outcomes[0].warnings == whole_outcomes[0].warnings
    assert any("conflicting" in w["message"] for w in outcomes[0].warnings)


def test_a_situations_file_in_chunks_holds_what_the_whole_file_path_makes(tmp_path, monkeypatch):
    """A situation per chunk: each chunk's records are checked against the domain's shapes on their
    own, and the store holds what one check of the whole file makes - every record's kg:checkedAgainst
    and each failing record's sh:ValidationResult."""
    golden = TESTS / "queries" / "golden" / "situation-check--validates"
    given = [golden / n for n in ("cubby.ttl", "cubby.shapes.ttl", "desk.replayset.json", "desk.gold.json")]
    situations = golden / "desk.situations.jsonl"
    module = sys.modules[registry()["situations"].module]
    written = []
    real = Store.bulk_write
    monkeypatch.setattr(Store, "bulk_write", lambda self, graph, text: (written.append(graph), real(self, graph, text))[1])
    monkeypatch.setattr(ingest, "STREAM_BYTES", 0)
    monkeypatch.setattr(module, "CHUNK_LINES", 1)
    _, streamed = loaded(tmp_path / "streamed", *given, situations)
    monkeypatch.setattr(ingest, "STREAMING", False)
    monkeypatch.setattr(module, "CHUNK_LINES", 20_000)
    _, whole = loaded(tmp_path / "whole", *given, situations)
    assert written.count(situations.resolve().as_uri()) == len(situations.read_text().splitlines())  # a chunk a line
    def evidence(dump):  # the bulk loads' own count, kept until the store is next compacted, left out
        return [line for line in without_load_times(dump) if b"bulkLoadedSinceCompaction" not in line]
    assert evidence(streamed) == evidence(whole)
    assert b"ValidationResult" in streamed and b"checkedAgainst" in streamed


@pytest.mark.parametrize("bad, place, message", [
    (row(LINES + 1, intent="i-none"), f"line {LINES - 2}, /intent", 'intent "i-none" is not in the loaded replay set'),
    (row(LINES + 2, failureCause="agent"), f"line {LINES - 2}, /failureCause", "a failure cause explains a cantTell"),
    (row(LINES + 3, supersedes="b-none"), f"line {LINES - 2}, /supersedes", '"b-none" is neither in this file'),
])
def test_a_bad_line_near_the_end_rejects_the_whole_file_after_chunks_were_written(estate, tmp_path, streaming,
                                                                                bad, place, message):
    results = big_file(tmp_path / "big.earl.jsonl", replace={LINES - 3: bad})
    path = tmp_path / "store"
    loaded(path, estate)
    store = Store(path)
    before = store.dump()
    [outcome] = ingest.load(store, [results])
    assert outcome.status == "rejected"
    assert [(p.place, message in p.message) for p in outcome.problems] == [(place, True)], outcome.problems
    assert len(streaming) >= (LINES - CHUNK) // CHUNK  # the chunks before the bad line were written ...
    assert store.dump() == before  # ... and dropped
    del store
    assert Store(path).dump() == before  # and on disk, as the next process finds it


def test_a_syntax_error_in_the_last_line_rejects_the_file_before_anything_is_written(estate, tmp_path, streaming):
    results = big_file(tmp_path / "big.earl.jsonl")
    with open(results, "a") as f:
        f.write('{"id": "b-last", "outcome": "passed",}\n')
    store = Store(tmp_path / "store")
    ingest.load(store, [estate])
    before = store.dump()
    [outcome] = ingest.load(store, [results])
    assert outcome.status == "rejected"
    assert outcome.problems[0].place.startswith(f"line {LINES + 1}, column")
    assert not [g for g, _ in streaming if g == results.resolve().as_uri()]
    assert store.dump() == before


def test_a_changed_big_file_is_staged_checked_and_swapped_as_the_whole_file_path_does(estate, tmp_path, streaming,
                                                                                   monkeypatch):
    """An added line loads (evidence is append-only); a changed one is refused, the store as it was."""
    results = big_file(tmp_path / "big.earl.jsonl")
    path = tmp_path / "streamed"
    loaded(path, estate, results)
    big_file(results, extra=[row(LINES + 5)])
    _, streamed = loaded(path, results)
    assert any(g.endswith("#staging") for g, _ in streaming)  # the new version was staged in chunks

    big_file(results, extra=[row(LINES + 5)], replace={7: row(7, outcome="cantTell")})
    store = Store(path)
    before = store.dump()
    [outcome] = ingest.load(store, [results])
    assert outcome.status == "rejected" and "changed" in str(outcome.problems[0]), outcome.problems
    assert store.dump() == before
    del store

    monkeypatch.setattr(ingest, "STREAMING", False)
    whole = tmp_path / "whole"
    big_file(results)
    loaded(whole, estate, results)
    big_file(results, extra=[row(LINES + 5)])
    _, whole_dump = loaded(whole, results)
    assert without_load_times(streamed) == without_load_times(whole_dump)


def test_a_file_that_changes_while_it_is_loaded_is_refused(estate, tmp_path, streaming, monkeypatch):
    results = big_file(tmp_path / "big.earl.jsonl")
    store = Store(tmp_path / "store")
    ingest.load(store, [estate])
    before = store.dump()
    real = ingest.file_sha256
    monkeypatch.setattr(ingest, "file_sha256", lambda p: (real(p), big_file(p, extra=[row(LINES + 9)]))[0])
    [outcome] = ingest.load(store, [results])
    assert outcome.status == "rejected"
    assert "the file changed while kg was loading it" in str(outcome.problems[0])
    assert store.dump() == before


def test_a_large_replacement_is_staged_in_bulk_swapped_and_holds_what_a_transactional_one_does(tmp_path, monkeypatch):
    """kg load --force of sources past BULK_TRIPLES (here every source) goes through swap_staged:
    the same triples, records and verdicts as the one-transaction replacement."""
    from kg.store import writing

    from .conftest import EXAMPLES
    transactional = Store(tmp_path / "transactional")
    ingest.load(transactional, [EXAMPLES])
    ingest.load(transactional, [EXAMPLES], force=True)
    monkeypatch.setattr(writing, "BULK_TRIPLES", 0)
    swapped = []
    real = Store.swap_staged
    monkeypatch.setattr(Store, "swap_staged", lambda self, record, history="": (swapped.append(record.graph),
                                                                               real(self, record, history))[1])
    bulk = Store(tmp_path / "bulk")
    ingest.load(bulk, [EXAMPLES])
    outcomes = ingest.load(bulk, [EXAMPLES], force=True)
    assert all(o.status == "loaded" for o in outcomes)
    assert len(swapped) == len([o for o in outcomes if o.triples])
    assert without_load_times(bulk.dump()) == without_load_times(transactional.dump())


BAD = TESTS / "bad"
def corpus_cases(*suffixes: str) -> list:
    """The bad-input corpus's cases (no store set up before) that reject a file of these suffixes."""
    import yaml
    return sorted(c for c in BAD.iterdir() if c.is_dir() and not c.name.startswith(("_", "."))
                  and (c / "expect.yaml").exists() and not (c / "before").exists()
                  and str(yaml.safe_load((c / "expect.yaml").read_text())["rejects"]).endswith(suffixes))


JSONL_CASES = corpus_cases(".jsonl")
RDF_CASES = corpus_cases(".ttl", ".nt", ".nq", ".trig")  # the syntaxes streamed (kg.loading.STREAMED_RDF)


def test_the_jsonl_and_rdf_cases_of_the_bad_input_corpus_are_there():
    assert len(JSONL_CASES) >= 20, [c.name for c in JSONL_CASES]
    assert len(RDF_CASES) >= 6, [c.name for c in RDF_CASES]


@pytest.mark.parametrize("case", JSONL_CASES + RDF_CASES, ids=[c.name for c in JSONL_CASES + RDF_CASES])
def test_every_bad_streamable_file_is_refused_by_the_streamed_path_with_the_whole_file_paths_words(case, monkeypatch):
    """tests/bad/ holds small files, loaded whole; streamed (threshold 0, chunks of a line or two,
    or two triples) each JSON Lines or Turtle one must be refused with the same problems, the store
    as it was (a Turtle file's restated outcome and supersession cycle are found by reading the
    written graph back)."""
    import yaml

    from kg import loading
    expect = yaml.safe_load((case / "expect.yaml").read_text())
    inputs = sorted(p for p in case.iterdir() if p.is_file() and p.name != "expect.yaml")

    def problems(streamed: bool):
        monkeypatch.setattr(ingest, "STREAM_BYTES", 0 if streamed else 1 << 60)
        for kind in STREAMING_LOADERS:
            monkeypatch.setattr(sys.modules[registry()[kind].module], "CHUNK_LINES", 2 if streamed else 20_000)
        monkeypatch.setattr(loading, "RDF_CHUNK_TRIPLES", 2)
        store = Store(":memory:")
        ingest.load(store, [BASE])
        before = store.dump()
        outcomes = {o.path.rsplit("/", 1)[-1]: o for o in ingest.load(store, inputs, kind=expect.get("kind"))}
        bad = outcomes[expect["rejects"]]
        assert bad.status == "rejected"
        if len(outcomes) == 1:
            assert store.dump() == before
        return [str(p) for p in bad.problems]
    assert problems(streamed=True) == problems(streamed=False)


# ── big RDF files (N-Triples, N-Quads, Turtle, TriG): parsed as read, written a chunk at a time ──
RDF_CHUNK = 7  # triples per chunk: an assertion's nine triples always span two chunks


def bulk_count_aside(dump: bytes) -> list[bytes]:
    """A dump without load times, and without the count of bulk writes since the last compaction
    (a streamed load's own bookkeeping)."""
    return [line for line in without_load_times(dump) if b"bulkLoadedSinceCompaction" not in line]


def earl_turtle(path, assertions=200, extra=""):  # more than 190
    """An EARL report in Turtle of the W3C kind (no replay set): blank-node results, so an
    assertion's triples and its result's are cut apart by the chunks; a correction near the end
    superseding an assertion of the first chunk; a conflicting pair (one case, two outcomes)."""
    lines = ["@prefix earl: <http://www.w3.org/ns/earl#> .",
             "@prefix apeval: <https://agenticprimitives.dev/ns/evaluation#> .",
             "@prefix dcterms: <http://purl.org/dc/terms/> .",
             "<http://t.example/impl> a earl:TestSubject, earl:Software ; dcterms:title \"impl\" .",
             "<http://t.example/checker> a earl:Assertor, earl:Software ; dcterms:title \"checker\" ."]
    for k in range(assertions):
        outcome = ("passed", "failed", "passed")[k % 3]
        case = "conflict" if k in (3, 180) else f"t{k}"
        outcome = {3: "passed", 180: "failed"}.get(k, outcome)
        fix = " ; apeval:supersedes <http://t.example/a5>" if k == 190 else ""
        if k == 190:
            case = "t5"
        lines.append(f"<http://t.example/a{k}> a earl:Assertion ; earl:subject <http://t.example/impl> ; "
                     f"earl:test <http://t.example/{case}> ; earl:assertedBy <http://t.example/checker> ; "
                     f"earl:mode earl:automatic{fix} ;\n  earl:result [ a earl:TestResult ; earl:outcome earl:{outcome} ; "
                     f"dcterms:date \"2026-11-20T10:11:12Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> ] .")
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


@pytest.fixture
def rdf_streaming(monkeypatch):
    """Every RDF file of a streamed syntax parsed as read and written RDF_CHUNK triples a chunk;
    the chunks written counted (the real bulk write runs)."""
    from kg import loading
    monkeypatch.setattr(ingest, "STREAM_BYTES", 0)
    monkeypatch.setattr(loading, "RDF_CHUNK_TRIPLES", RDF_CHUNK)
    written = []
    real = Store.bulk_write
    def counting(self, graph, triples):
        written.append((graph, triples.count("\n") if isinstance(triples, str) else len(triples)))
        return real(self, graph, triples)
    monkeypatch.setattr(Store, "bulk_write", counting)
    return written


def test_a_big_turtle_report_is_written_in_chunks_and_holds_what_the_whole_file_path_makes(tmp_path, rdf_streaming,
                                                                                          monkeypatch):
    report = earl_turtle(tmp_path / "big.earl.ttl")
    outcomes, streamed = loaded(tmp_path / "streamed", report)
    chunks = [n for graph, n in rdf_streaming if graph == report.resolve().as_uri()]
    assert len(chunks) > 200 * 9 // RDF_CHUNK - 5 and max(chunks) == RDF_CHUNK
    monkeypatch.setattr(ingest, "STREAMING", False)
    whole_outcomes, whole = loaded(tmp_path / "whole", report)
    # the blank-node results, split from their assertions by the chunks, are the same nodes
    assert bulk_count_aside(streamed) == bulk_count_aside(whole)
    # by hand: the subject's and the assertor's three each, nine an assertion, the one apeval:supersedes,
    # and the grader kind kg reads from each assertion's earl:automatic (loaders/rdf.py DEFAULT_KIND),
    # written by both paths alike
    assert outcomes[0].triples == whole_outcomes[0].triples == 3 + 3 + 200 * 9 + 1 + 200
    assert outcomes[0].warnings == whole_outcomes[0].warnings
    verdicts = Store(tmp_path / "streamed").select_values(
        "PREFIX kg: <https://kg.example/ns#> SELECT ?s WHERE { ?v a kg:Verdict ; kg:status ?s ; kg:case <http://t.example/conflict> }")[1]
    assert verdicts == [("conflicting",)]  # its two assertions, chunks apart, make one conflicting verdict


def test_a_syntax_error_at_the_end_of_a_big_turtle_report_drops_what_was_written(tmp_path, rdf_streaming):
    report = earl_turtle(tmp_path / "big.earl.ttl", extra="<http://t.example/z> earl:outcome .\n")
    path = tmp_path / "store"
    store = Store(path)
    ingest.load(store, [earl_turtle(tmp_path / "other.earl.ttl", assertions=3)])
    before = store.dump()
    [outcome] = ingest.load(store, [report])
    assert outcome.status == "rejected"
    # five lines of head, two an assertion, then the bad one
    assert [(p.place, p.message.split(":")[0]) for p in outcome.problems] == [
        (f"line {5 + 2 * 200 + 1}, column 35", "Turtle syntax error")], outcome.problems
    assert len([g for g, _ in rdf_streaming if g == report.resolve().as_uri()]) > 200  # written, then dropped
    assert store.dump() == before
    del store
    assert Store(path).dump() == before


def test_a_changed_big_turtle_report_is_staged_and_swapped_as_the_whole_file_path_does(tmp_path, rdf_streaming,
                                                                                       monkeypatch):
    report = earl_turtle(tmp_path / "big.earl.ttl")
    loaded(tmp_path / "streamed", report)
    earl_turtle(report, assertions=210)  # ten more assertions: evidence is added to, never rewritten
    _, streamed = loaded(tmp_path / "streamed", report)
    assert any(g.endswith("#staging") for g, _ in rdf_streaming)
    monkeypatch.setattr(ingest, "STREAMING", False)
    earl_turtle(report)
    loaded(tmp_path / "whole", report)
    earl_turtle(report, assertions=210)
    _, whole = loaded(tmp_path / "whole", report)
    assert bulk_count_aside(streamed) == bulk_count_aside(whole)




W3C = SHARED_DATA / "earl-w3c-shacl"


@pytest.mark.parametrize("where", ["examples", "w3c"])
def test_every_rdf_file_streamed_three_triples_a_chunk_makes_the_store_the_whole_file_path_makes(where, monkeypatch):
    """The shipped examples (ontologies, EARL Turtle, manifests beside JSON and JSON Lines) and the
    W3C SHACL implementation reports (real, third-party; SHACLEX's 2.9 MB one is streamed by default)."""
    from kg import loading

    from .conftest import EXAMPLES
    folder = EXAMPLES if where == "examples" else W3C
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here")
    monkeypatch.setattr(loading, "RDF_CHUNK_TRIPLES", 3)

    def dump(streamed: bool):
        monkeypatch.setattr(ingest, "STREAM_BYTES", 0 if streamed else 1 << 60)
        store = Store(":memory:")
        outcomes = ingest.load(store, [folder])
        assert outcomes and all(o.status == "loaded" for o in outcomes), [(o.path, o.problems) for o in outcomes]
        return bulk_count_aside(store.dump()), [(o.path, o.triples, len(o.warnings)) for o in outcomes]
    assert dump(streamed=True) == dump(streamed=False)
