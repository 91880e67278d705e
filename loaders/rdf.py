"""RDF files: EARL reports and domain ontologies, in any syntax Oxigraph reads.

Both keep the file's triples as they are (relative IRIs resolved against the file's own
location, blank nodes renamed apart, named graphs of TriG/N-Quads folded into the source's
graph). What real EARL reports do loosely — blank-node assertions, earl:mode on the result,
outcomes outside EARL, ill-typed dates — is reported by shapes/earl.ttl as warnings, not
rejected."""
import pyoxigraph as ox

from kg.loading import Projection, loader

RDF_PATTERNS = ("*.ttl", "*.nt", "*.nq", "*.trig", "*.rdf", "*.owl", "*.xml", "*.jsonld", "*.n3")


def as_ntriples(source) -> str:
    triples = list(dict.fromkeys(q.triple for q in source.quads()))  # a triple in two named graphs is one
    return ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES).decode("utf-8") if triples else ""


def speaks_earl(path, head: bytes) -> bool:
    """EARL results, not a file that merely declares the namespace: it must use an assertion term."""
    return b"http://www.w3.org/ns/earl#" in head and any(t in head for t in (b"Assertion", b"result", b"outcome", b"TestSubject", b"Assertor"))


@loader(kind="earl", parse="rdf", patterns=RDF_PATTERNS, shapes="earl.ttl", order=40, sniff=speaks_earl)
def read_earl(source, ctx):
    return Projection(as_ntriples(source))


@loader(kind="ontology", parse="rdf", patterns=RDF_PATTERNS, shapes="ontology.ttl", order=5)
def read_ontology(source, ctx):
    return Projection(as_ntriples(source))
