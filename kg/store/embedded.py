"""The embedded store: an Oxigraph store on disk (or in memory), opened by a reader or a writer,
one named graph per source. Its parts are mixins, one module a job."""
from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path

import pyoxigraph as ox

from .. import damage, layers
from ..errors import NoStore, StoreBusy, StoreUnavailable
from ..terms import CATALOGUE_GRAPH
from .base import BaseStore
from .opening import (READ_ATTEMPTS, _cannot_open, _compacted_away, _open_read_only, changed_under_reader,
                      wait_seconds)
from .reading import Reading
from .scratch import Scratch
from .upkeep import Upkeep
from .where import resolve_store_path
from .writing import Writing


class Store(Writing, Upkeep, Scratch, Reading, BaseStore):
    """The embedded store. `Store(":memory:")` for tests, `Store(path)` on disk."""

    # queries a report runs at once: Oxigraph evaluates a query outside Python's lock, so each core
    # answers one (two sorted scans of 100k assertions: 15.0 s one after the other, 7.9 s on two threads)
    concurrent_queries = max(2, min(4, os.cpu_count() or 1))

    def __init__(self, path: str | os.PathLike | None = None, *, read_only: bool = False):
        self.path = resolve_store_path(path)
        # a load of many files writes each new small one flagged as changed, and marks and derives
        # them together (ingest.load): `defer_derivation` on, `_deferred` files written since the last derive
        self.defer_derivation, self._deferred = False, 0
        self._bulk_loaded = 0  # triples bulk-loaded by this process, not yet counted in the catalogue
        # what a reader reads when the store holds graphs no record names (a load in progress, or one
        # cut short): the recorded graphs only, i.e. the state before that load; None: every graph
        self._dataset: list[ox.NamedNode] | None = None
        if self.path == ":memory:":
            self.ox = ox.Store()
        else:
            try:
                there, folder = Path(self.path).exists(), Path(self.path).is_dir()
            except OSError as err:  # a folder on the way this user may not enter
                raise StoreUnavailable(_cannot_open(self.path, err)) from None
            if there and not folder:
                raise StoreUnavailable(f"{self.path} is a file, not a store: a store is a folder; give the "
                                       f"folder kg load made (e.g. --store .kg/store) or a new folder's path")
            if read_only and not there:  # reading never creates a store
                raise NoStore(f"there is no store at {self.path}: load something first (kg load PATH), "
                              f"or give the path of an existing store")
            try:
                if read_only:
                    self.ox = _open_read_only(self.path)
                else:
                    Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                    self.ox = ox.Store(self.path)
            except OSError as err:
                if "lock" in str(err).lower() and "Permission denied" not in str(err):
                    raise StoreBusy(f"the store {self.path} is in use by another kg process; "
                                    f"wait for it to finish, or use another --store") from None
                raise StoreUnavailable(_cannot_open(self.path, err)) from None
            except RuntimeError as err:  # RocksDB's "Corruption: …"
                raise StoreUnavailable(_cannot_open(self.path, err)) from None
            damage.watch(self.path)  # a damaged block met later must not spin for ever (kg/damage.py)
        if read_only:
            for attempt in range(READ_ATTEMPTS):
                try:
                    if self.path != ":memory:" and self._layers_stale():
                        self._rebuild_layers_as_writer()
                    self._read_recorded_only()
                    break
                except OSError as err:
                    # a writer compacting the store deleted a file this view was about to read (issue 45:
                    # FileNotFoundError in _unrecorded, one `kg compare` in six beside a load): a race,
                    # not damage; a new view a moment later reads the new files
                    if not _compacted_away(err) or attempt == READ_ATTEMPTS - 1:
                        raise StoreUnavailable(changed_under_reader(self.path, err)) from None
                    self.__dict__.pop("ox", None)  # (_rebuild_layers_as_writer may have let it go already)
                    gc.collect()
                    time.sleep(0.2 * (attempt + 1))
                    self.ox = _open_read_only(self.path)
        else:
            empty = self.path == ":memory:" or self._holds_fewer_quads(1)
            self._drop_unrecorded()
            self.ensure_layers()
            if empty:
                # a store this process fills from nothing has no damaged block to spin on: a first (bulk)
                # load is not read beside itself. Into a store that held data, the check runs (niced): an
                # update meeting a damaged block spins as a query does (issue 45's hostile round)
                damage.settle(self.path)

    def _rebuild_layers_as_writer(self) -> None:
        """A reader that finds the layers out of date opens the store for writing once to rebuild them.

        When another kg holds the store and the layers are of this kg's rules, that kg is deriving
        them (a bulk load in progress): the reader waits for it (KG_WAIT seconds, 600 by default),
        saying so, rather than read verdicts half derived."""
        deadline = time.monotonic() + wait_seconds()
        said = False
        while True:
            in_progress = self.setting("layerVersion") == layers.version()
            del self.ox
            gc.collect()  # Oxigraph releases the store's lock when the object goes
            try:
                writer = Store(self.path)
                break
            except StoreBusy:
                if not in_progress:
                    raise StoreBusy(f"the store {self.path} was written by another version of kg and its derived "
                                    f"layers must be rebuilt, but another kg process holds it; try again when it "
                                    f"has finished") from None
                if time.monotonic() > deadline:
                    raise StoreBusy(f"the store {self.path} is being loaded by another kg process, which is deriving "
                                    f"its verdicts; it did not finish within KG_WAIT "
                                    f"({os.environ.get('KG_WAIT', '600')} s): try again later") from None
                if not said:
                    sys.stderr.write(f"kg: another kg process is loading {self.path} and deriving its verdicts; "
                                     f"waiting for it to finish (up to KG_WAIT seconds)\n")
                    said = True
                time.sleep(1)
                self.ox = _open_read_only(self.path)
                if not self._layers_stale():
                    return  # the load finished: its state is whole
        del writer
        gc.collect()
        self.ox = _open_read_only(self.path)

    def _unrecorded(self) -> list[ox.NamedNode]:
        """Graphs no catalogue record names: what a load cut short leaves (a staging graph, or a
        bulk-loaded graph whose record was never written). Every graph kg writes has a record."""
        recorded = {g.value for (g,) in self.select(
            f"SELECT DISTINCT ?g WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?g kg:sha256 ?sha }} }}")}
        derived = layers.graphs()
        return [g for g in self.ox.named_graphs() if isinstance(g, ox.NamedNode)
                and g.value != CATALOGUE_GRAPH and g.value not in recorded and g.value not in derived]

    def _drop_unrecorded(self) -> None:
        for g in self._unrecorded():
            self.drop_graph(g.value)

    def _read_recorded_only(self) -> None:
        """A reader of a store holding graphs no record names — a load in progress, or one cut short —
        reads the state before that load: the graphs the catalogue records (a replaced source's old
        graph, the verdicts made of it), never the new one half in place."""
        partial = self._unrecorded()
        if not partial:
            return
        left_out = set(partial)
        self._dataset = [g for g in self.ox.named_graphs() if isinstance(g, ox.NamedNode) and g not in left_out]
        sys.stderr.write(f"kg: {self.path} holds {len(partial)} graph(s) of a load in progress or cut short "
                         f"(first: {partial[0].value}); reading the sources as the catalogue records them, "
                         f"as they were before that load (a cut-short load is cleared by the next `kg load`)\n")
