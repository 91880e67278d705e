"""The page registry: every kind of page the site writes, its template, its context contract
(context.KINDS) and the named queries it reads without parameters, declared here - the pages' own
and those the Site's helpers read for them (site.verdicts(), site.groups(), …). render_site starts
those queries ahead of the pages, on as many threads as the backend answers at once, so a page
waits for its answer rather than asking for it then. A query a page reads and the registry does not
declare still runs, when the page asks (Site.asked_unstarted lists it); tests/reports/test_started.py
holds the registry to what the examples' pages ask. A project's own page (reports/pages/NAME.html of
no registered name) has no entry: its queries run as it asks for them."""
from __future__ import annotations

import dataclasses
import re

import jinja2

from .. import paths
from .context import KINDS, environment


@dataclasses.dataclass(frozen=True)
class Page:
    """One kind of page."""
    template: str = dataclasses.field(metadata={"help": "its template, under reports/"})
    kind: str = dataclasses.field(metadata={"help": "its context contract: a key of context.KINDS"})
    queries: tuple[str, ...] = dataclasses.field(
        metadata={"help": "the named queries it reads without parameters, started ahead of it"})
    help: str = dataclasses.field(default="", metadata={"help": "what the page is"})

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"page {self.template}: kind {self.kind!r} is none of {sorted(KINDS)}")


# what the site reads before any page: the default k (adapted_k: the most eligible trials)
BEFORE_PAGES = ("eligible-trials",)
VERDICTS = ("verdict-sources", "verdicts")  # site.verdicts(): every verdict with where it came from

# the pages written per case, card, bar and rate, in the order render_site writes them (first:
# they read every verdict, whose queries start first); the queries of site helpers are named too
PER_ITEM: dict[str, Page] = {
    "case": Page("per-case/case.html", "case", VERDICTS + ("cases", "situation-check"),
                 "a case: its verdicts and situations"),
    "group": Page("per-case/group.html", "group", VERDICTS, "the trials behind one overview figure (site.groups())"),
    "coverage-bar": Page("per-case/coverage.html", "coverage", ("coverage-exercised-by", "coverage-summary"),
                         "the terms behind one coverage bar (site.coverage_bars())"),
    "wrong-description": Page("per-case/wrong-description.html", "wrong-description",
                              ("wrong-description-situations", "wrong-description-reach"),
                              "the situations behind one wrong-description rate (site.wrong_descriptions())"),
    "matrix": Page("per-case/matrix.html", "matrix", VERDICTS + ("cases",),
                   "a further page of the cases × systems matrix (site.matrix(n))"),
}

# the named pages (reports/pages/NAME.html)
NAMED: dict[str, Page] = {
    "index": Page("pages/index.html", "page", VERDICTS + ("replay-sets", "sources", "data-quality", "preregistration",
                                                          "system-runs", "coverage-summary",
                                                          # what the seed readings flag (docs/formats.md, "Readings")
                                                          "reference-answers", "selection-outcomes", "execution-verdict",
                                                          "variant-comparison", "graduation"),
                  "the overview: a matrix per replay set of graders × systems, coverage, what needs attention"),
    "results": Page("pages/results.html", "page", VERDICTS + ("cases", "set-reporting", "run-measurements"),
                    "pass@k for every replay set, system and grader; the cases × systems matrix"),
    "compare": Page("pages/compare.html", "page", VERDICTS + ("system-runs",),
                    "two systems side by side, per replay set and grader; pass@1 over runs"),
    "coverage": Page("pages/coverage.html", "page", ("coverage-summary", "coverage-exercised-by", "coverage-classes",
                                                     "coverage-concepts", "coverage-skills", "coverage-skill-buckets"),
                     "what the replay sets exercise of the ontologies"),
    "data-quality": Page("pages/data-quality.html", "page", ("data-quality", "preregistration", "reference-answers",
                                                             "situation-check"),
                         "warnings, pre-registration, reference answers, situations"),
    "anticipations": Page("pages/anticipations.html", "page", ("execution-verdict", "anticipation-sealing",
                                                               "criterion-verdicts", "anticipation-criteria"),
                          "anticipations and the criteria they were sealed with"),
    "experiments": Page("pages/experiments.html", "page", ("variant-comparison", "experiment-plans", "new-wrong-answers",
                                                           "graduation", "graduation-runs"),
                        "experiment plans, variants and graduation"),
    "graders": Page("pages/graders.html", "page", ("judge-kind-metrics", "grader-agreement", "selection-outcomes",
                                                   "selection-charges"),
                    "grader kinds, agreement and selection"),
    "profiles": Page("pages/profiles.html", "page", ("risk-matrix", "oracle-evaluator", "cases-per-concern",
                                                     "cases-per-family", "profile-results", "profile-flags"),
                     "profiles of the cases and their risks"),
    "wrong-descriptions": Page("pages/wrong-descriptions.html", "page", ("wrong-description-reach",
                                                                         "wrong-description-situations",
                                                                         "wrong-description-cases"),
                               "situations reached under a wrong description"),
}


def queries_ahead(names: list[str]) -> list[str]:
    """The queries a whole site of these named pages reads without parameters, each once, in the
    order they are best started: what comes before the pages, then the per-item pages' (rendered
    first), then each named page's."""
    pages = list(PER_ITEM.values()) + [NAMED[name] for name in names if name in NAMED]
    return list(dict.fromkeys([*BEFORE_PAGES, *(q for page in pages for q in page.queries)]))


def page_names() -> list[str]:
    """Every page: the templates under reports/pages/, built-in and the project's."""
    return sorted({p.stem for folder in paths.folders("reports") for p in (folder / "pages").glob("*.html")})


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
