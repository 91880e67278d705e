"""The Jinja environment the pages are rendered in, and the template context contract: what every
template receives, and what each kind of page receives besides, each name with its type and what it
means. The contract is written as dataclasses whose fields carry their `help` (as datasette's
template_contexts.py), and is checked on every render (check_context), so it cannot drift from what
templates are given; docs/reports.md documents each name, and tests/reports/test_context.py holds
the two together."""
from __future__ import annotations

import dataclasses
import functools
import json
from typing import Any

import jinja2

from .. import paths
from .cells import brief, num, pct, signed, slug


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
    env.filters.update(pct=pct, num=num, slug=slug, brief=brief, signed=signed, tojson_attr=lambda v: json.dumps(v))
    return env



def documented(kind: type | str, help: str):
    """A field of the contract: the type its value has (a type, or the name of a type: "Site",
    "NamedQuery", or "callable" for any callable) and what it means."""
    return dataclasses.field(metadata={"kind": kind, "help": help})


@dataclasses.dataclass
class Common:
    """What every template receives."""
    site: Any = documented("Site", "the render: site.query(), site.verdicts(), site.matrix(n), site.groups(), charts, data_file()")
    query: Any = documented("callable", "query(NAME, **params) -> catalogue.Result: a named query's rows (columns, rows, query)")
    label: Any = documented("callable", "label(IRI) -> str: its skos:prefLabel, rdfs:label, dcterms:identifier or doap:name, else shortened")
    short: Any = documented("callable", "short(IRI) -> str: the IRI with the store's prefixes")
    generated_at: str = documented(str, "when the site was rendered, ISO 8601 UTC")
    k: int = documented(int, "the k of pass@k and pass^k: given with kg report -k, else adapted to the data (adapted_k)")
    k_given: bool = documented(bool, "whether k was given by the user")
    k_most: int = documented(int, "the most eligible trials any case has for one system, grader and kind (0 when not computed: a render of chosen pages)")
    nav: list = documented(list, "the menu: (page, title) pairs, pages/ templates first, then the query catalogue")
    catalogue: list = documented(list, "every named query (catalogue.NamedQuery), by name, for the menu's catalogue page")
    compare_pairs: list = documented(list, "(baseline IRI, candidate IRI) pairs asked for with kg report --compare")
    page: str = documented(str, "the page being rendered: a pages/ name, or case, group, coverage-bar, wrong-description, matrix, query, queries/index")
    root: str = documented(str, "the relative path from this page to the site's root: '' or '../'")


@dataclasses.dataclass
class CaseContext:
    """A case's page (per-case/case.html)."""
    case: dict = documented(dict, "the case: a row of the cases query, or for a case only verdicts name, its case and case_id")
    verdicts: list = documented(list, "its verdicts: rows of the verdicts query joined with verdict-sources, each with anchor")
    situations: list = documented(list, "its rows of the situation-check query")


@dataclasses.dataclass
class GroupContext:
    """The verdicts behind one overview figure (per-case/group.html)."""
    group: dict = documented(dict, "a card: row (the pass-at-k row), slug, sections (key, title, trials), mismatch")
    section: tuple = documented(tuple, "the section shown: (key, title, trials)")
    trials: list = documented(list, "this page's trials of the section: {case, trial, status, verdicts, outcomes, causes, infos (their distinct outcomes, failure causes and infos, as text)}")
    number: int = documented(int, "this page's number, from 1")
    pages: int = documented(int, "the section's page count")


@dataclasses.dataclass
class CoverageContext:
    """The terms behind one coverage bar (per-case/coverage.html)."""
    bar: dict = documented(dict, "a coverage bar: row (the coverage-summary row), slug, terms (term, covered, intents), covered, mismatch")
    terms: list = documented(list, "this page's terms of the bar: {term, covered, intents}")
    number: int = documented(int, "this page's number, from 1")
    pages: int = documented(int, "the bar's page count")


@dataclasses.dataclass
class WrongDescriptionContext:
    """The situations behind one wrong-description rate (per-case/wrong-description.html)."""
    reach: dict = documented(dict, "a wrong-description rate: row (the wrong-description-reach row), slug, counted (the denominator's situations), excluded (those left out, with reach unknown or ungraded), rows (counted then excluded), wrong, satisfied, mismatch")
    situations: list = documented(list, "this page's rows of wrong-description-situations behind the rate: counted ones first, then excluded ones")
    number: int = documented(int, "this page's number, from 1")
    pages: int = documented(int, "the list's page count")


@dataclasses.dataclass
class MatrixContext:
    """A further page of the cases × systems matrix (per-case/matrix.html)."""
    number: int = documented(int, "the matrix page's number, from 1")


@dataclasses.dataclass
class QueryContext:
    """A catalogue query's page (_query.html)."""
    q: Any = documented("NamedQuery", "the query: name, summary, description, params, columns, text")


@dataclasses.dataclass
class Nothing:
    """A page that receives only what every page does (pages/*.html, _catalogue.html)."""


@dataclasses.dataclass
class Optional:
    """Names a caller may add (render_site's `extra`), documented with the page that reads them."""
    trend: list = documented(list, "coverage page under kg report coverage: (time, class coverage rate) of past snapshots")
    threshold: float = documented(float, "coverage page under kg report coverage --fail-under: the gate, a fraction; the trend draws it and says pass or fail")


# the contract of each kind of page (render_site's kinds), besides Common
KINDS: dict[str, type] = {"page": Nothing, "case": CaseContext, "group": GroupContext, "coverage": CoverageContext,
                          "wrong-description": WrongDescriptionContext, "matrix": MatrixContext,
                          "query": QueryContext, "catalogue": Nothing}


def contract(of: type) -> dict[str, tuple[type | str, str]]:
    """name -> (type, help) of a contract dataclass."""
    return {f.name: (f.metadata["kind"], f.metadata["help"]) for f in dataclasses.fields(of)}


CONTEXT = contract(Common)
PAGE_CONTEXT = {kind: contract(of) for kind, of in KINDS.items() if kind != "page"}
OPTIONAL_CONTEXT = contract(Optional)


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
