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
import hashlib
import json
import os
import re
import shutil
import sys
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from . import catalogue, paths
from .cache import AnswerCache
from .errors import OutputUnwritable, UsageError
from .output import shorten
from .terms import PREFIXES

DEFAULT_OUT = "build/report"


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
        self._labels: dict[str, str] | None = None
        self.charts: dict[str, str] = {}
        self.cache = AnswerCache.for_store(backend)
        self.undrawn: dict[str, str] = {}  # chart name -> why it was not drawn
        self.case_pages = False  # whether this render writes a page per case (render_site sets it)
        self._cases_with_pages: set[str] | None = None

    def query(self, name: str, **params) -> catalogue.Result:
        key = (name, tuple(sorted(params.items())))
        if key not in self._results:
            q = self.entries[name]
            self.used[name] = q
            self._results[key] = catalogue.run(q, self.backend, params, cache=self.cache)
        return self._results[key]

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
        row of the `cases` query, so a case only other data names (a verdict on a test no loaded
        set describes) is shown without a link rather than with a link to nothing."""
        if not self.case_pages or iri is None:
            return False
        if self._cases_with_pages is None:
            self._cases_with_pages = {row["case"] for row in self.query("cases").rows}
        return iri in self._cases_with_pages

    def label(self, iri: str | None) -> str:
        if iri is None:
            return ""
        return self.labels.get(iri) or shorten(iri, self.prefixes)

    def short(self, iri: str | None) -> str:
        return "" if iri is None else shorten(str(iri), self.prefixes)

    def chart(self, name: str, draw, alt: str, root: str = "") -> Markup:
        """Draws a chart with matplotlib into charts/<name>.svg; returns its <img> with alt text.
        A chart that cannot be drawn does not fail the report: the page says so in its place, with
        the figures of the alt text, and a warning goes to stderr."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        plt.rcParams["svg.hashsalt"] = "kg"  # the same data draws the same file
        # labels are ids and names, never math: "cost$a^{$b" as mathtext failed and crashed kg report
        plt.rcParams["text.parse_math"] = False
        path = self.out / "charts" / f"{name}.svg"
        before = set(plt.get_fignums())
        try:
            fig = draw(plt)
            path.parent.mkdir(parents=True, exist_ok=True)
            fig.savefig(path, format="svg", metadata={"Date": None})
        except Exception as err:  # noqa: BLE001 - any drawing fault becomes a note on the page
            reason = f"{type(err).__name__}: {err}".strip()
            self.undrawn[name] = reason
            path.unlink(missing_ok=True)  # no half-written file for the page to point at
            print(f"kg report: warning: chart {name} not drawn: {reason}", file=sys.stderr)
            return Markup(f'<p class="chart-not-drawn" role="note"><strong>chart not drawn:</strong> '
                          f'{escape(reason)}. {escape(alt)}</p>')
        finally:
            for number in set(plt.get_fignums()) - before:
                plt.close(number)
        self.charts[name] = alt
        return Markup(f'<img class="chart" src="{root}charts/{name}.svg" alt="{escape(alt)}">')

    def rate_chart(self, name: str, rows: list[dict], label: str, value: str, low: str, high: str,
                   title: str, root: str = "") -> Markup:
        """Horizontal bars of a rate with its interval as error bars; rows without a value are
        listed as "not computable" rather than drawn as 0."""
        shown = [r for r in rows if r.get(value) is not None]
        missing = [r[label] for r in rows if r.get(value) is None]

        def draw(plt):
            fig, ax = plt.subplots(figsize=(7.5, 0.42 * max(len(shown), 1) + 1.1))
            ys = list(range(len(shown)))
            values = [r[value] for r in shown]
            errors = [[r[value] - (r[low] if r.get(low) is not None else r[value]) for r in shown],
                      [(r[high] if r.get(high) is not None else r[value]) - r[value] for r in shown]]
            ax.barh(ys, values, xerr=errors, color="#4c72b0", ecolor="#222", capsize=3)
            ax.set_yticks(ys, [r[label] for r in shown], fontsize=8)
            ax.invert_yaxis()
            ax.set_xlim(0, 1)
            ax.set_title(title, fontsize=10)
            ax.grid(axis="x", alpha=0.3)
            fig.tight_layout()
            return fig
        alt = f"{title}: " + "; ".join(f"{r[label]} {pct(r[value])} (95% interval {pct(r.get(low))} to {pct(r.get(high))})"
                                      for r in shown)
        if missing:
            alt += "; not computable: " + ", ".join(missing)
        return self.chart(name, draw, alt, root)

    def matrix(self) -> dict:
        """Cases × systems, each cell the trials' current verdicts per grader kind, in the spirit of
        W3C implementation reports."""
        cases = self.query("cases").rows
        verdicts = self.query("verdicts").rows
        systems = sorted({v["system"] for v in verdicts})
        cells: dict[tuple, dict[str, list]] = {}
        for v in verdicts:
            cells.setdefault((v["case"], v["system"]), {}).setdefault(v["grader_kind"], []).append(v)
        for marks in cells.values():
            for kind in marks:
                marks[kind].sort(key=lambda v: (v["trial"], v["grader"] or ""))
        return {"cases": cases, "systems": systems, "cells": cells,
                "kinds": sorted({v["grader_kind"] for v in verdicts}),
                "statuses": sorted({v["status"] for v in verdicts if v["status"]})}

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

    def trend_chart(self, name: str, points: list[tuple[str, float]], title: str, root: str = "") -> Markup:
        def draw(plt):
            fig, ax = plt.subplots(figsize=(7.5, 2.6))
            ax.plot(range(len(points)), [v for _, v in points], marker="o", color="#4c72b0")
            ax.set_xticks(range(len(points)), [t[:16].replace("T", " ") for t, _ in points], rotation=30,
                          fontsize=7, ha="right")
            ax.set_ylim(0, 1)
            ax.set_title(title, fontsize=10)
            ax.grid(alpha=0.3)
            fig.tight_layout()
            return fig
        alt = f"{title}: " + "; ".join(f"{t} {pct(v)}" for t, v in points)
        return self.chart(name, draw, alt, root)


def slug(iri: str) -> str:
    """A file name for a case page: readable tail plus a short hash, so two sets' "route-1" differ."""
    tail = re.sub(r"[^A-Za-z0-9._-]+", "-", iri.rstrip("/").rsplit("/", 1)[-1])[:60] or "case"
    return f"{tail}-{hashlib.sha256(iri.encode()).hexdigest()[:8]}"


def pct(value, digits: int = 1) -> str:
    return "—" if value is None else f"{100 * value:.{digits}f}%"


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


@functools.lru_cache(maxsize=4)
def _environment(folders: tuple[str, ...]) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(f) for f in folders]),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(pct=pct, num=num, slug=slug, tojson_attr=lambda v: json.dumps(v))
    return env


def page_names() -> list[str]:
    """Every page: the templates under reports/pages/, built-in and the project's."""
    return sorted({p.stem for folder in paths.folders("reports") for p in (folder / "pages").glob("*.html")})


def render_site(backend, out: Path, prefixes: dict[str, str], pages: list[str] | None = None,
                extra: dict[str, Any] | None = None, params: dict[str, Any] | None = None) -> list[Path]:
    """Renders pages (templates under reports/pages/, all by default), a page per case when
    reports/per-case/case.html exists and the case pages are asked for, and a page per query used."""
    env = environment()
    site = Site(backend, out, prefixes, params)
    site.case_pages = pages is None and "per-case/case.html" in env.list_templates()
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    common = dict(site=site, query=site.query, label=site.label, short=site.short, generated_at=generated,
                  k=site.params.get("k", 3), **(extra or {}))
    written = []
    names = pages or page_names()
    common["nav"] = navigation(names, env)
    for name in names:
        template = env.get_template(f"pages/{name}.html")
        written.append(_write(out / f"{name}.html", template.render(page=name, root="", **common)))
    if site.case_pages:
        template = env.get_template("per-case/case.html")
        cases = site.query("cases").rows
        verdicts: dict[str, list] = {}
        for row in site.query("verdicts").rows:
            verdicts.setdefault(row["case"], []).append(row)
        situations: dict[str, list] = {}
        for row in site.query("situation-check").rows:
            situations.setdefault(row["case"], []).append(row)
        for case in cases:
            html = template.render(page="case", root="../", case=case, verdicts=verdicts.get(case["case"], []),
                                   situations=situations.get(case["case"], []), **common)
            written.append(_write(out / "cases" / f"{slug(case['case'])}.html", html))
    query_page = env.get_template("_query.html")
    for name, q in sorted(site.used.items()):
        written.append(_write(out / "queries" / f"{name}.html",
                              query_page.render(page="query", root="../", q=q, **common)))
        _write(out / "queries" / f"{name}.rq", q.text)
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
    real = Path(os.path.realpath(out))
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
    if out.is_symlink():
        target = Path(os.path.realpath(out))
        built_by_kg = target.parent == Path(os.path.realpath(out.parent)) and target.is_dir() and (
            _is_ours(target) or re.fullmatch(rf"\.{re.escape(out.name)}\.\d{{8}}T\d{{6}}-\d+-\d+", target.name))
        if not built_by_kg:  # (a build of a kg before the marker is known by its name; it is replaced, never removed)
            raise UnsafeOutput(f"--out {out} is a symbolic link kg did not make (to {os.readlink(out)}): {how}")
    elif out.is_dir():
        if not _is_ours(out) and any(out.iterdir()):  # an empty folder holds nothing to lose
            entries = sorted(p.name for p in out.iterdir())
            held = f"it holds {len(entries)} entries: {', '.join(entries[:5])}{', …' if len(entries) > 5 else ''}"
            raise UnsafeOutput(f"--out {out} is a folder kg did not make ({held}, and no {MARKER} marker); "
                               f"kg replaces the whole --out folder, so it refuses: {how}, "
                               f"or remove that folder yourself if it is an old report")
    elif out.exists():
        raise UnsafeOutput(f"--out {out} is a file, not a folder: {how}")


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
        if out.is_dir() and not out.is_symlink():
            shutil.rmtree(out)  # a marked folder (check_out refused any other): made into the link below
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
    return out


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
