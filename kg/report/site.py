"""The Site: one render's state, what every template receives as `site`."""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .. import catalogue
from ..cache import AnswerCache
from .answers import Answers
from .cells import Cells
from .charts import Charts
from .data import PageData
from .kept import kept_path
from .overview import Overview


class Site(Answers, PageData, Overview, Cells, Charts):
    """What templates see: the queries (answers.py), the rows behind the figures (data.py,
    overview.py), how a
    value reads (cells.py) and the charts (charts.py), of one render."""

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

    def _kept(self, kind: str, key: Any, suffix: str) -> Path | None:
        """Where a file the report made from `key` is kept (kept.kept_path): None without a cache."""
        return kept_path(self.cache, kind, key, suffix)
