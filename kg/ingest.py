"""Loading files into the store: find them, recognise their kind, project, validate, write.

A file is loaded whole or not at all: every check runs before anything is written, and the
write itself is one transaction. A rejected file leaves the store as it was and does not stop
the other files of the same command."""
from __future__ import annotations

import errno
import hashlib
import os
import stat
import re
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from . import paths, revisions, validation, withdrawals
from .errors import Problem, Rejected, StoreUnavailable, UsageError
from .loading import Context, LoaderSpec, Source, registry
from .store import STAGING_SUFFIX, SourceRecord, Store, cannot_write, disk_full
from .terms import DEFAULT_BASE


@dataclass
class Outcome:
    path: str
    kind: str | None
    status: str  # loaded | unchanged | rejected (bad input) | failed (the store refused the write) | valid
    #              | skipped (nothing to load there, said why)
    triples: int = 0
    warnings: list[dict] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def discover(targets: Iterable[str | Path], kind: str | None = None
             ) -> tuple[list[tuple[Path, LoaderSpec | None]], list[Outcome]]:
    """Files to load with the loader of each, in dependency order (sets before their gold, gold
    before results), and what could not be considered, each as a rejected (or skipped) outcome
    naming why. Folders are walked, symbolic links to folders followed once; a file in a folder
    that no loader reads is passed over, a file named explicitly is not. Hidden files are left out.
    One unreadable file or folder never stops the others."""
    loaders = registry()
    if kind and kind not in loaders:
        raise UsageError(f"unknown kind {kind!r}; kinds: {', '.join(sorted(loaders))}")
    found: list[tuple[Path, LoaderSpec | None]] = []
    refused: list[Outcome] = []

    def consider(path: Path, explicit: bool) -> None:
        problem = _unusable(path)
        if problem is not None:
            refused.append(Outcome(_printable(path), None, "rejected", problems=[problem]))
            return
        try:
            spec = loaders[kind] if kind else recognise(path)
        except OSError as err:
            refused.append(_unreadable(path, err))
            return
        if spec is not None or explicit:
            found.append((path, spec))

    for target in targets:
        target = Path(target)
        if not target.exists() and not target.is_symlink():
            raise UsageError(f"{target}: no such file or folder")
        if target.is_dir():
            for path in _walk(target, refused):
                consider(path, explicit=False)
        else:
            consider(target, explicit=True)
    found.sort(key=lambda item: (item[1].order if item[1] else 0, str(item[0])))
    return found, refused


def _walk(root: Path, refused: list[Outcome]) -> Iterator[Path]:
    """Every file under root but hidden ones, in a stable order. A folder that cannot be listed is
    a rejected outcome; a link to a folder already walked (a loop, or the same files twice) is a
    skipped one."""
    seen: dict[str, Path] = {}

    def failed(err: OSError) -> None:
        refused.append(_unreadable(Path(err.filename), err, "folder"))

    for folder, dirs, files in os.walk(root, onerror=failed, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            dirs[:] = []
            refused.append(Outcome(_printable(Path(folder)), None, "skipped", problems=[Problem(
                _printable(Path(folder)), "", f"a link to {_printable(seen[real])}, which this command "
                "already walks: its files are loaded once")]))
            continue
        seen[real] = Path(folder)
        # real folders before links to folders, so a file is known by its own path where it can be
        dirs[:] = sorted((d for d in dirs if not d.startswith(".")),
                         key=lambda d: (os.path.islink(os.path.join(folder, d)), d))
        for name in sorted(files):
            if not name.startswith("."):
                yield Path(folder) / name


def _unusable(path: Path) -> Problem | None:
    """Why a path cannot be loaded before it is even opened: a name that is not UTF-8 (its graph
    IRI cannot be written), a symbolic link to nothing."""
    name = _printable(path)
    if name != str(path):
        return Problem(name, "", "the file name is not UTF-8, so it cannot name the file's graph",
                       "rename the file (or its folder) with a UTF-8 name")
    try:
        mode = path.stat().st_mode
    except OSError as err:
        if err.errno == errno.ELOOP:
            return Problem(name, "", f"a symbolic link in a loop (it leads, link by link, back to itself: "
                           f"{os.readlink(path) if path.is_symlink() else err.strerror})",
                           "point the link at a file, or remove it")
        if path.is_symlink():
            return Problem(name, "", f"a symbolic link to {os.readlink(path)}, which does not exist",
                           "restore its target, or remove the link")
        return None  # unreadable: said when it is read
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        # reading a FIFO blocks until something writes it, and a socket or a device is no file of evidence
        what = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
        return Problem(name, "", f"{what}, not a regular file: kg loads files whose bytes it can read whole "
                       f"and digest", "write the data to a regular file and load that")
    return None


def _unreadable(path: Path, err: OSError, what: str = "file") -> Outcome:
    name = _printable(path)
    return Outcome(name, None, "rejected", problems=[Problem(
        name, "", f"cannot read the {what}: {err.strerror or err}",
        f"give kg read permission on it (chmod), or move it out of the way")])


def _printable(path: Path) -> str:
    """The path as text; bytes of a non-UTF-8 name shown as \\xNN escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def recognise(path: Path) -> LoaderSpec | None:
    """The first loader (by order of specificity) whose name patterns match and whose sniff, if it
    has one, accepts the file's first bytes. OSError when the file must be read and cannot be."""
    candidates = [s for s in registry().values() if s.matches_name(path)]
    if not candidates:
        return None
    head = None
    for spec in sorted(candidates, key=lambda s: (s.sniff is None, s.order)):
        if spec.sniff is None:
            return spec
        if head is None:
            with open(path, "rb") as f:
                head = f.read(65536)
        if spec.sniff(path, head):
            return spec
    return None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def ensure_vocabularies(store: Store) -> None:
    """The vocabularies kg ships and the project's (paths.vocabularies), each in its own graph,
    reloaded only when they change."""
    for ttl in paths.vocabularies():
        graph = f"urn:kg:vocab:{ttl.stem}"
        data = ttl.read_bytes()
        sha = sha256_hex(data)
        if store.source_sha256(graph) == sha:
            continue
        import pyoxigraph as ox
        text = ox.serialize(ox.parse(data, format=ox.RdfFormat.TURTLE), format=ox.RdfFormat.N_TRIPLES).decode()
        loader = "kg/vocab" if ttl.parent == paths.VOCAB else "vocab"  # kg's own, or the project's
        record = SourceRecord(graph=graph, path=str(ttl), kind="vocabulary", sha256=sha, loader=loader,
                              triples=text.count("\n"))
        store.replace_source(record, text)


def load(store: Store, targets: Iterable[str | Path], *, kind: str | None = None, base: str | None = None,
         write: bool = True, force: bool = False, validate: bool = True, revise: bool = False,
         progress: Callable[[Iterable], Iterable] | None = None, options: dict | None = None) -> list[Outcome]:
    """Loads (or, with write=False, only checks) every file; returns one outcome per file. A file
    loaded before whose items changed or disappeared is rejected (evidence is append-only) unless
    `revise`, which keeps the earlier version as a revision (kg/revisions.py).
    `options` (kg load --system, --replay-set, --grader-kind, --threshold) are facts the files do not
    state; an option that no loader of the files given reads is a usage error, never ignored."""
    files, refused = discover(targets, kind)
    options = {k: v for k, v in (options or {}).items() if v not in (None, {}, (), [])}
    unread = sorted(set(options) - {o for _, spec in files if spec for o in spec.options})
    if unread:
        readers = sorted(s.kind for s in registry().values() if set(s.options) & set(unread))
        raise UsageError(f"no file given is read by a loader that takes {', '.join('--' + o.replace('_', '-') for o in unread)}"
                         f" (loaders that do: {', '.join(readers) or 'none'})")
    base = base or store.minting_base() or DEFAULT_BASE
    check_base(base)
    if write:
        store.check_minting_base(base)  # refused before any work; recorded with the first file written
        try:
            ensure_vocabularies(store)
        except OSError as err:
            raise StoreUnavailable(cannot_write(store.path, err)) from None
    outcomes = list(refused)
    # many files: each new small one written and flagged; the flagged files' keys marked and derived
    # DEFER_FILES files at a time (Store.derive_deferred), not one store-wide derive step per file
    defer = write and isinstance(store, Store) and len(files) > 1
    store.defer_derivation = defer
    store.checked = {}

    def derive() -> None:
        try:
            store.derive_deferred()
        except OSError as err:  # a full disk, say: the files are in place, their verdicts are not
            store.defer_derivation = False  # the files left are written one by one, each failing alone
            outcomes.append(Outcome(str(store.path), None, "failed", problems=[Problem(
                str(store.path), "", f"the verdicts of the files loaded last could not be derived: "
                f"{cannot_write(store.path, err)}", "the next kg load on this store derives them "
                "(readers wait until then)")]))
    try:
        for path, spec in (progress(files) if progress else files):
            outcomes.append(load_one(store, path, spec, base=base, write=write, force=force, validate=validate,
                                     revise=revise, options=options))
            if store.defer_derivation and store._deferred >= DEFER_FILES:
                derive()
        if store.defer_derivation:
            derive()
    finally:
        store.checked = None
        if isinstance(store, Store):
            store.defer_derivation = False
    if write:
        try:
            store.flush()
        except OSError as err:
            # the files above are committed (in the engine's log, replayed when the store next opens);
            # only moving them into its tables failed: said beside them, not instead of them
            why = "the disk under it is full" if disk_full(err) else "the engine refused"
            outcomes.append(Outcome(str(store.path), None, "failed", problems=[Problem(
                str(store.path), "", f"the store could not write its tables to disk: {why} "
                f"({' '.join(str(err).split())}); the files listed as loaded are committed to its log",
                "free space on that disk; the store replays its log when it next opens (`kg stats` shows the files)")]))
    return outcomes


# new small files written between two markings and derivations of their keys: readers wait while files
# are flagged and not yet derived (as during a bulk load), so this bounds their wait too (500 one-line
# files in ~15 s). 500 rather than 100 took 5,086 one-line files from 169 s to 144 s (BENCHMARKS.md)
DEFER_FILES = 500


def check_arguments(targets: Iterable[str | Path], base: str | None) -> None:
    """What a command can refuse before it opens (and so creates) a store: a path that is not
    there, a base that is no IRI."""
    for target in map(Path, targets):
        if not target.exists() and not target.is_symlink():
            raise UsageError(f"{target}: no such file or folder")
    if base:
        check_base(base)


def check_base(base: str) -> None:
    """The minting base: an absolute IRI that a plain id can be appended to."""
    import pyoxigraph as ox
    try:
        ox.NamedNode(base)
        absolute = bool(re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", base))
    except ValueError as err:
        raise UsageError(f"the base {base!r} is not an IRI ({err}); give one like {DEFAULT_BASE}") from None
    if not absolute or not base.endswith(("/", "#", ":")):
        raise UsageError(f"the base {base!r} must be an absolute IRI ending in /, # or : "
                         f"(ids are appended to it); give one like {DEFAULT_BASE}")


def load_one(store: Store, path: Path, spec: LoaderSpec | None, *, base: str, write: bool = True,
             force: bool = False, validate: bool = True, revise: bool = False, options: dict | None = None) -> Outcome:
    """One file, loaded whole or not at all. A store that cannot be reached fails the file without
    claiming it (status "failed"); loading it again later finishes the job."""
    try:
        return _load_one(store, path, spec, base=base, write=write, force=force, validate=validate,
                         revise=revise, options=options)
    except MemoryError as err:
        if "buffer maximal size" not in str(err):
            raise
        # Oxigraph's parsers hold one term in at most 16 MiB: the file is refused, with the place
        return Outcome(str(path), spec.kind if spec else None, "rejected", problems=[_term_too_long(path)])
    except StoreUnavailable as err:
        return Outcome(str(path), spec.kind if spec else None, "failed", problems=[Problem(
            str(path), "", f"could not be stored: {err}", "the catalogue does not list it; load it again")])


TERM_LIMIT = 16 << 20  # bytes: the longest term (an IRI, a literal) Oxigraph's parsers take


def _term_too_long(path: Path) -> Problem:
    """Where a value too long for the store is: the first line of the file longer than the limit."""
    place = ""
    try:
        with open(path, "rb") as f:
            for number, line in enumerate(f, start=1):
                if len(line) > TERM_LIMIT // 2:  # the value, escaped into N-Triples, may grow up to twice
                    place = f"line {number} ({len(line) / 1e6:.1f} MB)"
                    break
    except OSError:
        pass
    return Problem(str(path), place, f"a value longer than kg stores in one term ({TERM_LIMIT >> 20} MiB, the "
                                     f"RDF engine's limit on an IRI or a literal)",
                   "shorten it (an info or reason text, say), or keep it in a file of its own and give its "
                   "address instead")


def _load_one(store: Store, path: Path, spec: LoaderSpec | None, *, base: str, write: bool = True,
              force: bool = False, validate: bool = True, revise: bool = False,
              options: dict | None = None) -> Outcome:
    name = str(path)
    if spec is None:
        kinds = ", ".join(sorted(registry()))
        return Outcome(name, None, "rejected", problems=[Problem(
            name, "", "no loader recognises this file by its name or content",
            f"name it like {', '.join(p for s in registry().values() for p in s.patterns if p.count('.') > 1)} "
            f"or an RDF file, or give --kind (one of {kinds})")])
    try:
        sha = file_sha256(path)  # read a block at a time; the file is read again, checked against it, when parsed
        size = path.stat().st_size
    except OSError as err:
        return Outcome(name, spec.kind, "rejected", problems=[Problem(name, "", f"cannot read it: {err.strerror}")])
    source = Source(path, None, spec, sha256=sha)
    loaded_sha = store.source_sha256(source.uri)
    if write and not force and loaded_sha == sha:
        return Outcome(name, spec.kind, "unchanged")
    if loaded_sha is not None and store.checked:
        store.checked.clear()  # a replacement may take out what a kept answer rests on (BaseStore.checked)
    ctx = Context(store, source, base, {k: v for k, v in (options or {}).items() if k in spec.options})
    if write and STREAMING and isinstance(store, Store) and size >= STREAM_BYTES and (
            spec.parse == "jsonl" or _streams_rdf(source)):
        ctx.streamed = True
        return _load_streamed(store, source, spec, ctx, sha=sha, loaded_sha=loaded_sha, base=base,
                              validate=validate, revise=revise)
    try:
        projection = spec.read(source, ctx)
        text = projection.text()  # a streaming loader's problems are all known once its chunks are made
        ctx.raise_if_problems()
        results = validation.check(text, spec.shapes_path()) if spec.shapes and validate else []
        violations = [r for r in results if validation.is_violation(r)]
        if violations:
            raise Rejected([Problem(name, *validation.describe(r)) for r in violations])
        history, revision_of, loaded_at = _against_loaded(store, source, spec, sha, loaded_sha, revise,
                                                          projection.pins, lambda: text)
    except Rejected as rejected:
        return Outcome(name, spec.kind, "rejected", problems=rejected.problems)
    except StoreUnavailable:
        raise
    except MemoryError as err:
        return _too_long(path, spec, err)
    except Exception as err:  # a loader bug must not take the other files down with it
        return _loader_failed(path, spec, err)
    triples = text.count("\n")
    if write:
        record = _record(source, spec, sha, triples, projection.pins, results, validate, revision_of, loaded_at)
        try:
            store.fix_minting_base(base)
            store.replace_source(record, text, history)
        except OSError as err:  # the engine's I/O: a full or read-only disk under the store
            raise StoreUnavailable(cannot_write(store.path, err)) from None
    return Outcome(name, spec.kind, "loaded" if write else "valid", triples=triples, warnings=results)


STREAMING = True  # JSON Lines and big RDF files are written a chunk at a time (tests turn it off to compare)
# a JSON Lines file, or an RDF file of a syntax Oxigraph reads as it goes (kg.loading.STREAMED_RDF), at
# least this big is streamed (_load_streamed): about 2,000 assertions, 50,000 triples, well past
# BULK_TRIPLES, so its writes are the bulk writes the store would choose for it anyway; a smaller one
# costs less as one transaction than as bulk-written files
STREAM_BYTES = 1 << 20


def _streams_rdf(source: Source) -> bool:
    try:
        return source.streams_rdf()
    except Rejected:  # no RDF syntax for its extension: the whole-file path says so
        return False


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _load_streamed(store: Store, source: Source, spec: LoaderSpec, ctx: Context, *, sha: str,
                   loaded_sha: str | None, base: str, validate: bool, revise: bool) -> Outcome:
    """A JSON Lines or big RDF file loaded in bounded memory, still whole or not at all: its
    loader's chunks of triples are bulk-loaded one by one into a graph no catalogue record names —
    the source's own graph when it is new, its staging graph when it replaces one — which readers
    leave out and the next writer drops if this one is cut short. The file is then checked there:
    the loader's checks of the whole file (Projection.check_written), SHACL over that graph, and,
    for a changed file, the append-only rule against the graph loaded before. Only then is the
    record written (and, for a replacement, the staging graph swapped in), with the verdicts
    derived in bulk; any failure before drops what was written, leaving the store as it was."""
    name = str(source.path)
    graph = source.uri
    target = graph + STAGING_SUFFIX if (loaded_sha is not None or store.graph_exists(graph)) else graph
    written = False
    try:
        store.drop_graph(target)
        projection = spec.read(source, ctx)
        for chunk in projection.triples if projection.streams else [projection.text()]:
            if chunk and not ctx.problems:  # once a problem is found, the file is refused: nothing more is written
                if isinstance(chunk, str) and len(chunk) > TERM_LIMIT and max(map(len, chunk.split("\n"))) > TERM_LIMIT:
                    # Oxigraph's bulk loader takes what its other parsers refuse: held to their limit
                    return Outcome(name, spec.kind, "rejected", problems=[_term_too_long(source.path)])
                store.bulk_write(target, chunk)
                written = True
        if projection.check_written and written and not ctx.problems:
            projection.check_written(target)
        ctx.raise_if_problems()
        results = validation.check_graph(store.ox, target, spec.shapes_path()) if spec.shapes and validate else []
        violations = [r for r in results if validation.is_violation(r)]
        if violations:
            raise Rejected([Problem(name, *validation.describe(r)) for r in violations])
        # the append-only check compares the old and new items in memory: bounded by the file, not the store
        history, revision_of, loaded_at = _against_loaded(store, source, spec, sha, loaded_sha, revise,
                                                          projection.pins, lambda: store.graph_ntriples(target))
        triples = store.graph_size(target)
        record = _record(source, spec, sha, triples, projection.pins, results, validate, revision_of, loaded_at)
        store.fix_minting_base(base)
        if target == graph:
            store.record_bulk_loaded(record, history)
        else:
            store.swap_staged(record, history)
        written = False  # in place: nothing left to drop
    except Rejected as rejected:
        return Outcome(name, spec.kind, "rejected", problems=rejected.problems)
    except MemoryError as err:
        return _too_long(source.path, spec, err)
    except OSError as err:  # the engine's I/O: a full or read-only disk under the store
        raise StoreUnavailable(cannot_write(store.path, err)) from None
    except (StoreUnavailable, KeyboardInterrupt):
        raise
    except Exception as err:  # a loader bug must not take the other files down with it
        if _changed(source.path, sha):  # a later pass read lines the first one did not check
            return Outcome(name, spec.kind, "rejected", problems=[Problem(
                name, "", "the file changed while kg was loading it",
                "load it again once whatever writes it has finished")])
        return _loader_failed(source.path, spec, err)
    finally:
        if written:
            try:
                store.drop_graph(target)
            except OSError:
                pass  # an unrecorded graph: readers leave it out, the next writer drops it
    return Outcome(name, spec.kind, "loaded", triples=triples, warnings=results)


def _changed(path: Path, sha: str) -> bool:
    try:
        return file_sha256(path) != sha
    except OSError:
        return True


def _against_loaded(store: Store, source: Source, spec: LoaderSpec, sha: str, loaded_sha: str | None,
                    revise: bool, pins: list[str], new_text) -> tuple[str, str, str]:
    """A file against what was loaded from it before: (history, revision_of, loaded_at) for its
    record; a changed evidence file must only add (`_append_only`). `new_text()` gives its new
    N-Triples, asked for only when the file changed."""
    revision_of = _revision_of(store, source.uri) if loaded_sha else ""
    if loaded_sha is None and spec.kind not in revisions.EXEMPT_KINDS:
        withdrawn = withdrawals.latest(store, source.uri)
        if withdrawn is not None:
            return _after_withdrawal(store, source, withdrawn, sha, revise, pins, new_text)
    if loaded_sha in (None, sha) or spec.kind in revisions.EXEMPT_KINDS:
        return "", revision_of, ""
    return (_append_only(store, source, str(source.path), new_text(), sha, revise, pins)
            or ("", revision_of, ""))


def _after_withdrawal(store: Store, source: Source, withdrawn: withdrawals.Withdrawn, sha: str, revise: bool,
                      pins: list[str], new_text) -> tuple[str, str, str]:
    """A file loaded into the graph of a source `kg drop` withdrew: judged against the withdrawn version
    by the append-only rules, as if that version were still loaded (a drop is not a way round them);
    linked to the withdrawal, which records the digest that followed it and, with --revise, what changed."""
    from datetime import datetime, timezone
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    changes = [] if withdrawn.sha256 == sha else revisions.compare(
        revisions.parse_ntriples(withdrawn.content), revisions.parse_ntriples(new_text()))
    name = str(source.path)
    if changes and not revise:
        raise Rejected(revisions.problems(name, changes, withdrawn.loaded_at, withdrawn.sha256, withdrawn.withdrawn_at))
    if changes:
        refused = revisions.sealed(store, name, source.uri, revisions.parse_ntriples(withdrawn.content), changes,
                                   withdrawn.pins, pins)
        if refused:
            raise Rejected(refused)
    return withdrawals.reloaded(withdrawn.node, sha, now, changes), withdrawn.node, ""


def _record(source: Source, spec: LoaderSpec, sha: str, triples: int, pins, results, validate: bool,
            revision_of: str, loaded_at: str) -> SourceRecord:
    return SourceRecord(graph=source.uri, path=str(source.path.resolve()), kind=spec.kind, sha256=sha,
                        loader=f"loaders/{Path(spec.module.split('.')[-1]).name}.py", triples=triples,
                        pins=sorted(set(pins)), warnings=results, validated=validate,
                        revision_of=revision_of, loaded_at=loaded_at)


def _too_long(path: Path, spec: LoaderSpec, err: MemoryError) -> Outcome:
    if "buffer maximal size" not in str(err):
        raise err
    return Outcome(str(path), spec.kind, "rejected", problems=[_term_too_long(path)])


def _loader_failed(path: Path, spec: LoaderSpec, err: Exception) -> Outcome:
    detail = traceback.format_exception_only(type(err), err)[-1].strip()
    return Outcome(str(path), spec.kind, "rejected", problems=[Problem(
        str(path), "", f"the {spec.kind} loader failed: {detail}", "this is a bug in kg; please report it")])


def _revision_of(store: Store, graph: str) -> str:
    """The earlier version a loaded source's record links to (prov:wasRevisionOf), kept on reloads."""
    import pyoxigraph as ox
    rows = store.select("SELECT ?r WHERE { GRAPH <urn:kg:catalogue> { ?g prov:wasRevisionOf ?r } }",
                        g=ox.NamedNode(graph))
    return rows[0][0].value if rows else ""


def _append_only(store: Store, source: Source, name: str, text: str, sha: str, revise: bool,
                 pins: list[str]) -> tuple[str, str, str] | None:
    """A changed evidence file against what was loaded from it: None when it only adds; a Rejected
    naming every changed or disappeared item; with `revise`, the earlier version's record (N-Triples
    for the catalogue graph), its IRI and the time of the revision."""
    from datetime import datetime, timezone
    old_triples = revisions.loaded_triples(store, source.uri)
    changes = revisions.compare(old_triples, revisions.parse_ntriples(text))
    if not changes:
        return None
    old = next(s for s in store.sources() if s.graph == source.uri)
    if not revise:
        raise Rejected(revisions.problems(name, changes, old.loaded_at, old.sha256))
    refused = revisions.sealed(store, name, source.uri, old_triples, changes, old.pins, pins)
    if refused:
        raise Rejected(refused)
    node, previous = revisions.node_for(store, source.uri)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    history = revisions.revision_triples(
        store, source.uri, number_iri=node, previous=previous, old_record=old,
        old_text=revisions.loaded_ntriples(old_triples), new_sha=sha, revised_at=now, changes=changes)
    return history, node, now
