"""Real servers for the remote-engine tests: Oxigraph server from PyPI's `oxigraph` package,
started on 127.0.0.1 at a free port with a temporary location, stopped by its PID."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

OXIGRAPH = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OxigraphServer:
    def __init__(self, location: Path, union_default_graph: bool = True):
        self.location = location
        self.union_default_graph = union_default_graph
        self.port = free_port()
        self.process = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        self.process = subprocess.Popen(
            [OXIGRAPH, "serve", "--location", str(self.location), "--bind", f"127.0.0.1:{self.port}",
             *(["--union-default-graph"] if self.union_default_graph else [])],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/query?query=ASK%7B%7D", timeout=1).read()
                return self
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError(f"oxigraph serve exited: {self.process.stderr.read().decode()}")
                time.sleep(0.1)
        raise RuntimeError("oxigraph serve did not answer within 30 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()


@pytest.fixture
def oxigraph_server(tmp_path):
    if not Path(OXIGRAPH).exists():
        pytest.skip("the oxigraph server binary (PyPI package `oxigraph`) is not installed")
    server = OxigraphServer(tmp_path / "oxigraph").start()
    yield server
    server.stop()


@contextmanager
def kg_serving(store):
    """`kg serve` of the store on a free loopback port, the base URL yielded once it answers; stopped on leaving."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "kg", "serve", "--store", str(store), "--bind", f"127.0.0.1:{port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{url}/query?query=ASK%7B%7D", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=15)
