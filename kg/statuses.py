"""Verdict statuses as data: the SKOS scheme kg:verdictStatuses of kg's vocabulary (kg/vocab/kg.ttl,
and a project's vocab/*.ttl), read here for the Python side - the report's exclusion labels and the
reference page - as the queries and the tally layer read it from the store.

A status's skos:notation is the literal the verdict layer writes as kg:status; kg:counts says whether
a verdict of it is eligible (in a rate's denominator); kg:feeds names the tally count an excluded one
is counted in (kg:excludedGrader), which pass-at-k shows as the column excluded_grader - the reason
`grader`. Several statuses may feed one reason; a reason's label joins theirs."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from . import paths
from .terms import KG

SCHEME = KG + "verdictStatuses"


@dataclass(frozen=True)
class Status:
    notation: str  # the kg:status literal
    iri: str
    label: str  # skos:prefLabel
    short_label: str  # skos:altLabel (a card's word), else the label
    counts: bool
    reason: str | None  # the exclusion it feeds, as pass-at-k's column names it without excluded_


def reason_of(feeds: str) -> str:
    """kg:excludedNotPreregistered -> not_preregistered (pass-at-k's excluded_not_preregistered)."""
    local = feeds.removeprefix(KG).removeprefix("excluded")
    return re.sub(r"(?<!^)([A-Z])", r"_\1", local).lower()


def scheme() -> tuple[Status, ...]:
    """Every status of the scheme, in the order of their notations as the vocabulary files list them."""
    files = paths.vocabularies()
    return _read(tuple((str(f), f.stat().st_mtime_ns) for f in files))


@functools.lru_cache(maxsize=4)
def _read(files: tuple[tuple[str, int], ...]) -> tuple[Status, ...]:
    store = ox.Store()
    for path, _ in files:
        store.load(path=path, format=ox.RdfFormat.TURTLE)
    rows = store.query(f"""
        PREFIX skos: <http://www.w3.org/2004/02/skos/core#> PREFIX kg: <{KG}>
        SELECT ?status ?notation ?label ?short ?counts ?feeds WHERE {{
          ?status skos:inScheme <{SCHEME}> ; skos:notation ?notation ; kg:counts ?counts .
          OPTIONAL {{ ?status skos:prefLabel ?label }} OPTIONAL {{ ?status skos:altLabel ?short }}
          OPTIONAL {{ ?status kg:feeds ?feeds }} }}""")
    found = {}
    for r in rows:
        notation = r["notation"].value
        label = r["label"].value if r["label"] else notation
        found[notation] = Status(notation, r["status"].value, label,
                                 r["short"].value if r["short"] else label, r["counts"].value == "true",
                                 reason_of(r["feeds"].value) if r["feeds"] else None)
    # counting statuses first, then the exclusions in the order kg's own tally counts list them
    order = list(_ORDER)
    return tuple(sorted(found.values(), key=lambda s: (not s.counts, order.index(s.notation) if s.notation in order
                                                       else len(order), s.notation)))


# the built-in statuses in the order pass-at-k's columns have always listed them
_ORDER = ("passed", "failed", "grader", "environment", "unexplained", "inapplicable", "untested", "other",
          "conflicting", "not-preregistered")


def counting() -> frozenset[str]:
    """The notations of the statuses counted in a rate (passed, failed)."""
    return frozenset(s.notation for s in scheme() if s.counts)


def exclusions() -> dict[str, str]:
    """Each exclusion reason (pass-at-k's excluded_<reason>) with its label, in column order."""
    return _joined(lambda s: s.label)


def exclusion_words() -> dict[str, str]:
    """Each exclusion reason with the short words a card shows ("grader failure(s)")."""
    return _joined(lambda s: s.short_label)


def feeding(reason: str) -> frozenset[str]:
    """The notations of the statuses counted under the exclusion `reason`."""
    return frozenset(s.notation for s in scheme() if s.reason == reason)


def _joined(label) -> dict[str, str]:
    found: dict[str, list[str]] = {}
    for s in scheme():
        if s.reason is not None:
            found.setdefault(s.reason, []).append(label(s))
    return {reason: " or ".join(labels) for reason, labels in found.items()}
