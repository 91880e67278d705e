"""The reasons a trial is left out of pass@k (pass-at-k's excluded_<reason> columns), their words on
the pages and the verdict statuses counted under each: read from the scheme of verdict statuses
(kg/vocab/kg.ttl and a project's vocab/, through kg/statuses.py), never listed in the report. The
cards' sections (data.py) and the overview's cells (overview.py) read them here.
(reports/pages/results.html still names the excluded_* columns.)"""
from __future__ import annotations

from .. import statuses as scheme


def exclusions() -> dict[str, str]:
    """Each reason with its label (the statuses' skos:prefLabel), in pass-at-k's column order."""
    return scheme.exclusions()


def exclusion_words() -> dict[str, str]:
    """Each reason as a cell of the overview or a card names it briefly (skos:altLabel)."""
    return scheme.exclusion_words()


def feeding(reason: str) -> frozenset[str]:
    """The verdict statuses (kg:status literals) counted under the reason."""
    return scheme.feeding(reason)


def counting() -> frozenset[str]:
    """The statuses a rate counts (kg:counts true): passed and failed."""
    return scheme.counting()
