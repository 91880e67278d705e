"""The loader protocol and registry.

A loader is one module in loaders/ that registers a function with `@loader(...)`: it says
which files it reads (name patterns, or a sniff of the content), how they are parsed (json,
jsonl or rdf; JSON is checked against the loader's JSON Schema first), which SHACL shapes
check its output, and it turns one source into N-Triples text. Adding a format is adding a
module and its shapes; the engine does not change."""
from __future__ import annotations

import fnmatch
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pyoxigraph as ox

from . import paths
from .errors import Problem, Rejected
from .jsonio import MAX_PROBLEMS, decode, duplicate_problems, parse_json, parse_jsonl, schema_problems
from .terms import Minter, MintError, Triples


@dataclass
class Projection:
    """What a loader made of a source: its triples and the digests it pins."""

    triples: Triples | str
    pins: list[str] = field(default_factory=list)

    def text(self) -> str:
        return self.triples if isinstance(self.triples, str) else self.triples.text()


@dataclass(frozen=True)
class LoaderSpec:
    kind: str
    parse: str  # "json" | "jsonl" | "rdf"
    patterns: tuple[str, ...]
    schema: str | None
    shapes: str | None
    order: int
    sniff: Callable[[Path, Any], bool] | None
    read: Callable[["Source", "Context"], Projection]
    module: str

    def matches_name(self, path: Path) -> bool:
        return any(fnmatch.fnmatch(path.name.lower(), pat) for pat in self.patterns)

    def schema_path(self) -> str | None:
        return str(paths.find("loaders", self.schema)) if self.schema else None

    def shapes_path(self) -> Path | None:
        return paths.find("shapes", self.shapes) if self.shapes else None


_REGISTRY: dict[str, LoaderSpec] = {}


def loader(*, kind: str, parse: str, patterns=(), schema=None, shapes=None, order=50, sniff=None):
    """Registers a loader function: `read(source, ctx) -> Projection`."""
    if parse not in ("json", "jsonl", "rdf"):
        raise ValueError(f"loader {kind}: parse must be json, jsonl or rdf")

    def register(read):
        _REGISTRY[kind] = LoaderSpec(kind, parse, tuple(patterns), schema, shapes, order, sniff, read,
                                     getattr(read, "__module__", "?"))
        return read
    return register


def registry() -> dict[str, LoaderSpec]:
    """Every loader module in the built-in loaders/ and the project's, imported once; a project
    module named like a built-in one replaces it, as does a project loader of a built-in's kind."""
    if not _REGISTRY:
        modules: dict[str, Path] = {}
        for folder in paths.folders("loaders"):
            for module_path in sorted(folder.glob("*.py")):
                if module_path.name.startswith("_"):
                    continue
                if module_path.stem in modules:
                    paths.warn_override(module_path, modules[module_path.stem])
                modules[module_path.stem] = module_path
        for stem, module_path in modules.items():
            name = f"kg_loaders.{stem}"
            spec = importlib.util.spec_from_file_location(name, module_path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            kinds = {kind: s.module for kind, s in _REGISTRY.items()}
            spec.loader.exec_module(module)
            for kind, before in kinds.items():
                if _REGISTRY[kind].module != before:
                    paths.warn_override(module_path, modules[before.rsplit(".", 1)[-1]])
    return _REGISTRY


class Source:
    """One input file, read once; parsed on demand the way its loader asks."""

    def __init__(self, path: Path, data: bytes, spec: LoaderSpec):
        self.path = path
        self.data = data
        self.spec = spec
        self.name = str(path)

    @property
    def uri(self) -> str:
        return self.path.resolve().as_uri()

    def text(self) -> str:
        return decode(self.name, self.data)

    def json(self) -> Any:
        value = parse_json(self.name, self.text())
        if self.spec.schema:
            problems = schema_problems(self.name, value, self.spec.schema_path())
            if problems:
                raise Rejected(problems[:MAX_PROBLEMS])
        return value

    def jsonl(self) -> list[tuple[int, Any]]:
        rows = parse_jsonl(self.name, self.text())
        if self.spec.schema:
            problems, schema = [], self.spec.schema_path()
            for line, row in rows:
                problems += schema_problems(self.name, row, schema, line=line)
                if len(problems) >= MAX_PROBLEMS:
                    break
            if problems:
                raise Rejected(problems[:MAX_PROBLEMS])
        return rows

    def quads(self) -> list[ox.Quad]:
        """The file parsed as RDF with its own location as base; blank nodes renamed apart so two
        files' `_:b0` never meet."""
        self.text()  # empty or non-UTF-8 input gets its own clear error first
        fmt = rdf_format(self.path)
        try:
            return list(ox.parse(self.data, format=fmt, base_iri=self.uri, rename_blank_nodes=True))
        except SyntaxError as err:
            place, message = _syntax_place(err)
            raise Rejected([Problem(self.name, place, f"{fmt.name} syntax error: {message}")]) from None


def rdf_format(path: Path) -> ox.RdfFormat:
    suffix = path.suffix.lower()
    if suffix in (".owl", ".xml"):
        return ox.RdfFormat.RDF_XML
    if suffix == ".json":
        return ox.RdfFormat.JSON_LD
    fmt = ox.RdfFormat.from_extension(suffix.lstrip("."))
    if fmt is None:
        raise Rejected([Problem(str(path), "", f"no RDF syntax is known for the extension {suffix!r}",
                                "use .ttl, .nt, .nq, .trig, .rdf, .owl or .jsonld")])
    return fmt


def _syntax_place(err: SyntaxError) -> tuple[str, str]:
    text = str(err.msg if hasattr(err, "msg") else err)
    if err.lineno:
        # Oxigraph says "Parser error at line 2 between columns 9 and 13: …"; keep the message part
        message = text.split(": ", 1)[1] if ": " in text else text
        return f"line {err.lineno}, column {err.offset or 1}", message
    return "", text


class Context:
    """What a loader may know beyond its file: the minting base, the store, and where to report."""

    def __init__(self, store, source: Source, base: str):
        self.store = store
        self.source = source
        self.base = base
        self.graph = ox.NamedNode(source.uri)
        self.problems: list[Problem] = []

    def minter(self, prefixes: dict[str, str] | None = None) -> Minter:
        return Minter(self.base, prefixes)

    def problem(self, place: str, message: str, fix: str = "") -> None:
        self.problems.append(Problem(self.source.name, place, message, fix))

    def mint(self, place: str, fn: Callable[[], str]) -> str | None:
        """Runs one minting call, turning an invalid id into a problem at `place`."""
        try:
            return fn()
        except MintError as err:
            self.problem(place, str(err))
            return None

    def mint_each(self, place: str, values, fn: Callable[[str], str]) -> list[str]:
        """Mints every value of a list with fn; each invalid one is a problem at place/index."""
        minted = []
        for k, value in enumerate(values):
            term = self.mint(f"{place}/{k}", lambda: fn(value))
            if term:
                minted.append(term)
        return minted

    def duplicates(self, items, what: str) -> None:
        self.problems += duplicate_problems(self.source.name, items, what)

    def select(self, query: str, **bindings) -> list[tuple]:
        """A SELECT against what is already loaded (other sources); rows of pyoxigraph terms."""
        return self.store.select(query, this_graph=self.graph, **bindings)

    def raise_if_problems(self) -> None:
        if self.problems:
            raise Rejected(self.problems[:MAX_PROBLEMS])
