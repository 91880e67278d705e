"""The reasons a trial is left out of pass@k, as the verdict layer classes them (pass-at-k's
excluded_* columns), and their words on the pages: the one list the report's Python reads (the
cards' sections in data.py, the overview's cells in overview.py), so a reason is added here and
nowhere else in the report. (reports/pages/results.html still names the excluded_* columns.)"""
from __future__ import annotations

EXCLUSIONS = {"grader": "grader failure", "environment": "environment failure", "unexplained": "unexplained cantTell",
              "inapplicable": "inapplicable", "untested": "untested", "other": "not an EARL outcome",
              "conflicting": "conflicting verdicts",
              "not_preregistered": "judged against criteria not registered before the run (J2)"}
# the same reasons as a cell of the overview names them, briefly (the words above on hover)
EXCLUSION_SHORT = {"grader": "grader", "environment": "env.", "unexplained": "unexpl.", "inapplicable": "n/a",
                   "untested": "untested", "other": "other", "conflicting": "conflict", "not_preregistered": "not pre-reg."}


def status_of(reason: str) -> str:
    """The verdict layer's status for an excluded_<reason> column: not_preregistered → not-preregistered."""
    return reason.replace("_", "-")
