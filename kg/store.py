"""The store: an embedded Oxigraph store on disk (or in memory), one named graph per source,
and a catalogue graph that says what each graph came from."""
from __future__ import annotations

import errno
import gc
import os
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import pyoxigraph as ox

from . import damage, layers
from .catalogue import bind
from .memory import give_back
from .errors import NoStore, StoreBusy, StoreUnavailable, UsageError
from .federation import refuse_federation
from .terms import CATALOGUE_GRAPH, DEFAULT_BASE, KG, PREFIXES, SH, Triples, iri, literal, p

DEFAULT_STORE = ".kg/store"
STAGING_SUFFIX = "#staging"
# a new source at least this big is written with bulk_load (about twice the transactional load's
# speed, measured in BENCHMARKS.md); below it the one-transaction load costs less than bulk_load's new
# files. 5,000 rather than 20,000 took a 10k-assertion load from 8.7 s to 7.7 s (1,000: 7.8 s)
BULK_TRIPLES = 5_000
# every bulk_load adds files of its own, read by every query until compacted; compacting rewrites the
# whole store (51 s at 1M assertions, for a day's file that loads in 8 s) and one uncompacted file
# costs a large store nothing measurable, so compact once what was bulk-loaded since the last
# compaction reaches this share of the store (a first load always does; BENCHMARKS.md)
COMPACT_SHARE = 0.25
# a store of fewer quads is copied into memory for `kg validate` (Store.scratch_copy), a larger one on
# disk: at most about 70 MB held for the copy, whatever the store's size (the examples' 49,536 quads
# took validate's peak from 68 to 104 MB)
SCRATCH_IN_MEMORY = 100_000
SPARQL_PREFIXES = "".join(f"PREFIX {k}: <{v}>\n" for k, v in PREFIXES.items())


@dataclass(frozen=True)
class Where:
    """Which store a command or `kg.open()` uses, and what chose it (for messages and df.attrs)."""

    path: str | None  # an embedded store's folder, or ":memory:"
    endpoint: str | None  # a SPARQL 1.1 server's base URL
    chosen_by: str  # "--store", "--endpoint", "KG_ENDPOINT", "KG_STORE", "kg.toml", "found", "default"

    def __str__(self) -> str:
        return self.endpoint or self.path or ""

    def exists(self) -> bool:
        return bool(self.endpoint) or self.path == ":memory:" or Path(self.path).exists()

    def missing(self) -> str:
        """Why there is no store here and how to get one."""
        if self.chosen_by in ("default", "found"):
            how = (f"no --store, KG_ENDPOINT, KG_STORE or kg.toml store was given, and no {DEFAULT_STORE} "
                   f"was found in {Path.cwd()} or a folder above it")
        else:
            how = f"{self.chosen_by} names it"
        return (f"there is no store at {self.path} ({how}): load something first (kg load PATH), "
                f"or point --store / KG_STORE at an existing store")


def locate(store: str | os.PathLike | None = None, endpoint: str | None = None, *,
           endpoints: bool = True) -> Where:
    """The one store resolution, for the CLI and `kg.open()` alike: `store` (--store), `endpoint`
    (--endpoint), KG_ENDPOINT, KG_STORE, the project's kg.toml `store`, then .kg/store found from the
    working directory upward (as git finds .git). None found: .kg/store beside kg.toml, else in the
    working directory — created only by a command that writes."""
    from . import paths
    if store and endpoint:
        raise UsageError("give --store or --endpoint, not both")
    if store:
        return Where(str(store), None, "--store")
    if endpoint:
        return Where(None, endpoint, "--endpoint")
    if endpoints and os.environ.get("KG_ENDPOINT"):
        return Where(None, os.environ["KG_ENDPOINT"], "KG_ENDPOINT")
    if os.environ.get("KG_STORE"):
        return Where(os.environ["KG_STORE"], None, "KG_STORE")
    setting = paths.config().get("store")
    if setting:
        project = paths.project()
        return Where(str((project / setting) if project else Path(setting)), None, "kg.toml")
    found = paths.find_upward(DEFAULT_STORE)
    if found is not None:
        return Where(str(found), None, "found")
    return Where(str((paths.project() or Path.cwd()) / DEFAULT_STORE), None, "default")


def resolve_store_path(path: str | os.PathLike | None = None) -> str:
    """The embedded store's folder as `locate` finds it, endpoints aside; ':memory:' for one in memory."""
    return locate(path, endpoints=False).path


@dataclass
class SourceRecord:
    graph: str
    path: str
    kind: str
    sha256: str
    loader: str
    triples: int
    pins: list[str] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)  # focus, path, message, severity, shape, value
    loaded_at: str = ""
    validated: bool = True
    revision_of: str = ""  # the latest earlier version of this source kept as a kg:SourceRevision (kg/revisions.py)

    def ntriples(self) -> str:
        t = Triples()
        g = iri(self.graph)
        t.add(g, p("rdf:type"), p("kg:Source"))
        t.add(g, p("kg:path"), literal(self.path))
        t.add(g, p("kg:kind"), literal(self.kind))
        t.add(g, p("kg:sha256"), literal(self.sha256))
        t.add(g, p("kg:loader"), literal(self.loader))
        t.add(g, p("void:triples"), literal(self.triples))
        t.add(g, p("prov:generatedAtTime"), literal(self.loaded_at, "http://www.w3.org/2001/XMLSchema#dateTime"))
        for pin in self.pins:
            t.add(g, p("kg:pins"), literal(pin))
        if self.revision_of:
            t.add(g, p("prov:wasRevisionOf"), iri(self.revision_of))
        if not self.validated:  # loaded with --no-validate: no report claims it conforms
            t.add(g, p("kg:validated"), literal(False))
            return t.text()
        report = iri(self.graph + "#report")
        t.add(g, p("kg:validationReport"), report)
        t.add(report, p("rdf:type"), p("sh:ValidationReport"))
        t.add(report, p("sh:conforms"), literal(not self.warnings))  # SHACL: any result, even a warning
        for n, w in enumerate(self.warnings, start=1):
            r = iri(f"{self.graph}#result-{n}")
            t.add(report, p("sh:result"), r)
            t.add(r, p("rdf:type"), p("sh:ValidationResult"))
            t.add(r, p("sh:resultSeverity"), iri(w["severity"]))
            t.add(r, p("sh:resultMessage"), literal(w["message"]))
            if w.get("focus"):
                t.add(r, p("sh:focusNode"), w["focus"])
            for key, prop in (("path", "sh:resultPath"), ("shape", "sh:sourceShape")):
                if w.get(key):
                    t.add(r, p(prop), iri(w[key]))
            if w.get("value"):
                t.add(r, p("sh:value"), w["value"])
        return t.text()


class BaseStore:
    """What every store offers, embedded or remote: the catalogue graph (the sources' records) read
    and written in plain SPARQL. A subclass supplies select/ask/update and how a source's graph is
    put in place. (Named for what it is, a store's base: "catalogue" is the catalogue of queries,
    kg/catalogue.py, and the graph of source records.)"""

    path: str = ""

    def select(self, query: str, **bindings) -> list[tuple]:
        raise NotImplementedError

    def ask(self, query: str, **bindings) -> bool:
        raise NotImplementedError

    def source_sha256(self, graph: str) -> str | None:
        rows = self.select(f"SELECT ?sha WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?g kg:sha256 ?sha }} }}",
                           g=ox.NamedNode(graph))
        return rows[0][0].value if rows else None

    def sources(self) -> list[SourceRecord]:
        rows = self.select(f"""
            SELECT ?g ?path ?kind ?sha ?loader ?triples ?at (GROUP_CONCAT(DISTINCT ?pin; separator=" ") AS ?pins)
            WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{
                ?g a kg:Source ; kg:path ?path ; kg:kind ?kind ; kg:sha256 ?sha ; kg:loader ?loader ;
                   void:triples ?triples ; prov:generatedAtTime ?at .
                OPTIONAL {{ ?g kg:pins ?pin }} }} }}
            GROUP BY ?g ?path ?kind ?sha ?loader ?triples ?at ORDER BY ?kind ?path""")
        warnings = self.warnings()
        return [SourceRecord(graph=g.value, path=path.value, kind=kind.value, sha256=sha.value,
                             loader=loader.value, triples=int(triples.value),
                             pins=pins.value.split() if pins and pins.value else [],
                             warnings=warnings.get(g.value, []), loaded_at=at.value)
                for g, path, kind, sha, loader, triples, at, pins in rows]

    def warnings(self) -> dict[str, list[dict]]:
        rows = self.select(f"""
            SELECT ?g ?focus ?path ?message ?severity ?shape ?value WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{
                ?g kg:validationReport/sh:result ?r . ?r sh:resultMessage ?message ; sh:resultSeverity ?severity .
                OPTIONAL {{ ?r sh:focusNode ?focus }} OPTIONAL {{ ?r sh:resultPath ?path }}
                OPTIONAL {{ ?r sh:sourceShape ?shape }} OPTIONAL {{ ?r sh:value ?value }} }} }}
            ORDER BY ?g ?message ?focus""")
        out: dict[str, list[dict]] = {}
        for g, focus, path, message, severity, shape, value in rows:
            out.setdefault(g.value, []).append({
                "focus": str(focus) if focus else None, "path": path.value if path else None,
                "message": message.value, "severity": severity.value,
                "shape": shape.value if shape else None, "value": str(value) if value else None})
        return out

    def derived(self) -> list[dict]:
        """The derived layers: each one's name, graph, rule file, nodes and triples, and whether it
        was made with the rules kg has now."""
        current = self.setting("layerVersion") == layers.version()
        found = []
        for layer in layers.load():
            rows = self.select(f"SELECT (COUNT(*) AS ?triples) (COUNT(DISTINCT ?s) AS ?nodes) "
                               f"WHERE {{ GRAPH <{layer.graph}> {{ ?s ?p ?o }} }}")
            triples, nodes = (int(v.value) if v is not None else 0 for v in rows[0])
            found.append({"name": layer.name, "graph": layer.graph, "rules": str(layer.path),
                          "nodes": nodes, "triples": triples, "current": current})
        return found

    def setting(self, name: str) -> str | None:
        """A store-wide value kg keeps on the catalogue graph's own node (kg:mintingBase, ...)."""
        rows = self.select(f"SELECT ?v WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ <{CATALOGUE_GRAPH}> kg:{name} ?v }} }}")
        return rows[0][0].value if rows else None

    def set_setting(self, name: str, value) -> None:
        node, prop = f"<{CATALOGUE_GRAPH}>", f"<{KG}{name}>"
        self.update(f"DELETE WHERE {{ GRAPH {node} {{ {node} {prop} ?v }} }} ;\n"
                    f"INSERT DATA {{ GRAPH {node} {{ {node} {prop} {literal(value)} }} }}")

    def minting_base(self) -> str:
        return self.setting("mintingBase") or DEFAULT_BASE

    def check_minting_base(self, base: str) -> None:
        """A later load must use the base the first one fixed, or ids would mint twice."""
        current = self.setting("mintingBase")
        if current is not None and current != base:
            from .errors import UsageError
            raise UsageError(f"this store mints IRIs under {current}, not {base}; "
                             f"use that base, or `kg reset` to start again")

    def fix_minting_base(self, base: str) -> None:
        """Records the base with the first file written (not before: a first load whose files were
        all rejected must leave no base behind, or a mistyped --base would be fixed for good)."""
        self.check_minting_base(base)
        if self.setting("mintingBase") is None:
            self.set_setting("mintingBase", base)

    def update(self, text: str) -> None:
        raise NotImplementedError

    def drop_source(self, graph: str) -> bool:
        """A source withdrawn (kg/withdrawals.py): its graph, its record and the verdicts made of it
        go in one update, which keeps what it withdrew readable in the catalogue graph."""
        if self.source_sha256(graph) is None:
            return False
        self.update(layers.around(f"DROP SILENT GRAPH <{graph}> ;\n" + _withdraw(self, graph), before=[graph]))
        return True

    def erase_source(self, graph: str) -> list[str]:
        """kg erase: the source withdrawn if it is loaded, then the words its revisions and withdrawals
        kept removed for good, leaving a kg:Erasure (kg/withdrawals.py). The digests erased."""
        from . import withdrawals
        if self.source_sha256(graph) is not None:
            self.drop_source(graph)
        update, digests = withdrawals.erasure(self, graph, datetime.now(timezone.utc).isoformat(timespec="seconds"))
        if update:
            self.update(update)
        return digests

    def graph_ntriples(self, graph: str) -> str:
        return "".join(f"{s} {pr} {o} .\n" for s, pr, o in
                       self.select("SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }", g=ox.NamedNode(graph)))

    def flush(self) -> None:
        pass

    # ── derived layers (kg/layers.py) ──
    def rebuild_layers(self) -> None:
        """Makes every derived layer anew from the sources (a store of an older kg, or data put in
        by hand, as the golden tests do): every source's keys marked, then derived a chunk at a time."""
        self.update(layers.rebuilding())
        self.derive_touched()

    def derive_touched(self, change: str = "") -> None:
        """Derives every touched key, a chunk per transaction, then `change` with the last one. The
        derive steps run at least once even when no key is touched: a rule over sources of any kind
        (the plans layer's pins) is recomputed on every write."""
        self.update(layers.derive_chunk())
        while self.ask(layers.touched_query()):
            self.update(layers.derive_chunk())
        self.update(layers.finish(change))

    def layers_current(self) -> bool:
        scratch = " ".join(f"<{g}>" for g in layers.scratch())
        return (self.setting("layerVersion") == layers.version()
                and not self.ask(f"ASK {{ VALUES ?g {{ {scratch} }} GRAPH ?g {{ ?s ?p ?o }} }}"))

    def _has_assertions(self) -> bool:
        return self.ask("ASK { GRAPH ?g { ?a earl:result ?r } }")

    def _layers_stale(self) -> bool:
        if self.layers_current():
            return False
        return self.setting("layerVersion") is not None or self._has_assertions()

    def ensure_layers(self) -> bool:
        """Rebuilds the derived layers when they were made with other rules (or a write was cut short
        between its steps, which only a remote store can show); True when it did, with a notice."""
        if not self._layers_stale():
            return False
        started = time.monotonic()
        # the layers read the scheme of verdict statuses from the store's vocabulary: brought up to date first
        from .ingest import ensure_vocabularies
        ensure_vocabularies(self)
        self.rebuild_layers()
        sys.stderr.write(f"kg: the derived layers of {self.path} were made by another version of kg (or none): "
                         f"rebuilt from its sources in {time.monotonic() - started:.1f} s\n")
        return True


class Store(BaseStore):
    """The embedded store. `Store(":memory:")` for tests, `Store(path)` on disk."""

    # queries a report runs at once: Oxigraph evaluates a query outside Python's lock, so each core
    # answers one (two sorted scans of 100k assertions: 15.0 s one after the other, 7.9 s on two threads)
    concurrent_queries = max(2, min(4, os.cpu_count() or 1))

    def __init__(self, path: str | os.PathLike | None = None, *, read_only: bool = False):
        self.path = resolve_store_path(path)
        # a load of many files writes each new small one with its keys marked, and derives them
        # together (ingest.load): `defer_derivation` on, `_deferred` files written since the last derive
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

    # ── reading ──
    def update(self, text: str) -> None:
        self.ox.update(text)

    def select(self, query: str, **bindings) -> list[tuple]:
        """Rows of a SELECT as tuples of pyoxigraph terms (None when unbound); bindings are RDF terms."""
        result = self.ox.query(SPARQL_PREFIXES + bind(query, bindings), **self._graphs(union=False))
        names = [v.value for v in result.variables]
        return [tuple(row[n] for n in names) for row in result]

    def ask(self, query: str, **bindings) -> bool:
        return bool(self.ox.query(SPARQL_PREFIXES + bind(query, bindings), **self._graphs(union=False)))

    def _graphs(self, union: bool) -> dict:
        """The dataset a query reads: every graph, or, for a reader of a store with a load in
        progress, the graphs the catalogue records (kg's own graphs among them)."""
        if self._dataset is None:
            return {"use_default_graph_as_union": union}
        return {"default_graph": self._dataset, "named_graphs": self._dataset} if union \
            else {"named_graphs": self._dataset}

    def select_values(self, text: str) -> tuple[list[str], list[tuple]]:
        """A catalogue or ad-hoc SELECT over the union of all graphs: (variables, rows of Python values).

        The engine writes the answer as SPARQL TSV to a temporary file, read back line by line: it
        evaluates and writes without taking Python's lock, where reading each row as terms takes the
        lock once a row and waits for it while pages render on another thread (`verdicts` at 100k
        assertions: 7.5 s to evaluate, 4.5 s more to read as terms, decode and sort). Each distinct
        value is decoded once (catalogue.tsv_value)."""
        from .catalogue import remembered, tsv_value
        from .ordering import sort, split_order_by
        refuse_federation(text)
        split = split_order_by(text)
        value = remembered(tsv_value)

        def values(fields):
            return tuple([value(f) for f in fields])
        with tempfile.TemporaryDirectory(prefix="kg-answer-") as folder:
            names, rows = self._tsv_answer(split[0] if split else text, Path(folder) / "answer.tsv")
            if split:  # the engine's sort decodes terms at every comparison: kg/ordering.py sorts them once decoded
                ordered = sort(names, rows, split[1], values, tsv=True)
                if ordered is not None:
                    return names, ordered
                rows.close()  # values whose order kg does not reproduce: the engine sorts, in a file of its own
                names, rows = self._tsv_answer(text, Path(folder) / "engine-ordered.tsv")
            return names, [values(fields) for fields in rows]

    @contextmanager
    def stream_values(self, text: str):
        """As select_values, but (variables, an iterator of rows) read from a file as they are used, so
        that an answer of any size is never held: the engine's TSV answer, ordered on disk by
        kg/ordering.py (sort_on_disk) when the query ends with an ORDER BY kg orders, else by the engine."""
        from .catalogue import remembered, tsv_value
        from .ordering import sort_on_disk, split_order_by
        split = split_order_by(text)
        value = remembered(tsv_value)
        with tempfile.TemporaryDirectory(prefix="kg-answer-") as folder:
            names, rows = self._tsv_answer(split[0] if split else text, Path(folder) / "answer.tsv")
            ordered = sort_on_disk(names, rows, split[1], folder) if split else rows
            if ordered is None:  # values whose order kg does not reproduce: the engine sorts
                rows.close()
                names, ordered = self._tsv_answer(text, Path(folder) / "engine-ordered.tsv")
            try:
                yield names, (tuple([value(f) for f in fields]) for fields in ordered)
            finally:
                ordered.close()

    def _tsv_answer(self, text: str, path: Path):
        """(variables, an iterator of each row's values as TSV text) of a SELECT, written to `path`."""
        result = self.ox.query(text, **self._graphs(union=True))
        names = [v.value for v in result.variables]
        result.serialize(str(path), format=ox.QueryResultsFormat.TSV)

        def rows():
            with open(path, encoding="utf-8", newline="\n") as answer:
                answer.readline()  # the variables, known
                if not names:  # a row binds nothing: an empty line each
                    yield from (() for _ in answer)
                    return
                for line in answer:
                    yield line[:-1].split("\t")
        return names, rows()

    def dump(self) -> bytes:
        """Every quad, sorted, as N-Quads: two stores hold the same data when their dumps are equal."""
        text = self.ox.dump(format=ox.RdfFormat.N_QUADS).decode("utf-8")
        return "".join(sorted(text.splitlines(keepends=True))).encode("utf-8")

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

    def _holds_fewer_quads(self, limit: int) -> bool:
        """At a cost bounded by `limit`, not by the store (len() reads every quad: 8 s at 1M assertions)."""
        [(n,)] = self.ox.query(f"SELECT (COUNT(*) AS ?n) {{ SELECT * {{ GRAPH ?g {{ ?s ?p ?o }} }} LIMIT {limit} }}")
        return int(n.value) < limit

    def __len__(self) -> int:
        return len(self.ox)

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
                # one of many small files: its triples, its record and its keys marked in one update;
                # its verdicts derived with the others' (derive_deferred). Per file, the layers' upkeep
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

    def derive_deferred(self) -> None:
        """The keys the files written since the last call marked (`defer_derivation`), derived
        together a chunk at a time, then the write buffers flushed: until then readers find the layers
        not current and wait, as they wait for a bulk load; a load cut short leaves the marks, and the
        next writer rebuilds the layers."""
        if self._deferred:
            self._derive_marked_in_bulk("")
            self._deferred = 0
            self.ox.flush()

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

    def graph_exists(self, graph: str) -> bool:
        return self.ox.contains_named_graph(ox.NamedNode(graph))

    def reset(self) -> None:
        self.ox.clear()

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


def discard_scratch(copy: Store | None, folder: Path | None) -> None:
    """A scratch copy (`scratch_copy`) closed and its folder, if it has one, removed: Oxigraph closes
    a store when its object goes, which must happen before its files do."""
    if copy is not None:
        del copy.ox
        gc.collect()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _reached(step: str) -> None:
    """A step of a replacement done (Store.swap_staged): nothing here; the kill tests stop the
    process at each one (tests/test_store.py)."""


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


READ_ATTEMPTS = 5


def _compacted_away(err: Exception) -> bool:
    return getattr(err, "errno", None) == errno.ENOENT or "No such file or directory" in str(err)


def writer_pid(path: str) -> int | None:
    """The process holding the store's RocksDB lock (a kg load, say), from /proc/locks: the LOCK file
    is never opened here, since closing any descriptor of it would release a lock this process holds."""
    try:
        inode = os.stat(Path(path) / "LOCK").st_ino
        table = Path("/proc/locks").read_text()
    except OSError:
        return None
    for line in table.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[1] != "->" and parts[5].rsplit(":", 1)[-1] == str(inode):
            try:
                pid = int(parts[4])
            except ValueError:
                continue
            return pid if pid != os.getpid() else None
    return None


def changed_under_reader(path: str, err: Exception) -> str:
    """What a reader says when a writer's compaction took away, again and again, the files it read."""
    pid = writer_pid(path)
    who = f"a load running in process {pid}" if pid else "another kg process writing it"
    return (f"the store {path} changed while this command read it ({who} compacted its files: "
            f"{' '.join(str(err).split())}); nothing was answered from it — run the command again, or once "
            f"the load has finished")


def _open_read_only(path: str, attempts: int = 5) -> ox.Store:
    """A read-only view of the store. A writer at work may compact it while the view opens, deleting a
    file the view was about to read ("No such file or directory" under "Corruption"): that is a race,
    not damage, and another attempt a moment later finds the new files."""
    for attempt in range(attempts):
        try:
            return ox.Store.read_only(path)
        except (OSError, RuntimeError) as err:
            if "No such file or directory" not in str(err) or attempt == attempts - 1:
                raise
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


def wait_seconds() -> float:
    """KG_WAIT: how long a reader waits for a load in progress (600 s by default); a value that is not
    a number of seconds is refused, not ignored."""
    text = os.environ.get("KG_WAIT", "600")
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise UsageError(f"KG_WAIT={text!r} is not a number of seconds: set it to how long a command may wait "
                         f"for a load in progress (e.g. KG_WAIT=600), or unset it")
    return seconds


def disk_full(err: Exception) -> bool:
    return getattr(err, "errno", None) == errno.ENOSPC or "No space left on device" in str(err)


def cannot_write(path: str, err: Exception) -> str:
    """Why a write to the store failed, for a user: a full disk, a read-only one, or the engine's words."""
    text = " ".join(str(err).split())
    if disk_full(err):
        return (f"the disk under the store {path} is full ({text}): the write was not made and the store is as "
                f"it was; free space on that disk (or use another --store), then load again")
    if getattr(err, "errno", None) == errno.EROFS or "Read-only file system" in text:
        return f"the store {path} is on a read-only file system ({text}); use another --store"
    return f"the store {path} refused the write ({text}); the store is as it was before this file"


def _cannot_open(path: str, err: Exception) -> str:
    """What is wrong with a store folder Oxigraph would not open, and what to do about it."""
    text = " ".join(str(err).split())
    if disk_full(err):  # opening writes (a log, a compaction): a full disk is not a damaged store
        return (f"the store {path} cannot be opened: the disk under it is full ({text}); the store is not "
                f"damaged — free space on that disk, then run again")
    if "Permission denied" in text:
        return (f"the store {path} cannot be opened for writing: permission denied ({text}); give this user "
                f"write permission on the folder, or use another --store")
    if "Not a directory" in text or "not a directory" in text or isinstance(err, (FileExistsError, NotADirectoryError)):
        return (f"{path} is not a store folder: a file is in its place ({text}); point --store or KG_STORE "
                f"at a folder, or move the file away")
    return (f"the store {path} is damaged and cannot be opened ({text}); restore it from a backup, or move "
            f"it aside and load your files again into a new one")


def _in_graph(ntriples: str, graph: str) -> str:
    """N-Triples lines as N-Quads in a graph (N-Triples escapes newlines, so " .\n" ends a line)."""
    return ntriples.replace(" .\n", f" <{graph}> .\n")


def _withdraw(store: BaseStore, graph: str) -> str:
    """The update that takes a source's record out and keeps its withdrawal (kg/withdrawals.py)."""
    from . import withdrawals
    kept = withdrawals.record(store, graph, datetime.now(timezone.utc).isoformat(timespec="seconds"))
    insert = f"INSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{\n{kept}}} }} ;\n" if kept else ""
    return insert + _delete_record(graph)


def _delete_record(graph: str) -> str:
    return (f"DELETE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?s ?p ?o }} }} WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?s ?p ?o "
            f'FILTER(?s = <{graph}> || STRSTARTS(STR(?s), "{graph}#")) }} }}')
