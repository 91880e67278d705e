"""Writing sources into the embedded store (a part of Store, kg/store/embedded.py): a source put in
place, replaced or dropped, all or nothing, or in parts of bounded size when large."""
from __future__ import annotations

from datetime import datetime, timezone

import pyoxigraph as ox

from .. import layers
from ..terms import CATALOGUE_GRAPH
from .base import _delete_record, _withdraw
from .record import SourceRecord

STAGING_SUFFIX = "#staging"
# a new source at least this big is written with bulk_load (about twice the transactional load's
# speed, measured in BENCHMARKS.md); below it the one-transaction load costs less than bulk_load's new
# files. 5,000 rather than 20,000 took a 10k-assertion load from 8.7 s to 7.7 s (1,000: 7.8 s)
BULK_TRIPLES = 5_000


class Writing:
    """Store's writes (kg/store/embedded.py)."""

    # ── writing: every change is one transaction ──
    def replace_source(self, record: SourceRecord, ntriples: str, history: str = "") -> None:
        """Puts a source's graph and its catalogue record in place, and the verdict layer with
        them, all or nothing: the last step is one update, which Oxigraph runs as one transaction.

        A new source's triples go in with that update (INSERT DATA), or, when large, by bulk_load
        into its graph first; a replaced source's go into a staging graph, moved in by the update.
        `history`: N-Triples for the catalogue graph written with the record (a revision's earlier version)."""
        record.loaded_at = record.loaded_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
        insert_record = f"INSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{\n{record.ntriples()}{history}}} }}"
        if self.source_sha256(record.graph) is None and not self.graph_exists(record.graph):
            if record.triples >= BULK_TRIPLES:
                self.bulk_write(record.graph, ntriples)
                self.record_bulk_loaded(record, history)
                return
            if self.defer_derivation:
                # one of many small files: its triples, its record and its flag in one update; its keys
                # marked and derived with the others' (derive_deferred). Per file, the layers' upkeep
                # cost a store-wide derive step each (issue 45: 10,000 one-line files, ~1.4 s a file)
                self.ox.update(layers.deferring(f"INSERT DATA {{ GRAPH <{record.graph}> {{\n{ntriples}}} }} ;\n"
                                                + insert_record, after=[record.graph]))
                self._deferred += 1
                return
            # a new source: its triples, its record and its verdicts in one update, no staging, no MOVE
            self.ox.update(layers.around(f"INSERT DATA {{ GRAPH <{record.graph}> {{\n{ntriples}}} }} ;\n"
                                         + insert_record, before=[], after=[record.graph]))
            return
        staging = record.graph + STAGING_SUFFIX
        self.ox.update(f"DROP SILENT GRAPH <{staging}>")
        if record.triples >= BULK_TRIPLES and self.source_sha256(record.graph) is not None:
            # a large replacement: staged in bulk and swapped in, as a first load of it costs (swap_staged)
            self.bulk_write(staging, ntriples)
            self.swap_staged(record, history)
            return
        if ntriples:
            self.ox.load(ntriples, format=ox.RdfFormat.N_TRIPLES, to_graph=ox.NamedNode(staging))
        move = f"MOVE SILENT GRAPH <{staging}> TO GRAPH <{record.graph}> ;" if ntriples else ""
        self.ox.update(layers.around(
            f"DROP SILENT GRAPH <{record.graph}> ;\n{move}\n" + _delete_record(record.graph) + " ;\n" + insert_record,
            before=[record.graph, staging] if ntriples else [record.graph]))

    # ── writing a source in parts (a large file, a streamed one): bulk writes into a graph no record
    # names, which readers leave out (_read_recorded_only) and the next writer drops (_drop_unrecorded)
    # if this one is cut short; the record, written last, puts it in place ──
    def bulk_write(self, graph: str, triples: str | list[ox.Triple]) -> None:
        """N-Triples text, or triples, bulk-loaded into a graph (not atomic; see above). A blank node
        keeps its identity only in triples: the engine gives each text's `_:b0` a fresh node, so a
        parsed file written a chunk at a time comes as triples, one node across its chunks."""
        to = ox.NamedNode(graph)
        if isinstance(triples, str):
            self.ox.bulk_load(triples, format=ox.RdfFormat.N_TRIPLES, to_graph=to)
        else:
            self.ox.bulk_extend(ox.Quad(t.subject, t.predicate, t.object, to) for t in triples)

    def drop_graph(self, graph: str) -> None:
        """A graph emptied CLEAR_CHUNK triples per transaction (not atomic: for graphs no reader
        reads, or that the caller has taken out of the catalogue first). One `remove_graph` is one
        transaction, holding every triple it takes out in memory: a 2M-triple graph took 5.9 GB.
        Each chunk is flushed: the engine keeps committed writes in its write buffers (RocksDB's
        memtables) until then, so bounded transactions alone still grew with the whole write
        (1.3 GB emptying that graph whatever the chunk size; 338 MiB flushed)."""
        while self._holds(graph):
            self.ox.update(layers.clear_chunk(graph))
            self.ox.flush()
        if self.graph_exists(graph):
            self.ox.remove_graph(ox.NamedNode(graph))  # the empty graph's name

    def _holds(self, graph: str) -> bool:
        return self.ask(f"ASK {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}")

    def drop_source(self, graph: str) -> bool:
        """A source taken out: a small one in one update (its graph, its record and the verdicts
        made of it, `BaseStore.drop_source`); one of BULK_TRIPLES triples or more in parts of
        bounded size, as a bulk load writes one. Its keys are marked while its triples are in place;
        then one update takes its record out — from there it is dropped: readers leave its graph
        out, as they leave out a graph no record names, and wait while the marked keys are derived;
        then its graph is emptied a chunk per transaction, and the marked keys derived a chunk at a
        time. Cut short before the record goes, the store is as it was; after, the next writer
        drops what is left of the graph (`_drop_unrecorded`) and rebuilds the layers the marks say
        are not current. Kill tests: tests/test_store.py, `_reached`."""
        if self.source_sha256(graph) is None:
            return False
        if not self._at_least(graph, BULK_TRIPLES):
            return super().drop_source(graph)
        withdrawal = _withdraw(self, graph)  # read before anything changes; written with the record's removal
        self.ox.update(layers.flag([graph]))
        self._mark_in_bulk()
        _reached("dropped keys marked")
        self.ox.update(withdrawal)
        _reached("record deleted")
        self.drop_graph(graph)
        _reached("graph emptied")
        self._derive_marked_in_bulk("")
        return True

    def _at_least(self, graph: str, triples: int) -> bool:
        rows = list(self.ox.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ SELECT * WHERE {{ GRAPH <{graph}> "
                                  f"{{ ?s ?p ?o }} }} LIMIT {triples} }}"))
        return int(rows[0]["n"].value) >= triples

    def graph_size(self, graph: str) -> int:
        rows = list(self.ox.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"))
        return int(rows[0]["n"].value)

    def graph_ntriples(self, graph: str) -> str:
        return "".join(f"{q.subject} {q.predicate} {q.object} .\n"
                       for q in self.ox.quads_for_pattern(None, None, None, ox.NamedNode(graph)))

    def record_bulk_loaded(self, record: SourceRecord, history: str = "") -> None:
        """The record of a new source whose graph was bulk-written, with its verdicts: marked, derived
        a chunk per transaction, and the record last; a load cut short leaves marks, which make the
        next writer rebuild the layers (and a graph no record names, which it drops)."""
        record.loaded_at = record.loaded_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
        self._bulk_loaded += record.triples  # counted once in place: a file refused part-written is not
        self._derive_in_bulk([record.graph], f"INSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{\n{record.ntriples()}{history}}} }}")

    def swap_staged(self, record: SourceRecord, history: str = "") -> None:
        """A replaced source's new triples, bulk-written into its staging graph, put in place of the
        old ones by what differs between the two: the triples only the old graph holds and those
        only the staging graph holds are copied (by queries, in bulk) into two scratch graphs; the
        keys of the first are marked while they are still in place; then ONE update takes them out
        of the source's graph, puts the second in and switches the record — a transaction the size
        of the difference, not of the file (an evidence file only grows, so its difference is what
        was appended; a `--force` of the same file, none but its blank nodes); then the keys of the
        triples put in are marked and only the marked keys derived, in bulk, and the staging graph
        dropped. Readers read the old state until the update commits (they wait while verdicts are
        derived); cut short before it, the store is as it was; after it, the new state — the next
        writer drops the staging graph and rebuilds the layers either way (the scratch graphs say a
        write was cut short). The copies and the staging graph are dropped before the keys are
        derived: the rules read assertions in any graph. Kill tests: tests/test_store.py, `_reached`."""
        record.loaded_at = record.loaded_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
        graph, staging = record.graph, record.graph + STAGING_SUFFIX
        self._bulk_loaded += record.triples
        for into, only_in, not_in in ((layers.REMOVED, graph, staging), (layers.ADDED, staging, graph)):
            self._run_in_bulk([(f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH <{only_in}> {{ ?s ?p ?o }} "
                                f"FILTER NOT EXISTS {{ GRAPH <{not_in}> {{ ?s ?p ?o }} }} }}", into)])
        _reached("differences copied")
        self.ox.update(layers.flag([layers.REMOVED]))
        self._mark_in_bulk()
        _reached("old keys marked")
        self.ox.update(f"DELETE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }} WHERE {{ GRAPH <{layers.REMOVED}> {{ ?s ?p ?o }} }} ;\n"
                       f"INSERT {{ GRAPH <{graph}> {{ ?s ?p ?o }} }} WHERE {{ GRAPH <{layers.ADDED}> {{ ?s ?p ?o }} }} ;\n"
                       + _delete_record(graph) + " ;\n"
                       + f"INSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{\n{record.ntriples()}{history}}} }} ;\n"
                       + f"DROP SILENT GRAPH <{layers.REMOVED}> ;\nDROP SILENT GRAPH <{layers.CHANGED}> ;\n"
                       + layers.flag([layers.ADDED]))
        _reached("swapped")
        self._mark_in_bulk()
        _reached("new keys marked")
        # the rules read assertions in any graph: the copies go before the keys are derived
        self.ox.update(f"DROP SILENT GRAPH <{layers.ADDED}>")
        self.drop_graph(staging)
        _reached("staging dropped")
        self._derive_marked_in_bulk("")

    def graph_exists(self, graph: str) -> bool:
        return self.ox.contains_named_graph(ox.NamedNode(graph))

    def reset(self) -> None:
        self.ox.clear()


def _reached(step: str) -> None:
    """A step of a replacement done (Store.swap_staged): nothing here; the kill tests stop the
    process at each one (tests/test_store.py)."""
