"""Scratch copies of the embedded store: what `kg validate` loads into, never the store itself."""
from __future__ import annotations

import gc
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pyoxigraph as ox

if TYPE_CHECKING:
    from .embedded import Store

# a store of fewer quads is copied into memory for `kg validate` (Store.scratch_copy), a larger one on
# disk: at most about 70 MB held for the copy, whatever the store's size (the examples' 49,536 quads
# took validate's peak from 68 to 104 MB)
SCRATCH_IN_MEMORY = 100_000


class Scratch:
    """Store's scratch copies (kg/store/embedded.py)."""

    @contextmanager
    def scratch_copy(self):
        """A writable Store holding what this one holds, whose writes never reach this one, removed
        on leaving: what `kg validate` loads into, in memory bounded by design (a dump read back
        into an in-memory store held the whole store in Python twice: about 2 GB at 100k
        assertions, growing with the store).

        When no other process writes the store, the copy is an Oxigraph backup (a RocksDB
        checkpoint) made by a writer's handle, opened for that moment only: beside the store, on
        the same disk, it hard-links the store's immutable files, no copy of the data at all. A
        reader's handle cannot make it: its backup leaves out what is still only in the
        write-ahead log (measured: a checkpoint from a read-only handle missed the last write).
        Otherwise (a load in progress holds the store, or its folder is read-only) the reader's
        view is dumped to a file and bulk-loaded into the copy, both streamed by the engine.
        The copy opens as a writer does: a graph no record names (a load in progress, or one cut
        short) is dropped from it, so it holds the state readers see."""
        from .embedded import Store  # the module that defines Store imports this one
        if self.path == ":memory:" or self._holds_fewer_quads(SCRATCH_IN_MEMORY):
            copy = Store(":memory:")  # small: in memory, faster than a store on disk (3 s against 8 s for the examples)
            copy.ox.load(self.ox.dump(format=ox.RdfFormat.N_QUADS), format=ox.RdfFormat.N_QUADS)
            copy._drop_unrecorded()
            yield copy
            return
        folder = _scratch_folder(Path(self.path).resolve().parent)
        target, copy = folder / "store", None
        try:
            if not _backed_up_by_writer(self.path, target):
                dumped = folder / "store.nq"
                self.ox.dump(str(dumped), format=ox.RdfFormat.N_QUADS)
                loaded = ox.Store(str(target))
                loaded.bulk_load(path=str(dumped), format=ox.RdfFormat.N_QUADS)
                del loaded
                gc.collect()
                dumped.unlink()
            copy = Store(target)
            yield copy
        finally:
            discard_scratch(copy, folder)


def discard_scratch(copy: Store | None, folder: Path | None) -> None:
    """A scratch copy (`scratch_copy`) closed and its folder, if it has one, removed: Oxigraph closes
    a store when its object goes, which must happen before its files do."""
    if copy is not None:
        del copy.ox
        gc.collect()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)



def _scratch_folder(beside: Path) -> Path:
    """A new private folder beside the store (hard links work on one disk), else in the system's
    temporary folder."""
    try:
        return Path(tempfile.mkdtemp(prefix=".kg-scratch-", dir=beside))
    except OSError:
        return Path(tempfile.mkdtemp(prefix="kg-scratch-"))


def _backed_up_by_writer(path: str, target: Path) -> bool:
    """An Oxigraph backup of the store at `path` into `target`, made by a writer's handle opened for
    it alone; False when no writer's handle can be had (another process writes the store, or its
    folder is read-only) or the backup fails (then nothing is left in `target`)."""
    try:
        writer = ox.Store(path)
    except OSError:
        return False
    try:
        writer.backup(str(target))
        return True
    except OSError:
        shutil.rmtree(target, ignore_errors=True)
        return False
    finally:
        del writer
        gc.collect()  # the store's lock goes with the object: a load started next is not refused
