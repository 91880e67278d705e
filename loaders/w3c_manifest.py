"""W3C test manifests (mf:Manifest with mf:entries, in Turtle or JSON-LD, as the RDF, SPARQL, SHACL and
JSON-LD test suites publish them) → a replay set of the suite's tests, so that coverage, the case ×
system matrix and "tests never reported" (the set-reporting and unreported-cases queries) work on the
implementation reports (EARL) of a W3C suite.

The manifest loaded is the suite: its mf:include'd manifests, and the manifest files its entries list
(json-ld-api's top manifest.jsonld: a "sequence" of compact-manifest.jsonld, …), are read from beside it
(never fetched; a JSON-LD manifest's contexts too, kg/jsonld_contexts.py),
and every entry reached is a case of its set (the top manifest's IRI), the entry's IRI being the
case's - the earl:test an implementation report names. Reports name tests by the IRI the suite's
runner resolved them against; --test-base gives that base for the manifest's folder (the SHACL
reports use urn:x-shacl-test:/, so `kg load tests/manifest.ttl --test-base urn:x-shacl-test:/`),
else the base the manifest states (json-ld-api's "baseIri", under which its reports name tests), else
the file's own location. The manifests' own triples are kept as they are - the
entries' names (mf:name, rdfs:label), types (rdf:type), approval (mf:status, dawgt:approval), actions
and results; test data that a suite writes into the same file (the SHACL suite's shapes and data
graphs) is left out, so that it never reads as an ontology or as results. The set is pinned by the
digest of its entries (IRI, types, approval)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import pyoxigraph as ox

from kg.digests import canonical_digest
from kg.errors import Problem, Rejected
from kg.jsonio import decode, parse_json
from kg.jsonld_contexts import inline_contexts
from kg.loading import Projection, _syntax_place, loader, rdf_format
from kg.lookups import loaded_among, set_digest
from kg.terms import Triples, iri, literal, p

MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
DAWGT = "http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
TYPE, FIRST, REST, NIL = (ox.NamedNode(RDF + n) for n in ("type", "first", "rest", "nil"))
MANIFEST, ENTRIES, INCLUDE, NAME = (ox.NamedNode(MF + n) for n in ("Manifest", "entries", "include", "name"))
LABEL = ox.NamedNode(RDFS + "label")
APPROVAL = (ox.NamedNode(MF + "status"), ox.NamedNode(DAWGT + "approval"))
RDF_PATTERNS = ("*.ttl", "*.nt", "*.nq", "*.trig", "*.rdf", "*.owl", "*.xml", "*.jsonld", "*.n3")
RDF_SUFFIXES = tuple(pattern[1:] for pattern in RDF_PATTERNS)


# a JSON-LD manifest names its namespace in the context beside it (json-ld-api's context.jsonld), so
# its own head shows only the compact type: "@type": "mf:Manifest"
JSONLD_MANIFEST = re.compile(rb'"@type"\s*:\s*(\[[^\]]*)?"(mf:)?Manifest"')


def is_manifest(path, head: bytes) -> bool:
    if MF.encode() in head and b"Manifest" in head:
        return True
    return path.name.lower().endswith(".jsonld") and b'"@context"' in head and bool(JSONLD_MANIFEST.search(head))


def stated_base(graph: "Graph") -> str | None:
    """The base a manifest states its tests are resolved against (json-ld-api's "baseIri", jld:baseIri):
    the IRI the suite's reports name its tests under."""
    for m in graph.subjects_of_type(MANIFEST):
        for t in graph.by_subject.get(m, ()):
            if t.predicate.value.rsplit("#", 1)[-1].rsplit("/", 1)[-1] == "baseIri" and \
                    isinstance(t.object, (ox.Literal, ox.NamedNode)) and re.match(r"[a-z][a-z0-9+.-]*:.*/$", t.object.value):
                return t.object.value
    return None


class Graph:
    """One manifest file's triples, indexed by subject."""

    def __init__(self, triples):
        self.by_subject: dict[ox.Term, list[ox.Triple]] = {}
        for t in triples:
            self.by_subject.setdefault(t.subject, []).append(t)

    def objects(self, s, predicate) -> list[ox.Term]:
        return [t.object for t in self.by_subject.get(s, ()) if t.predicate == predicate]

    def subjects_of_type(self, cls) -> list[ox.Term]:
        return [s for s, ts in self.by_subject.items() if any(t.predicate == TYPE and t.object == cls for t in ts)]

    def items(self, head) -> list[ox.Term]:
        """An RDF list's members (or the node itself when it is not a list)."""
        if head == NIL:
            return []
        if not self.objects(head, FIRST):
            return [head]
        out, node, seen = [], head, set()
        while node != NIL and node not in seen:
            seen.add(node)
            out += self.objects(node, FIRST)
            rest = self.objects(node, REST)
            node = rest[0] if rest else NIL
        return out

    def closure(self, node, keep: list, seen: set) -> None:
        """node's triples, and those of the blank nodes they reach (an entry's action and result)."""
        if node in seen:
            return
        seen.add(node)
        for t in self.by_subject.get(node, ()):
            keep.append(t)
            if isinstance(t.object, ox.BlankNode):
                self.closure(t.object, keep, seen)


def parse(file: Path, name: str, base: str, folder: Path) -> Graph:
    """One manifest file's triples; a JSON-LD one with its contexts read from the suite's folder."""
    try:
        data = file.read_bytes()
        fmt = rdf_format(file)
        if fmt == ox.RdfFormat.JSON_LD:
            document = parse_json(f"{name}: {file.name}", decode(file.name, data))
            data = json.dumps(inline_contexts(document, file, folder, name)).encode()
        quads = ox.parse(data, format=fmt, base_iri=base, rename_blank_nodes=True)
        return Graph(dict.fromkeys(q.triple for q in quads))
    except OSError as err:
        raise Rejected([Problem(name, "", f"cannot read an included manifest {file}: {err.strerror}",
                                "keep the suite's manifests beside the one loaded")]) from None
    except SyntaxError as err:
        place, message = _syntax_place(err)
        raise Rejected([Problem(name, place, f"{file.name}: syntax error: {message}")]) from None


def beside(folder: Path, root: str, iri: str) -> Path | None:
    """The file an IRI names under the suite's root IRI, when it is inside the suite's folder."""
    if not iri.startswith(root):
        return None
    file = folder / unquote(iri[len(root):].split("#", 1)[0])
    return file if file.resolve().is_relative_to(folder.resolve()) else None


@loader(kind="w3c-manifest", parse="rdf", patterns=RDF_PATTERNS, shapes="manifest.ttl", order=10, sniff=is_manifest,
        options=("test_base",))
def read_manifest(source, ctx):
    test_base = ctx.options.get("test_base")
    if test_base and not test_base.endswith(("/", "#", ":")):
        ctx.problem("", f"--test-base {test_base} must end in /, # or :", "give the base of the manifest's folder")
        ctx.raise_if_problems()
    folder = source.path.parent
    # each file is read with a base: the IRI of the suite's folder (its root) + the file's path in it.
    # The root is --test-base, else the base the manifest itself states (json-ld-api's baseIri: its
    # reports name tests under it), else the folder's own file: IRI.
    root_iri = test_base or source.uri.rsplit("/", 1)[0] + "/"
    first = source.path.name if test_base else source.uri.rsplit("/", 1)[1]
    keep: list[ox.Triple] = []
    entries: dict[str, dict] = {}
    identifiers: dict[str, str] = {}
    top: ox.Term | None = None
    top_titles: list[str] = []
    todo, done = [(source.path, root_iri, first)], set()
    while todo:
        file, root, relative = todo.pop(0)  # relative: the file's path under the root, as an IRI writes it
        if file.resolve() in done:
            continue
        done.add(file.resolve())
        base = root + relative
        graph = parse(file, source.name, base, folder)
        stated = stated_base(graph)
        if stated and not test_base and stated != root:
            root, base = stated, stated + relative
            graph = parse(file, source.name, base, folder)
        manifests = graph.subjects_of_type(MANIFEST)
        if not manifests:
            ctx.problem("", f"{file.name} holds no mf:Manifest", "load the suite's manifest file")
            continue
        if top is None:
            top = next((m for m in manifests if isinstance(m, ox.NamedNode) and m.value == base), manifests[0])
            top_titles = [o.value for o in graph.objects(top, LABEL) + graph.objects(top, NAME)]
        seen: set = set()
        for m in manifests:
            for t in graph.by_subject.get(m, ()):
                keep.append(t)
            for prop in (ENTRIES, INCLUDE):
                for head in graph.objects(m, prop):
                    node, lists = head, set()
                    while isinstance(node, ox.BlankNode) and node not in lists:  # the list cells themselves
                        lists.add(node)
                        keep += graph.by_subject.get(node, ())
                        rest = graph.objects(node, REST)
                        node = rest[0] if rest else NIL
            for included in (i for head in graph.objects(m, INCLUDE) for i in graph.items(head)):
                path = beside(folder, root, included.value) if isinstance(included, ox.NamedNode) else None
                if path is None:
                    ctx.problem("", f"{file.name} includes {included}, which is not beside the manifest loaded",
                                "load each manifest outside the suite's folder on its own")
                    continue
                todo.append((path, root, included.value[len(root):]))
            for entry in (e for head in graph.objects(m, ENTRIES) for e in graph.items(head)):
                if not isinstance(entry, ox.NamedNode):
                    ctx.problem("", f"{file.name}: an entry of {m} is a blank node, which no report can name",
                                "give the entry an IRI")
                    continue
                # an entry naming a manifest file of the suite (the JSON-LD suite's top "sequence":
                # compact-manifest.jsonld, …) is followed as mf:include is, not counted as a test
                path = beside(folder, root, entry.value)
                if path is not None and path.suffix.lower() in RDF_SUFFIXES and "#" not in entry.value and path.is_file():
                    todo.append((path, root, entry.value[len(root):]))
                    continue
                graph.closure(entry, keep, seen)
                names = graph.objects(entry, NAME) + graph.objects(entry, LABEL)
                entries[entry.value] = {
                    "types": sorted(o.value for o in graph.objects(entry, TYPE)),
                    "approval": sorted(o.value for a in APPROVAL for o in graph.objects(entry, a)),
                    "name": names[0].value if names else None}
                identifiers[entry.value] = entry.value[len(root):] if entry.value.startswith(root) else entry.value
    ctx.raise_if_problems()
    if not isinstance(top, ox.NamedNode):
        ctx.problem("", "the manifest is a blank node", "give it an IRI (`<>` in Turtle names the file itself)")
        ctx.raise_if_problems()
    if not entries:
        ctx.problem("", "the manifest and those it includes list no entries", "a suite lists its tests in mf:entries")
        ctx.raise_if_problems()
    set_iri = top.value
    digest = canonical_digest({"manifest": set_iri, "entries": entries})
    loaded = set_digest(ctx, set_iri)
    if loaded is not None and loaded != digest:
        other = loaded_among(ctx, [set_iri], "apeval:setDigest ?d").get(set_iri, "another source")
        ctx.problem("", f"the suite <{set_iri}> is already loaded from {other} with other entries",
                    f"drop that source first (kg drop {other}) to load this version of the suite")
        ctx.raise_if_problems()
    t = Triples()
    s = iri(set_iri)
    t.add(s, p("rdf:type"), p("apeval:ReplaySet"))
    t.add(s, p("rdf:type"), p("dcat:Dataset"))
    t.add(s, p("dcterms:identifier"), literal(set_iri))
    t.add(s, p("apeval:setDigest"), literal(digest))
    for title in top_titles[:1]:
        t.add(s, p("dcterms:title"), literal(title))
    for e in sorted(entries):
        t.add(s, p("apeval:hasIntent"), iri(e))
        t.add(iri(e), p("rdf:type"), p("apeval:ReplayIntent"))
        t.add(iri(e), p("apeval:inReplaySet"), s)
        t.add(iri(e), p("dcterms:identifier"), literal(identifiers[e]))
    kept = ox.serialize(list(dict.fromkeys(keep)), format=ox.RdfFormat.N_TRIPLES).decode("utf-8")
    return Projection(kept + t.text(), pins=[digest])
