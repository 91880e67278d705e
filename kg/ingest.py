"""Loading files into the store: find them, recognise their kind, project, validate, write.

A file is loaded whole or not at all: every check runs before anything is written, and the
write itself is one transaction. A rejected file leaves the store as it was and does not stop
the other files of the same command."""
from __future__ import annotations

import hashlib
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from . import paths, validation
from .errors import Problem, Rejected, StoreUnavailable, UsageError
from .loading import Context, LoaderSpec, Source, registry
from .store import SourceRecord, Store
from .terms import DEFAULT_BASE


@dataclass
class Outcome:
    path: str
    kind: str | None
    status: str  # loaded | unchanged | rejected (bad input) | failed (the store refused the write) | valid
    triples: int = 0
    warnings: list[dict] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def discover(targets: Iterable[str | Path], kind: str | None = None) -> list[tuple[Path, LoaderSpec | None]]:
    """Files to load with the loader of each, in dependency order (sets before their gold, gold
    before results). Folders are walked; a file in a folder that no loader reads is passed over,
    a file named explicitly is not."""
    loaders = registry()
    if kind and kind not in loaders:
        raise UsageError(f"unknown kind {kind!r}; kinds: {', '.join(sorted(loaders))}")
    found: list[tuple[Path, LoaderSpec | None]] = []
    for target in targets:
        target = Path(target)
        if not target.exists():
            raise UsageError(f"{target}: no such file or folder")
        if target.is_dir():
            for path in sorted(p for p in target.rglob("*") if p.is_file() and not _hidden(p, target)):
                spec = loaders[kind] if kind else recognise(path)
                if spec is not None:
                    found.append((path, spec))
        else:
            found.append((target, loaders[kind] if kind else recognise(target)))
    found.sort(key=lambda item: (item[1].order if item[1] else 0, str(item[0])))
    return found


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def recognise(path: Path) -> LoaderSpec | None:
    """The first loader (by order of specificity) whose name patterns match and whose sniff, if it
    has one, accepts the file's first bytes."""
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
    """The vocabularies kg ships, each in its own graph, reloaded only when they change."""
    for ttl in sorted(paths.VOCAB.glob("*.ttl")):
        graph = f"urn:kg:vocab:{ttl.stem}"
        data = ttl.read_bytes()
        sha = sha256_hex(data)
        if store.source_sha256(graph) == sha:
            continue
        import pyoxigraph as ox
        text = ox.serialize(ox.parse(data, format=ox.RdfFormat.TURTLE), format=ox.RdfFormat.N_TRIPLES).decode()
        record = SourceRecord(graph=graph, path=str(ttl), kind="vocabulary", sha256=sha, loader="kg/vocab",
                              triples=text.count("\n"))
        store.replace_source(record, text)


def load(store: Store, targets: Iterable[str | Path], *, kind: str | None = None, base: str | None = None,
         write: bool = True, force: bool = False, validate: bool = True,
         progress: Callable[[Iterable], Iterable] | None = None) -> list[Outcome]:
    """Loads (or, with write=False, only checks) every file; returns one outcome per file."""
    files = discover(targets, kind)
    base = base or store.minting_base() or DEFAULT_BASE
    if write:
        store.fix_minting_base(base)
        ensure_vocabularies(store)
    outcomes = []
    for path, spec in (progress(files) if progress else files):
        outcomes.append(load_one(store, path, spec, base=base, write=write, force=force, validate=validate))
    if write:
        store.flush()
    return outcomes


def load_one(store: Store, path: Path, spec: LoaderSpec | None, *, base: str, write: bool = True,
             force: bool = False, validate: bool = True) -> Outcome:
    """One file, loaded whole or not at all. A store that cannot be reached fails the file without
    claiming it (status "failed"); loading it again later finishes the job."""
    try:
        return _load_one(store, path, spec, base=base, write=write, force=force, validate=validate)
    except StoreUnavailable as err:
        return Outcome(str(path), spec.kind if spec else None, "failed", problems=[Problem(
            str(path), "", f"could not be stored: {err}", "the catalogue does not list it; load it again")])


def _load_one(store: Store, path: Path, spec: LoaderSpec | None, *, base: str, write: bool = True,
              force: bool = False, validate: bool = True) -> Outcome:
    name = str(path)
    if spec is None:
        kinds = ", ".join(sorted(registry()))
        return Outcome(name, None, "rejected", problems=[Problem(
            name, "", "no loader recognises this file by its name or content",
            f"name it like {', '.join(p for s in registry().values() for p in s.patterns if p.count('.') > 1)} "
            f"or an RDF file, or give --kind (one of {kinds})")])
    try:
        data = path.read_bytes()
    except OSError as err:
        return Outcome(name, spec.kind, "rejected", problems=[Problem(name, "", f"cannot read it: {err.strerror}")])
    source = Source(path, data, spec)
    sha = sha256_hex(data)
    if write and not force and store.source_sha256(source.uri) == sha:
        return Outcome(name, spec.kind, "unchanged")
    ctx = Context(store, source, base)
    try:
        projection = spec.read(source, ctx)
        ctx.raise_if_problems()
        text = projection.text()
        results = validation.check(text, spec.shapes_path()) if spec.shapes and validate else []
        violations = [r for r in results if validation.is_violation(r)]
        if violations:
            raise Rejected([Problem(name, *validation.describe(r)) for r in violations])
    except Rejected as rejected:
        return Outcome(name, spec.kind, "rejected", problems=rejected.problems)
    except StoreUnavailable:
        raise
    except Exception as err:  # a loader bug must not take the other files down with it
        detail = traceback.format_exception_only(type(err), err)[-1].strip()
        return Outcome(name, spec.kind, "rejected", problems=[Problem(
            name, "", f"the {spec.kind} loader failed: {detail}", "this is a bug in kg; please report it")])
    triples = text.count("\n")
    if write:
        record = SourceRecord(graph=source.uri, path=str(path.resolve()), kind=spec.kind, sha256=sha,
                              loader=f"loaders/{Path(spec.module.split('.')[-1]).name}.py", triples=triples,
                              pins=sorted(set(projection.pins)), warnings=results, validated=validate)
        store.replace_source(record, text)
    return Outcome(name, spec.kind, "loaded" if write else "valid", triples=triples, warnings=results)
