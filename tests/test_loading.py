"""kg/loading.py: what the engine checks of an RDF file before its parser runs."""
from kg import ingest
from kg.store import Store


def test_rdfxml_with_ordinary_entities_still_loads(tmp_path):
    # OWL files declare their namespaces as entities and use them in every attribute: that
    # expansion is bounded by the file's own size and must keep loading
    about = "".join(f'<owl:Class rdf:about="&ex;C{n}"><rdfs:label>C{n} &amp; &ex;</rdfs:label></owl:Class>\n'
                    for n in range(2000))
    (tmp_path / "onto.owl").write_text(f'''<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
  <!ENTITY owl "http://www.w3.org/2002/07/owl#">
  <!ENTITY base "https://example.org/a/very/long/namespace/that/is/expanded/many/times/">
  <!ENTITY ex "&base;onto#">
]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#"
         xmlns:owl="&owl;">
{about}</rdf:RDF>
''')
    [outcome] = ingest.load(Store(":memory:"), [tmp_path / "onto.owl"])
    assert (outcome.status, outcome.triples) == ("loaded", 4000), outcome.problems
