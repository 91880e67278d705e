"""The reasons a trial is left out of pass@k, as the verdict layer classes them (pass-at-k's
excluded_* columns), and their words on the pages: the one list the report and its templates read
(site.exclusions), so a reason is added here and nowhere else in the report."""
from __future__ import annotations

EXCLUSIONS = {"grader": "grader failure", "environment": "environment failure", "unexplained": "unexplained cantTell",
              "inapplicable": "inapplicable", "untested": "untested", "other": "not an EARL outcome",
              "conflicting": "conflicting verdicts",
              "not_preregistered": "judged against criteria not registered before the run (J2)"}
# the same reasons as a count reads on the overview ("3 grader failure(s) … trial(s)")
EXCLUSION_COUNTS = {"grader": "grader failure(s)", "environment": "environment failure(s)", "unexplained": "unexplained",
                    "inapplicable": "inapplicable", "untested": "untested", "other": "other",
                    "conflicting": "conflicting", "not_preregistered": "not pre-registered"}
COUNTED = ("passed", "failed")  # the statuses a rate counts; every other status is an exclusion above


def status_of(reason: str) -> str:
    """The verdict layer's status for an excluded_<reason> column: not_preregistered → not-preregistered."""
    return reason.replace("_", "-")
