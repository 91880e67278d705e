"""The HTML report: a static, self-contained site rendered from the templates in reports/ and
the catalogue's named queries.

Templates call `query(name, **params)` themselves, so a new page is one template. Every table
names the query that produced it and links to that query's SPARQL. Charts are static SVG files
drawn by matplotlib, referenced with alternative text. The site is written to a fresh folder and
swapped in with one atomic rename of a symlink, under a lock, so a cron job and a person running
`kg report` at once never see or leave half a site."""
from __future__ import annotations

import errno
import fcntl
import functools
import gc
import hashlib
import json
import numbers
import os
import re
import shutil
import stat
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timezone
from html import unescape as html_unescape
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from . import catalogue, output, paths
from .cache import AnswerCache, keep, keep_written
from .errors import OutputUnwritable, UsageError
from .output import shorten
from .terms import PREFIXES

DEFAULT_OUT = "build/report"
PAGE_ROWS = 500  # rows per page of a verdict list; a longer list is split over numbered pages
MATRIX_CASES = 200  # cases per page of the cases × systems matrix
# the reasons a trial is left out of pass@k, as the verdict layer classes them (pass-at-k's excluded_* columns)
EXCLUSIONS = {"grader": "grader failure", "environment": "environment failure", "unexplained": "unexplained cantTell",
              "inapplicable": "inapplicable", "untested": "untested", "other": "not an EARL outcome",
              "conflicting": "conflicting verdicts",
              "not_preregistered": "judged against criteria not registered before the run (J2)"}


def status_of(reason: str) -> str:
    """The verdict layer's status for an excluded_<reason> column: not_preregistered → not-preregistered."""
    return reason.replace("_", "-")


def _once(method):
    """A method of the Site computed once per Site, kept on the Site itself: functools.cache on a
    method keys it by `self` in a cache of the class, which kept every Site ever made alive, with its
    answers (2.5 GB at 100k assertions), until the interpreter ended - and then walked and freed them
    all at exit (seconds after the report was written)."""
    attribute = f"_once_{method.__name__}"

    @functools.wraps(method)
    def once(self):
        if attribute not in self.__dict__:
            self.__dict__[attribute] = method(self)
        return self.__dict__[attribute]
    return once


class Site:
    """What templates see: the queries, labels, prefixes and helpers to draw and link."""

    def __init__(self, backend, out: Path, prefixes: dict[str, str], params: dict[str, Any] | None = None):
        self.backend = backend
        self.out = out
        self.prefixes = prefixes
        self.params = params or {}
        self.entries = catalogue.load()
        self.used: dict[str, catalogue.NamedQuery] = {}
        self._results: dict[tuple, catalogue.Result] = {}
        self._comparisons: dict[tuple, tuple] = {}
        self._started: dict[tuple, Future] = {}  # queries running ahead of the pages (start)
        self._pool: ThreadPoolExecutor | None = None
        self.asked_unstarted: set[tuple] = set()  # queries a page asked for that start had not started
        self._labels: dict[str, str] | None = None
        # Site.cell of a text, made once per (text, root, is the case column); a bounded memo, as an
        # answer's decoded terms are (catalogue.remembered): unique texts past its limit are made each time
        self._text_cells = catalogue.remembered(self._text_cell)
        self.charts: dict[str, str] = {}
        self.cache = AnswerCache.for_store(backend)
        self.undrawn: dict[str, str] = {}  # chart name -> why it was not drawn (a drawing fault)
        self.empty: dict[str, str] = {}  # chart name -> why the data gives it nothing to draw
        self.case_pages = False  # whether this render writes a page per case (render_site sets it)
        self.drill_pages = False  # whether it writes the pages behind coverage bars and wrong-description rates
        self._cases_with_pages: set[str] | None = None
        self._all_cases: list[dict] | None = None
        self._verdicts: list[dict] | None = None
        self._groups: dict[int, list[dict]] = {}
        self._data_files: dict[tuple, str] = {}  # (query, params) -> data/<file> stem of its CSV and JSON
        self._data_written: set[tuple] = set()  # the keys of _data_files whose files are written
        self.k = self.params.get("k") or 3
        self.k_given = self.params.get("k") is not None

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

    # ── the verdicts behind every figure ──
    def verdicts(self) -> list[dict]:
        """The verdicts query's rows (one per current assertion), each with where it came from
        (verdict-sources: file, node, grader implementation, criterion digest, supersession, which
        query counts it) and its place in the site: `anchor` on its case page and `href` from the root."""
        if self._verdicts is None:
            sources = {r["assertion"]: r for r in self.query("verdict-sources").rows}
            blank = dict.fromkeys(self.query("verdict-sources").columns)
            rows = []
            for v in self.query("verdicts").rows:
                row = {**blank, **sources.get(v["assertion"], {}), **v}
                row["anchor"] = anchor(v["case"], v["system"], v["trial"], v["grader"], v["grader_kind"], v["assertion"])
                row["href"] = f"cases/{slug(v['case'])}.html#{row['anchor']}"
                rows.append(row)
            self._verdicts = rows
        return self._verdicts

    @_once
    def verdicts_by_case(self) -> dict[str, list[dict]]:
        """The verdicts by case, in the verdicts query's order, indexed once for the case pages and
        every page of the matrix (each page had walked every verdict: 15 pages x 101k at 100k)."""
        index: dict[str, list[dict]] = {}
        for v in self.verdicts():
            index.setdefault(v["case"], []).append(v)
        return index

    @_once
    def _verdicts_by_key(self) -> dict[tuple, list[dict]]:
        """The verdicts by (system, grader kind, grader), indexed once for every grid of the compare page."""
        index: dict[tuple, list[dict]] = {}
        for v in self.verdicts():
            index.setdefault((v["system"], v["grader_kind"], v["grader"]), []).append(v)
        return index

    def comparisons(self, asked=()) -> tuple[list[tuple], list[tuple]]:
        """(pairs, unshared): the comparisons the compare page shows, each (replay set, baseline's
        system-runs row, candidate's, why) - per replay set the latest two systems by the first date of
        their results, then each pair asked for (kg report --compare) on every set both have runs on
        (once) - and the asked pairs that share no set."""
        key = tuple(tuple(pair) for pair in asked)
        if key not in self._comparisons:
            rows = self.query("system-runs").rows
            sets = list(dict.fromkeys(r["replay_set"] for r in rows if r["replay_set"]))
            pairs, unshared = [], []
            for replay_set in sets:
                dated = [r for r in rows if r["replay_set"] == replay_set and r["first_date"]]
                if len(dated) >= 2:
                    pairs.append((replay_set, dated[-2], dated[-1], "the latest two by time"))
            for baseline, candidate in key:
                shared = 0
                for replay_set in sets:
                    b = [r for r in rows if r["replay_set"] == replay_set and r["system"] == baseline]
                    c = [r for r in rows if r["replay_set"] == replay_set and r["system"] == candidate]
                    if b and c:
                        shared += 1
                        if not any(p[0] == replay_set and p[1]["system"] == baseline and p[2]["system"] == candidate
                                   for p in pairs):
                            pairs.append((replay_set, b[0], c[0], "asked for with kg report --compare"))
                if not shared:
                    unshared.append((baseline, candidate))
            self._comparisons[key] = (pairs, unshared)
        return self._comparisons[key]

    def comparison(self, baseline: str, candidate: str, replay_set: str) -> catalogue.Result:
        """The `compare` rows of one replay set. The query runs once per pair of systems, for every
        set they share, and each set's rows are taken from that answer: compare never pools replay
        sets (a row is one set's), so they are the rows `--replay-set` gives, and one run costs about
        what one set's does (4.0 s for four sets against 16.1 s at 100k assertions, BENCHMARKS.md)."""
        result = self.query("compare", baseline=baseline, candidate=candidate)
        return catalogue.Result(result.columns, [r for r in result.rows if r["replay_set"] == replay_set],
                                result.query)

    def compare_grid(self, row: dict, baseline: str, candidate: str, replay_set: str | None) -> dict:
        """The cases of one `compare` row (a grader kind and grader) × (baseline, candidate), each
        cell the side's verdicts (linking to them), regressions first: regressed, new wrong answers,
        improved, then baseline only, candidate only, excluded on a side (no eligible trial) and
        unchanged. Which case regressed, improved or is a new wrong answer is the query's (its *_cases
        lists); the rest are sorted by which side has verdicts and eligible trials, and `mismatch`
        names any count that disagrees with the row's."""
        sides: dict[str, dict[str, list]] = {}
        mine = [v for system in (baseline, candidate)
                for v in self._verdicts_by_key().get((system, row["grader_kind"], row["grader"]), [])]
        for v in mine:
            if v["read_by"] in (None, "pass-at-k") and (replay_set is None or v["replay_set"] == replay_set):
                side = "baseline" if v["system"] == baseline else "candidate"
                sides.setdefault(v["case"], {"baseline": [], "candidate": []})[side].append(v)
        listed = {name: set(filter(None, (row.get(f"{name}_cases") or "").split(", ")))
                  for name in ("regressed", "new_wrong_answer", "improved")}
        order = ["regressed", "new wrong answer", "improved", "baseline only", "candidate only", "excluded", "unchanged"]
        cases = []
        for case, marks in sides.items():
            for side in marks.values():
                side.sort(key=lambda v: (v["trial"], v["assertion"]))
            eligible = {side: any(v["status"] in ("passed", "failed") for v in vs) for side, vs in marks.items()}
            if case in listed["regressed"]:
                kind = "regressed"
            elif case in listed["new_wrong_answer"]:
                kind = "new wrong answer"
            elif case in listed["improved"]:
                kind = "improved"
            elif not marks["candidate"]:
                kind = "baseline only"
            elif not marks["baseline"]:
                kind = "candidate only"
            elif not (eligible["baseline"] and eligible["candidate"]):
                kind = "excluded"
            else:
                kind = "unchanged"
            cases.append({"case": case, "kind": kind, **marks})
        cases.sort(key=lambda c: (order.index(c["kind"]), self.label(c["case"])))
        counts = {kind: sum(c["kind"] == kind for c in cases) for kind in order}
        mismatch = [f"{column} {row.get(column)} but {counts[kind]} listed"
                    for kind, column in (("baseline only", "baseline_only"), ("candidate only", "candidate_only"),
                                         ("excluded", "excluded_cases"))
                    if row.get(column) is not None and row.get(column) != counts[kind]]
        return {"cases": cases, "counts": counts, "mismatch": mismatch}

    def trend(self) -> list[dict]:
        """pass@1 over runs: per replay set, grader kind and grader, each system's figure in the order
        its runs began (system-runs' first_date), for the pass-rate trend chart. Systems without dated
        results are left out (no time to place them at) and counted in `undated`."""
        dates = {(r["replay_set"], r["system"]): r["first_date"] for r in self.query("system-runs").rows}
        series: dict[tuple, dict] = {}
        for r in self.query("pass-at-k", k=self.k).rows:
            key = (r["replay_set"], r["grader_kind"], r["grader"])
            entry = series.setdefault(key, {"replay_set": key[0], "grader_kind": key[1], "grader": key[2],
                                            "points": [], "undated": 0})
            when = dates.get((r["replay_set"], r["system"]))
            if when and r["pass_at_1"] is not None:
                entry["points"].append({"date": when, "system": r["system"], "value": r["pass_at_1"],
                                        "passed": r["passed_at_1"], "cases": r["cases_at_1"]})
            else:
                entry["undated"] += 1
        for entry in series.values():
            entry["points"].sort(key=lambda point: point["date"])
        return [e for _, e in sorted(series.items(), key=lambda item: tuple(str(x) for x in item[0]))]

    def all_cases(self) -> list[dict]:
        """Every case a page is written for: the `cases` query's rows, then each case only verdicts
        name (an EARL report's earl:test of no loaded replay set), with its id and nothing else known."""
        if self._all_cases is None:
            result = self.query("cases")
            cases = list(result.rows)
            known = {c["case"] for c in cases}
            for v in self.verdicts():
                if v["case"] not in known:
                    known.add(v["case"])
                    cases.append(dict(dict.fromkeys(result.columns), case=v["case"],
                                      case_id=v["case_id"] or self.label(v["case"]),
                                      replay_set=None))
            self._all_cases = cases
        return self._all_cases

    def groups(self) -> list[dict]:
        """Each pass-at-k row (a card) with the verdicts it counts and the ones it leaves out, by
        reason, as `sections`: (key, title, trials) where a trial is the verdict of one case and
        trial index, with its assertions and their distinct outcomes, failure causes and infos
        (`outcomes`, `causes`, `infos`: text, one filter chain fewer per row in the page). The counts agree with the row's by construction of the same
        verdict layer; `mismatch` lists any that do not, and the page says so."""
        if self.k in self._groups:
            return self._groups[self.k]
        by_key: dict[tuple, dict[tuple, list]] = {}
        for v in self.verdicts():
            if v["read_by"] not in (None, "pass-at-k"):
                continue
            key = (v["replay_set"], v["system"], v["grader_kind"], v["grader"])
            by_key.setdefault(key, {}).setdefault((v["case"], v["trial"]), []).append(v)
        groups = []
        for row in self.query("pass-at-k", k=self.k).rows:
            key = (row["replay_set"], row["system"], row["grader_kind"], row["grader"])
            trials = [{"case": c, "trial": t, "status": vs[0]["status"], "verdicts": vs,
                       "outcomes": ", ".join(_distinct(v["outcome"] for v in vs)),
                       "causes": ", ".join(_distinct(v["failure_cause"] for v in vs if v["failure_cause"])),
                       "infos": " · ".join(_distinct(v["info"] for v in vs if v["info"]))}
                      for (c, t), vs in sorted(by_key.get(key, {}).items(), key=lambda i: (i[0][0], i[0][1]))]
            counted = [t for t in trials if t["trial"] == 0 and t["status"] in ("passed", "failed")]
            sections = [("counted", "counted in pass@1: trial 0 eligible", counted),
                        ("later", "eligible trials after trial 0 (counted in pass@k and pass^k)",
                         [t for t in trials if t["trial"] != 0 and t["status"] in ("passed", "failed")])]
            for reason in EXCLUSIONS:
                sections.append((f"excluded-{reason}", f"excluded: {EXCLUSIONS[reason]}",
                                 [t for t in trials if t["status"] == status_of(reason)]))
            mismatch = []
            if len(counted) != row["cases_at_1"]:
                mismatch.append(f"cases_at_1 {row['cases_at_1']} but {len(counted)} trial-0 verdicts listed")
            if sum(t["status"] == "passed" for t in counted) != row["passed_at_1"]:
                mismatch.append("passed_at_1 differs from the passed trial-0 verdicts listed")
            for reason in EXCLUSIONS:
                listed = sum(t["status"] == status_of(reason) for t in trials)
                if listed != row[f"excluded_{reason}"]:
                    mismatch.append(f"excluded_{reason} {row[f'excluded_{reason}']} but {listed} listed")
            groups.append({"row": row, "slug": group_slug(*key), "sections": sections, "mismatch": mismatch})
        self._groups[self.k] = groups
        return groups

    # ── the rows behind the coverage and wrong-description figures ──
    @_once
    def coverage_bars(self) -> list[dict]:
        """Each coverage-summary row (a bar of the coverage chart) with the terms behind it, from
        coverage-exercised-by: `terms` (uncovered first, as the query orders them), each a dict of
        term, covered and its exercising `intents`; `slug` names its page under coverage/. `mismatch`
        lists any count that disagrees with the row's covered or total, and the page says so."""
        by_key: dict[tuple, dict[str, dict]] = {}
        for r in self.query("coverage-exercised-by").rows:
            key = (r["ontology"], r["replay_set"], r["what"], r["scheme"])
            term = by_key.setdefault(key, {}).setdefault(r["term"], {"term": r["term"], "covered": False, "intents": []})
            if r["intent"] is not None:
                term["covered"] = True
                term["intents"].append(r["intent"])
        bars = []
        for row in self.query("coverage-summary").rows:
            key = (row["ontology"], row["replay_set"], row["what"], row["scheme"])
            terms = list(by_key.get(key, {}).values())
            covered = sum(t["covered"] for t in terms)
            mismatch = []
            if len(terms) != row["total"]:
                mismatch.append(f"total {row['total']} but {len(terms)} terms listed")
            if covered != row["covered"]:
                mismatch.append(f"covered {row['covered']} but {covered} exercised terms listed")
            bars.append({"row": row, "slug": drill_slug(f"{row['what']}-{str(row['replay_set']).rsplit('/', 1)[-1]}", *key),
                         "terms": terms, "covered": covered, "mismatch": mismatch})
        return bars

    @_once
    def wrong_descriptions(self) -> list[dict]:
        """Each wrong-description-reach row (a rate, per replay set and system) with every situation
        behind it, from wrong-description-situations of the same replay set and system: `counted`,
        the denominator (reached under the expected, a candidate or a wrong description), then
        `excluded`, the situations the rate leaves out (reach unknown or ungraded), with why; `rows`
        is the two in that order (what the pages list); `wrong` the counted ones reached under a
        wrong description, `satisfied` those of them that satisfy the expected description all the
        same. `slug` names its page under wrong-descriptions/; `mismatch` lists any count that
        disagrees with the row's, and the page says so."""
        by_key: dict[tuple, list[dict]] = {}
        for r in self.query("wrong-description-situations").rows:
            by_key.setdefault((r["replay_set"], r["system"]), []).append(r)
        groups = []
        for row in self.query("wrong-description-reach").rows:
            rows = by_key.get((row["replay_set"], row["system"]), [])
            counted = [r for r in rows if r["counted"]]
            excluded = [r for r in rows if not r["counted"]]
            wrong = [r for r in counted if r["reach"] == "wrong"]
            satisfied = sum(bool(r["satisfies_expected"]) for r in wrong)
            mismatch = []
            for column, listed in (("situations", len(counted)), ("wrong", len(wrong)),
                                   ("satisfied_under_wrong", satisfied),
                                   ("unknown_reach", sum(r["reach"] == "unknown" for r in excluded)),
                                   ("ungraded", sum(r["reach"] == "ungraded" for r in excluded))):
                if listed != row[column]:
                    mismatch.append(f"{column} {row[column]} but {listed} situations listed")
            groups.append({"row": row, "slug": drill_slug(str(row["system"]).rsplit("/", 1)[-1], row["replay_set"], row["system"]),
                           "counted": counted, "excluded": excluded, "rows": counted + excluded,
                           "wrong": len(wrong), "satisfied": satisfied, "mismatch": mismatch})
        return groups

    @property
    def labels(self) -> dict[str, str]:
        if self._labels is None:
            variables, rows = catalogue.select(self.backend, """
                PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
                PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
                PREFIX dcterms: <http://purl.org/dc/terms/>
                PREFIX doap: <http://usefulinc.com/ns/doap#>
                SELECT ?s ?label ?rank WHERE {
                  { ?s skos:prefLabel ?label BIND(1 AS ?rank) } UNION { ?s rdfs:label ?label BIND(2 AS ?rank) }
                  UNION { ?s dcterms:identifier ?label BIND(3 AS ?rank) }
                  UNION { ?s doap:name ?label BIND(4 AS ?rank) }
                  FILTER(isIRI(?s) && (LANG(?label) = "" || LANGMATCHES(LANG(?label), "en"))) }""", self.cache)
            best: dict[str, tuple] = {}
            for s, label, rank in rows:
                if s not in best or (rank, label) < best[s]:
                    best[s] = (rank, label)
            self._labels = {s: label for s, (rank, label) in best.items()}
        return self._labels

    def has_case_page(self, iri: str | None) -> bool:
        """Whether cases/<slug>.html is written for this case: a page per case is written for each
        case of all_cases(): the `cases` query's and every case a verdict names."""
        if not self.case_pages or iri is None:
            return False
        if self._cases_with_pages is None:
            self._cases_with_pages = {row["case"] for row in self.all_cases()}
        return iri in self._cases_with_pages

    def cell(self, column: str, value: Any, root: str = "", rates=()) -> Markup:
        """One table cell (the one definition behind _table.html's `cell` macro): empty as —, a
        boolean as yes/no, a number as a percentage when its query declares the column a rate
        (`rates`), else as num; a case linking to its page, an IRI shown by label with the IRI as
        title, anything else as text. Escaped. A Python method, not a macro, because the case pages
        call it once per value of every verdict: a Jinja macro call there cost most of their time."""
        # (f-strings of escaped values: Markup.format's string.Formatter cost most of a warm report's
        # rendering; an f-string of a Markup is its text, escaped once)
        if value is None:
            return _NONE_CELL
        if value is True or value is False:
            return _YES_CELL if value else _NO_CELL
        if type(value) in (int, float) or isinstance(value, numbers.Number):
            shown = pct(value) if column in rates else num(value)
            return Markup(f'<td class="num" data-sort="{escape(value)}">{escape(shown)}</td>')
        # a text's cell depends on the text, the root and whether the column is the case: the case
        # pages show the same systems, graders and statuses on every verdict (1.1M cells at 100k)
        return self._text_cells((value, root, column == "case"))

    def _text_cell(self, key: tuple[str, str, bool]) -> Markup:
        value, root, is_case = key
        if is_case and self.has_case_page(value):
            return Markup(f'<td><a href="{escape(root)}cases/{escape(slug(value))}.html">{escape(self.label(value))}</a></td>')
        if isinstance(value, str) and value.startswith(("http", "urn:", "file:")):
            return Markup(f'<td title="{escape(value)}">{escape(self.label(value))}</td>')
        return Markup(f"<td>{escape(value)}</td>")

    def cells(self, row: dict, columns: list[str], root: str = "", rates=()) -> Markup:
        """The cells of these columns of a row, each as `cell` makes it: one call from a template per
        row, not one per value (the case pages' 101k verdict rows at 100k assertions)."""
        return Markup("".join([self.cell(c, row[c], root, rates) for c in columns]))

    @staticmethod
    def marks(verdicts: list[dict]) -> Markup:
        """A compare grid's side: one mark per verdict, linking to it (✓ passed, ✗ failed, ! conflicting,
        · excluded). A Python method, not a macro: the grid calls it twice per case and grader."""
        return Markup("".join(
            f'<a class="mark s-{escape(v["status"])}" href="{escape(v["href"])}" data-status="{escape(v["status"])}" '
            f'data-trial="{escape(v["trial"])}" title="trial {escape(v["trial"])}: {escape(v["status"])}">{_MARK.get(v["status"], "·")}</a>'
            for v in verdicts))

    def label(self, iri: str | None) -> str:
        if iri is None:
            return ""
        return self.labels.get(iri) or shorten(iri, self.prefixes)

    def short(self, iri: str | None) -> str:
        return "" if iri is None else shorten(str(iri), self.prefixes)

    def chart(self, name: str, draw, alt: str, root: str = "", key: Any = None,
              links: dict[str, str] | None = None) -> Markup:
        """Draws a chart with matplotlib into charts/<name>.svg; returns its <img> with alt text.
        A chart that cannot be drawn does not fail the report: the page says so in its place, with
        the figures of the alt text, and a warning goes to stderr.

        `key` is everything the drawing depends on (its figures, labels and scale): a chart drawn
        before from the same key (kept beside the answers of the store's state, with kg's and
        matplotlib's versions) is copied, not drawn again, so a report of an unchanged store
        redraws nothing. With `links` (the URL, from the page, of each bar's own page: the URL as
        set_url wrote it → the name it is announced by), the SVG is put in the page itself, each bar
        a link (an <img>'s links cannot be followed), its text alternative the <svg>'s aria-label."""
        kept = self._kept_chart(name, key)
        svg = None
        if kept is not None and kept.is_file():
            try:
                svg = kept.read_text(encoding="utf-8")
            except OSError:
                svg = None
        if svg is None:
            svg = self._draw(name, draw, alt)
            if svg is None:
                reason = self.undrawn[name]
                return Markup(f'<p class="chart-not-drawn" role="note"><strong>chart not drawn:</strong> '
                              f'{escape(reason)}. {escape(alt)}</p>')
            if kept is not None:
                keep(kept, svg)
        self.charts[name] = alt
        if links is not None:
            return inline_svg(name, svg, alt, links)
        _write(self.out / "charts" / f"{name}.svg", svg)
        return Markup(f'<img class="chart" src="{root}charts/{name}.svg" alt="{escape(alt)}">')

    def _kept_chart(self, name: str, key: Any) -> Path | None:
        """Where a chart of this name and key is kept: None without a key or an answer cache."""
        return None if key is None else self._kept("charts", [name, key], "svg")

    def _kept(self, kind: str, key: Any, suffix: str) -> Path | None:
        """Where a file the report made from `key` is kept beside the store's answers (under the
        store's state, with the digest of kg's code and matplotlib's version): None without a cache."""
        if self.cache is None:
            return None
        digest = hashlib.sha256(json.dumps([_code(), key], default=str, sort_keys=True)
                                .encode()).hexdigest()[:32]
        return self.cache.folder / kind / f"{digest}.{suffix}"

    def _draw(self, name: str, draw, alt: str) -> str | None:
        """The SVG text of `draw(plt)`, or None with the reason in self.undrawn[name]."""
        import io

        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        plt.rcParams["svg.hashsalt"] = "kg"  # the same data draws the same file
        # labels are ids and names, never math: "cost$a^{$b" as mathtext failed and crashed kg report
        plt.rcParams["text.parse_math"] = False
        before = set(plt.get_fignums())
        try:
            fig = draw(plt)
            buffer = io.StringIO()
            fig.savefig(buffer, format="svg", metadata={"Date": None})
            return buffer.getvalue()
        except Exception as err:  # noqa: BLE001 - any drawing fault becomes a note on the page
            reason = f"{type(err).__name__}: {err}".strip()
            self.undrawn[name] = reason
            (self.out / "charts" / f"{name}.svg").unlink(missing_ok=True)  # no file for the page to point at
            print(f"kg report: warning: chart {name} not drawn: {reason}", file=sys.stderr)
            return None
        finally:
            for number in set(plt.get_fignums()) - before:
                plt.close(number)

    def rate_chart(self, name: str, rows: list[dict], label: str, value: str, low: str, high: str,
                   title: str, root: str = "", count: str | None = None, total: str | None = None,
                   empty: str | None = None, link: str | None = None) -> Markup:
        """Horizontal bars of a rate with its interval as whiskers, each labelled with its value and,
        given `count` and `total`, n/N; the axis fitted to the data (its scale said in the axis title);
        a 0 drawn as a visible tick. Rows without a value are listed as "not computable" rather than
        drawn as 0; with none to draw, the chart says why (`empty`) in its place. Given `link` (a
        row's key holding the URL, from the page, of the rows behind its figure), each bar and its
        label link there (the chart is then put in the page: see chart)."""
        shown = [r for r in rows if r.get(value) is not None]
        missing = [r[label] for r in rows if r.get(value) is None]
        if not shown:
            reason = empty or "no row has a value to draw"
            self.empty[name] = reason
            return Markup(f'<p class="chart-empty" role="note"><strong>{escape(title)}: not drawn</strong> — '
                          f'{escape(reason)}.</p>')
        top = max(max(r[value], r.get(high) if r.get(high) is not None else r[value]) for r in shown)
        limit = 1.0 if top > 0.5 else next(x for x in (0.05, 0.1, 0.2, 0.3, 0.5) if top <= x)

        def fraction(r):
            return f" ({r.get(count)}/{r.get(total)})" if count and total and r.get(total) is not None else ""

        def draw(plt):
            fig, ax = plt.subplots(figsize=(7.5, 0.42 * max(len(shown), 1) + 1.3))
            ys = list(range(len(shown)))
            values = [r[value] for r in shown]
            errors = [[r[value] - (r[low] if r.get(low) is not None else r[value]) for r in shown],
                      [(r[high] if r.get(high) is not None else r[value]) - r[value] for r in shown]]
            bars = ax.barh(ys, values, xerr=errors, color="#4c72b0", ecolor="#222", capsize=3)
            if link:
                for bar, r in zip(bars, shown):
                    if r.get(link):
                        bar.set_url(r[link])
            for y, r in zip(ys, shown):  # a bar of 0 has no width: a mark shows it is there, and is 0
                if r[value] == 0:
                    mark, = ax.plot([0], [y], marker="D", markersize=6, color="#c62828", linestyle="none",
                                    clip_on=False, zorder=5)
                    if link and r.get(link):
                        mark.set_url(r[link])  # the mark is the bar to click
            for y, r in zip(ys, shown):
                note = ax.annotate(f"{pct(r[value])}{fraction(r)}", (r[value], y), xytext=(4, 5),
                                   textcoords="offset points", fontsize=7, va="bottom")
                if link and r.get(link):
                    note.set_url(r[link])
            ax.set_yticks(ys, [r[label] for r in shown], fontsize=8)
            if link:
                for tick, r in zip(ax.get_yticklabels(), shown):
                    if r.get(link):
                        tick.set_url(r[link])
            ax.invert_yaxis()
            ax.set_xlim(0, limit)
            ax.xaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
            ax.set_xlabel(f"scale 0–{pct(limit, 0)}" + (" (fitted to the data)" if limit < 1 else ""), fontsize=8)
            ax.set_title(title, fontsize=10)
            ax.grid(axis="x", alpha=0.3)
            fig.tight_layout()
            return fig
        alt = f"{title}: " + "; ".join(f"{r[label]} {pct(r[value])}{fraction(r)} (95% interval {pct(r.get(low))} to "
                                      f"{pct(r.get(high))})" for r in shown)
        if missing:
            alt += "; not computable: " + ", ".join(missing)
        key = ["rate", title, limit, [(r[label], r[value], r.get(low), r.get(high), fraction(r), r.get(link) if link else None)
                                      for r in shown]]
        links = None
        if link:
            links = {r[link]: f"{r[label]}: {pct(r[value])}{fraction(r)}, the rows behind it" for r in shown if r.get(link)}
        return self.chart(name, draw, alt, root, key=key, links=links)

    def compare_chart(self, name: str, rows: list[dict], title: str, root: str = "") -> Markup:
        """The `compare` rows of one replay set as small multiples, one panel per grader kind (never
        pooled), one line per grader and measure: the pass@1 difference over the pass@1 pairs and the
        pass-rate difference over the paired cases (candidate − baseline), each a point with its 95%
        interval as whiskers, labelled with the value, interval and n; a line at 0; the axis fitted to
        the data, symmetric about 0, its scale said. Refused rows, and differences that cannot be
        computed (no pair), are not drawn as 0: they are named under the panels and in the text."""
        lines, missing = {}, []
        for r in rows:
            who = f"{r['grader_kind']} · {self.label(r['grader'])}"
            if r.get("status") != "compared":
                missing.append(f"{who}: {r.get('status')}")
                continue
            for measure, column, n, unit in (("pass@1", "pass_at_1_difference", "pass1_cases", "pairs"),
                                              ("pass rate", "pass_rate_difference", "paired_cases", "paired cases")):
                if r.get(column) is None:
                    missing.append(f"{who} {measure} difference: not computable ({r.get(n) or 0} {unit})")
                    continue
                lines.setdefault(r["grader_kind"], []).append({
                    "label": f"{self.label(r['grader'])}\n{measure} (n={r.get(n)})", "who": who, "measure": measure,
                    "value": r[column], "low": r.get(f"{column}_low"), "high": r.get(f"{column}_high"), "n": r.get(n)})
        if not lines:
            reason = "no grader has a difference to draw" + (f" ({'; '.join(missing)})" if missing else "")
            self.empty[name] = reason
            return Markup(f'<p class="chart-empty" role="note"><strong>{escape(title)}: not drawn</strong> — '
                          f'{escape(reason)}.</p>')
        top = max(abs(x) for entries in lines.values() for e in entries
                  for x in (e["value"], e["low"], e["high"]) if x is not None)
        limit = next((x for x in (0.05, 0.1, 0.2, 0.3, 0.5, 1.0) if top <= x), 1.0)

        def interval(e):
            return "" if e["low"] is None else f" [{signed(e['low'])}, {signed(e['high'])}]"

        def draw(plt):
            kinds = sorted(lines)
            heights = [len(lines[k]) for k in kinds]
            fig, axes = plt.subplots(len(kinds), 1, sharex=True, squeeze=False,
                                     figsize=(7.5, 0.55 * sum(heights) + 0.9 * len(kinds) + 0.6),
                                     gridspec_kw={"height_ratios": heights})
            for ax, kind in zip(axes[:, 0], kinds):
                entries = lines[kind]
                ys = list(range(len(entries)))
                values = [e["value"] for e in entries]
                errors = [[e["value"] - (e["low"] if e["low"] is not None else e["value"]) for e in entries],
                          [(e["high"] if e["high"] is not None else e["value"]) - e["value"] for e in entries]]
                colours = ["#c62828" if v < 0 else "#2e7d32" if v > 0 else "#555" for v in values]
                ax.axvline(0, color="#222", linewidth=0.8)
                for y, v, lo, hi, c in zip(ys, values, errors[0], errors[1], colours):
                    ax.errorbar([v], [y], xerr=[[lo], [hi]], fmt="o", color=c, ecolor="#222", capsize=3)
                for y, e in zip(ys, entries):
                    ax.annotate(f"{signed(e['value'])}{interval(e)}", (e["value"], y), xytext=(0, 6),
                                textcoords="offset points", fontsize=7, ha="center", va="bottom")
                ax.set_yticks(ys, [e["label"] for e in entries], fontsize=7)
                ax.set_ylim(len(entries) - 0.4, -0.7)
                ax.set_title(f"grader kind: {kind}", fontsize=9, loc="left")
                ax.grid(axis="x", alpha=0.3)
            axes[-1, 0].set_xlim(-limit, limit)
            axes[-1, 0].xaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
            axes[-1, 0].set_xlabel(f"candidate − baseline, scale ±{pct(limit, 0)}"
                                   + (" (fitted to the data)" if limit < 1 else ""), fontsize=8)
            fig.suptitle(title, fontsize=10)
            fig.tight_layout()
            return fig
        alt = f"{title}: " + "; ".join(f"{e['who']} {e['measure']} difference {signed(e['value'])}{interval(e)} (n={e['n']})"
                                      for kind in sorted(lines) for e in lines[kind])
        if missing:
            alt += "; not drawn: " + "; ".join(missing)
        drawn = self.chart(name, draw, alt, root, key=["compare", title, limit, lines])
        if missing:
            drawn += Markup('<p class="note chart-missing">Not drawn: ') + "; ".join(missing) + Markup(".</p>")
        return drawn

    def matrix(self, number: int = 1) -> dict:
        """Cases × systems, each cell the trials' current verdicts per grader kind, in the spirit of
        W3C implementation reports (earl-report's table): page `number` of MATRIX_CASES cases, with
        the systems that have a verdict on them (no empty columns). Every case a verdict names is a
        row, in a replay set or not; each mark links to its verdict on the case's page."""
        cases = self.all_cases()
        by_case = self.verdicts_by_case()
        pages = max(1, -(-len(cases) // MATRIX_CASES))
        shown = cases[(number - 1) * MATRIX_CASES: number * MATRIX_CASES]
        on_page = [v for case in dict.fromkeys(c["case"] for c in shown) for v in by_case.get(case, ())]
        cells: dict[tuple, dict[str, list]] = {}
        for v in on_page:
            cells.setdefault((v["case"], v["system"]), {}).setdefault(v["grader_kind"], []).append(v)
        for marks in cells.values():
            for kind in marks:
                marks[kind].sort(key=lambda v: (v["trial"], v["grader"] or ""))
        return {"cases": shown, "systems": sorted({case_system[1] for case_system in cells}), "cells": cells,
                "kinds": sorted({v["grader_kind"] for v in on_page}),
                "statuses": sorted({v["status"] for v in on_page if v["status"]}),
                "number": number, "pages": pages, "total": len(cases)}

    @staticmethod
    def pivot(result: catalogue.Result, keys: list[str], column: str, value: str) -> dict:
        """A long result as a grid: one row per distinct `keys`, one column per `column` value, in
        the order the query gives them."""
        columns: list = []
        grid: dict[tuple, dict] = {}
        for row in result.rows:
            if row[column] not in columns:
                columns.append(row[column])
            grid.setdefault(tuple(row[k] for k in keys), {})[row[column]] = row[value]
        return {"columns": columns, "rows": [(key, cells) for key, cells in grid.items()]}

    def trend_chart(self, name: str, points: list, title: str, root: str = "") -> Markup:
        """A line over time: `points` are (time, value) pairs, or dicts with date, value and, for the
        labels, system, passed and cases. The axis is fitted to the data and its scale said."""
        points = [p if isinstance(p, dict) else {"date": p[0], "value": p[1]} for p in points]
        if not points:
            self.empty[name] = "no dated point"
            return Markup(f'<p class="chart-empty" role="note"><strong>{escape(title)}: not drawn</strong> — '
                          f'no dated point to place on a time line.</p>')
        top = max(p["value"] for p in points)
        limit = 1.0 if top > 0.5 else next(x for x in (0.05, 0.1, 0.2, 0.3, 0.5) if top <= x)

        def tag(p):
            return " ".join(x for x in (self.label(p.get("system")) if p.get("system") else "",
                                        f"{p['passed']}/{p['cases']}" if p.get("cases") is not None else "") if x)

        def draw(plt):
            fig, ax = plt.subplots(figsize=(7.5, 2.8))
            xs = list(range(len(points)))
            ax.plot(xs, [p["value"] for p in points], marker="o", color="#4c72b0")
            for x, p in zip(xs, points):
                ax.annotate(f"{pct(p['value'])} {tag(p)}".strip(), (x, p["value"]), xytext=(0, 6),
                            textcoords="offset points", fontsize=7, ha="center")
            ax.set_xticks(xs, [str(p["date"])[:16].replace("T", " ") for p in points], rotation=30,
                          fontsize=7, ha="right")
            ax.set_ylim(0, limit * 1.08)
            ax.yaxis.set_major_formatter(plt.matplotlib.ticker.PercentFormatter(1.0))
            ax.set_ylabel(f"scale 0–{pct(limit, 0)}", fontsize=8)
            ax.set_title(title, fontsize=10)
            ax.grid(alpha=0.3)
            fig.tight_layout()
            return fig
        alt = f"{title}: " + "; ".join(f"{p['date']} {pct(p['value'])} {tag(p)}".strip() for p in points)
        return self.chart(name, draw, alt, root, key=["trend", title, limit, [(p["date"], p["value"], tag(p)) for p in points]])


_MARK = {"passed": "✓", "failed": "✗", "conflicting": "!"}
_NONE_CELL = Markup('<td class="num" data-sort="-1">—</td>')
_YES_CELL, _NO_CELL = Markup("<td>yes</td>"), Markup("<td>no</td>")


def _distinct(values) -> list[str]:
    """The values as text, each once, in order, compared regardless of case (as Jinja's `unique`)."""
    seen, kept = set(), []
    for value in map(str, values):
        if value.lower() not in seen:
            seen.add(value.lower())
            kept.append(value)
    return kept


@functools.lru_cache(maxsize=65536)  # a case's slug is asked once per verdict on it
def slug(iri: str) -> str:
    """A file name for a case page: readable tail plus a short hash, so two sets' "route-1" differ."""
    tail = re.sub(r"[^A-Za-z0-9._-]+", "-", iri.rstrip("/").rsplit("/", 1)[-1])[:60] or "case"
    return f"{tail}-{hashlib.sha256(iri.encode()).hexdigest()[:8]}"


def anchor(*parts) -> str:
    """The id of a verdict's row on its case page: a digest of what names it (system, case, trial,
    grader, kind, assertion), so a link to it stays the same from one render to the next."""
    return "v-" + hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:16]


def group_slug(replay_set, system, grader_kind, grader) -> str:
    """A file name for the verdicts behind one card (one pass-at-k row)."""
    tail = re.sub(r"[^A-Za-z0-9._@-]+", "-", f"{str(system).rsplit('/', 1)[-1]}-{grader_kind}")[:60]
    key = "\x1f".join(str(x) for x in (replay_set, system, grader_kind, grader))
    return f"{tail}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def drill_slug(tail: str, *key) -> str:
    """A file name for the rows behind one figure: a readable tail plus a digest of what names the figure."""
    tail = re.sub(r"[^A-Za-z0-9._@-]+", "-", tail)[:60]
    return f"{tail}-{hashlib.sha256(chr(31).join(str(x) for x in key).encode()).hexdigest()[:8]}"


@functools.cache
def _code() -> str:
    """What a kept chart or data file depends on besides its key: kg's code that finishes, renders and
    draws (a kg upgrade draws again) and matplotlib's version."""
    import importlib.metadata
    digest = hashlib.sha256()
    for module in ("report.py", "output.py", "finishers.py", "catalogue.py", "jsonio.py"):
        path = Path(__file__).with_name(module)
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()[:16] + "/matplotlib " + importlib.metadata.version("matplotlib")


def _copy(kept: Path, target: Path) -> bool:
    """Copies a kept file into the site; False when it is not there (or cannot be read)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(kept, target)
        return True
    except OSError:
        return False


_SVG_ID = re.compile(r'\bid="([^"]+)"')


def inline_svg(name: str, svg: str, alt: str, links: dict[str, str]) -> Markup:
    """matplotlib's SVG made part of an HTML page: no XML declaration or doctype; every id prefixed
    with the chart's name (two charts of one page must not share an id, and a clip path must be the
    chart's own); each link written as `href` (SVG 2), which HTML resolves from the page, with the
    name it is announced by; the text alternative as the <svg>'s aria-label (role="group": its
    links stay links for assistive technology), and its width fitted to the page as an <img>'s is."""
    body = svg[svg.index("<svg"):]
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", name) + "--"
    ids = set(_SVG_ID.findall(body))
    body = _SVG_ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', body)
    body = re.sub(r'(url\(#|xlink:href="#|href="#)([^")]+)',
                  lambda m: m.group(1) + (prefix + m.group(2) if m.group(2) in ids else m.group(2)), body)

    def anchor_tag(match):
        url = html_unescape(match.group(1))
        words = links.get(url, "")
        return Markup('<a href="{}" aria-label="{}">').format(url, words)
    # (matplotlib writes target="_blank": a bar's page opens in place, as the table's figure does)
    body = re.sub(r'<a xlink:href="([^"#][^"]*)"[^>]*>', lambda m: str(anchor_tag(m)), body)
    body = body.replace("<svg ", Markup('<svg class="chart chart-linked" data-chart="{}" role="group" aria-label="{}" ')
                        .format(name, alt), 1)
    return Markup(body)


def paginate(items: list, size: int | None = None) -> list[list]:
    """`items` in pages of `size` (PAGE_ROWS by default; one empty page for none)."""
    size = size or PAGE_ROWS
    return [items[i:i + size] for i in range(0, len(items), size)] or [[]]


def page_file(stem: str, number: int) -> str:
    """Page 1 is stem.html, page n is stem-n.html."""
    return f"{stem}.html" if number == 1 else f"{stem}-{number}.html"


def adapted_k(site: "Site") -> tuple[int, int]:
    """(k, most): the default k when none is given - 3, or the most eligible trials any case has
    (per system, grader and kind: the eligible-trials query) when that is fewer, so pass@k and pass^k
    have cases to read."""
    most = max((row["most_eligible_trials"] or 0 for row in site.query("eligible-trials").rows), default=0)
    return (min(3, most) if most else 3), most


def pct(value, digits: int = 1) -> str:
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def signed(value, digits: int = 1) -> str:
    """A difference as a signed percentage: +12.5%, −3.0%, 0.0%."""
    if value is None:
        return "—"
    text = f"{100 * abs(value):.{digits}f}%"
    return text if round(100 * value, digits) == 0 else ("+" if value > 0 else "−") + text


def num(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def environment() -> jinja2.Environment:
    """One environment per set of template folders, so its compiled templates are kept between
    renders (a template edited since is recompiled: jinja checks each file's time before reusing it).
    The project's reports/ comes first, so its template of a built-in's name replaces it."""
    folders = paths.folders("reports")
    for user in folders[1:]:
        for path in sorted(user.rglob("*.html")):
            builtin = folders[0] / path.relative_to(user)
            if builtin.exists():
                paths.warn_override(path, builtin)
    return _environment(tuple(str(f) for f in reversed(folders)))


_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """jinja's environment, reading `row.column` of a dict by its key at once. jinja tries a Python
    attribute first and takes the key after catching AttributeError: the pages read every row so, and
    that cost 6 s of a 100k-assertion report's 30 s of rendering. For a name that is not an attribute
    of dict, jinja's answer is the same (Environment.getattr)."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


@functools.lru_cache(maxsize=4)
def _environment(folders: tuple[str, ...]) -> jinja2.Environment:
    env = _Environment(loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(f) for f in folders]),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(pct=pct, num=num, slug=slug, tojson_attr=lambda v: json.dumps(v))
    return env


def page_names() -> list[str]:
    """Every page: the templates under reports/pages/, built-in and the project's."""
    return sorted({p.stem for folder in paths.folders("reports") for p in (folder / "pages").glob("*.html")})


# What every template receives (the template context contract). Each name, its type and what it
# means; tests/reports/test_context.py renders each kind of page and checks the context against this.
CONTEXT: dict[str, tuple[type | tuple, str]] = {
    "site": ("Site", "the render: site.query(), site.verdicts(), site.matrix(n), site.groups(), charts, data_file()"),
    "query": ("callable", "query(NAME, **params) -> catalogue.Result: a named query's rows (columns, rows, query)"),
    "label": ("callable", "label(IRI) -> str: its skos:prefLabel, rdfs:label, dcterms:identifier or doap:name, else shortened"),
    "short": ("callable", "short(IRI) -> str: the IRI with the store's prefixes"),
    "generated_at": (str, "when the site was rendered, ISO 8601 UTC"),
    "k": (int, "the k of pass@k and pass^k: given with kg report -k, else adapted to the data (adapted_k)"),
    "k_given": (bool, "whether k was given by the user"),
    "k_most": (int, "the most eligible trials any case has for one system, grader and kind (0 when not computed: a render of chosen pages)"),
    "nav": (list, "the menu: (page, title) pairs, pages/ templates first, then the query catalogue"),
    "catalogue": (list, "every named query (catalogue.NamedQuery), by name, for the menu's catalogue page"),
    "compare_pairs": (list, "(baseline IRI, candidate IRI) pairs asked for with kg report --compare"),
    "page": (str, "the page being rendered: a pages/ name, or case, group, coverage-bar, wrong-description, matrix, query, queries/index"),
    "root": (str, "the relative path from this page to the site's root: '' or '../'"),
}
# what each kind of page receives besides CONTEXT
PAGE_CONTEXT: dict[str, dict[str, tuple[type | tuple, str]]] = {
    "case": {"case": (dict, "the case: a row of the cases query, or for a case only verdicts name, its case and case_id"),
             "verdicts": (list, "its verdicts: rows of the verdicts query joined with verdict-sources, each with anchor"),
             "situations": (list, "its rows of the situation-check query")},
    "group": {"group": (dict, "a card: row (the pass-at-k row), slug, sections (key, title, trials), mismatch"),
              "section": (tuple, "the section shown: (key, title, trials)"),
              "trials": (list, "this page's trials of the section: {case, trial, status, verdicts, outcomes, causes, infos (their distinct outcomes, failure causes and infos, as text)}"),
              "number": (int, "this page's number, from 1"), "pages": (int, "the section's page count")},
    "coverage": {"bar": (dict, "a coverage bar: row (the coverage-summary row), slug, terms (term, covered, intents), covered, mismatch"),
                 "terms": (list, "this page's terms of the bar: {term, covered, intents}"),
                 "number": (int, "this page's number, from 1"), "pages": (int, "the bar's page count")},
    "wrong-description": {"reach": (dict, "a wrong-description rate: row (the wrong-description-reach row), slug, counted (the denominator's situations), excluded (those left out, with reach unknown or ungraded), rows (counted then excluded), wrong, satisfied, mismatch"),
                          "situations": (list, "this page's rows of wrong-description-situations behind the rate: counted ones first, then excluded ones"),
                          "number": (int, "this page's number, from 1"), "pages": (int, "the list's page count")},
    "matrix": {"number": (int, "the matrix page's number, from 1")},
    "query": {"q": ("NamedQuery", "the query: name, summary, description, params, columns, text")},
    "catalogue": {},
}


# names a caller may add (render_site's `extra`), documented with the page that reads them
OPTIONAL_CONTEXT: dict[str, tuple[type | tuple, str]] = {
    "trend": (list, "coverage page under kg report coverage: (time, class coverage rate) of past snapshots"),
}


class ContextError(TypeError):
    """A template was given a context that breaks the documented contract (CONTEXT, PAGE_CONTEXT)."""


def check_context(kind: str, context: dict[str, Any]) -> None:
    """Refuses a context with a name the contract does not document, without one it promises, or with
    a value of another type than documented. Run on every render, so the contract cannot drift."""
    promised = {**CONTEXT, **PAGE_CONTEXT.get(kind, {})}
    allowed = {**promised, **OPTIONAL_CONTEXT}
    unknown = sorted(set(context) - set(allowed))
    missing = sorted(set(promised) - set(context))
    if unknown or missing:
        raise ContextError(f"template context of a {kind} page: undocumented {unknown}, missing {missing}")
    for name, value in context.items():
        kind_ = allowed[name][0]
        ok = (callable(value) if kind_ == "callable" else type(value).__name__ == kind_ if isinstance(kind_, str)
              else isinstance(value, kind_) and not (kind_ is int and isinstance(value, bool)))
        if not ok:
            raise ContextError(f"template context of a {kind} page: {name} is a {type(value).__name__}, "
                               f"documented as {kind_ if isinstance(kind_, str) else kind_.__name__}")


def _render(template, kind: str, **context) -> str:
    check_context(kind, context)
    return template.render(**context)


def render_site(backend, out: Path, prefixes: dict[str, str], pages: list[str] | None = None,
                extra: dict[str, Any] | None = None, params: dict[str, Any] | None = None) -> list[Path]:
    """Renders pages (templates under reports/pages/, all by default) and, with all pages, a page
    per case (per-case/case.html), the verdicts behind each overview card (per-case/group.html,
    paginated), the matrix's further pages, a page per catalogue query and the catalogue's list,
    and the CSV and JSON of every table's query under data/."""
    env = environment()
    site = Site(backend, out, prefixes, params)
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    kept = None if extra else site._kept("sites", [pages, sorted(site.params.items(), key=str), _templates(env),
                                                  sorted((n, q.text) for n, q in site.entries.items()), prefixes], "d")
    if kept is not None and (kept / KEPT_DONE).is_file():
        reused = _reuse_site(kept, out, generated)
        if reused is not None:
            return reused
    with collector_paused():
        if pages is None:  # the whole site: chosen pages (kg report coverage) are few queries, run as asked
            # the case pages render first (_render_site): the verdicts and their situations before the rest
            for name in ["eligible-trials", "verdict-sources", "verdicts", "cases", "situation-check"] + named_queries(env):
                site.start(name)
        try:
            written = _render_site(env, site, out, pages, extra, generated)
        finally:
            site.stop()
    if kept is not None and not site.undrawn:  # a site with a chart not drawn is made again, warning again
        _keep_site(out, kept, generated)
    return written


@contextmanager
def collector_paused():
    """Python's cycle collector paused while a site renders. Each full pass walks every live object,
    and a report holds millions (every answer's rows, kept until it ends): at 100k assertions the
    passes were a sixth of the report's CPU (BENCHMARKS.md). The rows, values and pages it makes are
    freed by reference counting; what cycles it leaves are collected when the collector resumes."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_NAMED_QUERY = re.compile(r"""\bquery\(\s*["']([\w.-]+)["']\s*\)""")


def named_queries(env: jinja2.Environment) -> list[str]:
    """The queries the site asks for without parameters, as its own helpers (this module) and every
    template name them, the helpers first (the overview's k is read from the verdicts before any page).
    A query named some other way is still run, when a page asks for it; tests/reports check that
    a whole site of the examples asks for none that was not started."""
    texts = [Path(__file__).read_text(encoding="utf-8")]
    texts += [env.loader.get_source(env, name)[0] for name in sorted(env.list_templates())]
    return list(dict.fromkeys(m.group(1) for text in texts for m in _NAMED_QUERY.finditer(text)))


# ── a whole site kept for a store that has not changed ──
KEPT_DONE = ".kept-complete"  # written last into a kept site: a copy cut short is never reused
_GENERATED = "Generated {} by kg."


def _templates(env: jinja2.Environment) -> str:
    """A digest of every template the site is rendered from (a template edited since renders again)."""
    digest = hashlib.sha256()
    for name in sorted(env.list_templates()):
        digest.update(name.encode() + b"\0" + env.loader.get_source(env, name)[0].encode() + b"\0")
    return digest.hexdigest()


def _keep_site(out: Path, kept: Path, generated: str) -> None:
    """Keeps a copy of the site just rendered, for the next report of the same store state, parameters,
    templates, queries and kg code; a copy that cannot be made is only not kept."""
    scratch = kept.with_name(f".{kept.name}.{os.getpid()}")
    try:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(out, scratch, ignore=shutil.ignore_patterns(MARKER), copy_function=_link_or_copy)
        (scratch / KEPT_DONE).write_text(generated, encoding="utf-8")
        shutil.rmtree(kept, ignore_errors=True)
        os.replace(scratch, kept)
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)


def _link_or_copy(source, target) -> None:
    """The same bytes in a second place: a hard link where the file system allows (a site is replaced
    whole, never edited in place, so the kept copy and the site may share their files), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _reuse_site(kept: Path, out: Path, generated: str) -> list[Path] | None:
    """Publishes the kept site of this very state again: the same files, each page saying when it was
    generated now. None (render afresh) when the copy fails."""
    try:
        before = _GENERATED.format((kept / KEPT_DONE).read_text(encoding="utf-8").strip())
        now = _GENERATED.format(generated)
        written = []
        for source in kept.rglob("*"):
            if source.is_dir() or source.name == KEPT_DONE:
                continue
            target = out / source.relative_to(kept)
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.suffix == ".html":
                target.write_text(source.read_text(encoding="utf-8").replace(before, now, 1), encoding="utf-8")
            else:
                _link_or_copy(source, target)
            written.append(target)
        return written
    except OSError:
        for child in out.iterdir():
            if child.name != MARKER:
                shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink(missing_ok=True)
        return None


def _render_site(env, site: "Site", out: Path, pages: list[str] | None, extra: dict[str, Any] | None,
                 generated: str) -> list[Path]:
    full = pages is None
    site.case_pages = full and "per-case/case.html" in env.list_templates()
    site.drill_pages = full
    most = 0  # not computed for a render of chosen pages (kg report coverage): it reads every verdict
    if full:
        adapted, most = adapted_k(site)
        site.k = site.k if site.k_given else adapted
    common = dict(site=site, query=site.query, label=site.label, short=site.short, generated_at=generated,
                  k=site.k, k_given=site.k_given, k_most=most, catalogue=[site.entries[n] for n in sorted(site.entries)],
                  compare_pairs=list(site.params.get("compare") or []), **(extra or {}))
    written = []
    names = pages or page_names()
    common["nav"] = navigation(names, env) + ([("queries/index", "Queries")] if full else [])
    if full and "compare" in names:  # the compare page's queries, started before the case pages render
        site.start("compare", *[dict(baseline=base["system"], candidate=cand["system"])
                                for _, base, cand, _ in site.comparisons(common["compare_pairs"])[0]])
    if site.case_pages:
        template = env.get_template("per-case/case.html")
        verdicts = site.verdicts_by_case()
        situations: dict[str, list] = {}
        for row in site.query("situation-check").rows:
            situations.setdefault(row["case"], []).append(row)
        for case in site.all_cases():
            html = _render(template, "case", page="case", root="../", case=case, verdicts=verdicts.get(case["case"], []),
                                   situations=situations.get(case["case"], []), **common)
            written.append(_write(out / "cases" / f"{slug(case['case'])}.html", html))
    # the pages behind the cards, bars and rates, and the matrix's further pages, while the queries
    # of the named pages run (they had rendered after them, on one core: 10 s at 100k assertions)
    if full and "per-case/group.html" in env.list_templates():
        template = env.get_template("per-case/group.html")
        for group in site.groups():
            for section in group["sections"]:
                if not section[2] and section[0] != "counted":
                    continue  # nothing links to an empty list but the card's figure, which is the counted one
                chunks = paginate(section[2])
                for number, trials in enumerate(chunks, 1):
                    html = _render(template, "group", page="group", root="../", group=group, section=section, trials=trials,
                                           number=number, pages=len(chunks), **common)
                    written.append(_write(out / "groups" / page_file(f"{group['slug']}-{section[0]}", number), html))
    if full and "per-case/coverage.html" in env.list_templates():
        template = env.get_template("per-case/coverage.html")
        for bar in site.coverage_bars():
            chunks = paginate(bar["terms"])
            for number, terms in enumerate(chunks, 1):
                html = _render(template, "coverage", page="coverage-bar", root="../", bar=bar, terms=terms,
                               number=number, pages=len(chunks), **common)
                written.append(_write(out / "coverage" / page_file(bar["slug"], number), html))
    if full and "per-case/wrong-description.html" in env.list_templates():
        template = env.get_template("per-case/wrong-description.html")
        for reach in site.wrong_descriptions():
            chunks = paginate(reach["rows"])
            for number, rows in enumerate(chunks, 1):
                html = _render(template, "wrong-description", page="wrong-description", root="../", reach=reach,
                               situations=rows, number=number, pages=len(chunks), **common)
                written.append(_write(out / "wrong-descriptions" / page_file(reach["slug"], number), html))
    if full and "per-case/matrix.html" in env.list_templates():
        template = env.get_template("per-case/matrix.html")
        for number in range(2, site.matrix()["pages"] + 1):
            written.append(_write(out / "matrix" / f"page-{number}.html",
                                  _render(template, "matrix", page="matrix", root="../", number=number, **common)))
    site.write_data()  # the downloads linked so far (the matrix's: every verdict), beside the queries
    # the named pages last: they wait for the catalogue's many queries, answered beside the pages
    # (Site.start); what comes before reads the verdicts, which start first, so that little is left
    # to render on one core after the last query
    for name in names:
        template = env.get_template(f"pages/{name}.html")
        written.append(_write(out / f"{name}.html", _render(template, "page", page=name, root="", **common)))
    query_page = env.get_template("_query.html")
    shown = site.entries if full else site.used
    for name, q in sorted(shown.items()):
        written.append(_write(out / "queries" / f"{name}.html",
                              _render(query_page, "query", page="query", root="../", q=q, **common)))
        _write(out / "queries" / f"{name}.rq", q.text)
    if full:
        written.append(_write(out / "queries" / "index.html",
                              _render(env.get_template("_catalogue.html"), "catalogue", page="queries/index", root="../",
                                      **common)))
    site.write_data()
    return written


_NAV = re.compile(r"\{#-?\s*nav:\s*(\d+)\s+(.+?)\s*-?#\}")


def navigation(names: list[str], env: jinja2.Environment | None = None) -> list[tuple[str, str]]:
    """(page, title) in menu order, from each page template's first line `{#- nav: ORDER Title -#}`."""
    env = env or environment()
    entries = []
    for name in names:
        first = env.loader.get_source(env, f"pages/{name}.html")[0].split("\n", 1)[0]
        match = _NAV.match(first)
        entries.append((int(match.group(1)) if match else 50, name, match.group(2) if match else name))
    return [(name, title) for _, name, title in sorted(entries)]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


MARKER = ".kg-report"  # in every folder kg builds a site into; kg replaces or removes only folders carrying it
MARKER_TEXT = "kg report site, format 1\n"
# beside the marker: every file kg wrote into the build, one relative path a line; on the next run,
# anything else found in the published folder (a user's notes, a folder of their own) is carried into
# the new build, never removed with the old one
WRITTEN = ".kg-report-files"


class UnsafeOutput(UsageError):
    """--out names a place kg must not replace: it did not make it, or it holds something else."""


def _is_ours(folder: Path) -> bool:
    return folder.is_dir() and not folder.is_symlink() and (folder / MARKER).is_file()


def _encloses(outer: Path, inner: Path) -> bool:
    return inner == outer or outer in inner.parents


def check_out(out: Path, protected: dict[str, Path] | None = None) -> None:
    """Refuses (UnsafeOutput) an --out that kg could not replace without deleting what it did not
    write: a file, a folder or link kg did not make, the working folder or home or any folder
    enclosing them, and the store or a folder holding it. Nothing is touched either way."""
    out = out.absolute()
    how = "choose a new folder for the report (e.g. --out build/report), or one an earlier kg report made"
    real = _real(out)
    guarded = {"the working folder": Path.cwd().resolve(), "your home folder": Path.home().resolve(),
               "the root folder": Path("/")}
    for what, place in guarded.items():
        if _encloses(real, place):
            raise UnsafeOutput(f"--out {out} is {what} or a folder holding it; kg replaces the whole --out "
                               f"folder, so it refuses: {how}")
    for what, place in (protected or {}).items():
        place = Path(os.path.realpath(place))
        if _encloses(real, place) or _encloses(place, real):
            raise UnsafeOutput(f"--out {out} is {what} ({place}), inside it or a folder holding it: {how}")
    for _ in range(20):  # another run may be publishing this --out right now: look again until a look holds still
        refusal = _look_at_out(out, how)
        if refusal is not _MOVED:
            break
    else:
        refusal = f"--out {out} kept changing while kg looked at it (another program is writing there): {how}"
    if refusal:
        raise UnsafeOutput(refusal)


_MOVED = object()  # what _look_at_out says when --out changed while it looked


def _look_at_out(out: Path, how: str):
    """None if kg may replace `out`, else why not — judged on one state of it. `out` is read once
    (lstat, then readlink) and every later step checks that it still is what was read: three cron
    runs at once once saw 'not a link' and then, a run having just linked it, 'a folder', and refused
    kg's own site. Returns _MOVED when `out` changed under the look."""
    try:
        kind = os.lstat(out).st_mode
    except FileNotFoundError:
        return None  # nothing there to lose
    if stat.S_ISLNK(kind):
        try:
            pointed = os.readlink(out)
        except OSError:  # gone, or no longer a link
            return _MOVED
        target = _real(Path(out.parent, pointed))
        built_by_kg = target.parent == Path(os.path.realpath(out.parent)) and target.is_dir() and (
            _is_ours(target) or re.fullmatch(rf"\.{re.escape(out.name)}\.\d{{8}}T\d{{6}}-\d+-\d+", target.name))
        if built_by_kg:  # (a build of a kg before the marker is known by its name; it is replaced, never removed)
            return None
        if _still_points(out, pointed):  # not a run that replaced the link and removed the build meanwhile
            return f"--out {out} is a symbolic link kg did not make (to {pointed}): {how}"
        return _MOVED
    if stat.S_ISDIR(kind):
        try:
            if (out / MARKER).is_file() or not any(out.iterdir()):  # an empty folder holds nothing to lose
                return None
            entries = sorted(p.name for p in out.iterdir())
            if not stat.S_ISDIR(os.lstat(out).st_mode):
                return _MOVED  # a run replaced kg's marked folder by its link meanwhile
        except FileNotFoundError:
            return _MOVED
        held = f"it holds {len(entries)} entries: {', '.join(entries[:5])}{', …' if len(entries) > 5 else ''}"
        return (f"--out {out} is a folder kg did not make ({held}, and no {MARKER} marker); "
                f"kg replaces the whole --out folder, so it refuses: {how}, "
                f"or remove that folder yourself if it is an old report")
    return f"--out {out} is a file, not a folder: {how}"


def _real(path: Path) -> Path:
    """os.path.realpath, which raises when a link it is reading is removed under it (another run
    replacing its --out link): read again; the folder holding `path` does not move."""
    for _ in range(20):
        try:
            return Path(os.path.realpath(path))
        except OSError:
            continue
    return Path(os.path.realpath(path.parent)) / path.name


def _still_points(out: Path, pointed: str) -> bool:
    try:
        return os.readlink(out) == pointed
    except OSError:
        return False


@contextmanager
def locked(out: Path):
    """One writer at a time for an output folder; a second waits for the first."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def publish(out: Path, build, protected: dict[str, Path] | None = None) -> Path:
    """Builds into a fresh folder beside `out` (marked as kg's), then points `out` (a symlink) at
    it in one atomic rename. Readers see the old site or the new one, never a mix. Only folders
    carrying kg's marker are ever removed: the build the link pointed at before, and builds a
    crashed run left; `out` itself is checked first (check_out) and refused if it is not kg's."""
    out = out.absolute()
    check_out(out, protected)
    with locked(out):
        check_out(out, protected)  # again under the lock: another run may have changed it meanwhile
        stamp = f"{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
        fresh = out.parent / f".{out.name}.{stamp}"
        try:
            fresh.mkdir(parents=True)
            (fresh / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
            build(fresh)
        except OSError as err:  # a full or read-only disk: say so, publish nothing, leave nothing half made
            shutil.rmtree(fresh, ignore_errors=True)
            full = "the disk is full" if getattr(err, "errno", None) == errno.ENOSPC else "the disk refused"
            raise OutputUnwritable(f"cannot write the report into {out.parent}: {full} ({err.strerror or err}); "
                                   f"nothing was published and the previous report, if any, is as it was — "
                                   f"free space there, or give another --out") from None
        except BaseException:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
        try:
            _write_manifest(fresh)
            carried = _carry_over(_published(out), fresh)
        except BaseException:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
        if out.is_dir() and not out.is_symlink():
            shutil.rmtree(out)  # a marked folder (check_out refused any other), emptied of what is not kg's
        link = out.parent / f".{out.name}.link-{stamp}"
        link.symlink_to(fresh.name)
        os.replace(link, out)
        for old in out.parent.glob(f".{out.name}.*"):
            if old == fresh:
                continue
            if old.is_symlink() and old.name.startswith(f".{out.name}.link-"):
                old.unlink()  # a link a crashed run made and never renamed: removing a link loses nothing
            elif _is_ours(old):
                shutil.rmtree(old, ignore_errors=True)
    if carried:
        print(f"kg: kept in {out} what kg did not write there: {_listed(carried)}", file=sys.stderr)
    return out


def _write_manifest(build: Path) -> None:
    files = sorted(str(p.relative_to(build)) for p in build.rglob("*")
                   if not p.is_dir() and p.name not in (MARKER, WRITTEN))
    (build / WRITTEN).write_text("".join(f"{name}\n" for name in files), encoding="utf-8")


def _published(out: Path) -> Path | None:
    """The build folder `out` shows now (check_out has made sure it is kg's), or None."""
    if out.is_symlink():
        target = _real(out)
        return target if target.is_dir() else None
    return out if _is_ours(out) else None


def _carry_over(old: Path | None, fresh: Path) -> list[str]:
    """Moves into `fresh` every entry of the published build `old` that kg did not write there (its
    manifest says what it wrote; a build of a kg before the manifest: anything the new build does not
    write), so that replacing the site loses nothing of the user's. An entry the new build writes too
    is refused, naming it, with nothing moved. Returns the entries carried."""
    if old is None:
        return []
    listed = old / WRITTEN
    ours = set(listed.read_text(encoding="utf-8").splitlines()) if listed.is_file() else {
        str(p.relative_to(fresh)) for p in fresh.rglob("*") if not p.is_dir()}
    ours |= {MARKER, WRITTEN, KEPT_DONE}
    holding = {str(parent) for name in ours for parent in Path(name).parents}  # folders holding kg's files
    moves: list[tuple[Path, Path]] = []

    def walk(folder: Path) -> None:
        for entry in sorted(folder.iterdir()):
            name = str(entry.relative_to(old))
            if entry.is_dir() and not entry.is_symlink() and name in holding:
                walk(entry)
            elif name not in ours:
                moves.append((entry, fresh / name))
    walk(old)
    clashes = [str(target.relative_to(fresh)) for _, target in moves if os.path.lexists(target)]
    if clashes:
        raise UnsafeOutput(f"{old} holds {_listed(clashes)}, which kg did not write there and would now write "
                           f"over; nothing was published and the previous report is as it was: move or rename "
                           f"{'it' if len(clashes) == 1 else 'them'} out of the report folder, then run kg report again")
    done = []
    try:
        for source, target in moves:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(source, target)
            done.append((source, target))
    except OSError:
        for source, target in reversed(done):  # put back what was moved: the published site stays whole
            os.rename(target, source)
        raise
    return [str(target.relative_to(fresh)) for _, target in moves]


def _listed(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


# ── scheduled coverage reports ──
def coverage_snapshot(backend, sources) -> dict:
    """The coverage figures of this moment, with the digests of what they were computed from."""
    cache = AnswerCache.for_store(backend)
    classes = catalogue.run(catalogue.load()["coverage-classes"], backend, cache=cache).rows
    summary = catalogue.run(catalogue.load()["coverage-summary"], backend, cache=cache).rows
    covered = sum(1 for r in classes if r["covered"])
    return {
        "taken_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "class_coverage": {"covered": covered, "total": len(classes),
                           "rate": covered / len(classes) if classes else None},
        "summary": summary,
        "sources": [{"path": s.path, "kind": s.kind, "sha256": s.sha256, "pins": s.pins}
                    for s in sources if s.kind != "vocabulary"],
    }


def write_snapshot(history: Path, snapshot: dict) -> Path:
    """One JSON file per run, named by its time; written whole, then renamed into place."""
    history.mkdir(parents=True, exist_ok=True)
    stamp = snapshot["taken_at"].replace(":", "").replace("+0000", "Z").replace("+00:00", "Z")
    path = history / f"coverage-{stamp}-{os.getpid()}.json"
    tmp = history / f".{path.name}.tmp"
    try:
        tmp.write_text(json.dumps(snapshot, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as err:  # a full disk: no snapshot cut short is left for the trend to trip on
        tmp.unlink(missing_ok=True)
        raise OutputUnwritable(f"cannot write the coverage snapshot into {history}: {err.strerror or err}; "
                               f"nothing was written — free space there, or give another --history") from None
    return path


def read_history(history: Path) -> tuple[list[tuple[str, float]], list[str]]:
    """The trend's points (time, class coverage rate) from the snapshots in `history`, and a line
    for each file there that is not one: another tool's file, or one cut short. Those are skipped
    and left as they are; kg never deletes anything in the history folder."""
    points, foreign = [], []
    for path in sorted(history.glob("coverage-*.json")):
        try:
            snap = json.loads(path.read_text(encoding="utf-8"))
            rate = snap["class_coverage"]["rate"]
            taken_at = snap["taken_at"]
            if not isinstance(taken_at, str) or not (rate is None or isinstance(rate, (int, float))):
                raise TypeError("taken_at or class_coverage.rate of the wrong type")
            datetime.fromisoformat(taken_at)
        except (OSError, UnicodeDecodeError) as err:
            foreign.append(f"{path}: could not be read ({err.__class__.__name__})")
            continue
        except (ValueError, KeyError, TypeError) as err:
            foreign.append(f"{path}: not a coverage snapshot kg wrote ({err.__class__.__name__}: {err})")
            continue
        if rate is not None:
            points.append((taken_at, float(rate)))
    return sorted(points), foreign
