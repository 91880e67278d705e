"""The store: an embedded Oxigraph store on disk (or in memory), one named graph per source,
and a catalogue graph that says what each graph came from.

One module per job (the imports go down this list, never up):
  where.py     which store a command uses: Where, locate, resolve_store_path, DEFAULT_STORE
  record.py    a source's record and its N-Triples: SourceRecord
  base.py      BaseStore, what every store offers, embedded or remote: the catalogue graph of source
               records, settings and the layers' upkeep, in plain SPARQL
  opening.py   opening the embedded store and what goes wrong: busy, damaged, a full or read-only
               disk, files compacted away under a reader (retried); KG_WAIT (wait_seconds)
  reading.py   Store's queries (Reading): select, ask, select_values, stream_values, dump
  writing.py   Store's writes (Writing): replace_source, bulk_write, swap_staged, drop_source, ...
  upkeep.py    Store's layers in bulk and its compaction (Upkeep): rebuild_layers, derive_deferred
  scratch.py   Store's scratch copies (Scratch) for `kg validate`
  embedded.py  Store itself: opened by a reader or a writer, made of the four parts above

Every name is here too, as `store.X` has always read. A module reads its own constants: a test
changing one (BULK_TRIPLES, SCRATCH_IN_MEMORY) or a hook (_reached, _backed_up_by_writer) sets it on
the module that holds it (`kg.store.writing`, `kg.store.scratch`), not here.
"""
from __future__ import annotations

from .base import BaseStore, _delete_record, _withdraw  # noqa: F401
from .embedded import Store  # noqa: F401
from .opening import (READ_ATTEMPTS, _cannot_open, _compacted_away, _open_read_only,  # noqa: F401
                      cannot_write, changed_under_reader, disk_full, wait_seconds, writer_pid)
from .reading import SPARQL_PREFIXES, Reading  # noqa: F401
from .record import SourceRecord, _in_graph  # noqa: F401
from .scratch import (SCRATCH_IN_MEMORY, Scratch, _backed_up_by_writer, _scratch_folder,  # noqa: F401
                      discard_scratch)
from .upkeep import COMPACT_SHARE, Upkeep  # noqa: F401
from .where import DEFAULT_STORE, Where, locate, resolve_store_path  # noqa: F401
from .writing import BULK_TRIPLES, STAGING_SUFFIX, Writing, _reached  # noqa: F401
