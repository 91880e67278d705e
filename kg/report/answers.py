"""Running a site's queries: each named query once per set of parameters, started ahead of the
pages that read it on as many threads as the backend answers at once, and each answer a table shows
written as CSV and JSON under data/, as `kg query … --format csv|json` prints it."""
from __future__ import annotations

import hashlib
import json
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from .. import catalogue, output
from ..cache import keep_written
from .files import write as _write
from .kept import _copy


class Answers:
    """The Site's queries and their answers (self.entries, self._results, self._started, self._pool,
    self.asked_unstarted, self._data_files, self._data_written, made by Site.__init__)."""

    # annotations of what Site.__init__ sets, for the reader
    _started: dict[tuple, Future]
    _pool: ThreadPoolExecutor | None

    def query(self, name: str, **params) -> catalogue.Result:
        key = (name, tuple(sorted(params.items())))
        if key not in self._results:
            q = self.entries[name]
            self.used[name] = q
            started = self._started.pop(key, None)
            if started is None:
                self.asked_unstarted.add(key)
            if started is not None and not started.cancel():  # running or done: its answer is near
                self._results[key] = started.result()
            else:  # not started, or still waiting its turn: this thread runs it rather than wait
                self._results[key] = catalogue.run(q, self.backend, params, cache=self.cache)
        return self._results[key]

    def start(self, name: str, *params: dict) -> str:
        """Starts a query, once per set of parameters given (once without: none), ahead of the pages
        that read it, as many at a time as the backend answers at once: Oxigraph evaluates outside
        Python's lock, so on two cores two queries take the time of one while the pages render
        (BENCHMARKS.md). A page then waits for its query's answer, or gets its error, where it asks for
        it (`query`), or runs it itself when it is still waiting its turn. A template may call it too
        (`site.start("compare", {...}, {...})` before a loop of compares); it returns "" for that."""
        workers = getattr(self.backend, "concurrent_queries", 1)
        q = self.entries.get(name)
        if workers < 2 or q is None:
            return ""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(workers, thread_name_prefix="kg-query")
        for values in params or ({},):
            key = (name, tuple(sorted(values.items())))
            if key in self._results or key in self._started or any(
                    p.required and p.name not in values for p in q.params.values()):
                continue
            self._started[key] = self._pool.submit(catalogue.run, q, self.backend, dict(values), cache=self.cache)
        return ""

    def stop(self) -> None:
        """Lets go of queries started that no page asked for."""
        if self._pool is not None:
            for started in self._started.values():
                started.cancel()
            self._pool.shutdown(wait=True)
            self._pool = None
            self._started.clear()

    def data_file(self, result) -> str | None:
        """The stem (under data/) of the CSV and JSON holding the rows of `result` exactly as
        `kg query NAME -p … --format csv|json` prints them; for a table built from some of a query's
        rows, the file of that query's full answer when the report ran it with one set of parameters
        (None when it ran it with several, or not at all)."""
        key = self._key(result)
        if key is None:
            return None
        if key not in self._data_files:
            name, params = key
            stem = name if not params else f"{name}--" + hashlib.sha256(
                json.dumps(params, default=str).encode()).hexdigest()[:10]
            self._data_files[key] = stem
        return self._data_files[key]

    def _key(self, result) -> tuple | None:
        for key, r in self._results.items():
            if r is result:
                return key
        name = result["query"].name if isinstance(result, dict) else getattr(result.query, "name", None)
        keys = [key for key in self._results if key[0] == name]
        return keys[0] if len(keys) == 1 else None

    def is_partial(self, result) -> bool:
        """Whether a table shows some of its query's rows (a filtered dict), not the answer itself."""
        return not any(r is result for r in self._results.values())

    def data_params(self, result) -> str:
        """The -p options that rerun the query of `result` with the report's parameters."""
        key = self._key(result)
        return "".join(f" -p {name}={value}" for name, value in key[1]) if key else ""

    def write_data(self) -> list[Path]:
        """Writes data/<stem>.csv and .json for every result a table has linked and not yet written,
        with kg query's renderer. Called once the pages that link the biggest answers (the matrix:
        every verdict) are rendered, while the named pages' queries still run, and again at the end."""
        written = []
        for key, stem in sorted(self._data_files.items(), key=lambda item: item[1]):
            if key in self._data_written:
                continue
            self._data_written.add(key)
            result = self._results[key]
            for fmt in ("csv", "json"):
                target = self.out / "data" / f"{stem}.{fmt}"
                kept = self._kept("data", [key[0], self.entries[key[0]].text, key[1], fmt], fmt)
                if kept is not None and _copy(kept, target):
                    written.append(target)  # the same answer, rendered the same: kept from an earlier report
                    continue
                text = output.render(result.columns, result.rows, fmt)
                written.append(_write(target, text))
                if kept is not None:
                    keep_written(kept, target, text)
        return written

