"""Derived layers: rules kept once, in SPARQL Update files under queries/layers/, whose results
live in the store beside the sources, so that catalogue queries read them instead of re-deriving
them.

A layer file has a `#+` header (summary, graph: the derived graph it writes) and two steps, each
opened by a `#+ step: NAME` line:

- mark: runs before a change, while the changed sources' old triples are still in place, and
  notes in <urn:kg:layer:touched> the keys they touch; kg flags the changed sources first
  (`GRAPH <urn:kg:layer:changed> { <source> a kg:ChangedSource }`);
- derive: runs after the change and recomputes the marked keys.

Keys are (case, system) pairs, marked into <urn:kg:layer:touched> and derived from
<urn:kg:layer:deriving>, shared by the layers that name those graphs; a layer that reads no other
layer's keys may keep its own by naming <urn:kg:layer:touched:NAME> and <urn:kg:layer:deriving:NAME>
instead (the situations layer does), and kg moves and clears every pair the layers name.

A layer derived from another's graph names it in its header (`#+ after: [verdicts]`): kg runs the
derive steps in that order (else in name order). A step of comments only is empty: the tally
layer marks nothing of its own, its keys are the verdict layer's.

The whole file, run as it is after flagging every source, rebuilds the layer. kg composes one
update per write — flag, mark, the change, derive, clear the pending graph — which Oxigraph runs
as one transaction, so a source and the verdicts made of it are never seen apart."""
from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from . import paths, statuses
from .terms import CATALOGUE_GRAPH, KG

# scratch graphs of a write: the sources it changes, the keys their triples touch, the keys being derived
CHANGED = "urn:kg:layer:changed"
TOUCHED = "urn:kg:layer:touched"
DERIVING = "urn:kg:layer:deriving"
# a replacement swapped in from staging (Store.swap_staged): the triples it takes out of the source's
# graph and those it puts in, kept apart so that only the keys they touch are marked
REMOVED = "urn:kg:layer:removed"
ADDED = "urn:kg:layer:added"
# A layer whose rules read no other layer's keys keeps keys of its own: it marks into and derives from
# <urn:kg:layer:touched:NAME> and <urn:kg:layer:deriving:NAME> (as its text names them) instead of the
# shared pair, so that a write re-derives it only for what its own mark step says the write touches
# (an EARL file does not re-derive the situations layer, nor a situations file the verdict layer)
_OWN_KEYS = re.compile(r"<urn:kg:layer:(?:touched|deriving)(:[\w-]+)>")
# keys derived per transaction where a write is too large for one (a bulk load, a rebuild): the cost
# of one Oxigraph transaction grows faster than its size (three 1,700-assertion files re-derived in
# one took 1.8x as long as one by one)
CHUNK_KEYS = 2_000
# triples taken out per transaction when a rebuild of the embedded store empties the layers: one DROP
# of a 100k-assertion store's layers (2.8M triples) held 3.7 GB in its transaction, and would grow
# with the store (BENCHMARKS.md, "The situation queries by sub-selects, the wrong-reach rule in the
# layer, keys per layer")
CLEAR_CHUNK = 100_000
LAYER_PREFIX = "urn:kg:layer:"
_STEP = re.compile(r"^#\+ step:\s*(\w+)\s*$", re.MULTILINE)


class LayerError(Exception):
    """A layer file that does not have the shape described above."""


@dataclass(frozen=True)
class Layer:
    name: str
    path: Path
    summary: str
    graph: str  # the derived graph the layer writes
    prologue: str  # its PREFIX lines: Oxigraph takes them only at the start of an update, so kg puts them there
    mark: str
    derive: str
    sha256: str
    after: tuple[str, ...] = ()  # layers whose derive step must run before this one's (their graphs it reads)


def _statements(step: str) -> str:
    """A step with no operation (comments only) is empty: a layer may mark nothing of its own."""
    return step if any(line.strip() and not line.lstrip().startswith("#") for line in step.splitlines()) else ""


def parse(path: Path) -> Layer:
    text = path.read_text(encoding="utf-8")
    header = yaml.safe_load("\n".join(line[3:] for line in text.splitlines() if line.startswith("#+ ")
                                      and not _STEP.match(line))) or {}
    parts = _STEP.split(text)
    # parts: [prologue, name1, body1, name2, body2, ...]; the prologue holds the PREFIX lines
    prologue = "\n".join(line for line in parts[0].splitlines() if line.upper().startswith("PREFIX"))
    steps = {parts[i]: _statements(parts[i + 1].strip().rstrip(";").strip()) for i in range(1, len(parts), 2)}
    if set(steps) != {"mark", "derive"} or not header.get("graph") or not header.get("summary"):
        raise LayerError(f"{path}: a layer needs a '#+ summary:', a '#+ graph:' and the steps "
                         f"'#+ step: mark' and '#+ step: derive' (found steps {sorted(steps)})")
    if not str(header["graph"]).startswith(LAYER_PREFIX):
        raise LayerError(f"{path}: a layer's graph is named under {LAYER_PREFIX}")
    for step in ("mark", "derive"):
        _check_form(path, text, steps[step])
    return Layer(name=path.stem, path=path, summary=header["summary"], graph=header["graph"],
                 prologue=prologue, mark=steps["mark"], derive=steps["derive"],
                 sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                 after=tuple(header.get("after") or ()))


# What ends one SPARQL Update operation of a layer file, at the start of a line: its WHERE, or a
# form without one. The upkeep splits a step into operations at ';' and a blank line (_operations),
# runs each INSERT into one graph as a CONSTRUCT in bulk (as_constructs) and gives each derive step
# its keys as VALUES where it reads `GRAPH <urn:kg:layer:deriving…> { ?a kg:touchedFor ?b }`
# (with_keys). A step written otherwise would still run, but on the slow path, without a word: so
# the form is checked when the layer is read, and an error names the file and the line.
_OPERATION_END = re.compile(r"^(?:WHERE\b|DELETE\s+WHERE\b|INSERT\s+DATA\b|DELETE\s+DATA\b|DROP\b|CLEAR\b|LOAD\b|"
                            r"CREATE\b|COPY\b|MOVE\b|ADD\b)", re.MULTILINE | re.IGNORECASE)
_DERIVING_NAMED = re.compile(r"GRAPH\s*<urn:kg:layer:deriving(?::[\w-]+)?>")


def _check_form(path: Path, text: str, step: str) -> None:
    """Each operation of the step ends once (an operation is followed by ';' and a blank line), and
    each read of the keys being derived is in the one form with_keys binds."""
    def line_of(fragment: str) -> int:
        at = text.find(fragment)
        return text.count("\n", 0, at) + 1 if at >= 0 else 0

    for op in _operations(step):
        code = "\n".join("" if line.lstrip().startswith("#") else line for line in op.splitlines())
        ends = [m.start() for m in _OPERATION_END.finditer(code)]
        if len(ends) != 1:
            first = op.lstrip().splitlines()[0]
            raise LayerError(
                f"{path}:{line_of(first)}: {'no operation ends' if not ends else f'{len(ends)} operations run together'} "
                f"in the step from here (each operation ends with a WHERE clause, or is INSERT DATA, DROP, …, "
                f"written at the start of a line; operations are separated by ';' at a line's end and a blank line)")
        for named in _DERIVING_NAMED.finditer(code):
            if not _DERIVING_PATTERN.match(code, named.start()):
                line = code[named.start():].splitlines()[0]
                raise LayerError(f"{path}:{line_of(line.strip())}: the keys being derived are read as "
                                 f"'GRAPH <urn:kg:layer:deriving> {{ ?case kg:touchedFor ?system }}' (one pattern, "
                                 f"any two variables), so that kg can give them as VALUES; found: {line.strip()}")


def _ordered(found: list[Layer]) -> tuple[Layer, ...]:
    """The layers in name order, except that a layer comes after those its `#+ after:` names (a
    layer derived from another's graph reads it once that one's derive step has run)."""
    by_name = {layer.name: layer for layer in found}
    done: dict[str, Layer] = {}

    def visit(layer: Layer, path: tuple[str, ...]) -> None:
        if layer.name in done:
            return
        if layer.name in path:
            raise LayerError(f"{layer.path}: layers ordered in a cycle: {' -> '.join(path + (layer.name,))}")
        for name in layer.after:
            if name not in by_name:
                raise LayerError(f"{layer.path}: '#+ after:' names {name!r}, which is no layer")
            visit(by_name[name], path + (layer.name,))
        done[layer.name] = layer
    for layer in found:
        visit(layer, ())
    return tuple(done.values())


@functools.lru_cache(maxsize=4)
def _load(roots: tuple[Path, ...]) -> tuple[Layer, ...]:
    found: dict[str, Path] = {}
    for root in roots:  # the built-ins, then the project's: a project layer of a built-in's name replaces it
        for path in sorted((root / "layers").glob("*.ru")):
            if path.stem in found:
                paths.warn_override(path, found[path.stem])
            found[path.stem] = path
    return _ordered([parse(p) for p in found.values()])


def load() -> tuple[Layer, ...]:
    return _load(tuple(paths.folders("queries")))


def version() -> str:
    """One digest of every layer's rules and of the scheme of verdict statuses they read (kg/statuses.py):
    a store whose layers were made by other rules, or another scheme, rebuilds them."""
    rules = " ".join(f"{l.name}:{l.sha256}" for l in load()) + " " + repr(statuses.scheme())
    return hashlib.sha256(rules.encode()).hexdigest()[:16]


def graphs() -> set[str]:
    """Every graph kg writes that no source record names: the layers, and the scratch graphs of a
    write (which the embedded store never leaves behind unless a bulk load or rebuild was cut short,
    and a remote one when a write was)."""
    return {layer.graph for layer in load()} | set(scratch())


def _compose(ops: list[str]) -> str:
    prologue = "\n".join(dict.fromkeys(line for layer in load() for line in layer.prologue.splitlines()))
    return prologue + "\n" + " ;\n".join(op for op in ops if op.strip())


def flag(graphs: list[str]) -> str:
    lines = " ".join(f"<{g}> a <{KG}ChangedSource> ." for g in graphs)
    return f"INSERT DATA {{ GRAPH <{CHANGED}> {{ {lines} }} }}"


def _set_version() -> str:
    node, prop = f"<{CATALOGUE_GRAPH}>", f"<{KG}layerVersion>"
    return (f"DELETE WHERE {{ GRAPH {node} {{ {node} {prop} ?v }} }} ;\n"
            f"INSERT DATA {{ GRAPH {node} {{ {node} {prop} \"{version()}\" }} }}")


def key_graphs() -> tuple[tuple[str, str], ...]:
    """The (touched, deriving) graph pairs of the layers' keys: the shared pair, and each pair a layer
    keeps for itself (`_OWN_KEYS`)."""
    return _key_graphs(load())


@functools.lru_cache(maxsize=4)
def _key_graphs(found: tuple[Layer, ...]) -> tuple[tuple[str, str], ...]:
    # once per set of layers: every write asks for them several times (scratch graphs, take, clear)
    own = {suffix for layer in found for suffix in _OWN_KEYS.findall(layer.mark + layer.derive)}
    return tuple((TOUCHED + suffix, DERIVING + suffix) for suffix in ["", *sorted(own)])


def own_deriving(layer: Layer) -> str | None:
    """The graph a layer keeping keys of its own derives from, or None for a layer of the shared keys
    (whose derive steps may hold a rule over every source, as the plans layer's does)."""
    own = set(_OWN_KEYS.findall(layer.mark + layer.derive))
    return DERIVING + own.pop() if len(own) == 1 else None


def scratch() -> tuple[str, ...]:
    """The scratch graphs of a write: the changed sources, the keys (`key_graphs`), a swap's halves."""
    return (CHANGED, *(g for pair in key_graphs() for g in pair), REMOVED, ADDED)


def _take(limit: int | None) -> list[str]:
    """Moves touched keys (all, or `limit` of each layer's) into the deriving graphs."""
    cap = f" LIMIT {limit}" if limit else ""
    return [op for touched, deriving in key_graphs() for op in (
            f"INSERT {{ GRAPH <{deriving}> {{ ?case <{KG}touchedFor> ?system }} }} WHERE {{ SELECT ?case ?system "
            f"WHERE {{ GRAPH <{touched}> {{ ?case <{KG}touchedFor> ?system }} }}{cap} }}",
            f"DELETE {{ GRAPH <{touched}> {{ ?case <{KG}touchedFor> ?system }} }} "
            f"WHERE {{ GRAPH <{deriving}> {{ ?case <{KG}touchedFor> ?system }} }}")]


def _derive_taken() -> list[str]:
    return [layer.derive for layer in load()] + [drop_deriving()]


def marking(graphs: list[str]) -> str:
    """Marks what the graphs' present triples touch, and nothing else: the first part of a write that
    is not one transaction (a bulk load, a remote server); `derive_chunk` and `finish` do the rest."""
    return _compose([flag(graphs)] + [layer.mark for layer in load()])


def derive_chunk(limit: int | None = None) -> str:
    """One transaction's worth of derivation: up to `limit` (CHUNK_KEYS) touched keys recomputed."""
    return _compose(_take(limit or CHUNK_KEYS) + _derive_taken())


def _closing() -> list[str]:
    return [f"DROP SILENT GRAPH <{g}>" for g in scratch()] + [_set_version()]


def finish(change: str = "") -> str:
    """The last update of a write in parts, once nothing is left touched: its change (the catalogue
    record, say), the scratch graphs cleared, the layers' version stated."""
    return _compose([change] + _closing())


def around(change: str, before: list[str], after: list[str] | None = None) -> str:
    """One update: the change (SPARQL Update text), with every layer kept current for the sources
    it touches. `before`: source graphs whose triples the change removes or replaces (marked while
    still there); `after`: graphs whose new triples are only there once the change has run."""
    if not load():
        return change
    ops = []
    if before:
        ops += [flag(before)] + [layer.mark for layer in load()]
    ops.append(change)
    if after:
        ops += [flag(after)] + [layer.mark for layer in load()]
    ops += _take(None) + _derive_taken() + _closing()
    return _compose(ops)


def deferring(change: str, after: list[str]) -> str:
    """One update: the change (new sources) and the sources flagged, nothing marked or derived: a
    load of many small files marks and derives them together (Store.derive_deferred), as a bulk load
    marks its source after writing it. Each file's own mark steps cost a store-wide join apiece
    (17 ms of a one-line file's 52 ms, benchmarks/HISTORY.md); a batch's flags, one pass."""
    if not load():
        return change
    return _compose([change, flag(after)])


def rebuilding(mark: bool = True) -> str:
    """The first update of a rebuild: the layers emptied, every source flagged and (unless the caller
    runs the mark step itself) its keys marked; then `derive_chunk` until nothing is touched, and
    `finish()`."""
    ops = [f"DROP SILENT GRAPH <{g}>" for g in sorted(graphs())]
    # every source a layer's keys come from: results (assertions), situations files, and the files that
    # make intents members of a set (the coverage layer's keys)
    apeval = "https://agenticprimitives.dev/ns/evaluation#"
    ops.append(f"INSERT {{ GRAPH <{CHANGED}> {{ ?g a <{KG}ChangedSource> }} }} "
               f"WHERE {{ SELECT DISTINCT ?g WHERE {{ {{ GRAPH ?g {{ ?s <http://www.w3.org/ns/earl#result> ?o }} }} UNION "
               f"{{ GRAPH ?g {{ ?s a <{apeval}DeliveredSituation> }} }} UNION "
               f"{{ GRAPH ?g {{ ?s <{apeval}hasIntent> ?o }} }} UNION {{ GRAPH ?g {{ ?s <{apeval}inReplaySet> ?o }} }} }} }}")
    return _compose(ops + ([layer.mark for layer in load()] if mark else []))


_INSERT_INTO = re.compile(r"^((?:\s*#[^\n]*\n)*)\s*INSERT\s*\{\s*GRAPH\s*<([^>]+)>\s*\{(.*?)\}\s*\}\s*(WHERE\b.*)$", re.S)


def _operations(text: str) -> list[str]:
    """A step's operations: a layer file ends each with ';' at the end of a line before a blank line."""
    return [op.strip() for op in re.split(r";[ \t]*\n[ \t]*\n", text) if op.strip()]


def as_constructs(step: str) -> list[tuple[str, str | None]]:
    """A step's operations, each INSERT into one graph turned into (CONSTRUCT query, that graph) and
    every other operation kept as (update, None): the same rule, run so that its reads are a query's
    (fast) and its writes a bulk insert (fast, not transactional). For bulk loads and rebuilds only,
    which are not one transaction anyway."""
    prologue = "\n".join(dict.fromkeys(line for layer in load() for line in layer.prologue.splitlines()))
    found = []
    for op in _operations(step):
        match = _INSERT_INTO.match(op)
        if match:
            found.append((f"{prologue}\n{match.group(1)}CONSTRUCT {{{match.group(3)}}} {match.group(4)}", match.group(2)))
        else:
            found.append((f"{prologue}\n{op}", None))
    return found


_DERIVING_PATTERN = re.compile(
    r"GRAPH\s*<(urn:kg:layer:deriving(?::[\w-]+)?)>\s*\{\s*(\?\w+)\s+(?:kg:touchedFor|<" + re.escape(KG) +
    r"touchedFor>)\s+(\?\w+)\s*\}")


def with_keys(text: str, keys: dict[str, list[tuple]]) -> str:
    """A derive step's text with each `GRAPH <deriving...> { ?a kg:touchedFor ?b }` replaced by a VALUES
    of that graph's keys (`keys`: deriving graph -> its (a, b) terms, as the chunk holds them): the same
    solutions, but the engine knows how few they are. Reading them from the graph, Oxigraph planned some
    steps as if the keys were many and joined store-wide reads by hash (the situations layer's steps 4-6:
    41 s of a 57 s situations file at 1M assertions; 7 s with the keys given). A graph whose keys hold a
    blank node (which VALUES cannot state) keeps its pattern."""
    def bind(match: re.Match) -> str:
        rows = keys.get(match.group(1))
        if rows is None or any(str(term).startswith("_:") for row in rows for term in row):
            return match.group(0)
        return f"VALUES ({match.group(2)} {match.group(3)}) {{ {' '.join(f'({a} {b})' for a, b in rows)} }}"
    return _DERIVING_PATTERN.sub(bind, text)


def clear_chunk(graph: str) -> str:
    """Up to CLEAR_CHUNK triples of a graph taken out: a rebuild empties the layers so, in
    transactions of bounded size, before it derives them anew, as the embedded store empties a
    large source it drops (Store.drop_graph)."""
    return (f"DELETE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }} "
            f"WHERE {{ SELECT ?s ?p ?o WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }} LIMIT {CLEAR_CHUNK} }}")


def take(limit: int | None = None) -> str:
    return _compose(_take(limit))


def drop_deriving() -> str:
    """The keys of a chunk derived in bulk, done with."""
    return " ;\n".join(f"DROP SILENT GRAPH <{deriving}>" for _, deriving in key_graphs())


def touched_query() -> str:
    touched = " ".join(f"<{t}>" for t, _ in key_graphs())
    return f"ASK {{ VALUES ?keys {{ {touched} }} GRAPH ?keys {{ ?case <{KG}touchedFor> ?system }} }}"
