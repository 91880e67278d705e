"""Every local term kg uses is declared: "local terms declared in one vocabulary", kg/vocab/kg*.ttl.
The queries and layers (outside comments), the shapes, the templates and the Python that writes
triples are scanned for kg: names and full IRIs in kg's namespace; a term used there and declared
nowhere fails here, with the files that use it."""
import re
from pathlib import Path

import pyoxigraph as ox

ROOT = Path(__file__).resolve().parent.parent
KG = "https://kg.example/ns#"
# kg:name in SPARQL, Turtle and templates; {KG}name and KG + "name" in Python; the full IRI anywhere
_USE = re.compile(r"\{KG\}([A-Za-z]\w*)|KG\s*\+\s*[\"']([A-Za-z]\w*)|(?<![\w:/.])kg:([A-Za-z][\w-]*)"
                  r"|https://kg\.example/ns#([A-Za-z][\w-]*)")


def declared() -> set[str]:
    found = set()
    for path in (ROOT / "kg" / "vocab").glob("kg*.ttl"):
        store = ox.Store()
        store.load(path=str(path), format=ox.RdfFormat.TURTLE)
        found |= {q.subject.value[len(KG):] for q in store
                  if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(KG)}
    return found


def _uncommented(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".rq", ".ru"):  # a query's comments may name a term it does not use
        return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return text


def used() -> dict[str, set[str]]:
    files = [p for folder, patterns in (("queries", ["*.rq", "*.ru"]), ("shapes", ["*.ttl"]),
                                        ("reports", ["*.html"]), ("kg", ["*.py"]), ("loaders", ["*.py"]))
             for pattern in patterns for p in (ROOT / folder).rglob(pattern)]
    found: dict[str, set[str]] = {}
    for path in files:
        for match in _USE.finditer(_uncommented(path)):
            term = next(group for group in match.groups() if group)
            found.setdefault(term, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_kg_term_used_is_declared_in_the_vocabulary():
    terms = used()
    assert len(terms) > 100, f"the scan found {len(terms)} terms: it no longer reads the catalogue"
    missing = {term: sorted(files)[:3] for term, files in terms.items() if term not in declared()}
    assert not missing, f"used but declared in no kg/vocab/kg*.ttl: {missing}"


def test_the_scan_finds_a_term_in_each_way_it_is_written(tmp_path):
    # the test above can only fail if the pattern sees terms: each way kg writes one is found
    text = 'f"{KG}touchedFor" KG + "layerVersion" ?t kg:eligible <https://kg.example/ns#Tally> # kg:notATerm'
    assert {next(g for g in m.groups() if g) for m in _USE.finditer(text)} == {
        "touchedFor", "layerVersion", "eligible", "Tally", "notATerm"}
    query = tmp_path / "q.rq"
    query.write_text("# kg:onlyInAComment\nSELECT * WHERE { ?s kg:eligible ?o }\n")
    assert [m.group(3) for m in _USE.finditer(_uncommented(query))] == ["eligible"]
