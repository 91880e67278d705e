"""A remote SPARQL 1.1 engine as a kg store: queries and updates through SPARQLWrapper (POST,
JSON results), whole source graphs through the SPARQL 1.1 Graph Store HTTP Protocol (one PUT
per source, streamed).

The catalogue record of a source is written only after its graph was stored, so a failed
upload never claims a load that did not happen; loading again finishes it (the file's sha256
differs from the catalogue's, or the catalogue has none).

Configuration, in one place (`Endpoint.resolve`): --endpoint or KG_ENDPOINT is the server's base
URL, read with Oxigraph server's layout (/query, /update, /store) unless KG_ENDPOINT_QUERY,
KG_ENDPOINT_UPDATE and KG_ENDPOINT_GSP say otherwise, or an [endpoint] table in the TOML file
KG_CONFIG names. Credentials come from KG_ENDPOINT_USER and KG_ENDPOINT_PASSWORD (basic) or
KG_ENDPOINT_TOKEN (bearer), or the config file; they are never printed or logged."""
from __future__ import annotations

import base64
import itertools
import json
import re
import os
import socket
import tempfile
import threading
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import pyoxigraph as ox

from . import layers
from .catalogue import IRI, bind, literal_value
from .errors import StoreUnavailable
from .federation import refuse_federation
from .store import (SCRATCH_IN_MEMORY, SPARQL_PREFIXES, BaseStore, SourceRecord, Store, _delete_record,
                    discard_scratch)
from .terms import CATALOGUE_GRAPH, KG

AUTH_SCHEMES = ("basic", "digest")
CHUNK = 1 << 20  # bytes per chunk of a streamed upload
COPY_BATCH = 100_000  # quads per bulk write of a server's copy (RemoteStore.scratch_copy)
_UNION_CHECKED: set[str] = set()  # query URLs whose default graph was seen to be the union of all graphs


class RemoteError(StoreUnavailable):
    """A remote engine refused or failed; the message names the endpoint, the status and what to check."""


def _setting(key: str, value, kind, example: str):
    """A number setting of the endpoint, positive: KG_ENDPOINT_RETRIES=0 made no attempt at all and
    the caller crashed on its missing answer; a word there was a traceback."""
    try:
        number = kind(value)
    except (TypeError, ValueError):
        number = None
    if number is None or not number > 0:  # (NaN too)
        raise RemoteError(f"KG_ENDPOINT_{key.upper()} (or `{key}` in KG_CONFIG) is {value!r}; "
                          f"it takes a number above 0 ({example})")
    return number


@dataclass
class Endpoint:
    query: str
    update: str
    gsp: str
    user: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)
    token: str | None = field(default=None, repr=False)
    timeout: float = 120.0
    retries: int = 3
    max_rows: int | None = None  # the server's cap on result rows, when it has one (Virtuoso: 10000)
    auth: str = "basic"  # how user and password are sent: basic, or digest (Virtuoso's /sparql-auth)
    union_default_graph: bool = True

    @classmethod
    def resolve(cls, url: str | None = None) -> "Endpoint | None":
        env = os.environ
        config = {}
        if env.get("KG_CONFIG"):
            with open(env["KG_CONFIG"], "rb") as f:
                config = tomllib.load(f).get("endpoint", {})
        base = url or env.get("KG_ENDPOINT") or config.get("url")
        if not base:
            return None
        parsed = urllib.parse.urlparse(base)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise RemoteError(f"the endpoint {base!r} is not an http(s) URL; give e.g. http://127.0.0.1:7878")
        base = base.rstrip("/")

        def pick(key, default=None):
            return env.get(f"KG_ENDPOINT_{key.upper()}") or config.get(key) or default
        auth = str(pick("auth", "basic")).lower()
        if auth not in AUTH_SCHEMES:
            raise RemoteError(f"KG_ENDPOINT_AUTH is {auth!r}; it takes one of {', '.join(AUTH_SCHEMES)}")
        return cls(query=pick("query", f"{base}/query"), update=pick("update", f"{base}/update"),
                   gsp=pick("gsp", f"{base}/store"), user=pick("user"), password=pick("password"),
                   token=pick("token"), timeout=_setting("timeout", pick("timeout", 120), float, "seconds, e.g. 120"),
                   retries=_setting("retries", pick("retries", 3), int, "attempts, e.g. 3"),
                   max_rows=_setting("max_rows", pick("max_rows"), int, "rows, e.g. 10000") if pick("max_rows") else None,
                   auth=auth)

    @property
    def digest(self) -> bool:
        return self.auth == "digest" and bool(self.user) and not self.token

    def authorization(self) -> str | None:
        """The Authorization header sent with every request; None for Digest, which answers the
        server's challenge instead (SPARQLWrapper and urllib's own Digest support)."""
        if self.token:
            return f"Bearer {self.token}"
        if self.user and not self.digest:
            return "Basic " + base64.b64encode(f"{self.user}:{self.password or ''}".encode()).decode()
        return None


def _body(err: Exception) -> str:
    """The start of an HTTP error's body (a server's own words: "The server is read-only"), or ""."""
    try:
        return err.read(2000).decode("utf-8", "replace") if isinstance(err, urllib.error.HTTPError) else ""
    except (OSError, ValueError):
        return ""


def _challenge(err: Exception) -> str:
    """The scheme a 401 asks for (its WWW-Authenticate header), lower case, or ""."""
    for candidate in (err, getattr(err, "__cause__", None), getattr(err, "__context__", None)):
        headers = getattr(candidate, "headers", None) or getattr(candidate, "hdrs", None)
        if headers is not None and headers.get("WWW-Authenticate"):
            return headers.get("WWW-Authenticate").strip().lower()
    return ""


def _explain(endpoint: str, err: Exception) -> str:
    status = getattr(err, "code", None)
    if status is None and hasattr(err, "__cause__") and getattr(err.__cause__, "code", None):
        status = err.__cause__.code
    name = type(err).__name__
    text = " ".join(str(err).split())[:400] or name
    if status == 401 or name == "Unauthorized":
        challenge = _challenge(err)
        if challenge.startswith("digest"):
            return (f"{endpoint}: HTTP 401, authentication refused — the server asks for Digest authentication: "
                    f"set KG_ENDPOINT_AUTH=digest (with KG_ENDPOINT_USER/PASSWORD), or check the credentials if it is set")
        return (f"{endpoint}: HTTP 401, authentication refused — check KG_ENDPOINT_USER/PASSWORD or KG_ENDPOINT_TOKEN; "
                f"a server that takes Digest authentication (Virtuoso's /sparql-auth) also needs KG_ENDPOINT_AUTH=digest")
    if status == 403:
        body = _body(err)
        if "read-only" in body.lower() or "read only" in body.lower():
            return (f"{endpoint}: HTTP 403, the server is read-only ({body.strip()[:120]!r}) — kg serve and "
                    f"oxigraph serve-read-only only answer queries; load into a writable endpoint or the embedded store")
        return (f"{endpoint}: HTTP 403, not allowed — the server refuses this request: it may be read-only, "
                f"or the credentials lack the right to do this")
    if status == 404 or name == "EndPointNotFound":
        return f"{endpoint}: HTTP 404, no SPARQL service here — check the URL (KG_ENDPOINT, KG_ENDPOINT_QUERY/UPDATE/GSP)"
    if status == 400 or name == "QueryBadFormed":
        return f"{endpoint}: HTTP 400, the engine rejected the request: {text}"
    if status == 500 or name == "EndPointInternalError":  # the engine's own error (Virtuoso's "SR171: Transaction timed out" too)
        return f"{endpoint}: HTTP 500, the engine failed on the request: {text}"
    if isinstance(err, (socket.timeout, TimeoutError)) or "timed out" in text:
        return f"{endpoint}: no answer within the timeout — the query may be too heavy for the engine, or the server is stuck (KG_ENDPOINT_TIMEOUT)"
    if isinstance(err, urllib.error.URLError) or name in ("URLError", "ConnectionRefusedError"):
        return f"{endpoint}: cannot connect ({text}) — is the server running, and is the URL right?"
    return f"{endpoint}: {f'HTTP {status}, ' if status else ''}{text}"


def _transient(err: Exception) -> bool:
    """Worth another try: the server is restarting or overloaded, or the connection dropped."""
    if isinstance(err, urllib.error.HTTPError):
        return err.code in (502, 503, 504)
    return isinstance(err, (urllib.error.URLError, ConnectionError))


class RemoteStore(BaseStore):
    """A kg store on a SPARQL 1.1 server."""

    def __init__(self, endpoint: Endpoint):
        self.endpoint = endpoint
        self.path = endpoint.query
        self.engine: str | None = None  # "virtuoso", "oxigraph", … read off the Server header

    # ── the wire ──
    def _with_retries(self, what: str, url: str, call):
        delay = 0.5
        for attempt in range(1, self.endpoint.retries + 1):
            try:
                return call()
            except RemoteError:  # already says what came and what to check
                raise
            except Exception as err:  # noqa: BLE001 - every failure becomes a RemoteError below
                if attempt < self.endpoint.retries and _transient(err):
                    time.sleep(delay)
                    delay *= 2
                    continue
                raise RemoteError(f"{what} failed: {_explain(url, err)}") from None

    def _within_deadline(self, call):
        """Runs one whole request (sending, waiting, reading the answer) under KG_ENDPOINT_TIMEOUT.
        urllib's timeout bounds each socket read, so a server sending a byte every half second
        never timed out; the request runs in a daemon thread that is abandoned when time is up."""
        box: dict = {}

        def run():
            try:
                box["value"] = call()
            except BaseException as err:  # noqa: BLE001 - re-raised in the caller's thread
                box["error"] = err
        worker = threading.Thread(target=run, daemon=True, name="kg-remote-request")
        worker.start()
        worker.join(self.endpoint.timeout)
        if worker.is_alive():
            raise TimeoutError(f"no complete answer within {self.endpoint.timeout:g} s")
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _wrapper(self, text: str, update: bool = False, form: str = "SELECT"):
        from SPARQLWrapper import JSON, POST, SPARQLWrapper
        wrapper = SPARQLWrapper(self.endpoint.query, updateEndpoint=self.endpoint.update)
        wrapper.setMethod(POST)
        wrapper.setReturnFormat(JSON)
        wrapper.setTimeout(max(1, int(self.endpoint.timeout)))
        auth = self.endpoint.authorization()
        if auth:
            wrapper.addCustomHttpHeader("Authorization", auth)
        elif self.endpoint.digest:
            from SPARQLWrapper import DIGEST
            wrapper.setHTTPAuth(DIGEST)
            wrapper.setCredentials(self.endpoint.user, self.endpoint.password or "")
        wrapper.setQuery(text)
        # SPARQLWrapper guesses the form from the text, and a comment ("#+ description: …") fools it
        wrapper.queryType = "INSERT" if update else form  # any update form routes to the update URL
        return wrapper

    def _sparql(self, text: str, update: bool = False, form: str = "SELECT"):
        wrapper = self._wrapper(text, update, form)

        def call():
            result = wrapper.query()
            headers = {k.lower(): v for k, v in (result.info() or {}).items()}
            return headers, result.response.read()
        url = self.endpoint.update if update else self.endpoint.query
        headers, body = self._with_retries("update" if update else "query", url,
                                           lambda: self._within_deadline(call))
        if update:
            return None
        self.engine = (headers.get("server") or "").split("/")[0].strip().lower() or self.engine
        data = self._decode(headers, body, form)
        self._check_complete(headers, len(data.get("results", {}).get("bindings", [])) if isinstance(data, dict) else 0)
        return data

    def _decode(self, headers: dict, body: bytes, form: str) -> dict:
        """The answer as SPARQL JSON results, or a RemoteError saying what came instead (an HTML
        login page, an empty or cut-short body, JSON of another shape) — never a traceback."""
        where = f"query at {self.endpoint.query}"
        ctype = (headers.get("content-type") or "").split(";")[0].strip().lower() or "no content type"
        if not body.strip():
            raise RemoteError(f"{where}: the server answered with an empty body ({ctype}), not SPARQL results — "
                              f"check that the URL (KG_ENDPOINT, KG_ENDPOINT_QUERY) is a SPARQL query service")
        if "html" in ctype or body.lstrip()[:1] == b"<":
            raise RemoteError(f"{where}: the server answered with an HTML page ({ctype}), not SPARQL results — "
                              f"a login page or a proxy's? check the URL (KG_ENDPOINT, KG_ENDPOINT_QUERY) and the "
                              f"credentials")
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as err:
            raise RemoteError(f"{where}: the answer is not valid JSON ({ctype}, {len(body)} bytes: {err}) — cut "
                              f"short by the server or a proxy, or not a SPARQL service; kg computes nothing from "
                              f"it") from None
        if form == "ASK":
            fine = isinstance(data, dict) and isinstance(data.get("boolean"), bool)
        else:
            head, results = (data.get("head"), data.get("results")) if isinstance(data, dict) else (None, None)
            fine = (isinstance(head, dict) and isinstance(head.get("vars"), list)
                    and isinstance(results, dict) and isinstance(results.get("bindings"), list))
        if not fine:
            wanted = '"boolean"' if form == "ASK" else '"head": {"vars"} and "results": {"bindings"}'
            raise RemoteError(f"{where}: the answer is JSON but not SPARQL {form} results (no {wanted}) — check "
                              f"that the URL is a SPARQL query service")
        return data

    def _rows(self, data: dict, convert) -> list[tuple]:
        names = data["head"]["vars"]
        try:
            return [tuple(convert(row.get(n)) for n in names) for row in data["results"]["bindings"]]
        except (AttributeError, KeyError, TypeError, ValueError) as err:
            raise RemoteError(f"query at {self.endpoint.query}: a row of the answer is not a SPARQL JSON binding "
                              f"({type(err).__name__}: {err}); kg computes nothing from it") from None

    def _check_complete(self, headers: dict, rows: int) -> None:
        """Fail loudly rather than compute a number from an answer the server cut short (`rows`: how
        many rows it holds, or has given so far)."""
        if headers.get("x-sql-state") == "S1TAT":  # Virtuoso's "anytime" answer: what it had when its time ran out
            raise RemoteError(f"query at {self.endpoint.query}: the server returned an incomplete answer (HTTP 200, "
                              f"X-SQL-State S1TAT: its time limit interrupted the query), and kg computes nothing "
                              f"from a truncated answer — raise the server's limit or drop the endpoint's timeout parameter")
        capped = headers.get("x-sparql-maxrows")
        if capped or (self.endpoint.max_rows and rows >= self.endpoint.max_rows):
            cap = capped or self.endpoint.max_rows
            raise RemoteError(f"query at {self.endpoint.query}: the answer has {rows} rows, the server's cap "
                              f"({cap}): it may be cut short, and kg computes nothing from a truncated answer — "
                              f"raise the server's row limit (Virtuoso: ResultSetMaxRows in virtuoso.ini)")

    def identify_engine(self) -> str | None:
        """The engine's name, from the Server header of a trivial query."""
        if self.engine is None:
            self._sparql("ASK { }", form="ASK")
        return self.engine

    def update(self, text: str) -> None:
        self._sparql(SPARQL_PREFIXES + text, update=True)

    def select(self, query: str, **bindings) -> list[tuple]:
        return self._rows(self._sparql(SPARQL_PREFIXES + bind(query, bindings)), _term)

    def ask(self, query: str, **bindings) -> bool:
        return self._sparql(SPARQL_PREFIXES + bind(query, bindings), form="ASK")["boolean"]

    def select_values(self, text: str) -> tuple[list[str], list[tuple]]:
        """A catalogue or ad-hoc query over the default graph, which must be the union of all graphs."""
        refuse_federation(text)  # before the server sees it: a server would fetch the service
        self.check_union_default_graph()
        data = self._sparql(text)
        return data["head"]["vars"], self._rows(data, _value)

    def check_union_default_graph(self) -> None:
        """Refuses a server whose default graph is not the union of its named graphs: every
        catalogue query would answer 0 rows there, and exit 0. Asked of the catalogue graph kg
        wrote, once per endpoint and process (not cached while nothing is loaded: then there is
        nothing to tell by)."""
        if self.endpoint.query in _UNION_CHECKED:
            return
        source = f"?g a <{KG}Source>"
        if not self._sparql(f"ASK {{ GRAPH <{CATALOGUE_GRAPH}> {{ {source} }} }}", form="ASK")["boolean"]:
            return
        if not self._sparql(f"ASK {{ {source} }}", form="ASK")["boolean"]:
            raise RemoteError(
                f"query at {self.endpoint.query}: the server's default graph is not the union of its named graphs "
                f"(the graph <{CATALOGUE_GRAPH}> lists kg's sources, a query over the default graph sees none of "
                f"them), so every catalogue query would answer 0 rows — start Oxigraph server with "
                f"--union-default-graph (as `kg serve` does), set tdb2:unionDefaultGraph true on a Fuseki TDB2 "
                f"dataset, or use an engine whose default graph is the union of all graphs (Virtuoso's is)")
        _UNION_CHECKED.add(self.endpoint.query)

    # ── graphs ──
    def put_graph(self, graph: str, ntriples: str) -> None:
        """One Graph Store Protocol PUT, streamed in chunks: the request body is never one string."""
        url = f"{self.endpoint.gsp}?{urllib.parse.urlencode({'graph': graph})}"
        data = ntriples.encode("utf-8")

        class Chunks:
            """The body in chunks, readable again: Digest sends it a second time, after the challenge."""
            def __iter__(self):
                return (data[start:start + CHUNK] for start in range(0, len(data), CHUNK))

        def chunks():
            return Chunks()

        def send():
            # Content-Length, never chunked transfer: Virtuoso 7.2 answers 201 to a chunked PUT and stores nothing
            request = urllib.request.Request(url, data=chunks(), method="PUT",
                                             headers={"Content-Type": "application/n-triples",
                                                      "Content-Length": str(len(data))})
            auth = self.endpoint.authorization()
            if auth:
                request.add_header("Authorization", auth)
            opener = urllib.request.build_opener()
            if self.endpoint.digest:
                passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
                passwords.add_password(None, self.endpoint.gsp, self.endpoint.user, self.endpoint.password or "")
                opener = urllib.request.build_opener(urllib.request.HTTPDigestAuthHandler(passwords))
            with opener.open(request, timeout=self.endpoint.timeout) as response:
                response.read()
        self._with_retries(f"storing the graph <{graph}>", self.endpoint.gsp, lambda: self._within_deadline(send))
        if data and not self._sparql(f"ASK {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}", form="ASK")["boolean"]:
            raise RemoteError(f"storing the graph <{graph}> failed: {self.endpoint.gsp} accepted the upload "
                              f"but the graph is empty — the server dropped the body")

    def replace_source(self, record: SourceRecord, ntriples: str, history: str = "") -> None:
        """The graph goes up whole (Graph Store Protocol), then one update claims it in the catalogue
        and brings the derived layers up to date. A server runs no two requests as one transaction,
        so the keys the old graph touched are marked first, in scratch graphs that stay until the
        last update has derived them: a write cut short in between leaves them, and the next kg to
        open the server rebuilds the layers."""
        record.loaded_at = record.loaded_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
        if self.source_sha256(record.graph) is not None:
            self.update(layers.marking([record.graph]))
        if ntriples:
            self.put_graph(record.graph, ntriples)
        else:
            self.update(f"DROP SILENT GRAPH <{record.graph}>")
        self.update(layers.marking([record.graph]))
        # only now, with the graph stored and its verdicts derived, does the catalogue claim the load
        self.derive_touched(_delete_record(record.graph) + f" ;\nINSERT DATA {{ GRAPH <{CATALOGUE_GRAPH}> {{\n"
                            f"{record.ntriples()}{history}}} }}")

    def reset(self) -> None:
        """Drops kg's graphs — every source the catalogue lists (vocabularies included) and the
        catalogue — and nothing else: a shared server keeps its other graphs (Virtuoso's own system
        graphs among them). Not DROP ALL, which Virtuoso 7 answers with success and ignores."""
        graphs = [row[0].value for row in self.select(
            f"SELECT DISTINCT ?g WHERE {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?g a kg:Source }} }}")]
        for graph in graphs + sorted(layers.graphs()) + [CATALOGUE_GRAPH]:
            self.update(f"DROP SILENT GRAPH <{graph}>")
        if self.ask(f"ASK {{ GRAPH <{CATALOGUE_GRAPH}> {{ ?s ?p ?o }} }}"):
            raise RemoteError(f"reset at {self.endpoint.update}: the catalogue graph is still there after DROP GRAPH")

    @contextmanager
    def scratch_copy(self):
        """A writable local Store holding what the server holds, removed on leaving: what `kg
        validate` loads into. The server's quads are parsed as they arrive (SPARQL JSON results,
        read by the engine's own parser from the open response) and bulk-written into the copy, so
        kg never holds the server's answer in Python (it held it twice, as its text and as its rows:
        8.65 GB for a server of 3.5M quads, BENCHMARKS.md). In memory for a server
        of fewer than SCRATCH_IN_MEMORY quads, else in a temporary folder on disk. An answer cut
        short, capped or not SPARQL results is refused, as every answer is (`_check_complete`)."""
        folder = None if len(self) < SCRATCH_IN_MEMORY else Path(tempfile.mkdtemp(prefix="kg-validate-"))
        copy = None
        try:
            copy = Store(":memory:") if folder is None else Store(folder / "store")
            self._with_retries("query", self.endpoint.query,
                               lambda: self._within_deadline(lambda: self._copy_quads_into(copy)))
            copy._drop_unrecorded()  # the state readers read: no graph of a load cut short
            yield copy
        finally:
            discard_scratch(copy, folder)

    def _copy_quads_into(self, copy: Store) -> None:
        """Every quad of the server, streamed from one SELECT into `copy` (see `scratch_copy`)."""
        where = f"query at {self.endpoint.query}"
        result = self._wrapper("SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }").query()
        headers = {k.lower(): v for k, v in (result.info() or {}).items()}
        ctype = (headers.get("content-type") or "").split(";")[0].strip().lower()
        if "json" not in ctype:
            raise RemoteError(f"{where}: the server answered with {ctype or 'no content type'}, not SPARQL JSON "
                              f"results — check that the URL (KG_ENDPOINT, KG_ENDPOINT_QUERY) is a SPARQL query "
                              f"service")
        self._check_complete(headers, 0)
        rows = 0

        def quads():
            nonlocal rows
            for row in ox.parse_query_results(result.response, format=ox.QueryResultsFormat.JSON):
                rows += 1
                if self.endpoint.max_rows and rows >= self.endpoint.max_rows:
                    self._check_complete(headers, rows)
                yield ox.Quad(row["s"], row["p"], row["o"], row["g"])
        try:
            stream = quads()
            # a batch per call: the engine's bulk writer holds what one call gives it (about 1 GB for 3.5M quads)
            while batch := list(itertools.islice(stream, COPY_BATCH)):
                copy.ox.bulk_extend(batch)
        except SyntaxError as err:
            raise RemoteError(f"{where}: the answer is not valid SPARQL JSON results ({err}) — cut short by the "
                              f"server or a proxy; kg validates nothing against it") from None

    def dump(self) -> bytes:
        rows = self._rows(self._sparql("SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }"), _term)
        lines = [f"{s} {p_} {o} {g} .\n" for s, p_, o, g in rows]
        return "".join(sorted(lines)).encode("utf-8")

    def __len__(self) -> int:
        [(n,)] = self._rows(self._sparql("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"), _value) or [(0,)]
        return int(n or 0)


XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def _term(binding: dict | None):
    """A SPARQL JSON results binding as a pyoxigraph term (Virtuoso's "typed-literal" included)."""
    if binding is None:
        return None
    kind, value = binding["type"], binding["value"]
    if kind == "uri":
        return ox.NamedNode(value)
    if kind == "bnode":  # Virtuoso names them "nodeID://b10001": a label of N-Triples' letters, the same for the same node
        return ox.BlankNode(re.sub(r"[^A-Za-z0-9_]", "_", value))
    if binding.get("xml:lang"):
        return ox.Literal(value, language=binding["xml:lang"])
    datatype = binding.get("datatype")
    return ox.Literal(value, datatype=ox.NamedNode(datatype)) if datatype and datatype != XSD_STRING else ox.Literal(value)


def _value(binding: dict | None):
    if binding is None:
        return None
    kind, value = binding["type"], binding["value"]
    if kind == "uri":
        return IRI(value)
    if kind == "bnode":
        return f"_:{value}"
    return literal_value(value, binding.get("datatype"))
