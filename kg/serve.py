"""`kg serve`: the embedded store as a read-only SPARQL 1.1 endpoint, served by Oxigraph's own server.

Oxigraph's server has no option to refuse SERVICE, and evaluates it by fetching the URL: any local
client, or a web page making a cross-site POST to the endpoint, could make kg reach any address. So
the server listens on a loopback port of its own, and kg's front at --bind passes every request to
it unchanged — except a query holding the SERVICE keyword, refused with 400 before the server sees it
(kg/federation.py, the same check as `kg sparql` and the catalogue's)."""
from __future__ import annotations

import http.client
import http.server
import signal
import socket
import subprocess
import sys
import time
from urllib.parse import parse_qs, urlsplit

from .federation import FederationRefused, refuse_federation

# hop-by-hop headers (RFC 9110 7.6.1) are the proxy's own, never passed on
_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host"}
STARTUP_SECONDS = 30


def _free_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _queries(method: str, target: str, content_type: str, body: bytes) -> list[str]:
    """Every SPARQL text a request carries (SPARQL 1.1 Protocol: ?query=, a form, or a body)."""
    texts = parse_qs(urlsplit(target).query).get("query", []) + parse_qs(urlsplit(target).query).get("update", [])
    kind = content_type.split(";")[0].strip().lower()
    if method == "POST" and kind == "application/x-www-form-urlencoded":
        form = parse_qs(body.decode("utf-8", "replace"))
        texts += form.get("query", []) + form.get("update", [])
    elif method == "POST" and kind in ("application/sparql-query", "application/sparql-update"):
        texts.append(body.decode("utf-8", "replace"))
    return texts


def _handler(backend: tuple[str, int]):
    class Front(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # one request a connection: the answer streams until it closes

        def _pass_on(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            try:
                for text in _queries(self.command, self.path, self.headers.get("Content-Type", ""), body):
                    refuse_federation(text)
            except FederationRefused as refused:
                message = f"{refused}\n".encode("utf-8")
                self.send_response(400)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(message)))
                self.end_headers()
                self.wfile.write(message)
                return
            upstream = http.client.HTTPConnection(*backend, timeout=None)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP | {"content-length"}}
            upstream.request(self.command, self.path, body=body or None, headers=headers)
            answer = upstream.getresponse()
            self.send_response(answer.status, answer.reason)
            for key, value in answer.getheaders():
                if key.lower() not in _HOP:
                    self.send_header(key, value)
            self.end_headers()
            while chunk := answer.read(1 << 16):
                self.wfile.write(chunk)
            upstream.close()

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _pass_on

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass  # Oxigraph's server is quiet too; errors reach the client

    return Front


def serve(binary: str, location: str, bind: str) -> None:
    """Runs until interrupted: Oxigraph's read-only server on a loopback port, kg's front at `bind`."""
    host, _, port = bind.rpartition(":")
    inner = ("127.0.0.1", _free_loopback_port())
    server = subprocess.Popen([binary, "serve-read-only", "--location", location, "--bind", f"{inner[0]}:{inner[1]}",
                               "--union-default-graph"])
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"the Oxigraph server stopped as it started (exit status {server.returncode})")
            try:
                socket.create_connection(inner, timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the Oxigraph server did not start within {STARTUP_SECONDS} s") from None
                time.sleep(0.05)
        host = host.strip("[]") or "127.0.0.1"
        kind = type("Front", (http.server.ThreadingHTTPServer,), {"address_family": socket.AF_INET6}) \
            if ":" in host else http.server.ThreadingHTTPServer
        front = kind((host, int(port)), _handler(inner))
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # terminate: stop the inner server too (finally)
        try:
            front.serve_forever()
        finally:
            front.server_close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
