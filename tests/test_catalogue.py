"""The catalogue format: headers are checked against their SPARQL, parameters are bound as RDF
terms and cannot change a query, and a bad header is an error, never silently ignored."""
import json
import re
from pathlib import Path

import pyoxigraph as ox
import pytest

from kg import catalogue
from kg.catalogue import CatalogueError, ParameterError
from kg.store import Store

GOOD = """#+ summary: things with a label
#+ params:
#+   label: {type: string, doc: the label to look for}
#+ columns:
#+   thing: a thing
#+   n: how many
SELECT ?thing (COUNT(*) AS ?n) WHERE { ?thing <http://www.w3.org/2000/01/rdf-schema#label> ?label } GROUP BY ?thing
"""


def write(tmp_path, text, name="q.rq") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_shipped_catalogue_parses_and_is_consistent():
    entries = catalogue.load(deep=True)  # every query's projection checked against its header
    assert "pass-at-k" in entries
    for q in entries.values():
        assert q.summary and q.columns


@pytest.mark.parametrize("mutation,message", [
    (lambda t: t.replace("#+ summary: things with a label\n", ""), "summary"),
    (lambda t: t.replace("#+ summary", "#+ sumary"), "unknown header key"),
    (lambda t: t.replace("#+   n: how many\n", ""), "projects"),
    (lambda t: t.replace("#+   n: how many\n", "#+   n: how many\n#+   extra: not projected\n"), "projects"),
    (lambda t: t.replace("?label }", "\"x\" }"), r"never uses \?label"),
    (lambda t: t.replace("{type: string", "{type: text"), "parameter label"),
    (lambda t: t.replace("#+ columns:", "#+ columns: [oops"), "not valid YAML"),
    (lambda t: t.replace("GROUP BY ?thing", "GROUP BY"), "not valid SPARQL"),
    (lambda t: t.replace("#+ columns:", "#+ derive: {n2: sqrt(n)}\n#+ columns:"), "must call a finisher"),
    (lambda t: t.replace("#+ columns:", "#+ tokens: {n: [integer, float]}\n#+ columns:"), "tokens n: a list of field types"),
    (lambda t: t.replace("#+ columns:", "#+ tokens: {missing: [integer]}\n#+ columns:"), "tokens names missing"),
    (lambda t: t.replace("#+ columns:", "#+ types: {n: bool}\n#+ columns:"), "types maps a column to its type"),
    (lambda t: t.replace("#+ columns:", "#+ types: {missing: boolean}\n#+ columns:"), "types names missing"),
])
def test_a_bad_header_is_an_error(tmp_path, mutation, message):
    assert catalogue.parse_file(write(tmp_path, GOOD))  # the unmutated file is fine
    with pytest.raises(CatalogueError, match=message):
        catalogue.parse_file(write(tmp_path, mutation(GOOD)))


def test_packed_columns_reach_finishers_as_typed_tuples():
    # "n:c" per case, as pass-at-k GROUP_CONCATs it: blanks where a case was left out, a last field
    # of strings keeping its own ':'
    assert catalogue.decode_tokens(" 3:2  5:0 ", ("integer", "integer")) == [(3, 2), (5, 0)]
    assert catalogue.decode_tokens("1:0:1:1:case=urn:x", ("integer",) * 4 + ("string",)) == [(1, 0, 1, 1, "case=urn:x")]
    assert catalogue.decode_tokens(None, ("integer",)) == [] == catalogue.decode_tokens("", ("integer",))
    with pytest.raises(ValueError, match="2 fields"):
        catalogue.decode_tokens("3", ("integer", "integer"))
    q = catalogue.load()["pass-at-k"]
    assert q.tokens == {"case_counts": ("integer", "integer")}
    row = {c: 0 for c in q.columns}
    row.update(case_counts="3:3 3:0 ", k=3, cases=2)
    finished = catalogue.finish(q, [row], {"k": 3}).rows[0]
    assert finished["pass_at_k"] == 0.5 and finished["pass_hat_k"] == 0.5  # (1 + 0) / 2


BOOLEAN = """#+ summary: whether each thing has a label
#+ columns:
#+   thing: a thing
#+   labelled: whether it has one
#+ types:
#+   labelled: boolean
SELECT ?thing (COUNT(?label) > 0 AS ?labelled)
WHERE { ?thing a <urn:T> OPTIONAL { ?thing <http://www.w3.org/2000/01/rdf-schema#label> ?label } }
GROUP BY ?thing ORDER BY ?thing
"""


class IntegerBooleans:
    """An engine answering computed booleans as xsd:integer 1/0, as Virtuoso 7 does (the real
    server is held to this in tests/remote/test_virtuoso.py): the embedded store's answer, each
    boolean turned into the integer Virtuoso sends."""

    def __init__(self, store):
        self.store = store

    def select_values(self, text):
        variables, rows = self.store.select_values(text)
        return variables, [tuple(int(v) if isinstance(v, bool) else v for v in row) for row in rows]


def test_a_column_declared_boolean_is_a_bool_from_every_engine(tmp_path):
    q = catalogue.parse_file(write(tmp_path, BOOLEAN))
    assert q.types == {"labelled": "boolean"}
    store = Store(":memory:")
    store.ox.update('INSERT DATA { <urn:a> a <urn:T> ; <http://www.w3.org/2000/01/rdf-schema#label> "a" . '
                    '<urn:b> a <urn:T> }')
    expected = [{"thing": "urn:a", "labelled": True}, {"thing": "urn:b", "labelled": False}]
    assert catalogue.run(q, store, {}).rows == expected
    assert IntegerBooleans(store).select_values(q.text)[1] == [("urn:a", 1), ("urn:b", 0)]  # what Virtuoso sends
    rows = catalogue.run(q, IntegerBooleans(store), {}).rows
    assert rows == expected and all(type(r["labelled"]) is bool for r in rows)
    # without the declaration the integers stay integers: nothing is guessed from the values
    undeclared = catalogue.parse_file(write(tmp_path, BOOLEAN.replace("#+ types:\n#+   labelled: boolean\n", "")))
    assert [r["labelled"] for r in catalogue.run(undeclared, IntegerBooleans(store), {}).rows] == [1, 0]
    # a value that is no boolean is an error naming the query and the column, not a truthy guess
    assert catalogue.finish(q, [{"thing": "urn:c", "labelled": None}], {}).rows[0]["labelled"] is None
    with pytest.raises(CatalogueError, match="q: column labelled is declared boolean .* answered 2"):
        catalogue.finish(q, [{"thing": "urn:c", "labelled": 2}], {})


def test_every_computed_boolean_column_of_the_catalogue_is_declared():
    # a column the embedded store answers with booleans must say so, or Virtuoso prints 1/0 there
    from kg import ingest
    from tests.conftest import EXAMPLES, required_params
    store = Store(":memory:")
    ingest.load(store, [EXAMPLES])
    undeclared = {}
    for name, q in catalogue.load().items():
        params = {**({"k": 2} if "k" in q.params else {}), **required_params(q)}
        rows = catalogue.run(q, store, params).rows
        derived = {d.column for d in q.derive}  # a finisher's column is typed in Python
        found = {c for r in rows for c, v in r.items() if isinstance(v, bool) and c not in set(q.types) | derived}
        if found:
            undeclared[name] = sorted(found)
    assert undeclared == {}


def test_a_status_column_is_a_value_whose_word_code_tests():
    """A refusal is a value (`types: {status: status}`): the text as the query made it, with its word
    apart, for every engine; a derived status (variant-comparison's gate) too."""
    from kg.status import Status, status_kind
    refused = Status("refused: the replay set is stated with two digests")
    assert (refused, refused.kind, refused.why, refused.refused) == (
        "refused: the replay set is stated with two digests", "refused", "the replay set is stated with two digests", True)
    late = Status("registered late: 2026-11-02T09:00:00Z")
    assert (late.kind, late.why, late.refused) == ("registered late", "2026-11-02T09:00:00Z", False)
    assert (Status("compared").kind, Status("compared").why, status_kind(None)) == ("compared", None, None)
    entries = catalogue.load()
    assert entries["compare"].types["status"] == "status"
    q = entries["variant-comparison"]
    assert q.types["status"] == q.types["gate"] == "status"
    row = {c: None for c in q.columns}
    row.update(status="refused: two digests", mean_difference=None)
    finished = catalogue.finish(q, [row], {}).rows[0]
    assert type(finished["status"]) is Status and finished["status"].refused
    assert type(finished["gate"]) is Status and finished["gate"] == "refused"
    # the CSV and JSON show the text as it is
    assert json.dumps(finished["status"]) == '"refused: two digests"'


def test_names_are_unique(tmp_path):
    (tmp_path / "a").mkdir()
    write(tmp_path, GOOD, "q.rq")
    write(tmp_path / "a", GOOD, "q.rq")
    with pytest.raises(CatalogueError, match="taken"):
        catalogue.load(tmp_path, deep=True)


def labelled_store() -> Store:
    store = Store(":memory:")
    store.ox.update('INSERT DATA { GRAPH <urn:g> { <urn:a> <http://www.w3.org/2000/01/rdf-schema#label> "x" . '
                    '<urn:b> <http://www.w3.org/2000/01/rdf-schema#label> "y\\" } UNION { ?s ?p ?o" } }')
    return store


def test_a_hostile_parameter_value_cannot_change_the_query(tmp_path):
    q = catalogue.parse_file(write(tmp_path, GOOD))
    store = labelled_store()
    hostile = 'y" } UNION { ?s ?p ?o'
    rows = catalogue.run(q, store, {"label": hostile}).rows
    assert rows == [{"thing": "urn:b", "n": 1}], "the value matched as a literal, nothing more"
    for value in ['"} } UNION { ?thing ?p ?label } #', "x' . } #", "}", "\\", '"""', "x\n} SELECT * WHERE {"]:
        assert catalogue.run(q, store, {"label": value}).rows == []
    assert catalogue.run(q, store, {"label": "x"}).rows == [{"thing": "urn:a", "n": 1}]


def test_an_absent_optional_parameter_leaves_the_variable_free(tmp_path):
    q = catalogue.parse_file(write(tmp_path, GOOD))
    assert len(catalogue.run(q, labelled_store(), {}).rows) == 2


def test_parameters_reach_sub_selects(tmp_path):
    text = """#+ summary: sub-select
#+ params:
#+   min: {type: integer, default: 2, doc: smallest value}
#+ columns:
#+   n: values at least min
SELECT ?n WHERE { { SELECT (COUNT(*) AS ?n) WHERE { ?s <urn:p> ?v FILTER(?v >= ?min) } } }
"""
    q = catalogue.parse_file(write(tmp_path, text))
    store = Store(":memory:")
    store.ox.update("INSERT DATA { <urn:a> <urn:p> 1 . <urn:b> <urn:p> 2 . <urn:c> <urn:p> 3 }")
    assert catalogue.run(q, store, {}).rows == [{"n": 2}]
    assert catalogue.run(q, store, {"min": 3}).rows == [{"n": 1}]


@pytest.mark.parametrize("params,message", [
    ({"nope": 1}, "has no parameter nope"),
    ({"k": "two"}, "takes an integer"),
    ({"k": True}, "takes an integer"),
    ({"k": 0}, r"parameter k of pass-at-k must be ≥ 1 \(trials a case needs .*\), got 0"),  # was a traceback from the finisher
    ({"k": "-1"}, "parameter k of pass-at-k must be ≥ 1 .*, got -1"),
])
def test_bad_parameter_values_are_refused(params, message):
    q = catalogue.load()["pass-at-k"]
    with pytest.raises(ParameterError, match=message):
        catalogue.run(q, Store(":memory:"), params)


@pytest.mark.parametrize("query, value", [("graduation", "1.5"), ("graduation", "-0.1"), ("graduation-runs", 2)])
def test_a_threshold_is_a_rate(query, value):
    with pytest.raises(ParameterError, match=f"parameter threshold of {query} must be ≥ 0 and ≤ 1"):
        catalogue.run(catalogue.load()[query], Store(":memory:"), {"threshold": value})


@pytest.mark.parametrize("args, message", [
    (["query", "pass-at-k", "-p", "k=0"], "parameter k of pass-at-k must be ≥ 1"),
    (["report", "-k", "0"], "Invalid value for '-k': 0 is not in the range x>=1"),
])
def test_the_cli_refuses_an_out_of_range_k_as_a_usage_error(tmp_path, args, message):
    from .conftest import EXAMPLES, run_kg
    store = tmp_path / "store"
    assert run_kg("load", EXAMPLES / "cubby-regression.replayset.json", "--store", store).returncode == 0
    done = run_kg(*args, "--store", store, cwd=tmp_path)
    assert (done.returncode, message in done.stderr, "Traceback" in done.stderr) == (2, True, False), done.stderr


def test_bounds_are_for_numbers(tmp_path):
    path = write(tmp_path, "#+ summary: s\n#+ params:\n#+   x: {type: string, min: 1}\n#+ columns:\n#+   x: x\n"
                           "SELECT ?x WHERE { ?x ?p ?o }\n")
    with pytest.raises(catalogue.CatalogueError, match="min and max are numbers, for an integer or decimal parameter"):
        catalogue.parse_file(path)


def test_binding_replaces_each_use_by_its_term_outside_strings_comments_and_iris():
    text = ('SELECT ?x ("?x" AS ?s) (COUNT(?y) AS ?n) # ?x in a comment\n'
            'WHERE { ?y <urn:p?x> ?x FILTER(BOUND(?x) && BOUND(?y)) BIND(1 AS ?x1)\n'
            '  { SELECT DISTINCT ?x WHERE { ?x ?p ?o } } { SELECT ?x ?o WHERE { ?x ?p ?o } GROUP BY ?x ?o } }\n'
            'GROUP BY ?x ORDER BY DESC(?x) ?x')
    assert catalogue.bind(text, {"x": ox.NamedNode("urn:a")}) == (
        'SELECT (<urn:a> AS ?x) ("?x" AS ?s) (COUNT(?y) AS ?n) # ?x in a comment\n'
        'WHERE { ?y <urn:p?x> <urn:a> FILTER(true && BOUND(?y)) BIND(1 AS ?x1)\n'
        '  { SELECT DISTINCT (<urn:a> AS ?kg_bound_x) WHERE { <urn:a> ?p ?o } } { SELECT  ?o WHERE { <urn:a> ?p ?o } GROUP BY  ?o } }\n'
        'GROUP BY (<urn:a>) ORDER BY DESC(<urn:a>) ')
    # not echoed (a catalogue query's finish fills the column in): the query's own column is left out too
    assert catalogue.bind("SELECT ?x ?y WHERE { ?y <urn:p> ?x }", {"x": ox.NamedNode("urn:a")}, echo=False) == (
        "SELECT  ?y WHERE { ?y <urn:p> <urn:a> }")


def _bound_by_values(text: str, terms: dict) -> str:
    """How kg bound parameters before (an independent method to compare with): a VALUES block
    opening every WHERE clause."""
    block = " VALUES ({}) {{ ({}) }} ".format(" ".join(f"?{k}" for k in terms), " ".join(map(str, terms.values())))
    out, last = [], 0
    for pos in catalogue.where_positions(text):
        out += [text[last:pos], block]
        last = pos
    return "".join(out) + text[last:]


@pytest.mark.parametrize("text", [
    "SELECT ?s ?o WHERE { ?s <urn:p> ?o } ORDER BY ?o",
    "SELECT ?o (COUNT(*) AS ?n) WHERE { ?s <urn:p> ?o } GROUP BY ?o ORDER BY ?o",
    "SELECT ?o ?t WHERE { ?s <urn:p> ?o OPTIONAL { ?s <urn:t> ?t FILTER(?t > ?min) } } ORDER BY ?o ?t",
    "SELECT ?s (BOUND(?o) AS ?given) WHERE { { SELECT DISTINCT ?o WHERE { ?x <urn:p> ?o } } ?s <urn:p> ?o } ORDER BY ?s",
    "SELECT ?s WHERE { ?s <urn:p> ?any { SELECT DISTINCT ?o WHERE { [] <urn:p> ?o } } } ORDER BY ?s",
    "SELECT ?o ?s WHERE { { SELECT DISTINCT ?s ?o WHERE { ?s <urn:p> ?o } } } ORDER BY ?s",
    "SELECT ?o (SUM(?t) AS ?total) WHERE { { SELECT ?o ?s WHERE { ?s <urn:p> ?o } GROUP BY ?o ?s } ?s <urn:t> ?t "
    "FILTER(?t >= ?min) } GROUP BY ?o ORDER BY ?o",
])
def test_a_bound_query_answers_as_a_values_block_in_every_where_did(text):
    """Substitution (catalogue.bind) gives the rows the VALUES blocks gave, on a store with matches
    and misses: a projected, grouped, ordered or BOUND-tested parameter, one a sub-select projects,
    alone or with others."""
    store = ox.Store()
    for s, o, t in [("a", "x", 1), ("b", "x", 5), ("c", "y", 3), ("d", "y", 7)]:
        store.add(ox.Quad(ox.NamedNode(f"urn:{s}"), ox.NamedNode("urn:p"), ox.NamedNode(f"urn:{o}")))
        store.add(ox.Quad(ox.NamedNode(f"urn:{s}"), ox.NamedNode("urn:t"),
                          ox.Literal(str(t), datatype=ox.NamedNode(catalogue.XSD + "integer"))))
    answered = 0
    for o in ("x", "y", "z"):
        terms = {"o": ox.NamedNode(f"urn:{o}"), "min": ox.Literal("3", datatype=ox.NamedNode(catalogue.XSD + "integer"))}
        terms = {k: v for k, v in terms.items() if re.search(rf"\?{k}\b", text)}

        def rows(query):
            result = store.query(query)
            return [tuple(row[v.value] for v in result.variables) for row in result]
        expected = rows(_bound_by_values(text, terms))
        assert rows(catalogue.bind(text, terms)) == expected
        answered += bool(expected)
    assert answered >= 1  # some value of the parameter matches: equal empty answers would prove nothing


def test_a_params_rule_must_fit_its_type_and_its_default(tmp_path):
    def header(spec):
        path = tmp_path / "q.rq"
        path.write_text(f"#+ summary: s\n#+ params:\n#+   k: {spec}\n#+ columns:\n#+   k: k\n"
                        "SELECT ?k WHERE { BIND(?k AS ?k2) }\n")
        return path
    with pytest.raises(catalogue.CatalogueError, match="min and max are numbers, for an integer or decimal"):
        catalogue.parse_file(header("{type: string, min: 1}"), deep=False)
    with pytest.raises(catalogue.CatalogueError, match="the default breaks its own rule: parameter k of q must be ≥ 1"):
        catalogue.parse_file(header("{type: integer, default: 0, min: 1}"), deep=False)
    query = catalogue.parse_file(header("{type: string, choices: [a, b]}"), deep=False)
    with pytest.raises(catalogue.ParameterError, match="parameter k of q must be one of a, b, got 'c'"):
        query.bound_text({"k": "c"})


def test_a_remembered_decoding_tells_terms_of_one_lexical_form_apart_and_past_its_limit(monkeypatch):
    """The memo of an answer's decoded terms (catalogue.remembered) keys by the term, not its text:
    "1" as an integer, a string and an IRI are three values; past MEMO_LIMIT terms are still decoded."""
    monkeypatch.setattr(catalogue.values, "MEMO_LIMIT", 2)  # where remembered reads it
    decoded = []

    def decode(term):
        decoded.append(term)
        return catalogue.term_value(term)
    value = catalogue.remembered(decode)
    integer = ox.Literal("1", datatype=ox.NamedNode(catalogue.XSD + "integer"))
    terms = [integer, ox.Literal("1"), ox.NamedNode("urn:1"), None, integer, ox.Literal("1"), ox.NamedNode("urn:1")]
    assert [value(t) for t in terms] == [1, "1", "urn:1", None, 1, "1", "urn:1"]
    assert [type(value(t)) for t in terms[:3]] == [int, str, catalogue.IRI]
    # the first two terms were kept and decoded once each; past the limit of two, urn:1 and None every time
    assert decoded.count(integer) == 1 and decoded.count(ox.Literal("1")) == 1
    assert decoded.count(ox.NamedNode("urn:1")) == 3
