"""A real Virtuoso Open Source 7 server for the remote-engine tests (Debian's `virtuoso-opensource`,
installed by scripts/install-virtuoso.sh).

Each server is its own `virtuoso-t +foreground` process with its own database folder and its
own virtuoso.ini — adapted from the packaged default — listening on 127.0.0.1 only at free ports
(the SQL port for isql, the HTTP port for SPARQL). The system instance and its service are never
used. When the tests run as root the server runs as `nobody` in a folder it owns. Once it answers,
the anonymous SPARQL user is granted SPARQL_UPDATE (through isql, as dba), which is how kg
reaches it: /sparql for queries and updates, /sparql-graph-crud for the
Graph Store Protocol. The server is stopped by its PID."""
from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from kg.remote import Endpoint

VIRTUOSO = shutil.which("virtuoso-t")
ISQL = shutil.which("isql-vt") or shutil.which("isql")
PACKAGED_INI = Path("/usr/share/virtuoso-opensource-7/virtuoso.ini")
DBA_PASSWORD = "dba"  # a new database's default; the server listens on 127.0.0.1 only, and lives for one test run

# What a fresh 7.2 database needs to serve kg anonymously: the SPARQL user may update, which also opens
# /sparql-graph-crud to PUT (without it: SR186 on /sparql, HTTP 403 on the Graph Store). A server with
# graph-level security on also needs DB.DBA.RDF_DEFAULT_USER_PERMS_SET ('nobody', 7); 7.2.5 does not.
GRANTS = ('GRANT SPARQL_UPDATE TO "SPARQL";',)

MINIMAL_INI = """\
[Database]
[TempDatabase]
[Parameters]
[HTTPServer]
[SPARQL]
"""


def installed() -> bool:
    return bool(VIRTUOSO and ISQL)


def version() -> str:
    done = subprocess.run([VIRTUOSO, "-?"], capture_output=True, text=True, timeout=30)
    for line in (done.stdout + done.stderr).splitlines():
        if line.startswith("Version"):
            return line.strip()
    return "unknown"


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def adapt_ini(text: str, settings: dict[str, dict[str, str]], drop_sections=("Plugins",)) -> str:
    """The packaged virtuoso.ini with `settings` ({section: {key: value}}) put in place: a key that
    is there gets the new value, one that is not is added at the end of its section. Comments and
    every other line are kept; `drop_sections` are left out (plugins a test server does not need)."""
    out: list[str] = []
    pending = {s: dict(keys) for s, keys in settings.items()}
    section = None
    skipping = False

    def close(name):
        for key, value in pending.pop(name, {}).items():
            out.append(f"{key}\t\t\t= {value}")

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            if section is not None:
                close(section)
            section = stripped[1:-1]
            skipping = section in drop_sections
            if skipping:
                continue
            out.append(line)
            continue
        if skipping:
            continue
        key = stripped.split("=", 1)[0].strip() if "=" in stripped and not stripped.startswith(";") else None
        wanted = pending.get(section, {})
        if key is not None and key in wanted:
            out.append(f"{key}\t\t\t= {wanted.pop(key)}")
        elif key is not None and key in settings.get(section, {}):
            continue  # a key the packaged file repeats, already set
        else:
            out.append(line)
    if section is not None:
        close(section)
    for name in list(pending):
        out.append(f"[{name}]")
        close(name)
    return "\n".join(out) + "\n"


class VirtuosoServer:
    """One Virtuoso server in its own folder. `result_set_max_rows` is [SPARQL] ResultSetMaxRows
    (10000 in the packaged ini); `max_query_execution_time` is [SPARQL] MaxQueryExecutionTime, in
    seconds (60 in the packaged ini); `settings` ({section: {key: value}}) sets anything else."""

    def __init__(self, *, result_set_max_rows: int = 10000,
                 max_query_execution_time: int = 60, settings: dict[str, dict[str, object]] | None = None):
        self.extra_settings = settings or {}
        self.result_set_max_rows = result_set_max_rows
        self.max_query_execution_time = max_query_execution_time
        self.run_as = pwd.getpwnam("nobody") if os.geteuid() == 0 else None  # root: the server runs as nobody
        # a folder of its own under /tmp (pytest's tmp_path is private to root); removed by remove()
        self.folder = Path(tempfile.mkdtemp(prefix="kg-virtuoso-"))
        if self.run_as:
            os.chown(self.folder, self.run_as.pw_uid, self.run_as.pw_gid)
        self.sql_port = free_port()
        self.http_port = free_port()
        self.process: subprocess.Popen | None = None
        self.ini = self.folder / "virtuoso.ini"
        self.log = self.folder / "virtuoso.out"

    # ── where kg reaches it ──
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def sparql(self) -> str:
        return f"{self.url}/sparql"

    @property
    def gsp(self) -> str:
        return f"{self.url}/sparql-graph-crud"

    def endpoint(self, **options) -> Endpoint:
        return Endpoint(query=self.sparql, update=self.sparql, gsp=self.gsp, **options)

    def environment(self) -> dict[str, str]:
        """What a user sets to point the kg CLI at this server."""
        return {"KG_ENDPOINT": self.url, "KG_ENDPOINT_QUERY": self.sparql, "KG_ENDPOINT_UPDATE": self.sparql,
                "KG_ENDPOINT_GSP": self.gsp}

    # ── life ──
    def write_ini(self) -> None:
        f = self.folder
        settings = {
            "Database": {"DatabaseFile": f / "virtuoso.db", "ErrorLogFile": f / "virtuoso.log",
                         "LockFile": f / "virtuoso.lck", "TransactionFile": f / "virtuoso.trx",
                         "xa_persistent_file": f / "virtuoso.pxa"},
            "TempDatabase": {"DatabaseFile": f / "virtuoso-temp.db", "TransactionFile": f / "virtuoso-temp.trx"},
            "Parameters": {"ServerPort": f"127.0.0.1:{self.sql_port}", "DisableUnixSocket": 1,
                           "DirsAllowed": f".,{f}", "NumberOfBuffers": 10000, "MaxDirtyBuffers": 6000,
                           "ThreadsPerQuery": 2, "MaxQueryMem": "512M"},
            "HTTPServer": {"ServerPort": f"127.0.0.1:{self.http_port}", "ServerRoot": f, "ServerThreads": 10,
                           "EnabledGzipContent": 0},
            "URIQA": {"DefaultHost": f"127.0.0.1:{self.http_port}"},
            # MaxQueryCostEstimationTime 0: the estimator overflows on the verdict layer's patterns over
            # any graph ("estimated execution time 0 (sec) exceeds the limit of 400"); docs/engines.md
            "SPARQL": {"ResultSetMaxRows": self.result_set_max_rows,
                       "MaxQueryExecutionTime": self.max_query_execution_time, "MaxQueryCostEstimationTime": 0},
        }
        for section, keys in self.extra_settings.items():
            settings.setdefault(section, {}).update(keys)
        settings = {s: {k: str(v) for k, v in keys.items()} for s, keys in settings.items()}
        base = PACKAGED_INI.read_text() if PACKAGED_INI.exists() else MINIMAL_INI
        self.ini.write_text(adapt_ini(base, settings))
        if self.run_as:
            os.chown(self.ini, self.run_as.pw_uid, self.run_as.pw_gid)

    def start(self, timeout: float = 120) -> "VirtuosoServer":
        if not installed():
            raise RuntimeError("virtuoso-t is not installed (scripts/install-virtuoso.sh)")
        self.write_ini()
        extra = {"user": self.run_as.pw_uid, "group": self.run_as.pw_gid, "extra_groups": []} if self.run_as else {}
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([VIRTUOSO, "+foreground", "+configfile", str(self.ini)],
                                            cwd=self.folder, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True, **extra)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"virtuoso-t exited ({self.process.returncode}): {self.log_tail()}")
            if self.answers(timeout=2):
                break
            time.sleep(0.2)
        else:
            self.stop()
            raise RuntimeError(f"virtuoso did not answer at {self.sparql} within {timeout} s: {self.log_tail()}")
        try:
            self.isql(*GRANTS)
        except RuntimeError as err:
            if "U0013" not in str(err):  # a restarted server keeps the grants it was given
                raise
        return self

    def isql(self, *statements: str) -> str:
        """Runs SQL statements as dba through isql on the server's SQL port; fails on any error."""
        script = "\n".join(statements) + "\n"
        done = subprocess.run([ISQL, f"127.0.0.1:{self.sql_port}", "dba", DBA_PASSWORD, "VERBOSE=OFF",
                               "PROMPT=OFF", "BANNER=OFF", "ERRORS=STDOUT"], input=script, capture_output=True,
                              text=True, timeout=120)
        output = done.stdout + done.stderr
        if done.returncode != 0 or "*** Error" in output:
            raise RuntimeError(f"isql failed ({done.returncode}): {output.strip()[-2000:]}")
        return output

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def restart(self) -> "VirtuosoServer":
        """Stops the server and starts it again on the same folder and ports: the database rolls
        forward from its transaction log, so what was loaded is still there."""
        self.stop()
        return self.start()

    def answers(self, timeout: float = 5) -> bool:
        try:
            with urllib.request.urlopen(f"{self.sparql}?{urllib.parse.urlencode({'query': 'ASK {}'})}",
                                        timeout=timeout) as response:
                response.read()
            return True
        except (OSError, urllib.error.URLError):
            return False

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def log_tail(self, lines: int = 30) -> str:
        text = ""
        for path in (self.log, self.folder / "virtuoso.log"):
            if path.exists():
                text += path.read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> "VirtuosoServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.remove()
