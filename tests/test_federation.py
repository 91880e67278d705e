"""kg never reaches the network from a query (issue 45): SERVICE is refused by `kg sparql`, by a
catalogue query of the user's project, by the notebook API and by `kg serve`, before any engine
sees it. Each test listens on a loopback port of its own and asserts that nothing connected to it."""
import json
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest

import kg
from kg.federation import FederationRefused, services
from tests.conftest import EXAMPLES, run_kg


class Listener:
    """A loopback socket counting the connections made to it: what SERVICE would have reached."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen()
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while self.running:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def close(self):
        self.running = False
        self.thread.join()
        self.socket.close()


@pytest.fixture
def listener():
    found = Listener()
    yield found
    found.close()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("federation") / "store"
    assert run_kg("load", "--store", path, EXAMPLES / "cubby.ttl").returncode == 0
    return path


def federated(port):
    return f"SELECT * WHERE {{ SERVICE <http://127.0.0.1:{port}/sparql> {{ ?s ?p ?o }} }}"


@pytest.mark.parametrize("text, targets", [
    ("SELECT * WHERE { SERVICE <http://x/> { ?s ?p ?o } }", ["<http://x/>"]),
    ("select * { service silent ?where { } }", ["?where"]),
    ("SELECT * {\n  SeRvIcE\n ex:s { } }", ["ex:s"]),
    # the word, not the keyword: in a string, an IRI, a comment, a variable, a prefixed name
    ("SELECT ?service { ?s ex:SERVICE 'SERVICE <x>' . # SERVICE <y>\n <http://a#SERVICE> service:p ?o }", []),
    ('SELECT * { ?s ?p """a\nSERVICE <x>""" ; a :SERVICE FILTER(?a < ?b) }', []),
])
def test_the_keyword_is_found_by_its_tokens(text, targets):
    assert services(text) == targets


def test_kg_sparql_refuses_service_and_reaches_nothing(store, listener):
    done = run_kg("sparql", "--store", store, federated(listener.port))
    assert done.returncode == 2 and "kg does not run federated queries" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and listener.connections == 0


def test_a_project_query_with_service_is_refused(store, listener, tmp_path):
    project = tmp_path / "project"
    (project / "queries").mkdir(parents=True)
    (project / "kg.toml").write_text("")
    (project / "queries" / "elsewhere.rq").write_text(
        "#+ summary: reads another service\n#+ columns:\n#+   s: a subject\n#+   p: a property\n"
        f"#+   o: a value\n{federated(listener.port)}\n")
    done = run_kg("query", "elsewhere", "--store", store, env={"KG_HOME": str(project)})
    assert done.returncode == 2 and "SERVICE" in done.stderr, done.stderr
    assert listener.connections == 0


def test_the_notebook_api_refuses_service(store, listener):
    with pytest.raises(FederationRefused):
        kg.open(store=store).sparql(federated(listener.port))
    assert listener.connections == 0


def test_kg_serve_refuses_service_and_still_answers_other_queries(store, listener):
    from tests.remote.conftest import OXIGRAPH, kg_serving
    if not __import__("pathlib").Path(OXIGRAPH).exists():
        pytest.skip("the oxigraph server package is not installed")
    with kg_serving(store) as base:
        url = f"{base}/query"
        asks = [urllib.request.Request(f"{url}?query={urllib.parse.quote(federated(listener.port))}"),
                urllib.request.Request(url, data=federated(listener.port).encode(),
                                       headers={"Content-Type": "application/sparql-query"}),
                urllib.request.Request(url, data=urllib.parse.urlencode({"query": federated(listener.port)}).encode(),
                                       headers={"Content-Type": "application/x-www-form-urlencoded"})]
        for ask in asks:
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(ask, timeout=10)
            assert refused.value.code == 400 and b"federated" in refused.value.read()
        answer = urllib.request.urlopen(urllib.request.Request(
            f"{url}?query={urllib.parse.quote('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }')}",
            headers={"Accept": "application/sparql-results+json"}), timeout=10)
        assert int(json.loads(answer.read())["results"]["bindings"][0]["n"]["value"]) > 10
        assert listener.connections == 0
