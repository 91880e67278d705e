"""The loader protocol and registry.

A loader is one module in loaders/ that registers a function with `@loader(...)`: it says
which files it reads (name patterns, or a sniff of the content), how they are parsed (json,
jsonl or rdf; JSON is checked against the loader's JSON Schema first), which SHACL shapes
check its output, and it turns one source into N-Triples text. Adding a format is adding a
module and its shapes; the engine does not change."""
from __future__ import annotations

import fnmatch
import hashlib
import importlib.util
import io
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import pyoxigraph as ox

from . import paths
from .errors import Problem, Rejected
from .jsonld_contexts import inline_contexts
from .jsonio import MAX_DEPTH, MAX_PROBLEMS, decode, duplicate_problems, iter_jsonl, parse_json, parse_jsonl, schema_problems
from .terms import Minter, MintError, Triples


@dataclass
class Projection:
    """What a loader made of a source: its triples and the digests it pins."""

    triples: Triples | str | Iterator[str] | Iterator[list[ox.Triple]]
    pins: list[str] = field(default_factory=list)
    # checks of the file as a whole that a streamed load runs once every chunk is written, over the
    # graph holding them (its name given), before SHACL: a streaming loader's relations between
    # triples of different chunks, read back from the store instead of being held in memory
    check_written: Callable[[str], None] | None = None

    @property
    def streams(self) -> bool:
        """Whether the triples come as an iterator of chunks (a streaming loader): N-Triples text,
        or triples where a blank node spans chunks; kg writes them a chunk at a time, and the
        loader's problems are only all known once it is spent."""
        return not isinstance(self.triples, (Triples, str))

    def text(self) -> str:
        """The triples once each, whole (a streaming loader's chunks joined)."""
        if isinstance(self.triples, str):
            return self.triples
        if isinstance(self.triples, Triples):
            return self.triples.text()
        # split at "\\n" only: N-Triples escapes it in a literal, but not U+2028 (which splitlines() splits at)
        return "".join(dict.fromkeys(line + "\n" for chunk in self.triples
                                     for line in (chunk if isinstance(chunk, str) else as_ntriples(chunk)).split("\n") if line))


def as_ntriples(triples: list[ox.Triple]) -> str:
    """Triples as N-Triples text, one a line (blank nodes keep their labels)."""
    return ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES).decode("utf-8") if triples else ""


@dataclass(frozen=True)
class LoaderSpec:
    kind: str
    parse: str  # "json" | "jsonl" | "rdf" | "bytes" (the loader reads source.data itself, e.g. a zip)
    patterns: tuple[str, ...]
    schema: str | None
    shapes: str | None
    order: int
    sniff: Callable[[Path, Any], bool] | None
    read: Callable[["Source", "Context"], Projection]
    module: str
    options: tuple[str, ...] = ()  # the load options it reads from ctx.options (kg load --system, ...)

    def matches_name(self, path: Path) -> bool:
        return any(fnmatch.fnmatch(path.name.lower(), pat) for pat in self.patterns)

    def schema_path(self) -> str | None:
        return str(paths.find("loaders", self.schema)) if self.schema else None

    def shapes_path(self) -> Path | None:
        return paths.find("shapes", self.shapes) if self.shapes else None


_REGISTRY: dict[str, LoaderSpec] = {}


# The options `kg load` may hand a loader (ctx.options), for facts a file does not state itself.
LOAD_OPTIONS = {
    "system": "the system under test (earl:subject), where the file does not name it",
    "replay_set": "the replay set the file's cases belong to, where the file does not name it",
    "grader_kind": "a grader's kind by its name: {name: mechanical|model|human}",
    "threshold": "the score at or above which a numeric score passes, by grader name: {name: number}",
    "test_base": "the IRI a test suite's runner resolved the loaded manifest's folder against",
}


def loader(*, kind: str, parse: str, patterns=(), schema=None, shapes=None, order=50, sniff=None, options=()):
    """Registers a loader function: `read(source, ctx) -> Projection`. `options` names the load
    options (LOAD_OPTIONS) it reads; kg refuses an option no loader of the files given reads."""
    if parse not in ("json", "jsonl", "rdf", "bytes"):
        raise ValueError(f"loader {kind}: parse must be json, jsonl, rdf or bytes")
    unknown = set(options) - set(LOAD_OPTIONS)
    if unknown:
        raise ValueError(f"loader {kind}: unknown load options {sorted(unknown)}; known: {sorted(LOAD_OPTIONS)}")

    def register(read):
        _REGISTRY[kind] = LoaderSpec(kind, parse, tuple(patterns), schema, shapes, order, sniff, read,
                                     getattr(read, "__module__", "?"), tuple(options))
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
    """One input file, parsed on demand the way its loader asks. Given its bytes, it holds them;
    given None with the file's digest, it reads the file only when asked: whole (`data`) for a
    loader that needs it whole, or a line at a time (`jsonl_stream`), each pass checking that the
    bytes read are still those of the digest."""

    def __init__(self, path: Path, data: bytes | None, spec: LoaderSpec, sha256: str | None = None):
        self.path = path
        self._data = data
        self.spec = spec
        self.name = str(path)
        self.sha256 = sha256

    @property
    def data(self) -> bytes:
        if self._data is None:
            self._data = self.path.read_bytes()
            self._same_file(hashlib.sha256(self._data).hexdigest())
        return self._data

    def _same_file(self, sha: str) -> None:
        if self.sha256 is not None and sha != self.sha256:
            raise Rejected([Problem(self.name, "", "the file changed while kg was loading it",
                                    "load it again once whatever writes it has finished")])

    def lines(self) -> Iterator[bytes]:
        """The file's lines as bytes (split at "\\n" only), read a block at a time; the digest of
        what was read is checked against the file's when the last line has been read."""
        if self._data is not None:
            data, start = self._data, 0
            while start < len(data):
                end = data.find(b"\n", start)
                end = len(data) if end < 0 else end + 1
                yield data[start:end]
                start = end
            return
        digest = hashlib.sha256()
        with open(self.path, "rb") as f:
            for line in f:  # a binary file splits at b"\\n" only
                digest.update(line)
                yield line
        self._same_file(digest.hexdigest())

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

    def jsonl_stream(self, checked: bool = True) -> Iterator[tuple[int, Any]]:
        """jsonl() a line at a time: the same rows and the same problems (raised when the pass ends),
        never the whole file in memory. Each call reads the file again; `checked=False` leaves out the
        JSON Schema, for a later pass over lines an earlier one checked (the digest, checked at the
        end of each pass, says they are the same lines)."""
        schema = self.spec.schema_path() if self.spec.schema and checked else None
        check = (lambda line, row: schema_problems(self.name, row, schema, line=line)) if schema else None
        return iter_jsonl(self.name, self.lines(), check)

    def streams_rdf(self) -> bool:
        """Whether the file is RDF in a syntax Oxigraph parses as it reads (triple_chunks)."""
        return self.spec.parse == "rdf" and rdf_format(self.path) in STREAMED_RDF

    def triple_chunks(self, size: int | None = None) -> Iterator[list[ox.Triple]]:
        """quads() for a file of a STREAMED_RDF syntax, read as the parser asks for it and given
        `size` triples at a time (a triple in two named graphs once within a chunk; the store keeps
        one across chunks), never the whole file in memory. Blank nodes are renamed apart by the one
        parse, so `_:b0` is one node in every chunk. The digest of what was read is checked against
        the file's when the parser has read it through."""
        size = size or RDF_CHUNK_TRIPLES
        fmt = rdf_format(self.path)
        with open(self.path, "rb") as f:
            reader = _DigestingReader(f)
            chunk: dict[ox.Triple, None] = {}
            try:
                for quad in ox.parse(io.BufferedReader(reader, 1 << 20), format=fmt, base_iri=self.uri,
                                     rename_blank_nodes=True):
                    chunk[quad.triple] = None
                    if len(chunk) >= size:
                        yield list(chunk)
                        chunk = {}
            except SyntaxError as err:
                raise Rejected([_syntax_problem(self.name, err, fmt)]) from None
            if chunk:
                yield list(chunk)
            self._same_file(reader.digest.hexdigest())

    def quads(self) -> list[ox.Quad]:
        """The file parsed as RDF with its own location as base; blank nodes renamed apart so two
        files' `_:b0` never meet."""
        text = self.text()  # empty or non-UTF-8 input gets its own clear error first
        fmt = rdf_format(self.path)
        data = self.data
        if fmt == ox.RdfFormat.JSON_LD:
            document = parse_json(self.name, text)
            _check_jsonld_ids(self.name, document, self.uri)
            if '"@context"' in text:  # contexts named by reference, read from beside the file, never fetched
                inlined = inline_contexts(document, self.path, self.path.parent, self.name)
                data = self.data if inlined == document else json.dumps(inlined).encode()
        if fmt == ox.RdfFormat.RDF_XML and b"<!ENTITY" in self.data:
            _check_entity_expansion(self.name, self.data)
        if fmt == ox.RdfFormat.RDF_XML:
            _check_xml_depth(self.name, self.data)
        try:
            return list(ox.parse(data, format=fmt, base_iri=self.uri, rename_blank_nodes=True))
        except SyntaxError as err:
            raise Rejected([_syntax_problem(self.name, err, fmt, data)]) from None


class _DigestingReader(io.RawIOBase):
    """A binary file read through, its sha256 kept of every byte handed on."""

    def __init__(self, file):
        self._file, self.digest = file, hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._file.read(len(buffer))
        buffer[:len(data)] = data
        self.digest.update(data)
        return len(data)


def _check_jsonld_ids(file: str, document: Any, base: str) -> None:
    """JSON-LD drops a node whose @id is not an IRI, as its specification says, and the file would
    load without it; kg refuses the file instead, naming the @id. Contexts are left out: an @id there
    may be a term of the context, which only a JSON-LD processor can expand."""
    from urllib.parse import urljoin

    from .jsonio import pointer
    problems = []
    todo: list[tuple[list, Any]] = [([], document)]
    while todo and len(problems) < MAX_PROBLEMS:
        where, value = todo.pop()
        if isinstance(value, list):
            todo.extend((where + [n], item) for n, item in reversed(list(enumerate(value))))
        elif isinstance(value, dict):
            ident = value.get("@id")
            if isinstance(ident, str) and not ident.startswith("_:"):
                try:
                    ox.NamedNode(urljoin(base, ident))
                except ValueError as err:
                    problems.append(Problem(file, pointer(where + ["@id"]),
                                            f'"{ident}" is not a valid IRI ({err}): JSON-LD would drop this node',
                                            "percent-encode the characters IRIs do not allow (a space is %20)"))
            todo.extend((where + [k], item) for k, item in reversed(list(value.items())) if k != "@context")
    if problems:
        raise Rejected(problems)


_ENTITY = re.compile(rb"""<!ENTITY\s+(%\s+)?([^\s%&;"']+)\s+(?:"([^"]*)"|'([^']*)')""")
_REFERENCE = re.compile(rb"&([^\s&;#<>\"']+);")


def _check_entity_expansion(file: str, data: bytes) -> None:
    """The size the file's internal DTD entities would expand it to, worked out from their
    definitions before the parser expands anything: a 1 KB "billion laughs" file took 126 s and
    9 GB before failing. OWL files' `&owl;`-style entities expand a file a few times at most."""
    defined = {m.group(2): (m.group(3) if m.group(3) is not None else m.group(4))
               for m in _ENTITY.finditer(data) if not m.group(1)}
    sizes: dict[bytes, int] = {}

    def size(name: bytes, path: tuple = ()) -> int:
        if name not in defined:
            return len(name) + 2  # a predefined entity (&amp;) or one the parser will refuse
        if name in path:
            raise Rejected([Problem(file, "", f"the entity &{name.decode(errors='replace')}; refers to itself "
                                    "(through " + " → ".join(f"&{n.decode(errors='replace')};" for n in path) + ")",
                                    "remove the recursive entity definition")])
        if name not in sizes:
            value = defined[name]
            sizes[name] = len(value) + sum(size(ref, path + (name,)) - len(ref) - 2
                                           for ref in _REFERENCE.findall(value))
        return sizes[name]

    limit = 16 * len(data) + MAX_ENTITY_EXPANSION
    doctype = data.find(b"<!DOCTYPE")
    body = data.find(b"]>", doctype) + 2 if doctype >= 0 else 0  # references in the DTD count through sizes
    total = len(data)
    for m in _REFERENCE.finditer(data, body):
        total += size(m.group(1)) - len(m.group(1)) - 2
        if total > limit:
            line = data.count(b"\n", 0, m.start()) + 1
            column = m.start() - (data.rfind(b"\n", 0, m.start()) + 1) + 1
            raise Rejected([Problem(file, f"line {line}, column {column}",
                                    f"the XML entity &{m.group(1).decode(errors='replace')}; would expand the file "
                                    f"to more than {limit:,} bytes (an entity expansion attack, or a file kg "
                                    f"cannot read safely)", "write the RDF/XML without nested entity definitions")])


def _check_xml_depth(file: str, data: bytes) -> None:
    """RDF/XML nesting elements deeper than MAX_DEPTH (JSON's cap) is refused before Oxigraph parses
    it: its parser's time grows faster than the square of the depth (5,000 levels 0.7 s, 10,000
    3.7 s; 100,000 levels, a 4.6 MB file, still loading after 300 s). Expat, in C, finds the depth
    in one pass; a file it cannot parse is left to Oxigraph, whose syntax error names the place."""
    from xml.parsers import expat
    parser = expat.ParserCreate()
    depth = 0

    class TooDeep(Exception):
        pass

    def start(*_):
        nonlocal depth
        depth += 1
        if depth > MAX_DEPTH:
            raise TooDeep

    def end(*_):
        nonlocal depth
        depth -= 1
    parser.StartElementHandler, parser.EndElementHandler = start, end
    try:
        parser.Parse(data, True)
    except TooDeep:
        raise Rejected([Problem(file, f"line {parser.CurrentLineNumber}, column {parser.CurrentColumnNumber + 1}",
                                f"the XML nests elements more than {MAX_DEPTH} levels deep, more than kg reads "
                                f"(deep nesting makes the RDF/XML parser's time grow without bound)",
                                "flatten the structure: give nested nodes their own rdf:about or rdf:nodeID "
                                "and refer to them with rdf:resource")]) from None
    except expat.ExpatError:
        pass


MAX_ENTITY_EXPANSION = 16 << 20  # bytes of expansion allowed beyond 16x the file's own size


# RDF syntaxes Oxigraph's parser reads as it goes, so a big file of them is loaded a chunk at a time
# like a JSON Lines file (RDF/XML is held back by its entity check, JSON-LD by its ids' check, N3 is rare)
STREAMED_RDF = (ox.RdfFormat.N_TRIPLES, ox.RdfFormat.N_QUADS, ox.RdfFormat.TURTLE, ox.RdfFormat.TRIG)
RDF_CHUNK_TRIPLES = 100_000  # about what a JSON Lines chunk of 5,000 assertions makes


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


def _syntax_problem(file: str, err: SyntaxError, fmt: ox.RdfFormat, data: bytes | None = None) -> Problem:
    """A parser's syntax error with its place and how to fix it. Oxigraph's RDF/XML parser gives no
    place: expat, parsing the same bytes, finds where the XML breaks."""
    place, message = _syntax_place(err)
    if not place and fmt == ox.RdfFormat.RDF_XML and data is not None:
        from xml.parsers import expat
        parser = expat.ParserCreate()
        try:
            parser.Parse(data, True)
        except expat.ExpatError as xml_err:
            place = f"line {xml_err.lineno}, column {xml_err.offset + 1}"
            message = f"{message} ({expat.ErrorString(xml_err.code)})"
    if "percent encoding" in message:
        fix = 'a "%" in an IRI begins a percent-encoding of two hexadecimal digits: write "%25" for a "%" itself'
    elif fmt == ox.RdfFormat.RDF_XML:
        fix = "correct the XML there: an RDF/XML file is well-formed XML (each <!ENTITY …> and <!DOCTYPE …> closed with >)"
    else:
        fix = f"correct the {fmt.name} there (its syntax: {fmt.media_type}), or give the file the extension of the syntax it is in"
    return Problem(file, place, f"{fmt.name} syntax error: {message}", fix)


def _syntax_place(err: SyntaxError) -> tuple[str, str]:
    text = str(err.msg if hasattr(err, "msg") else err)
    if err.lineno:
        # Oxigraph says "Parser error at line 2 between columns 9 and 13: …"; keep the message part
        message = text.split(": ", 1)[1] if ": " in text else text
        return f"line {err.lineno}, column {err.offset or 1}", message
    return "", text


class Context:
    """What a loader may know beyond its file: the minting base, the store, and where to report."""

    def __init__(self, store, source: Source, base: str, options: dict | None = None):
        self.store = store
        self.source = source
        self.base = base
        self.options = dict(options or {})  # kg load's options for facts the file does not state
        self.graph = ox.NamedNode(source.uri)
        self.problems: list[Problem] = []
        # whether kg writes this file's triples a chunk at a time, checking the file whole afterwards
        # in the store (kg/ingest.py _load_streamed): a loader may then project it as it reads it
        self.streamed = False

    def minter(self, prefixes: dict[str, str] | None = None) -> Minter:
        return Minter(self.base, prefixes)

    def problem(self, place: str, message: str, fix: str = "") -> None:
        if len(self.problems) < MAX_PROBLEMS:  # only the first are reported; a file of bad lines holds no more
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

    def say_first(self, problems: list[Problem]) -> None:
        """Problems of a whole-file check made while the lines were read (a streamed file's unique
        ids): said before the lines' own, the first MAX_PROBLEMS of all kept."""
        self.problems[:0] = problems
        del self.problems[MAX_PROBLEMS:]

    def select(self, query: str, **bindings) -> list[tuple]:
        """A SELECT against what is already loaded (other sources); rows of pyoxigraph terms."""
        return self.store.select(query, this_graph=self.graph, **bindings)

    def raise_if_problems(self) -> None:
        if self.problems:
            raise Rejected(self.problems[:MAX_PROBLEMS])
