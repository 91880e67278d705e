"""kg against a real Virtuoso Open Source 7 server (Debian's `virtuoso-opensource`, installed by
scripts/install-virtuoso.sh; every test here skips without it): the example estate loaded through
kg, the whole catalogue compared query by query with the embedded store's rows (on the server just
loaded, and again once it has restarted), and the ways this
engine differs that kg must handle rather than hide — its row cap (ResultSetMaxRows), its
"anytime" partial answers, its JSON dialect, a Graph Store that drops a chunked upload, a DROP ALL
that does nothing, and digest-only authentication. docs/engines.md records the results.

A query Virtuoso refuses (a compile error, or a hang kg's timeout ends) is listed in REFUSED with
the engine limitation: the test proves kg fails loudly with that error and reports it as xfail. A
query Virtuoso answers with other rows or other numbers than the embedded store FAILS: that is a
wrong answer, and the failure says which columns differ."""
import json
import math
import urllib.error
import urllib.parse
import urllib.request
import warnings

import pytest

from kg import catalogue, ingest, report
from kg.errors import StoreUnavailable
from kg.remote import Endpoint, RemoteError, RemoteStore
from kg.store import Store
from tests.conftest import EXAMPLES, required_params, run_kg
from tests.remote import virtuoso

pytestmark = pytest.mark.skipif(not virtuoso.installed(),
                                reason="Virtuoso is not installed (sudo scripts/install-virtuoso.sh)")

QUERY_TIMEOUT = 30  # seconds; a query Virtuoso hangs on fails after this, and the server is restarted

# Queries Virtuoso 7.2.5 refuses, with the error kg must surface and why (docs/engines.md).
REFUSED: dict[str, tuple[str, str]] = {}  # (code, why); none since selection-charges was rewritten (2026-12-03)
# Queries Virtuoso answers right on some runs and hangs on in others (its plan depends on what it
# samples): a hang is a loud failure kg reports, never a number, so the test takes either
SOMETIMES_HANGS = {"preregistration"}
CATALOGUE = catalogue.load()  # once: parsing the catalogue takes seconds
QUERIES = sorted(CATALOGUE)


@pytest.fixture(scope="module")
def embedded():
    store = Store(":memory:")
    assert all(o.status == "loaded" for o in ingest.load(store, [EXAMPLES]))
    return store


@pytest.fixture(scope="module")
def server():
    server = virtuoso.VirtuosoServer().start()
    yield server
    server.remove()


@pytest.fixture(scope="module")
def remote(server, embedded):
    store = RemoteStore(server.endpoint(timeout=QUERY_TIMEOUT, retries=1))
    outcomes = ingest.load(store, [EXAMPLES])
    assert [(o.path, o.status) for o in outcomes if o.status != "loaded"] == []
    # written to the database file now: a server restarted after a query hung on it (below) came back
    # without the last layers' triples (the situations layer, seen here), and every query after read them
    server.isql("checkpoint;")
    return store


# columns holding when a source was loaded: they differ between two loads by nature, and a query
# ordered by them lists its rows in another order (compared sorted, without them)
LOAD_TIMES = {"history": {"time"}}


def typed(rows, name=None):
    """Rows compared across stores, strictly: a boolean is not the integer 1, floats to 9 places;
    load times differ by nature."""
    def value(v):
        if isinstance(v, float):
            return ("float", None if math.isnan(v) else round(v, 9))
        if isinstance(v, catalogue.IRI):  # a display name (catalogue.NamedIRI) is how it reads, not what it is
            return ("IRI", str(v))
        return (type(v).__name__, v)
    dropped = {"loaded_at"} | LOAD_TIMES.get(name, set())
    rows = [{k: value(v) for k, v in r.items() if k not in dropped} for r in rows]
    return sorted(rows, key=repr) if name in LOAD_TIMES else rows


def difference(expected, actual) -> str:
    """Which columns differ, in how many rows, with the first example of each."""
    if len(expected) != len(actual):
        return f"{len(actual)} rows on Virtuoso, {len(expected)} on the embedded store"
    columns: dict[str, list] = {}
    for n, (e, a) in enumerate(zip(expected, actual)):
        for k in e:
            if e[k] != a.get(k):
                columns.setdefault(k, []).append((n, e[k], a.get(k)))
    return "; ".join(f"{k} in {len(d)} of {len(expected)} rows (row {d[0][0]}: embedded {d[0][1]}, "
                     f"Virtuoso {d[0][2]})" for k, d in columns.items())


# ── the whole catalogue ──
def test_the_examples_load_with_every_source_listed(remote, embedded):
    assert {s.path for s in remote.sources()} == {s.path for s in embedded.sources()}
    assert {s.path: s.triples for s in remote.sources()} == {s.path: s.triples for s in embedded.sources()}


def test_the_verdict_layer_built_on_virtuoso_is_the_embedded_one(remote, embedded):
    # the layer is kept by SPARQL Update on the server itself (queries/layers/verdicts.ru), not
    # uploaded from the embedded store: the two must hold the same verdicts
    layer = """PREFIX kg: <https://kg.example/ns#>
        SELECT ?system ?case ?trial ?grader ?kind ?status WHERE { ?v a kg:Verdict ; kg:system ?system ;
          kg:case ?case ; kg:trial ?trial ; kg:grader ?grader ; kg:graderKind ?kind ; kg:status ?status }"""
    on_virtuoso, embedded_rows = set(remote.select_values(layer)[1]), set(embedded.select_values(layer)[1])
    assert len(embedded_rows) == 617  # the example estate's verdicts (kg query verdicts lists them)
    assert on_virtuoso == embedded_rows
    assert remote.layers_current()


def test_the_plans_layer_built_on_virtuoso_is_the_embedded_one(remote, embedded):
    # queries/layers/plans.ru, kept by the same updates on the server: every triple of its graph
    layer = "SELECT ?s ?p ?o WHERE { GRAPH <urn:kg:layer:plans> { ?s ?p ?o } }"
    on_virtuoso, embedded_rows = set(remote.select_values(layer)[1]), set(embedded.select_values(layer)[1])
    assert any("pins hold" in str(row[2]) for row in embedded_rows)  # the examples' plan holds its pins
    assert on_virtuoso == embedded_rows


def test_the_tally_layer_built_on_virtuoso_is_the_embedded_one(remote, embedded):
    # queries/layers/tallies.ru, derived on the server from its own verdict layer, after it
    counts = ["trials", "eligible", "passed", "failed", "failedByAgent", "excludedGrader", "excludedEnvironment",
              "excludedUnexplained", "excludedInapplicable", "excludedUntested", "excludedOther",
              "excludedConflicting", "excludedNotPreregistered", "orderUnknown", "firstJudged", "firstPassed"]
    layer = ("PREFIX kg: <https://kg.example/ns#>\nSELECT ?system ?case ?grader ?kind " + " ".join(f"?{c}" for c in counts)
             + " WHERE { ?t a kg:Tally ; kg:system ?system ; kg:case ?case ; kg:grader ?grader ; kg:graderKind ?kind ; "
             + " ; ".join(f"kg:{c} ?{c}" for c in counts) + " }")
    on_virtuoso, embedded_rows = set(remote.select_values(layer)[1]), set(embedded.select_values(layer)[1])
    assert embedded_rows and sum(row[4] for row in embedded_rows) == 617  # every verdict counted once

    # it differed in 40 of 244 tallies while tallies.ru tested BOUND() outside the SELECT DISTINCT that
    # left the variable unbound (Virtuoso 7.2 reports it true there): the 0/1 is now decided inside
    assert on_virtuoso == embedded_rows


def test_the_situations_layer_built_on_virtuoso_is_the_embedded_one(remote, embedded):
    # queries/layers/situations.ru (apeval:satisfies), kept by the same updates on the server
    layer = "SELECT ?s ?p ?o WHERE { GRAPH <urn:kg:layer:situations> { ?s ?p ?o } }"
    on_virtuoso, embedded_rows = set(remote.select_values(layer)[1]), set(embedded.select_values(layer)[1])
    assert any(str(row[1]).endswith("evaluation#satisfies") for row in embedded_rows)
    assert on_virtuoso == embedded_rows


def test_the_coverage_layer_built_on_virtuoso_is_the_embedded_one(remote, embedded):
    # queries/layers/coverage.ru (kg:exercises), kept by the same updates on the server; the copies of
    # rdfs:subPropertyOf it follows chains over are gone once a write is done
    layer = "SELECT ?s ?p ?o WHERE { GRAPH <urn:kg:layer:coverage> { ?s ?p ?o } }"
    on_virtuoso, embedded_rows = set(remote.select_values(layer)[1]), set(embedded.select_values(layer)[1])
    assert embedded_rows and {str(row[1]) for row in embedded_rows} == {"https://kg.example/ns#exercises"}
    assert on_virtuoso == embedded_rows


@pytest.mark.parametrize("name", QUERIES)
def test_catalogue_query_gives_the_embedded_rows(name, remote, embedded, server):
    query = CATALOGUE[name]
    params = {**({"k": 2} if "k" in query.params else {}), **required_params(query)}
    if name in REFUSED:
        code, why = REFUSED[name]
        try:
            with pytest.raises(RemoteError, match=code):
                catalogue.run(query, remote, params)
        finally:
            if not server.answers():  # a query that wedged the server must not fail the ones after it
                server.restart()
        pytest.xfail(f"Virtuoso refuses {name}: {why}")
    if "virtuoso" in query.unsupported:
        # a query Virtuoso answers WRONGLY is declared so in its header: kg refuses to run it there
        # rather than print the wrong numbers
        with pytest.raises(StoreUnavailable, match="is not run on virtuoso"):
            catalogue.run(query, remote, params)
        # Whether the raw text is still wrong is reported, not asserted: Virtuoso's optimiser picks a
        # plan by what it samples and how long it may search, so one query can be wrong on one machine
        # and right on another (coverage-summary: wrong on every run here, right once in CI). An engine
        # that is right only sometimes stays unsupported.
        # (and a query Virtuoso hangs on may answer in time on a faster machine: whatever it does, kg
        # has refused it above; the raw text's fate is only reported)
        if "stops" in query.unsupported["virtuoso"]:
            return  # a query that ends the server is not sent to it again: the tests after it need the server
        try:
            variables, rows = remote.select_values(query.bound_text(params))
        except RemoteError as err:
            # a query the client gave up on may still run on the server, slowing the next ones past
            # their timeout (criterion-verdicts after compare): restart it
            if not server.answers() or "no answer within the timeout" in str(err):
                server.restart()
            warnings.warn(f"{name}: Virtuoso still fails on the raw text: {str(err)[:200]}")
            return
        answered = typed(catalogue.finish(query, [dict(zip(variables, r)) for r in rows], params).rows, name)
        if answered == typed(catalogue.run(query, embedded, params).rows, name):
            warnings.warn(f"{name}: Virtuoso gave the right rows this time; if it does on every machine, "
                          "drop `unsupported: virtuoso` from its header")
        return
    assert_the_embedded_rows(name, params, remote, embedded, server)


def assert_the_embedded_rows(name, params, remote, embedded, server, when=""):
    query = CATALOGUE[name]
    expected = typed(catalogue.run(query, embedded, params).rows, name)
    try:
        actual = typed(catalogue.run(query, remote, params).rows, name)
    except RemoteError as err:
        if not server.answers():
            server.restart()
        if name in SOMETIMES_HANGS and "no answer within the timeout" in str(err):
            pytest.xfail(f"Virtuoso gave no answer to {name} in {QUERY_TIMEOUT} s this time")
        pytest.fail(f"{name}: Virtuoso failed{when}: {err}"[:3000])
    assert actual == expected, f"{name}: Virtuoso gives other rows{when} — {difference(expected, actual)}"


@pytest.fixture(scope="module")
def restarted(server, remote):
    """The same server, stopped (SIGTERM: a clean shutdown) and started again on its database: what
    any server goes through. (No checkpoint first: a query whose raw text wedged the server leaves
    isql waiting.)"""
    server.restart()
    return remote


SUPPORTED = [n for n in QUERIES if "virtuoso" not in CATALOGUE[n].unsupported and n not in REFUSED
             and n not in SOMETIMES_HANGS]


@pytest.mark.parametrize("name", SUPPORTED)
def test_catalogue_query_gives_the_embedded_rows_after_the_server_restarts(name, restarted, embedded, server):
    # coverage-summary gave the embedded rows on a server just loaded and other counts once it had
    # been restarted (every graph's triple count unchanged): a query kg runs there must survive that
    query = CATALOGUE[name]
    params = {**({"k": 2} if "k" in query.params else {}), **required_params(query)}
    assert_the_embedded_rows(name, params, restarted, embedded, server, when=" after a restart")


def test_the_report_fails_whole_rather_than_publish_pages_from_refused_queries(server, remote, tmp_path):
    out = tmp_path / "report"
    try:
        with pytest.raises(StoreUnavailable):
            report.publish(out, lambda folder: report.render_site(remote, folder, {}, params={"k": 2}))
    finally:
        if not server.answers():
            server.restart()
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")] == []


def test_cli_against_virtuoso_prints_what_the_embedded_store_prints(server, remote, tmp_path):
    env = server.environment()
    loaded = run_kg("load", EXAMPLES, env=env)
    assert loaded.returncode == 0, loaded.stderr
    local_store = tmp_path / "store"
    assert run_kg("load", "--store", local_store, EXAMPLES).returncode == 0
    on_server = run_kg("query", "cases", "--format", "json", env=env)
    local = run_kg("query", "cases", "--format", "json", "--store", local_store)
    assert on_server.returncode == 0 and json.loads(on_server.stdout) == json.loads(local.stdout)
    # a query Virtuoso fails on (no catalogue query is sent there to fail any more): ENCODE_FOR_URI of a
    # MIN over stored strings, which compare had (docs/engines.md)
    failing = ("SELECT ?case (ENCODE_FOR_URI(?family) AS ?encoded) WHERE { { SELECT ?case (MIN(?f) AS ?family) "
               "WHERE { ?case <https://kg.example/ns#caseFamily> ?f } GROUP BY ?case } }")
    refused = run_kg("sparql", failing, env=env)
    if "no answer within the timeout" in refused.stderr:  # a machine too busy to answer in time: once more
        refused = run_kg("sparql", failing, env=env)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "HTTP 500" in refused.stderr and "SR586" in refused.stderr and "Traceback" not in refused.stderr
    # pass-at-k, refused there until the tally layer was portable, prints the embedded rows
    on_server = run_kg("query", "pass-at-k", "-p", "k=2", "--format", "json", env=env)
    local = run_kg("query", "pass-at-k", "-p", "k=2", "--format", "json", "--store", local_store)
    assert on_server.returncode == 0 and json.loads(on_server.stdout) == json.loads(local.stdout)
    # a query its header says Virtuoso answers wrongly is refused there, nothing printed: no catalogue
    # query says so any more, so a project's own (KG_HOME's queries/) does
    project = tmp_path / "project"
    (project / "queries" / "mine").mkdir(parents=True)
    (project / "queries" / "mine" / "marked.rq").write_text(
        "#+ summary: the cases, marked as answered wrongly by Virtuoso\n#+ columns:\n#+   case: an intent\n"
        "#+ unsupported:\n"
        "#+   virtuoso: \"said here to test the refusal\"\n"
        "SELECT ?case WHERE { ?case a <https://agenticprimitives.dev/ns/evaluation#ReplayIntent> }\n")
    marked_env = dict(env, KG_HOME=str(project))
    unsupported = run_kg("query", "marked", env=marked_env)
    if "no answer within the timeout" in unsupported.stderr:
        # kg asks the server its name (a trivial ASK) before it refuses; a server still busy with
        # a query an earlier test gave up on can leave even that unanswered: once more
        unsupported = run_kg("query", "marked", env=marked_env)
    assert unsupported.returncode == 1 and unsupported.stdout == "", unsupported.stderr
    assert "is not run on virtuoso" in unsupported.stderr and "Traceback" not in unsupported.stderr
    assert run_kg("query", "marked", "--store", local_store, env={"KG_HOME": str(project)}).returncode == 0

# ── the row cap and partial answers ──
@pytest.fixture(scope="module")
def capped():
    """A server whose ResultSetMaxRows is 20 and MaxQueryExecutionTime 2 s, with the ontology loaded."""
    server = virtuoso.VirtuosoServer(result_set_max_rows=20, max_query_execution_time=2).start()
    store = RemoteStore(server.endpoint(retries=1))
    assert [o.status for o in ingest.load(store, [EXAMPLES / "cubby.ttl"])] == ["loaded"]
    yield server, store
    server.remove()


def raw(url: str, query: str, **extra) -> tuple[dict, dict]:
    body = urllib.parse.urlencode({"query": query, **extra}).encode()
    request = urllib.request.Request(url, data=body, headers={"Accept": "application/sparql-results+json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return {k.lower(): v for k, v in response.headers.items()}, json.load(response)


ONTOLOGY_TRIPLES = "SELECT ?s ?p ?o WHERE { GRAPH <%s> { ?s ?p ?o } }"


def test_virtuoso_cuts_an_answer_at_its_cap_and_says_so_only_in_a_header(capped):
    server, store = capped
    graph = next(s.graph for s in store.sources() if s.kind == "ontology")
    headers, data = raw(server.sparql, ONTOLOGY_TRIPLES % graph)
    assert len(data["results"]["bindings"]) == 20 and headers["x-sparql-maxrows"] == "20"
    headers, data = raw(server.sparql, (ONTOLOGY_TRIPLES % graph) + " LIMIT 19")
    assert len(data["results"]["bindings"]) == 19 and "x-sparql-maxrows" not in headers
    # the cap is on the answer, not on sub-selects: a count over more rows than the cap is whole
    headers, data = raw(server.sparql, f"SELECT (COUNT(*) AS ?n) WHERE {{ {{ {ONTOLOGY_TRIPLES % graph} }} }}")
    triples = next(s.triples for s in store.sources() if s.graph == graph)
    assert int(data["results"]["bindings"][0]["n"]["value"]) == triples > 20


def test_kg_refuses_an_answer_at_the_cap_instead_of_counting_it(capped, embedded):
    server, store = capped
    graph = next(s.graph for s in store.sources() if s.kind == "ontology")
    with pytest.raises(RemoteError, match="cut short"):
        store.select_values(ONTOLOGY_TRIPLES % graph)
    assert len(store.select_values((ONTOLOGY_TRIPLES % graph) + " LIMIT 19")[1]) == 19
    # a query with more rows than the cap: an error naming the limit, not the first 20 rows
    with pytest.raises(RemoteError, match="ResultSetMaxRows"):
        store.select_values("SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }")


def test_the_cli_exits_non_zero_and_prints_no_rows_when_the_answer_is_capped(capped):
    server, _ = capped
    done = run_kg("sparql", "SELECT ?s ?p ?o WHERE { ?s ?p ?o }", "--format", "csv", env=server.environment())
    assert done.returncode == 1 and done.stdout == "" and "cut short" in done.stderr


HEAVY = ('SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f '
         'FILTER(CONCAT(STR(?c), "x") < CONCAT(STR(?f), "y")) }')


def test_an_anytime_partial_answer_is_refused_not_counted(capped):
    server, _ = capped
    # what Virtuoso does when a client asks for an "anytime" answer: HTTP 200 and a body that looks
    # whole — a count of what it saw in time, or no row at all when it saw nothing (seen in CI) — with
    # the truth only in two headers
    # (under load Virtuoso may cancel the statement instead, HTTP 500 SR203, seen in CI: asked again,
    # and when it never takes the anytime path here, kg's refusal below is still tested)
    for _ in range(3):
        try:
            headers, data = raw(server.sparql, HEAVY, timeout="500")
        except urllib.error.HTTPError as err:
            assert err.code == 500
            continue
        assert headers["x-sql-state"] == "S1TAT" and "incomplete results" in headers["x-sql-message"]
        assert "results" in data and len(data["results"]["bindings"]) <= 1
        break
    # an endpoint URL that carries the timeout parameter: kg refuses the partial answer
    anytime = RemoteStore(Endpoint(query=server.sparql + "?timeout=500", update=server.sparql, gsp=server.gsp,
                                   retries=1))
    # Virtuoso does not always take the anytime path: under load it may cancel the statement instead
    # (HTTP 500, SR203, seen in CI). Either way kg must refuse; an attempt that returns a value fails here.
    # Several attempts, so that the anytime answer (the one only kg's header check catches) is met.
    for _ in range(3):
        with pytest.raises(RemoteError, match=r"incomplete answer|HTTP 500.*SR203"):
            anytime.select_values(HEAVY)
    # without it, the server's MaxQueryExecutionTime is a plain error, named as the engine's
    plain = RemoteStore(server.endpoint(retries=1))
    with pytest.raises(RemoteError, match="HTTP 500.*SR171"):
        plain.select_values(HEAVY)


# ── the wire: JSON dialect, Graph Store, reset, auth ──
def test_virtuoso_json_dialect_is_read_into_the_same_values(capped):
    _, store = capped
    names, rows = store.select_values(
        'PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT ?i ?d ?t ?l ?s ?b ?computed WHERE { '
        'VALUES (?i ?d ?t ?l ?s ?b) { (7 2.5 "2026-01-02T03:04:05Z"^^xsd:dateTime "chat"@fr "plain" '
        '"true"^^xsd:boolean) } BIND(1 < 2 AS ?computed) }')
    i, d, t, l, s, b, computed = rows[0]
    assert (i, d, t, l, s, b) == (7, 2.5, "2026-01-02T03:04:05Z", "chat", "plain", True)
    # Virtuoso has no boolean type at run time: a computed boolean comes back as xsd:integer 1
    assert computed == 1 and not isinstance(computed, bool)


def test_a_chunked_upload_is_dropped_by_virtuoso_and_kg_sends_content_length(capped):
    server, store = capped
    ntriples = "".join(f"<urn:kg-test:s{n}> <urn:kg-test:p> \"{n}\" .\n" for n in range(50))
    graph = "urn:kg-test:chunked"

    def chunks():
        yield ntriples.encode()
    request = urllib.request.Request(f"{server.gsp}?graph={urllib.parse.quote(graph)}", data=chunks(),
                                     method="PUT", headers={"Content-Type": "application/n-triples"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 201  # "Created" ...
    except urllib.error.URLError as err:
        # ... or, on a busy machine, the server has answered and closed before the body is sent (seen)
        assert isinstance(err.reason, (BrokenPipeError, ConnectionResetError)), err
    assert not store.ask(f"ASK {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}")  # ... and nothing stored
    store.put_graph(graph, ntriples)
    assert store.select_values(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}")[1] == [(50,)]
    store.update(f"DROP SILENT GRAPH <{graph}>")


def test_reset_drops_kgs_graphs_and_leaves_virtuosos_own():
    with virtuoso.VirtuosoServer() as server:
        store = RemoteStore(server.endpoint(retries=1))
        ingest.load(store, [EXAMPLES / "cubby.ttl"])
        system = "http://www.openlinksw.com/schemas/virtrdf#"
        # what reset did before: DROP ALL, which Virtuoso acknowledges and ignores
        store.update("DROP ALL")
        assert store.sources()
        store.reset()
        assert store.sources() == []
        graphs = {g for (g,) in store.select_values("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")[1]}
        assert system in graphs and not any(g.startswith(("file:", "urn:kg:")) for g in graphs)


def test_basic_auth_on_the_authenticated_endpoint_is_refused_clearly(capped):
    """/sparql-auth takes Digest only; kg sends Basic or Bearer, so it is told 401 — clearly."""
    server, _ = capped
    env = {"KG_ENDPOINT": server.url, "KG_ENDPOINT_QUERY": f"{server.url}/sparql-auth",
           "KG_ENDPOINT_UPDATE": f"{server.url}/sparql-auth", "KG_ENDPOINT_GSP": f"{server.url}/sparql-graph-crud-auth",
           "KG_ENDPOINT_USER": "dba", "KG_ENDPOINT_PASSWORD": virtuoso.DBA_PASSWORD, "KG_ENDPOINT_RETRIES": "1"}
    done = run_kg("query", "cases", env=env)
    assert done.returncode == 1 and "HTTP 401" in done.stderr and "/sparql-auth" in done.stderr
    assert "KG_ENDPOINT_AUTH=digest" in done.stderr  # the message names the fix


def test_digest_auth_reaches_the_authenticated_endpoint_for_queries_and_uploads(capped, tmp_path):
    """KG_ENDPOINT_AUTH=digest answers /sparql-auth's challenge (SPARQLWrapper's Digest support for
    queries and updates, urllib's for the Graph Store PUT, whose streamed body is sent again)."""
    server, _ = capped
    env = {"KG_ENDPOINT": server.url, "KG_ENDPOINT_QUERY": f"{server.url}/sparql-auth",
           "KG_ENDPOINT_UPDATE": f"{server.url}/sparql-auth", "KG_ENDPOINT_GSP": f"{server.url}/sparql-graph-crud-auth",
           "KG_ENDPOINT_USER": "dba", "KG_ENDPOINT_PASSWORD": virtuoso.DBA_PASSWORD, "KG_ENDPOINT_RETRIES": "1",
           "KG_ENDPOINT_AUTH": "digest"}
    count = "SELECT (COUNT(*) AS ?triples) WHERE { ?s ?p ?o }"
    plain = run_kg("sparql", count, "--format", "json", env=server.environment())
    over_digest = run_kg("sparql", count, "--format", "json", env=env)
    assert over_digest.returncode == 0, over_digest.stderr
    assert json.loads(over_digest.stdout) == json.loads(plain.stdout) and json.loads(plain.stdout)
    # an upload (PUT, then the catalogue update) over Digest, seen afterwards through the plain endpoint
    extra = tmp_path / "digest.earl.ttl"
    extra.write_text("@prefix earl: <http://www.w3.org/ns/earl#> .\n"
                     "<urn:kg-test:digest-a> a earl:Assertion ; earl:subject <urn:kg-test:sys> ; "
                     "earl:test <urn:kg-test:case> ; earl:assertedBy <urn:kg-test:g> ; "
                     "earl:result [ a earl:TestResult ; earl:outcome earl:passed ] .\n")
    loaded = run_kg("load", extra, env=env)
    assert loaded.returncode == 0 and "loaded" in loaded.stdout, loaded.stderr
    seen = run_kg("sparql", "SELECT ?a WHERE { ?a a <http://www.w3.org/ns/earl#Assertion> "
                  "FILTER(?a = <urn:kg-test:digest-a>) }", "--format", "json", env=server.environment())
    assert json.loads(seen.stdout) == [{"a": "urn:kg-test:digest-a"}]
    wrong = run_kg("query", "cases", env={**env, "KG_ENDPOINT_PASSWORD": "not-the-password"})
    assert wrong.returncode == 1 and "HTTP 401" in wrong.stderr and "not-the-password" not in wrong.stderr
    dropped = run_kg("drop", extra, env=env)  # the module's server is shared: leave it as it was
    assert dropped.returncode == 0, dropped.stderr
