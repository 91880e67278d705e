"""Servers that misbehave (issue 18): one that trickles its answer, one that answers something other
than SPARQL results, and one whose default graph is not the union of its named graphs. Each is a
RemoteError naming the endpoint and what to check, never a traceback, never a number computed
from it. The fake servers listen on 127.0.0.1 only and stop by themselves."""
import http.server
import re
import threading
import time

import pytest

from kg import catalogue, ingest
from kg.remote import Endpoint, RemoteError, RemoteStore
from tests.conftest import EXAMPLES, run_kg
from tests.remote.conftest import OXIGRAPH, OxigraphServer

TRICKLE_BYTES = 40  # at one byte per 0.5 s the answer would take 20 s; the timeout is 2 s


class Quiet(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Trickle(Quiet):
    def do_POST(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.end_headers()
        try:
            for byte in b'{"head": {"vars": []}, "results": {"bindings": []}}'[:TRICKLE_BYTES]:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.5)
        except OSError:
            pass  # the client gave up, as it should
    do_GET = do_POST


def answering(body: bytes, content_type: str, counted: bytes | None = None):
    """A server answering `body` to every request, or `counted` (SPARQL JSON) to a COUNT when given."""
    class Answer(Quiet):
        def do_POST(self):
            asked = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            reply, ctype = ((counted, "application/sparql-results+json") if counted and b"COUNT" in asked
                            else (body, content_type))
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
        do_GET = do_POST
    return Answer


def serve(handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def endpoint(server, **settings) -> Endpoint:
    found = Endpoint.resolve(f"http://127.0.0.1:{server.server_address[1]}")
    for key, value in settings.items():
        setattr(found, key, value)
    return found


def test_a_server_that_trickles_its_answer_times_out_per_request():
    # urllib's timeout is per socket read: a byte every 0.5 s kept a 5 s timeout running for 100 s
    server = serve(Trickle)
    try:
        store = RemoteStore(endpoint(server, timeout=2.0, retries=1))
        started = time.monotonic()
        with pytest.raises(RemoteError, match="within the timeout"):
            store.select("SELECT ?s WHERE { ?s ?p ?o }")
        assert time.monotonic() - started < 5
        url = f"http://127.0.0.1:{server.server_address[1]}"
        started = time.monotonic()
        done = run_kg("sparql", "SELECT * WHERE { ?s ?p ?o }", env={"KG_ENDPOINT": url, "KG_ENDPOINT_TIMEOUT": "2",
                                                                    "KG_ENDPOINT_RETRIES": "1"})
        assert (done.returncode, "Traceback" in done.stderr) == (1, False), done.stderr
        assert "within the timeout" in done.stderr and url in done.stderr
        assert time.monotonic() - started < 15  # the interpreter's start-up included
    finally:
        server.shutdown()


ANSWERS = {
    "html login page": (b"<!DOCTYPE html><html><body><form>Log in</form></body></html>", "text/html; charset=utf-8",
                        "answered with an HTML page (text/html), not SPARQL results"),
    "html sent as json": (b"<html><body>Proxy error</body></html>", "application/sparql-results+json",
                          "answered with an HTML page"),
    "empty": (b"", "application/sparql-results+json", "answered with an empty body"),
    "garbage": (b"\x00\xff\xfe garbage", "application/sparql-results+json", "the answer is not valid JSON"),
    "truncated": (b'{"head": {"vars": ["s"]}, "results": {"bindings": [{"s": {"type": "uri", "val',
                  "application/sparql-results+json", "the answer is not valid JSON"),
    "head-less": (b'{"results": {"bindings": []}}', "application/sparql-results+json",
                  "the answer is JSON but not SPARQL SELECT results"),
    "a list": (b"[1, 2, 3]", "application/json", "the answer is JSON but not SPARQL SELECT results"),
    "bad binding": (b'{"head": {"vars": ["s"]}, "results": {"bindings": [{"s": "not a binding"}]}}',
                    "application/sparql-results+json", "a row of the answer is not a SPARQL JSON binding"),
}


@pytest.mark.parametrize("answer", list(ANSWERS))
def test_an_answer_that_is_not_sparql_results_is_a_clear_error(answer):
    body, content_type, message = ANSWERS[answer]
    server = serve(answering(body, content_type))
    try:
        store = RemoteStore(endpoint(server, retries=1))
        with pytest.raises(RemoteError, match=re.escape(message)):
            store.select("SELECT ?s WHERE { ?s ?p ?o }")
        url = f"http://127.0.0.1:{server.server_address[1]}"
        done = run_kg("stats", env={"KG_ENDPOINT": url, "KG_ENDPOINT_RETRIES": "1"})
        assert (done.returncode, "Traceback" in done.stderr) == (1, False), done.stderr
        assert f"kg: query at {url}/query" in done.stderr or f"Error: query at {url}/query" in done.stderr, done.stderr
    finally:
        server.shutdown()


def test_an_ask_answer_without_a_boolean_is_a_clear_error():
    server = serve(answering(b'{"head": {}}', "application/sparql-results+json"))
    try:
        with pytest.raises(RemoteError, match='not SPARQL ASK results'):
            RemoteStore(endpoint(server, retries=1)).ask("ASK { ?s ?p ?o }")
    finally:
        server.shutdown()


@pytest.fixture
def separate_default_graph(tmp_path):
    if not OXIGRAPH or not __import__("pathlib").Path(OXIGRAPH).exists():
        pytest.skip("the oxigraph server binary (PyPI package `oxigraph`) is not installed")
    server = OxigraphServer(tmp_path / "oxigraph", union_default_graph=False).start()
    yield server
    server.stop()


def test_a_server_whose_default_graph_is_not_the_union_is_refused(separate_default_graph):
    # every catalogue query answered 0 rows there, with exit 0
    url = separate_default_graph.url
    remote = RemoteStore(Endpoint.resolve(url))
    assert all(o.status == "loaded" for o in ingest.load(remote, [EXAMPLES / "cubby.ttl",
                                                                  EXAMPLES / "cubby-routing.replayset.json"]))
    with pytest.raises(RemoteError, match="default graph is not the union of its named graphs"):
        catalogue.run(catalogue.load()["replay-sets"], remote)
    done = run_kg("query", "replay-sets", "--endpoint", url)
    assert (done.returncode, "Traceback" in done.stderr, done.stdout) == (1, False, ""), done.stderr
    assert "--union-default-graph" in done.stderr and "tdb2:unionDefaultGraph" in done.stderr


@pytest.mark.parametrize("setting, value", [("RETRIES", "0"), ("RETRIES", "three"), ("TIMEOUT", "-1"),
                                            ("TIMEOUT", "nan"), ("MAX_ROWS", "0")])
def test_an_endpoint_setting_that_is_not_a_positive_number_is_a_clear_error(setting, value):
    # KG_ENDPOINT_RETRIES=0 made no attempt and crashed on the missing answer ("cannot unpack
    # NoneType"); a word or a negative number was a traceback or a request with no time to answer
    done = run_kg("query", "pass-at-k", env={"KG_ENDPOINT": "http://127.0.0.1:9", f"KG_ENDPOINT_{setting}": value})
    assert done.returncode != 0
    assert f"KG_ENDPOINT_{setting}" in done.stderr and "a number above 0" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


FIFTY = (b'{"head": {"vars": ["n"]}, "results": {"bindings": [{"n": {"type": "literal", "value": "50", '
         b'"datatype": "http://www.w3.org/2001/XMLSchema#integer"}}]}}')  # a server of 50 quads, counted


QUAD = b'{"s": {"type": "uri", "value": "http://x/s"}, "p": {"type": "uri", "value": "http://x/p"}, ' \
       b'"o": {"type": "literal", "value": "o"}, "g": {"type": "uri", "value": "http://x/g"}}'
COPIED = {
    "html": (b"<html><body>Log in</body></html>", "text/html", "answered with text/html, not SPARQL JSON results"),
    "truncated": (b'{"head": {"vars": ["s", "p", "o", "g"]}, "results": {"bindings": [' + QUAD + b', {"s": {"ty',
                  "application/sparql-results+json", "the answer is not valid SPARQL JSON results"),
    "bad binding": (b'{"head": {"vars": ["s", "p", "o", "g"]}, "results": {"bindings": [{"s": "not a binding"}]}}',
                    "application/sparql-results+json", "the answer is not valid SPARQL JSON results"),
    "at the row cap": (b'{"head": {"vars": ["s", "p", "o", "g"]}, "results": {"bindings": [' + b", ".join([QUAD] * 3)
                       + b"]}}", "application/sparql-results+json", "the server's cap"),
}


@pytest.mark.parametrize("answer", list(COPIED))
def test_a_server_copy_for_validate_cut_short_or_not_results_is_refused(answer, tmp_path):
    # kg validate streams the server's quads into a local copy (RemoteStore.scratch_copy): an answer
    # that breaks off, is not SPARQL JSON or reaches the row cap is refused, never validated against
    body, content_type, message = COPIED[answer]
    server = serve(answering(body, content_type, counted=FIFTY))
    try:
        store = RemoteStore(endpoint(server, retries=1, max_rows=3))
        with pytest.raises(RemoteError, match=re.escape(message)):
            with store.scratch_copy():
                pass
        url = f"http://127.0.0.1:{server.server_address[1]}"
        done = run_kg("validate", EXAMPLES / "cubby.ttl", env={"KG_ENDPOINT": url, "KG_ENDPOINT_RETRIES": "1",
                                                              "KG_ENDPOINT_MAX_ROWS": "3"})
        # (the command's other requests, such as the union check, may meet the bad answer first)
        assert (done.returncode, "Traceback" in done.stderr) == (1, False), done.stderr
        assert f"query at {url}/query" in done.stderr, done.stderr
    finally:
        server.shutdown()
