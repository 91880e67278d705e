"""kg against a real Oxigraph server: the same loaders, the whole catalogue with the same rows
as the embedded store, the report, and honest failures (server stopped mid-load, auth refused,
a query timeout, a malformed URL)."""
import http.server
import json
import math
import threading
import time
from pathlib import Path

import pytest

from kg import catalogue, ingest, report
from kg.remote import Endpoint, RemoteError, RemoteStore
from kg.store import Store
from tests.conftest import EXAMPLES, required_params, run_kg


@pytest.fixture(scope="module")
def embedded():
    store = Store(":memory:")
    assert all(o.status == "loaded" for o in ingest.load(store, [EXAMPLES]))
    return store


def normal(rows, by_time=False):
    """Rows compared across stores: floats to 9 places; load times differ by nature, and rows
    ordered by them (the history query's) are compared in a stable order of their own."""
    found = [{k: (round(v, 9) if isinstance(v, float) and not math.isnan(v) else v) for k, v in r.items()
              if k not in ("loaded_at", "time")} for r in rows]
    return sorted(found, key=repr) if by_time else found


def test_the_whole_catalogue_gives_the_same_rows_as_the_embedded_store(oxigraph_server, embedded, tmp_path):
    remote = RemoteStore(Endpoint.resolve(oxigraph_server.url))
    outcomes = ingest.load(remote, [EXAMPLES])
    assert [o.status for o in outcomes] == ["loaded"] * len(outcomes)
    assert {s.path for s in remote.sources()} == {s.path for s in embedded.sources()}
    for name, query in catalogue.load().items():
        params = {**({"k": 2} if "k" in query.params else {}), **required_params(query)}
        by_time = name == "history"
        assert normal(catalogue.run(query, remote, params).rows, by_time) == \
            normal(catalogue.run(query, embedded, params).rows, by_time), name
    out = tmp_path / "report"
    report.publish(out, lambda folder: report.render_site(remote, folder, {}, params={"k": 2}))
    assert "pass@1" in (out / "index.html").read_text()


def test_cli_against_the_server_prints_what_the_embedded_store_prints(oxigraph_server, tmp_path):
    env = {"KG_ENDPOINT": oxigraph_server.url}
    assert run_kg("load", EXAMPLES, env=env).returncode == 0
    remote = run_kg("query", "pass-at-k", "-p", "k=2", "--format", "json", env=env)
    local_store = tmp_path / "store"
    assert run_kg("load", "--store", local_store, EXAMPLES).returncode == 0
    local = run_kg("query", "pass-at-k", "-p", "k=2", "--format", "json", "--store", local_store)
    assert remote.returncode == 0 and json.loads(remote.stdout) == json.loads(local.stdout)


def test_a_server_stopped_mid_load_claims_nothing_and_a_rerun_completes(oxigraph_server, embedded, monkeypatch):
    remote = RemoteStore(Endpoint.resolve(oxigraph_server.url))
    remote.endpoint.retries = 1
    real_put = RemoteStore.put_graph
    puts = []

    def put_then_stop(self, graph, ntriples):
        if graph.startswith("file:"):
            puts.append(graph)
        if len(puts) == 4:  # the server goes down while the example files are on their way
            oxigraph_server.stop()
        return real_put(self, graph, ntriples)
    monkeypatch.setattr(RemoteStore, "put_graph", put_then_stop)
    outcomes = ingest.load(remote, [EXAMPLES])
    failed = [o for o in outcomes if o.status == "failed"]
    assert failed and "cannot connect" in str(failed[0].problems[0])
    monkeypatch.setattr(RemoteStore, "put_graph", real_put)
    oxigraph_server.start()
    listed = {s.path for s in remote.sources()}
    assert not any(o.path in listed or str(EXAMPLES.resolve() / o.path.rsplit("/", 1)[-1]) in listed for o in failed)
    rerun = ingest.load(remote, [EXAMPLES])
    assert {o.status for o in rerun} == {"loaded", "unchanged"}
    query = catalogue.load()["pass-at-k"]
    assert normal(catalogue.run(query, remote).rows) == normal(catalogue.run(query, embedded).rows)


class Refusing(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="kg"')
        self.end_headers()
    do_GET = do_PUT = do_POST

    def log_message(self, *args):
        pass


class Slow(Refusing):
    def do_POST(self):
        time.sleep(3)
        self.send_response(200)
        self.end_headers()
    do_GET = do_PUT = do_POST


def serve(handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_an_endpoint_that_refuses_auth_is_a_clear_error_and_the_password_is_never_shown():
    server = serve(Refusing)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        done = run_kg("stats", env={"KG_ENDPOINT": url, "KG_ENDPOINT_USER": "eve", "KG_ENDPOINT_PASSWORD": "s3cret-pw"})
        assert done.returncode == 1
        assert "HTTP 401" in done.stderr and url in done.stderr and "KG_ENDPOINT_USER" in done.stderr
        assert "s3cret-pw" not in done.stderr + done.stdout
    finally:
        server.shutdown()


def test_a_query_timeout_is_a_clear_error():
    server = serve(Slow)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        done = run_kg("query", "pass-at-k", env={"KG_ENDPOINT": url, "KG_ENDPOINT_TIMEOUT": "1", "KG_ENDPOINT_RETRIES": "1"})
        assert done.returncode == 1 and "within the timeout" in done.stderr
    finally:
        server.shutdown()


def test_a_malformed_url_is_a_clear_error():
    done = run_kg("stats", "--endpoint", "not a url")
    assert done.returncode == 1 and "is not an http(s) URL" in done.stderr
    with pytest.raises(RemoteError):
        Endpoint.resolve("ftp://example.org/sparql")


def test_a_result_at_the_servers_row_cap_is_refused_not_counted(oxigraph_server):
    remote = RemoteStore(Endpoint.resolve(oxigraph_server.url))
    ingest.load(remote, [EXAMPLES / "cubby.ttl"])
    remote.endpoint.max_rows = 100
    with pytest.raises(RemoteError, match="cut short"):
        remote.select_values("SELECT ?s WHERE { ?s ?p ?o }")


def test_kg_serve_exposes_the_embedded_store_read_only(tmp_path):
    from tests.remote.conftest import kg_serving
    store = tmp_path / "store"
    assert run_kg("load", "--store", store, EXAMPLES / "cubby.ttl", EXAMPLES / "cubby-routing.replayset.json").returncode == 0
    with kg_serving(store) as url:
        served = run_kg("query", "replay-sets", "--format", "json", "--endpoint", url)
        local = run_kg("query", "replay-sets", "--format", "json", "--store", store)
        assert served.returncode == 0, served.stderr
        assert json.loads(served.stdout) == json.loads(local.stdout) and len(json.loads(local.stdout)) == 1
        refused = run_kg("load", "--endpoint", url, EXAMPLES / "cubby-regression.replayset.json")
        # read-only: the write is refused, and the message says so in those words (the server's 403)
        assert refused.returncode == 1 and "HTTP 403, the server is read-only" in refused.stderr, refused.stderr


@pytest.mark.parametrize("on_disk", [False, True], ids=["in-memory copy", "on-disk copy"])
def test_validate_against_the_server_copies_it_streamed_and_judges_as_against_the_embedded_store(
        oxigraph_server, tmp_path, monkeypatch, on_disk):
    # kg validate copies what the server holds into a local scratch store, parsed as it streams in
    # (issue 18: it read the server's whole answer into Python, twice). The copy holds every quad the
    # server holds, in memory or (past SCRATCH_IN_MEMORY quads) on disk, and the verdicts on files are
    # those validate gives against an embedded store holding the same.
    from kg import remote as remote_module
    if on_disk:
        monkeypatch.setattr(remote_module, "SCRATCH_IN_MEMORY", 10)
    env = {"KG_ENDPOINT": oxigraph_server.url}
    some = [EXAMPLES / "cubby.ttl", EXAMPLES / "cubby-routing.replayset.json"]
    assert run_kg("load", *some, env=env).returncode == 0
    server = RemoteStore(Endpoint.resolve(oxigraph_server.url))
    with server.scratch_copy() as copy:
        assert copy.dump() == server.dump() and len(copy) > 10
        assert (copy.path == ":memory:") is not on_disk
        where = Path(copy.path)
    assert not (on_disk and where.exists())  # the copy on disk is removed on leaving
    local = tmp_path / "store"
    assert run_kg("load", "--store", local, *some).returncode == 0
    files = [EXAMPLES / "cubby-routing.gold.json", EXAMPLES / "cubby-regression.gold.json"]  # the second's set is not loaded
    against_server = run_kg("validate", *files, env=env)
    against_local = run_kg("validate", "--store", local, *files)
    assert against_server.returncode == against_local.returncode == 1, against_server.stderr
    assert (against_server.stdout, against_server.stderr) == (against_local.stdout, against_local.stderr)
    assert "validate: 1 valid, 1 rejected" in against_server.stderr
