"""The derived layers' upkeep in bulk, and compaction, for the embedded store (a part of Store,
kg/store/embedded.py): layers marked and derived by queries whose triples are bulk-inserted."""
from __future__ import annotations

import pyoxigraph as ox

from .. import layers
from ..memory import give_back
from ..terms import CATALOGUE_GRAPH

# every bulk_load adds files of its own, read by every query until compacted; compacting rewrites the
# whole store (51 s at 1M assertions, for a day's file that loads in 8 s) and one uncompacted file
# costs a large store nothing measurable, so compact once what was bulk-loaded since the last
# compaction reaches this share of the store (a first load always does; BENCHMARKS.md)
COMPACT_SHARE = 0.25


class Upkeep:
    """Store's layers kept in bulk, and its compaction (kg/store/embedded.py)."""

    def derive_deferred(self) -> None:
        """The files written since the last call (`defer_derivation`, each flagged as changed) marked
        and derived together, a chunk of keys at a time, then the write buffers flushed: until then
        readers find the layers not current and wait, as they wait for a bulk load; a load cut short
        leaves the flags, and the next writer rebuilds the layers."""
        if self._deferred:
            self._mark_in_bulk()
            self._derive_marked_in_bulk("")
            self._deferred = 0
            self.ox.flush()

    def _derive_in_bulk(self, graphs: list[str] | None, change: str) -> None:
        """The layers' steps for a bulk load (`graphs`) or a rebuild (None): each INSERT run as a
        CONSTRUCT query and its triples bulk-inserted, the other operations as updates, and `change`
        with the last update. Six times faster than the same steps as updates at 10k assertions
        (reads in an update are slower than a query's, and transactional writes than bulk ones);
        not atomic, as a bulk load is not: what is cut short leaves scratch graphs, and the next
        writer rebuilds the layers."""
        if graphs is None:
            self._clear_layers()
        self.ox.update(layers.rebuilding(mark=False) if graphs is None else layers.flag(graphs))
        self._mark_in_bulk()
        self._derive_marked_in_bulk(change)

    def _clear_layers(self) -> None:
        """The layers emptied before a rebuild, CLEAR_CHUNK triples per transaction rather than one
        DROP (whose transaction holds every triple it takes out: 3.7 GB for a 100k store's layers).
        The layers are flagged as changing first, so that a rebuild cut short here leaves them not
        current (a scratch graph holds something) and the next writer rebuilds them again."""
        derived = sorted(layer.graph for layer in layers.load())
        self.ox.update(layers.flag(derived))
        for graph in derived:
            self.drop_graph(graph)

    def _mark_in_bulk(self) -> None:
        """Every layer's mark step over the flagged sources, as they stand now."""
        for layer in layers.load():
            self._run_in_bulk(layers.as_constructs(layer.mark))

    def _derive_marked_in_bulk(self, change: str) -> None:
        """Every marked key derived, CHUNK_KEYS keys at a time (each chunk layer by layer in their
        order), then `change` with the closing update. A chunk at a time, not the file's keys at
        once: the engine holds a query's joins and groups, and the bulk insert its triples, in
        memory, so deriving a whole file's keys in one pass made peak memory grow with the file
        (BENCHMARKS.md, "Big single files"). Every rule is per key (a case and a system), so the
        chunks derive what one pass would; the shared keys' derive steps run at least once (the
        plans layer's rule is over every source), a layer of keys of its own only for a chunk
        holding some."""
        while True:
            self.ox.update(layers.take(layers.CHUNK_KEYS))
            # the chunk's keys, given to the steps as VALUES (layers.with_keys: the engine plans better)
            keys = {deriving: [(q.subject, q.object) for q in self.ox.quads_for_pattern(None, None, None, ox.NamedNode(deriving))]
                    for _, deriving in layers.key_graphs()}
            for layer in layers.load():
                deriving = layers.own_deriving(layer)
                if deriving and not keys[deriving]:
                    # none of its own keys in this chunk: its steps would find nothing to derive, at
                    # the cost of their joins over the store (the situations layer's: 41 s of a
                    # 100k-assertion EARL file's load; BENCHMARKS.md, "Bounded drops")
                    continue
                self._run_in_bulk((layers.with_keys(text, keys), graph) for text, graph in layers.as_constructs(layer.derive))
            self.ox.update(layers.drop_deriving())
            self.ox.flush()  # the chunk's writes out of the write buffers, as in drop_graph
            give_back()  # and what its joins freed, to the system (kg/memory.py)
            if not self.ask(layers.touched_query()):
                break
        self.ox.update(layers.finish(change))

    def _run_in_bulk(self, operations) -> None:
        for text, graph in operations:
            if graph is None:
                self.ox.update(text)
            else:
                target = ox.NamedNode(graph)
                self.ox.bulk_extend(ox.Quad(t.subject, t.predicate, t.object, target) for t in self.ox.query(text))

    def rebuild_layers(self) -> None:
        """Makes every derived layer anew from the sources (a store of an older kg, or data put in by
        hand, as the golden tests do), in bulk."""
        self._derive_in_bulk(None, "")

    def flush(self) -> None:
        if self.path != ":memory:":
            if self._bulk_loaded:
                self._compact_when_due()
            self.ox.flush()

    def _compact_when_due(self) -> None:
        """Compacts once the triples bulk-loaded since the last compaction (kept in the catalogue,
        so that a year of daily loads adds up) reach COMPACT_SHARE of the store. Uncompacted bulk
        files made the catalogue 1.46x slower at 10k assertions, where they were the whole store."""
        pending = self.uncompacted_triples() + self._bulk_loaded
        self._bulk_loaded = 0
        recorded = self.select(f"SELECT (SUM(?n) AS ?total) WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?g void:triples ?n }} }}")
        total = int(recorded[0][0].value) if recorded and recorded[0][0] is not None else 0
        compact = pending >= COMPACT_SHARE * total
        # the count is written before compacting: a write after it left small files that made the
        # catalogue 10% slower at 100k assertions (a load stopped in between only compacts late)
        self.set_setting("bulkLoadedSinceCompaction", 0 if compact else pending)
        if compact:
            self.ox.optimize()

    def uncompacted_triples(self) -> int:
        """Triples bulk-loaded since the store was last compacted."""
        return int(self.setting("bulkLoadedSinceCompaction") or 0)
