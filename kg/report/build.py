"""Rendering a site: every page the registry (pages.py) names and the project adds, in the order
that keeps both cores busy - the queries started ahead, the pages behind each figure first (they read
the verdicts, which start first), the named pages last - each page's context checked against the
contract (context.py). A site of a store, parameters, templates and queries rendered before is
published again as it was (kept.py)."""
from __future__ import annotations

import gc
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .cells import slug
from .context import _render, environment
from .data import adapted_k, page_file, paginate
from .files import write as _write
from .kept import KEPT_DONE, _keep_site, _reuse_site, _templates
from .pages import PER_ITEM, navigation, page_names, queries_ahead
from .site import Site


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
            # the case pages render first (_render_site): the verdicts and their situations first
            for name in queries_ahead(page_names()):  # as the page registry declares them
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


def _render_site(env, site: Site, out: Path, pages: list[str] | None, extra: dict[str, Any] | None,
                 generated: str) -> list[Path]:
    full = pages is None
    site.case_pages = full and PER_ITEM["case"].template in env.list_templates()
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
    if full and "index" in names:  # the overview's changes: each system against the one before it
        site.start("compare", *[dict(baseline=older, candidate=newer) for _, older, newer in site.overview_pairs()])
    if site.case_pages:
        template = env.get_template(PER_ITEM["case"].template)
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
    if full and PER_ITEM["group"].template in env.list_templates():
        template = env.get_template(PER_ITEM["group"].template)
        for group in site.groups():
            for section in group["sections"]:
                if not section[2] and section[0] != "counted":
                    continue  # nothing links to an empty list but the card's figure, which is the counted one
                chunks = paginate(section[2])
                for number, trials in enumerate(chunks, 1):
                    html = _render(template, "group", page="group", root="../", group=group, section=section, trials=trials,
                                           number=number, pages=len(chunks), **common)
                    written.append(_write(out / "groups" / page_file(f"{group['slug']}-{section[0]}", number), html))
    if full and PER_ITEM["coverage-bar"].template in env.list_templates():
        template = env.get_template(PER_ITEM["coverage-bar"].template)
        for bar in site.coverage_bars():
            chunks = paginate(bar["terms"])
            for number, terms in enumerate(chunks, 1):
                html = _render(template, "coverage", page="coverage-bar", root="../", bar=bar, terms=terms,
                               number=number, pages=len(chunks), **common)
                written.append(_write(out / "coverage" / page_file(bar["slug"], number), html))
    if full and PER_ITEM["wrong-description"].template in env.list_templates():
        template = env.get_template(PER_ITEM["wrong-description"].template)
        for reach in site.wrong_descriptions():
            chunks = paginate(reach["rows"])
            for number, rows in enumerate(chunks, 1):
                html = _render(template, "wrong-description", page="wrong-description", root="../", reach=reach,
                               situations=rows, number=number, pages=len(chunks), **common)
                written.append(_write(out / "wrong-descriptions" / page_file(reach["slug"], number), html))
    if full and PER_ITEM["matrix"].template in env.list_templates():
        template = env.get_template(PER_ITEM["matrix"].template)
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

