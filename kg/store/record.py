"""A source's record in the catalogue graph: what its graph came from, and its validation report,
as N-Triples."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..terms import Triples, iri, literal, p


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


def _in_graph(ntriples: str, graph: str) -> str:
    """N-Triples lines as N-Quads in a graph (N-Triples escapes newlines, so " .\n" ends a line)."""
    return ntriples.replace(" .\n", f" <{graph}> .\n")
