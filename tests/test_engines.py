"""kg/engines.py: the portability test's rdflib engine joins by hash, OPTIONALs included; it must
give exactly the solutions rdflib's own joins give, unbound variables included."""
import pytest
from rdflib import Literal, Variable
from rdflib.plugins.sparql.evalutils import _join as rdflib_join
from rdflib.plugins.sparql.sparql import FrozenDict

from kg.engines import RdflibEngine, _hash_join

X, Y, Z = Variable("x"), Variable("y"), Variable("z")


def rows(*dicts):
    return [FrozenDict(d) for d in dicts]


def test_the_hash_join_gives_rdflibs_solutions_with_unbound_variables_on_either_side():
    a = rows({X: Literal(1)}, {X: Literal(2), Y: Literal("b")}, {Y: Literal("c")}, {Z: Literal(9)}, {})
    b = rows({X: Literal(1), Y: Literal("a")}, {X: Literal(2), Y: Literal("b")}, {X: Literal(2), Y: Literal("c")},
             {X: Literal(3)})
    expected = sorted(map(repr, rdflib_join(a, set(b))))
    assert len(expected) == 12  # every row of a meets at least one of b; the empty one meets all four
    assert sorted(map(repr, _hash_join(a, set(b)))) == expected


def test_a_query_of_joined_sub_selects_and_optionals_gives_the_same_rows_either_way():
    data = "".join(f"<urn:v{i}> <urn:p> \"{i % 3}\" <urn:g> .\n<urn:v{i}> <urn:q> <urn:c{i % 4}> <urn:g> .\n"
                   for i in range(30)) + "<urn:c1> <urn:label> \"one\" <urn:h> .\n"
    query = """SELECT ?v ?p ?c ?label WHERE {
                 { SELECT ?v ?p WHERE { ?v <urn:p> ?p } }
                 { SELECT ?v ?c WHERE { ?v <urn:q> ?c } }
                 OPTIONAL { ?c <urn:label> ?label } }"""
    plain, hashed = RdflibEngine(data), RdflibEngine(data, hash_joins=True)
    names, expected = plain.select_values(query)
    assert len(expected) == 30 and sum(1 for r in expected if r[3] == "one") == 8
    hashed_names, hashed_rows = hashed.select_values(query)
    assert hashed_names == names and sorted(hashed_rows, key=repr) == sorted(expected, key=repr)


OPTIONAL_DATA = "".join(
    f"<urn:v{i}> <urn:p> \"{i % 5}\"^^<http://www.w3.org/2001/XMLSchema#integer> <urn:g> .\n<urn:v{i}> <urn:q> <urn:c{i % 4}> <urn:g> .\n" for i in range(20)
) + "<urn:c1> <urn:label> \"one\" <urn:h> .\n<urn:c1> <urn:label> \"uno\" <urn:h> .\n<urn:c2> <urn:limit> \"2\"^^<http://www.w3.org/2001/XMLSchema#integer> <urn:h> .\n"

# each an OPTIONAL rdflib evaluates with the row's values put in, with the number of rows it gives
OPTIONALS = {
    "a filter on both sides": ("""SELECT ?v ?c ?l WHERE { ?v <urn:p> ?p ; <urn:q> ?c .
                                    OPTIONAL { ?c <urn:limit> ?l FILTER(?p > ?l) } }""", 20),
    "a sub-select": ("""SELECT ?v ?c ?n WHERE { ?v <urn:q> ?c .
                          OPTIONAL { SELECT ?c (COUNT(?label) AS ?n) WHERE { ?c <urn:label> ?label } GROUP BY ?c } }""", 20),
    "two matches, none and nested": ("""SELECT ?v ?label ?l WHERE { ?v <urn:q> ?c .
                                          OPTIONAL { ?c <urn:label> ?label OPTIONAL { ?c <urn:limit> ?l } } }""", 25),
    "an error in the filter": ("""SELECT ?v ?label WHERE { ?v <urn:q> ?c .
                                   OPTIONAL { ?c <urn:label> ?label FILTER(ABS(?label) > 0) } }""", 20),
    "an unbound variable in the filter": ("""SELECT ?v ?l WHERE { ?v <urn:q> ?c OPTIONAL { ?v <urn:none> ?x }
                                              OPTIONAL { ?c <urn:limit> ?l FILTER(!BOUND(?x)) } }""", 20),
}


@pytest.mark.parametrize("name", sorted(OPTIONALS))
def test_an_optional_by_hash_gives_rdflibs_rows(name):
    query, count = OPTIONALS[name]
    names, expected = RdflibEngine(OPTIONAL_DATA).select_values(query)
    assert len(expected) == count
    hashed_names, hashed_rows = RdflibEngine(OPTIONAL_DATA, hash_joins=True).select_values(query)
    assert hashed_names == names and sorted(hashed_rows, key=repr) == sorted(expected, key=repr)


def test_the_hash_joins_are_swapped_in_for_one_query_only():
    import rdflib.plugins.sparql.evaluate as evaluate
    before = evaluate._join, evaluate.evalLeftJoin
    RdflibEngine("<urn:a> <urn:b> <urn:c> <urn:g> .\n", hash_joins=True).select_values("SELECT * WHERE { ?s ?p ?o }")
    assert (evaluate._join, evaluate.evalLeftJoin) == before
