"""The HTML report: a static, self-contained site rendered from the templates in reports/ and
the catalogue's named queries.

Templates call `query(name, **params)` themselves, so a new page is one template. Every table
names the query that produced it and links to that query's SPARQL. Charts are static SVG files
drawn by matplotlib, referenced with alternative text. The site is written to a fresh folder and
swapped in with one atomic rename of a symlink, under a lock, so a cron job and a person running
`kg report` at once never see or leave half a site.

One module per job:
  answers.py  running the queries, ahead of the pages, on threads; the CSV and JSON downloads
  data.py     page data: the rows behind every figure
  overview.py the overview: a matrix per replay set, the changes between systems, what needs attention
  cells.py    how a value reads: labels, percentages, links, file names
  charts.py   matplotlib charts
  context.py  the Jinja environment and the template context contract
  pages.py    the page registry: each kind of page, its template, contract and queries
  site.py     the Site, one render's state (the four parts above)
  build.py    rendering a whole site (render_site)
  kept.py     reuse of what an unchanged store's report made before
  publish.py  publishing: the symlink swap and the lock, and what --out may be
  history.py  coverage snapshots and their trend (kg report coverage)
  statuses.py the reasons a trial is excluded, in words
"""
from __future__ import annotations

from .. import catalogue, output  # noqa: F401 - the modules the report runs and renders with (tests wrap them)
from .build import collector_paused, render_site
from .cells import anchor, drill_slug, group_slug, num, pct, signed, slug
from .context import (CONTEXT, OPTIONAL_CONTEXT, PAGE_CONTEXT, ContextError, check_context, environment)
from .data import adapted_k, page_file, paginate
from .history import coverage_snapshot, read_history, write_snapshot
from .pages import NAMED, PER_ITEM, navigation, page_names, queries_ahead
from .publish import DEFAULT_OUT, MARKER, MARKER_TEXT, WRITTEN, UnsafeOutput, check_out, locked, publish
from .site import Site
from .statuses import exclusions

__all__ = ["CONTEXT", "DEFAULT_OUT", "MARKER", "MARKER_TEXT", "NAMED", "OPTIONAL_CONTEXT",
           "PAGE_CONTEXT", "PER_ITEM", "WRITTEN", "ContextError", "Site", "UnsafeOutput", "adapted_k", "anchor",
           "check_context", "check_out", "collector_paused", "coverage_snapshot", "drill_slug", "environment",
           "group_slug", "locked", "navigation", "num", "page_file", "page_names", "paginate", "pct", "publish",
           "queries_ahead", "read_history", "render_site", "signed", "slug", "write_snapshot"]
