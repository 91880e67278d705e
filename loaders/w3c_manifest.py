"""W3C test manifests (mf:Manifest with mf:entries, in Turtle or JSON-LD, as the RDF, SPARQL, SHACL and
JSON-LD test suites publish them) → a replay set of the suite's tests, so that coverage, the case ×
system matrix and "tests never reported" (the set-reporting and unreported-cases queries) work on the
implementation reports (EARL) of a W3C suite.

The manifest loaded is the suite: its mf:include'd manifests are read from beside it (never fetched),
and every entry reached is a case of its set (the top manifest's IRI), the entry's IRI being the
case's - the earl:test an implementation report names. Reports name tests by the IRI the suite's
runner resolved them against; --test-base gives that base for the manifest's folder (the SHACL
reports use urn:x-shacl-test:/, so `kg load tests/manifest.ttl --test-base urn:x-shacl-test:/`),
else the file's own location is the base. The manifests' own triples are kept as they are - the
entries' names (mf:name, rdfs:label), types (rdf:type), approval (mf:status, dawgt:approval), actions
and results; test data that a suite writes into the same file (the SHACL suite's shapes and data
graphs) is left out, so that it never reads as an ontology or as results. The set is pinned by the
digest of its entries (IRI, types, approval)."""
from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pyoxigraph as ox

from kg.digests import canonical_digest
from kg.errors import Problem, Rejected
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


def is_manifest(path, head: bytes) -> bool:
    return MF.encode() in head and b"Manifest" in head


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


def parse(file: Path, name: str, base: str) -> Graph:
    try:
        data = file.read_bytes()
        quads = ox.parse(data, format=rdf_format(file), base_iri=base, rename_blank_nodes=True)
        return Graph(dict.fromkeys(q.triple for q in quads))
    except OSError as err:
        raise Rejected([Problem(name, "", f"cannot read an included manifest {file}: {err.strerror}",
                                "keep the suite's manifests beside the one loaded")]) from None
    except SyntaxError as err:
        place, message = _syntax_place(err)
        raise Rejected([Problem(name, place, f"{file.name}: syntax error: {message}")]) from None


@loader(kind="w3c-manifest", parse="rdf", patterns=RDF_PATTERNS, shapes="manifest.ttl", order=10, sniff=is_manifest,
        options=("test_base",))
def read_manifest(source, ctx):
    test_base = ctx.options.get("test_base")
    if test_base and not test_base.endswith(("/", "#", ":")):
        ctx.problem("", f"--test-base {test_base} must end in /, # or :", "give the base of the manifest's folder")
        ctx.raise_if_problems()
    top_base = (test_base + source.path.name) if test_base else source.uri
    prefix = top_base.rsplit("/", 1)[0] + "/"
    folder = source.path.parent
    keep: list[ox.Triple] = []
    entries: dict[str, dict] = {}
    top: ox.Term | None = None
    top_titles: list[str] = []
    todo, done = [(source.path, top_base)], set()
    while todo:
        file, base = todo.pop(0)
        if base in done:
            continue
        done.add(base)
        graph = parse(file, source.name, base)
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
                if not isinstance(included, ox.NamedNode) or not included.value.startswith(prefix):
                    ctx.problem("", f"{file.name} includes {included}, which is not beside the manifest loaded",
                                "load each manifest outside the suite's folder on its own")
                    continue
                todo.append((folder / unquote(included.value[len(prefix):]), included.value))
            for entry in (e for head in graph.objects(m, ENTRIES) for e in graph.items(head)):
                if not isinstance(entry, ox.NamedNode):
                    ctx.problem("", f"{file.name}: an entry of {m} is a blank node, which no report can name",
                                "give the entry an IRI")
                    continue
                graph.closure(entry, keep, seen)
                names = graph.objects(entry, NAME) + graph.objects(entry, LABEL)
                entries[entry.value] = {
                    "types": sorted(o.value for o in graph.objects(entry, TYPE)),
                    "approval": sorted(o.value for a in APPROVAL for o in graph.objects(entry, a)),
                    "name": names[0].value if names else None}
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
        t.add(iri(e), p("dcterms:identifier"), literal(e[len(prefix):] if e.startswith(prefix) else e))
    kept = ox.serialize(list(dict.fromkeys(keep)), format=ox.RdfFormat.N_TRIPLES).decode("utf-8")
    return Projection(kept + t.text(), pins=[digest])
