"""Verdict statuses as data (issue 44): the SKOS scheme kg:verdictStatuses in kg's vocabulary says
what each status the verdict layer writes means - whether it counts in a rate, which exclusion it
feeds - and every query, the tally layer, the report and the docs read it from there."""
import json
import re
from pathlib import Path

from kg import statuses
from tests.conftest import ROOT, run_kg

QUERIES = ROOT / "queries"
# the rule that assigns statuses: the one place their literals may be tested and written
ASSIGNING = QUERIES / "layers" / "verdicts.ru"
# exclusions a query never forms itself (conflicting is: queries that pool graders form their own)
EXCLUDED_BY_NAME = ("grader", "environment", "unexplained", "inapplicable", "untested", "not-preregistered")


def _code(text: str) -> str:
    """SPARQL without its comments (a # outside an IRI or a string, to the end of the line)."""
    return "\n".join(re.sub(r'(^|\s)#.*$', "", line) for line in text.splitlines() if not line.startswith("#+"))


def restated_status_tests(folder: Path) -> list[str]:
    """Where a query decides which statuses count, or tests an exclusion by name, instead of reading
    the scheme: an IN list or a disjunction of two status literals, or a comparison with an excluded
    status's literal."""
    notations = "|".join(re.escape(s.notation) for s in statuses.scheme())
    literal = rf'"(?:{notations})"'
    patterns = [
        rf'\bIN\s*\([^)]*{literal}[^)]*{literal}',  # ?s IN ("passed", "failed")
        rf'=\s*{literal}\s*\|\|\s*\??\w*\s*!?=\s*{literal}',  # ?s = "passed" || ?s = "failed"
        rf'!?=\s*"(?:{"|".join(EXCLUDED_BY_NAME)})"',  # ?s = "grader"
    ]
    found = []
    for path in sorted([*folder.rglob("*.rq"), *folder.rglob("*.ru")]):
        if path.name == ASSIGNING.name and path.parent.name == "layers":
            continue
        for n, line in enumerate(_code(path.read_text()).splitlines(), 1):
            if any(re.search(p, line) for p in patterns):
                found.append(f"{path.relative_to(folder)}: {line.strip()}")
    return found


# The catalogue queries' own status tests were read through the scheme on 2026-12-07 and taken back
# the same day: Virtuoso 7.2.5 could not compile the scheme's lookup inside their sub-selects (SQ156)
# or ended its server on it; the tally layer and the report read the scheme. Which queries still
# restate it, for the next step (issue 44):
RESTATING_TODAY = 9


def test_the_queries_restating_which_statuses_count_are_the_known_ones():
    found = restated_status_tests(QUERIES)
    files = {line.split(":", 1)[0] for line in found}
    assert len(files) <= RESTATING_TODAY, ("a query newly reads a verdict's status by its literal; read the "
                                           "scheme of verdict statuses instead:\n" + "\n".join(found))


def test_the_grep_finds_a_restated_test(tmp_path):
    # the check above can fail: the text every one of these queries had before the scheme
    text = ('SELECT (SUM(IF(?status = "passed" || ?status = "failed", 1, 0)) AS ?n) WHERE { ?v kg:status ?status '
            'FILTER(?s IN ("passed", "failed")) BIND(IF(?status = "grader", 1, 0) AS ?g) }\n')
    (tmp_path / "restated.rq").write_text(text)
    assert len(restated_status_tests(tmp_path)) == 1  # one line, three restatements


def test_the_scheme_holds_every_status_the_verdict_layer_writes():
    rule = _code(ASSIGNING.read_text())
    written = set(re.findall(r'"([a-z][a-z-]*)"', rule)) - {"undeclared", "digest-mismatch", "no-digest", "registered-after",
                                                             "order-unknown"}
    assert written == {s.notation for s in statuses.scheme()}
    assert statuses.counting() == {"passed", "failed"}
    # pass-at-k's columns, in their order, each fed by the status of its name
    assert list(statuses.exclusions()) == ["grader", "environment", "unexplained", "inapplicable", "untested",
                                           "other", "conflicting", "not_preregistered"]
    assert all(statuses.feeding(r) == {r.replace("_", "-")} for r in statuses.exclusions())


SKIPPED = """@prefix kg: <https://kg.example/ns#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
kg:status-skipped a skos:Concept ; skos:inScheme kg:verdictStatuses ; skos:notation "skipped" ;
  skos:prefLabel "skipped by the harness"@en ; skos:altLabel "skipped"@en ;
  kg:counts false ; kg:feeds kg:excludedUntested .
"""


def _row(n, outcome, trial):
    return json.dumps({"id": f"a{n}", "run": f"run-{n}", "system": "agent@1", "replaySet": "lab", "intent": f"q{n % 3}",
                       "trial": trial, "grader": {"id": "exact-match", "kind": "mechanical"},
                       "outcome": outcome, "date": "2026-11-20T10:11:12Z"})


def test_a_project_adds_a_verdict_status_through_the_vocabulary(tmp_path):
    """A project adds "skipped" - an earl:untested outcome its harness gives a trial it skipped - in its
    own vocab/ and in the rule that assigns it (its queries/layers/verdicts.ru), nothing else; the
    status is in the layer, pass-at-k's exclusions, the report's cards and group pages, and the docs."""
    project = tmp_path / "project"
    (project / "vocab").mkdir(parents=True)
    (project / "queries" / "layers").mkdir(parents=True)
    (project / "kg.toml").write_text("")
    (project / "vocab" / "skipped.ttl").write_text(SKIPPED)
    rule = ASSIGNING.read_text()
    assert rule.count('IF(?outcome = earl:untested, "untested", "other")') == 1
    (project / "queries" / "layers" / "verdicts.ru").write_text(
        rule.replace('IF(?outcome = earl:untested, "untested", "other")', 'IF(?outcome = earl:untested, "skipped", "other")'))
    (project / "lab.replayset.json").write_text(json.dumps({"replaySet": "lab", "version": "1", "suiteKind": "capability",
        "intents": [{"id": f"q{i}", "split": "development", "bucket": "explicit", "message": f"ask {i}"} for i in range(3)]}))
    outcomes = ["passed", "failed", "untested", "passed", "untested", "failed"]
    (project / "lab.earl.jsonl").write_text("".join(_row(n, o, n // 3) + "\n" for n, o in enumerate(outcomes)))
    env = {"KG_HOME": str(project)}

    loaded = run_kg("load", "lab.replayset.json", "lab.earl.jsonl", cwd=project, env=env)
    assert loaded.returncode == 0, loaded.stderr
    verdicts = json.loads(run_kg("query", "verdicts", "--format", "json", cwd=project, env=env).stdout)
    assert sorted(v["status"] for v in verdicts) == ["failed", "failed", "passed", "passed", "skipped", "skipped"]
    [row] = json.loads(run_kg("query", "pass-at-k", "--format", "json", cwd=project, env=env).stdout)
    # the tally layer counted the new status under the exclusion it feeds, never in the denominator
    assert row["excluded_untested"] == 2 and row["eligible_trials"] == 4, row

    out = tmp_path / "site"
    report = run_kg("report", "--out", out, cwd=project, env=env)
    assert report.returncode == 0, report.stderr
    index = (out / "index.html").read_text()
    # the overview's matrix cell: the reason in the short words of both statuses, the long ones on hover
    assert re.search(r'data-reason="untested" title="2 trial\(s\) excluded: untested or skipped by the harness">'
                     r'2 untested or skipped</a>', index), index
    group = next(p for p in (out / "groups").glob("*excluded-untested.html"))
    page = group.read_text()
    assert "excluded: untested or skipped by the harness" in page and page.count("lab") >= 1

    docs = run_kg("queries", "--format", "markdown", cwd=project, env=env).stdout
    assert "| `skipped` | skipped by the harness | no | `excluded_untested` |" in docs
