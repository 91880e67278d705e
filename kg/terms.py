"""Namespaces, IRI minting and the N-Triples text loaders emit.

Loaders write N-Triples text and hand it to the store in one bulk call: building one
Python object per term costs several times more than formatting a line."""
from __future__ import annotations

import functools
import re
from decimal import Decimal
from urllib.parse import quote

APEVAL = "https://agenticprimitives.dev/ns/evaluation#"
APEXEC = "https://agenticprimitives.dev/ns/execution#"
EARL = "http://www.w3.org/ns/earl#"
PROV = "http://www.w3.org/ns/prov#"
DCTERMS = "http://purl.org/dc/terms/"
DCAT = "http://www.w3.org/ns/dcat#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
DQV = "http://www.w3.org/ns/dqv#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
SH = "http://www.w3.org/ns/shacl#"
VOID = "http://rdfs.org/ns/void#"
DUL = "http://www.ontologydesignpatterns.org/ont/dul/DUL.owl#"
PPLAN = "http://purl.org/net/p-plan#"
EPPLAN = "https://w3id.org/ep-plan#"
KG = "https://kg.example/ns#"

PREFIXES = {
    "apeval": APEVAL, "apexec": APEXEC, "earl": EARL, "prov": PROV, "dcterms": DCTERMS, "dcat": DCAT,
    "skos": SKOS, "rdf": RDF, "rdfs": RDFS, "owl": OWL, "xsd": XSD, "sh": SH, "void": VOID, "dul": DUL,
    "p-plan": PPLAN, "ep-plan": EPPLAN, "dqv": DQV, "kg": KG,
}

# apeval's run metrics (apeval:Metrics), by skos:notation; the IRI is derived from the notation
# (metric_iri), never looked up. The unit is apeval:unit's UCUM code.
METRIC_UNITS = {
    "completed": "1", "steps-planned": "{count}", "steps-run": "{count}", "steps-refused": "{count}",
    "verdicts-allow": "{count}", "verdicts-deny": "{count}", "approvals-waited": "{count}",
    "replans": "{count}", "resumed-steps": "{count}", "latency-ms": "ms", "model-calls": "{count}",
    "tokens-in": "{count}", "tokens-out": "{count}", "vault-calls": "{count}",
    "effects-confirmed": "{count}", "engagements": "{count}",
}


def metric_iri(notation: str) -> str:
    """apeval's rule: `m-` + the notation in camelCase (`latency-ms` → `apeval:m-latencyMs`)."""
    head, *rest = notation.split("-")
    return APEVAL + "m-" + head + "".join(word[:1].upper() + word[1:] for word in rest)


DEFAULT_BASE = "https://kg.example/id/"
CATALOGUE_GRAPH = "urn:kg:catalogue"

RDF_TYPE = f"<{RDF}type>"

# Schemes we accept for an id given as an absolute IRI; anything else with a colon must be a
# declared CURIE prefix, so that a mistyped prefix is an error instead of a silent new IRI.
_IRI_SCHEMES = ("http://", "https://", "urn:", "tag:", "did:", "mailto:", "file:/")
_IRI_FORBIDDEN = re.compile(r'[\x00-\x20<>"{}|^`\\]')


# What an IRI path segment may hold unencoded (RFC 3987 pchar less "/" and ":"), so that an
# id like "cubby@1.4.0" stays readable in its IRI.
_SEGMENT_SAFE = "@!$&'()*+,;="
# what quote() leaves alone with that safe set: ids made only of these skip it (most ids, and a
# third of a large load's minting time was quote() returning its input unchanged)
_UNQUOTED = re.compile(r"[A-Za-z0-9_.~\-@!$&'()*+,;=]*")


class MintError(ValueError):
    pass


class Minter:
    """Turns ids (plain strings, absolute IRIs, CURIEs) into IRIs, the same id always to the same IRI."""

    def __init__(self, base: str, prefixes: dict[str, str] | None = None, declared_by: str = "the file"):
        self.base = base
        self.prefixes = prefixes or {}
        self.declared_by = declared_by

    def resolve(self, value: str) -> str | None:
        """An explicit IRI (absolute or CURIE), or None for a plain id."""
        if ":" not in value:
            return None
        prefix, _, local = value.partition(":")
        if prefix in self.prefixes:
            return check_iri(self.prefixes[prefix] + local)
        if value.startswith(_IRI_SCHEMES):
            return check_iri(value)
        declared = ", ".join(sorted(self.prefixes)) or "none"
        raise MintError(f'"{value}" uses the prefix "{prefix}", which is not declared by {self.declared_by} '
                        f'(declared: {declared}); add it to "prefixes" or write the full IRI')

    def iri(self, value: str, *scope: str) -> str:
        """The IRI of an id: explicit IRIs as they are, plain ids minted under base/scope/."""
        explicit = self.resolve(value)
        return explicit if explicit is not None else self.under(value, *scope)

    def under(self, value: str, *scope: str) -> str:
        """An IRI minted under the base whatever the id looks like (for nodes derived from an id,
        like an assertion's result, which must never be the node the id itself names)."""
        return self.base + "".join(segment(s) + "/" for s in scope) + segment(value)

    def term(self, value: str) -> str:
        """A term that must be an explicit IRI (a domain class or concept)."""
        explicit = self.resolve(value)
        if explicit is None:
            raise MintError(f'"{value}" is not an IRI or CURIE; a class or concept must be one '
                            f'(e.g. "cubby:Answer" with "cubby" in "prefixes")')
        return explicit


def segment(value: str) -> str:
    """One path segment of a minted IRI, percent-encoded where it must be."""
    return value if _UNQUOTED.fullmatch(value) else quote(value, safe=_SEGMENT_SAFE)


def check_iri(value: str) -> str:
    if _IRI_FORBIDDEN.search(value):
        raise MintError(f'"{value}" is not a valid IRI (it holds a space, quote, angle bracket or brace)')
    fault = _iri_fault(value)
    if fault:
        raise MintError(f'"{value}" is not a valid IRI ({fault})')
    return value


@functools.lru_cache(maxsize=4096)  # a file names the same few explicit IRIs on every row
def _iri_fault(value: str) -> str | None:
    """What RFC 3987 finds wrong with an absolute IRI ("%zz", a bad host, …), checked here so the
    error points at the user's file and not at the N-Triples kg writes from it."""
    import pyoxigraph as ox
    try:
        ox.NamedNode(value)
    except ValueError as err:
        return str(err)
    return None


def iri(value: str) -> str:
    return f"<{value}>"


_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


def literal(value, datatype: str | None = None) -> str:
    if isinstance(value, bool):
        return f'"{"true" if value else "false"}"^^<{XSD}boolean>'
    if isinstance(value, int):
        return f'"{value}"^^<{XSD}integer>'
    if isinstance(value, float):
        return f'"{value!r}"^^<{XSD}decimal>' if datatype == XSD + "decimal" else f'"{value!r}"^^<{XSD}double>'
    text = str(value).translate(_ESCAPES)
    return f'"{text}"^^<{datatype}>' if datatype else f'"{text}"'


def decimal(value: float | int) -> str:
    """A JSON number as xsd:decimal, written without exponent."""
    text = format(Decimal(repr(value)), "f") if isinstance(value, float) else str(value)
    if "." in text:
        text = text.rstrip("0")
        text = text + "0" if text.endswith(".") else text
    return f'"{text}"^^<{XSD}decimal>'


class Triples:
    """N-Triples text built line by line; subjects and objects are already-rendered terms."""

    __slots__ = ("lines",)

    def __init__(self):
        self.lines: list[str] = []

    def add(self, s: str, p: str, o: str) -> None:
        self.lines.append(f"{s} {p} {o} .\n")

    def text(self) -> str:
        """The triples once each: loaders may state a shared fact (a system, a skill) on every row."""
        return "".join(dict.fromkeys(self.lines))

    def __len__(self) -> int:
        return len(self.lines)


@functools.cache  # called for every triple a loader writes (4.6M times at 100k assertions), with a few dozen names
def p(prefixed: str) -> str:
    """`apeval:split` → `<https://…#split>`; a tiny helper so loaders read like Turtle."""
    prefix, _, local = prefixed.partition(":")
    return f"<{PREFIXES[prefix]}{local}>"


def declare(t: Triples, subject_iri: str, rdf_class: str, ident: str) -> None:
    """A minted thing's type and the plain id it was minted from (skills, systems, graders)."""
    t.add(iri(subject_iri), RDF_TYPE, p(rdf_class))
    t.add(iri(subject_iri), p("dcterms:identifier"), literal(ident))
