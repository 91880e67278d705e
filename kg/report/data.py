"""Page data: the rows behind every figure of the site, computed once per Site from the queries'
answers: the verdicts (with where each came from), the cards of pass@k and the trials behind them,
the compare page's pairs and grids, the coverage bars and wrong-description rates with their rows,
the cases × systems matrix, and the pages a long list is split over."""
from __future__ import annotations

import functools

from .. import catalogue
from .cells import _distinct, anchor, drill_slug, group_slug, slug
from .statuses import counting, exclusion_words, exclusions, feeding

PAGE_ROWS = 500  # rows per page of a verdict list; a longer list is split over numbered pages
MATRIX_CASES = 200  # cases per page of the cases × systems matrix


def _once(method):
    """A method of the Site computed once per Site, kept on the Site itself: functools.cache on a
    method keys it by `self` in a cache of the class, which kept every Site ever made alive, with its
    answers (2.5 GB at 100k assertions), until the interpreter ended - and then walked and freed them
    all at exit (seconds after the report was written)."""
    attribute = f"_once_{method.__name__}"

    @functools.wraps(method)
    def once(self):
        if attribute not in self.__dict__:
            self.__dict__[attribute] = method(self)
        return self.__dict__[attribute]
    return once


class PageData:
    """The Site's rows behind the figures."""

    # ── the verdicts behind every figure ──
    def verdicts(self) -> list[dict]:
        """The verdicts query's rows (one per current assertion), each with where it came from
        (verdict-sources: file, node, grader implementation, criterion digest, supersession, which
        query counts it) and its place in the site: `anchor` on its case page and `href` from the root."""
        if self._verdicts is None:
            sources = {r["assertion"]: r for r in self.query("verdict-sources").rows}
            blank = dict.fromkeys(self.query("verdict-sources").columns)
            rows = []
            for v in self.query("verdicts").rows:
                row = {**blank, **sources.get(v["assertion"], {}), **v}
                row["anchor"] = anchor(v["case"], v["system"], v["trial"], v["grader"], v["grader_kind"], v["assertion"])
                row["href"] = f"cases/{slug(v['case'])}.html#{row['anchor']}"
                rows.append(row)
            self._verdicts = rows
        return self._verdicts

    @_once
    def verdicts_by_case(self) -> dict[str, list[dict]]:
        """The verdicts by case, in the verdicts query's order, indexed once for the case pages and
        every page of the matrix (each page had walked every verdict: 15 pages x 101k at 100k)."""
        index: dict[str, list[dict]] = {}
        for v in self.verdicts():
            index.setdefault(v["case"], []).append(v)
        return index

    @_once
    def _verdicts_by_key(self) -> dict[tuple, list[dict]]:
        """The verdicts by (system, grader kind, grader), indexed once for every grid of the compare page."""
        index: dict[tuple, list[dict]] = {}
        for v in self.verdicts():
            index.setdefault((v["system"], v["grader_kind"], v["grader"]), []).append(v)
        return index

    def comparisons(self, asked=()) -> tuple[list[tuple], list[tuple]]:
        """(pairs, unshared): the comparisons the compare page shows, each (replay set, baseline's
        system-runs row, candidate's, why) - per replay set the latest two systems by the first date of
        their results, then each pair asked for (kg report --compare) on every set both have runs on
        (once) - and the asked pairs that share no set."""
        key = tuple(tuple(pair) for pair in asked)
        if key not in self._comparisons:
            rows = self.query("system-runs").rows
            sets = list(dict.fromkeys(r["replay_set"] for r in rows if r["replay_set"]))
            pairs, unshared = [], []
            for replay_set in sets:
                dated = [r for r in rows if r["replay_set"] == replay_set and r["first_date"]]
                if len(dated) >= 2:
                    pairs.append((replay_set, dated[-2], dated[-1], "the latest two by time"))
            for baseline, candidate in key:
                shared = 0
                for replay_set in sets:
                    b = [r for r in rows if r["replay_set"] == replay_set and r["system"] == baseline]
                    c = [r for r in rows if r["replay_set"] == replay_set and r["system"] == candidate]
                    if b and c:
                        shared += 1
                        if not any(p[0] == replay_set and p[1]["system"] == baseline and p[2]["system"] == candidate
                                   for p in pairs):
                            pairs.append((replay_set, b[0], c[0], "asked for with kg report --compare"))
                if not shared:
                    unshared.append((baseline, candidate))
            self._comparisons[key] = (pairs, unshared)
        return self._comparisons[key]

    def comparison(self, baseline: str, candidate: str, replay_set: str) -> catalogue.Result:
        """The `compare` rows of one replay set. The query runs once per pair of systems, for every
        set they share, and each set's rows are taken from that answer: compare never pools replay
        sets (a row is one set's), so they are the rows `--replay-set` gives, and one run costs about
        what one set's does (4.0 s for four sets against 16.1 s at 100k assertions, BENCHMARKS.md)."""
        result = self.query("compare", baseline=baseline, candidate=candidate)
        return catalogue.Result(result.columns, [r for r in result.rows if r["replay_set"] == replay_set],
                                result.query)

    def compare_grid(self, row: dict, baseline: str, candidate: str, replay_set: str | None) -> dict:
        """The cases of one `compare` row (a grader kind and grader) × (baseline, candidate), each
        cell the side's verdicts (linking to them), regressions first: regressed, new wrong answers,
        improved, then baseline only, candidate only, excluded on a side (no eligible trial) and
        unchanged. Which case regressed, improved or is a new wrong answer is the query's (its *_cases
        lists); the rest are sorted by which side has verdicts and eligible trials, and `mismatch`
        names any count that disagrees with the row's."""
        sides: dict[str, dict[str, list]] = {}
        mine = [v for system in (baseline, candidate)
                for v in self._verdicts_by_key().get((system, row["grader_kind"], row["grader"]), [])]
        for v in mine:
            if v["read_by"] in (None, "pass-at-k") and (replay_set is None or v["replay_set"] == replay_set):
                side = "baseline" if v["system"] == baseline else "candidate"
                sides.setdefault(v["case"], {"baseline": [], "candidate": []})[side].append(v)
        listed = {name: set(filter(None, (row.get(column) or "").split(", "))) for name, column in
                  (("regressed", "regressed_cases"), ("new_wrong_answer", "new_wrong_answer_cases"),
                   ("improved", "improved_cases"), ("refused", "refused_case_list"))}
        order = ["regressed", "new wrong answer", "improved", "refused", "baseline only", "candidate only", "excluded",
                 "unchanged"]
        cases = []
        for case, marks in sides.items():
            for side in marks.values():
                side.sort(key=lambda v: (v["trial"], v["assertion"]))
            eligible = {side: any(v["status"] in ("passed", "failed") for v in vs) for side, vs in marks.items()}
            if case in listed["regressed"]:
                kind = "regressed"
            elif case in listed["new_wrong_answer"]:
                kind = "new wrong answer"
            elif case in listed["improved"]:
                kind = "improved"
            elif case in listed["refused"]:
                kind = "refused"  # its two sides' verdicts cite different criterion digests: not compared
            elif not marks["candidate"]:
                kind = "baseline only"
            elif not marks["baseline"]:
                kind = "candidate only"
            elif not (eligible["baseline"] and eligible["candidate"]):
                kind = "excluded"
            else:
                kind = "unchanged"
            cases.append({"case": case, "kind": kind, **marks})
        cases.sort(key=lambda c: (order.index(c["kind"]), self.label(c["case"])))
        counts = {kind: sum(c["kind"] == kind for c in cases) for kind in order}
        mismatch = [f"{column} {row.get(column)} but {counts[kind]} listed"
                    for kind, column in (("baseline only", "baseline_only"), ("candidate only", "candidate_only"),
                                         ("excluded", "excluded_cases"), ("refused", "refused_cases"))
                    if row.get(column) is not None and row.get(column) != counts[kind]]
        return {"cases": cases, "counts": counts, "mismatch": mismatch}

    def trend(self) -> list[dict]:
        """pass@1 over runs: per replay set, grader kind and grader, each system's figure in the order
        its runs began (system-runs' first_date), for the pass-rate trend chart. Systems without dated
        results are left out (no time to place them at) and counted in `undated`."""
        dates = {(r["replay_set"], r["system"]): r["first_date"] for r in self.query("system-runs").rows}
        series: dict[tuple, dict] = {}
        for r in self.query("pass-at-k", k=self.k).rows:
            key = (r["replay_set"], r["grader_kind"], r["grader"])
            entry = series.setdefault(key, {"replay_set": key[0], "grader_kind": key[1], "grader": key[2],
                                            "points": [], "undated": 0})
            when = dates.get((r["replay_set"], r["system"]))
            if when and r["pass_at_1"] is not None:
                entry["points"].append({"date": when, "system": r["system"], "value": r["pass_at_1"],
                                        "passed": r["passed_at_1"], "cases": r["cases_at_1"]})
            else:
                entry["undated"] += 1
        for entry in series.values():
            entry["points"].sort(key=lambda point: point["date"])
        return [e for _, e in sorted(series.items(), key=lambda item: tuple(str(x) for x in item[0]))]

    def all_cases(self) -> list[dict]:
        """Every case a page is written for: the `cases` query's rows, then each case only verdicts
        name (an EARL report's earl:test of no loaded replay set), with its id and nothing else known."""
        if self._all_cases is None:
            result = self.query("cases")
            cases = list(result.rows)
            known = {c["case"] for c in cases}
            for v in self.verdicts():
                if v["case"] not in known:
                    known.add(v["case"])
                    cases.append(dict(dict.fromkeys(result.columns), case=v["case"],
                                      case_id=v["case_id"] or self.label(v["case"]),
                                      replay_set=None))
            self._all_cases = cases
        return self._all_cases

    def groups(self) -> list[dict]:
        """Each pass-at-k row (a card) with the verdicts it counts and the ones it leaves out, by
        reason, as `sections`: (key, title, trials) where a trial is the verdict of one case and
        trial index, with its assertions and their distinct outcomes, failure causes and infos
        (`outcomes`, `causes`, `infos`: text, one filter chain fewer per row in the page). The counts agree with the row's by construction of the same
        verdict layer; `mismatch` lists any that do not, and the page says so."""
        if self.k in self._groups:
            return self._groups[self.k]
        by_key: dict[tuple, dict[tuple, list]] = {}
        for v in self.verdicts():
            if v["read_by"] not in (None, "pass-at-k"):
                continue
            key = (v["replay_set"], v["system"], v["grader_kind"], v["grader"])
            by_key.setdefault(key, {}).setdefault((v["case"], v["trial"]), []).append(v)
        groups = []
        for row in self.query("pass-at-k", k=self.k).rows:
            key = (row["replay_set"], row["system"], row["grader_kind"], row["grader"])
            trials = [{"case": c, "trial": t, "status": vs[0]["status"], "verdicts": vs,
                       "outcomes": ", ".join(_distinct(v["outcome"] for v in vs)),
                       "causes": ", ".join(_distinct(v["failure_cause"] for v in vs if v["failure_cause"])),
                       "infos": " · ".join(_distinct(v["info"] for v in vs if v["info"]))}
                      for (c, t), vs in sorted(by_key.get(key, {}).items(), key=lambda i: (i[0][0], i[0][1]))]
            counts, labels, words = counting(), exclusions(), exclusion_words()
            counted = [t for t in trials if t["trial"] == 0 and t["status"] in counts]
            sections = [("counted", "counted in pass@1: trial 0 eligible", counted),
                        ("later", "eligible trials after trial 0 (counted in pass@k and pass^k)",
                         [t for t in trials if t["trial"] != 0 and t["status"] in counts])]
            for reason, label in labels.items():
                sections.append((f"excluded-{reason}", f"excluded: {label}",
                                 [t for t in trials if t["status"] in feeding(reason)]))
            mismatch = []
            if len(counted) != row["cases_at_1"]:
                mismatch.append(f"cases_at_1 {row['cases_at_1']} but {len(counted)} trial-0 verdicts listed")
            if sum(t["status"] == "passed" for t in counted) != row["passed_at_1"]:
                mismatch.append("passed_at_1 differs from the passed trial-0 verdicts listed")
            for reason in labels:
                listed = sum(t["status"] in feeding(reason) for t in trials)
                if listed != row[f"excluded_{reason}"]:
                    mismatch.append(f"excluded_{reason} {row[f'excluded_{reason}']} but {listed} listed")
            groups.append({"row": row, "slug": group_slug(*key), "sections": sections, "mismatch": mismatch,
                           "exclusions": [(reason, words[reason]) for reason in labels]})
        self._groups[self.k] = groups
        return groups

    # ── the rows behind the coverage and wrong-description figures ──
    @_once
    def coverage_bars(self) -> list[dict]:
        """Each coverage-summary row (a bar of the coverage chart) with the terms behind it, from
        coverage-exercised-by: `terms` (uncovered first, as the query orders them), each a dict of
        term, covered and its exercising `intents`; `slug` names its page under coverage/. `mismatch`
        lists any count that disagrees with the row's covered or total, and the page says so."""
        by_key: dict[tuple, dict[str, dict]] = {}
        for r in self.query("coverage-exercised-by").rows:
            key = (r["ontology"], r["replay_set"], r["what"], r["scheme"])
            term = by_key.setdefault(key, {}).setdefault(r["term"], {"term": r["term"], "covered": False, "intents": []})
            if r["intent"] is not None:
                term["covered"] = True
                term["intents"].append(r["intent"])
        bars = []
        for row in self.query("coverage-summary").rows:
            key = (row["ontology"], row["replay_set"], row["what"], row["scheme"])
            terms = list(by_key.get(key, {}).values())
            covered = sum(t["covered"] for t in terms)
            mismatch = []
            if len(terms) != row["total"]:
                mismatch.append(f"total {row['total']} but {len(terms)} terms listed")
            if covered != row["covered"]:
                mismatch.append(f"covered {row['covered']} but {covered} exercised terms listed")
            bars.append({"row": row, "slug": drill_slug(f"{row['what']}-{str(row['replay_set']).rsplit('/', 1)[-1]}", *key),
                         "terms": terms, "covered": covered, "mismatch": mismatch})
        return bars

    @_once
    def wrong_descriptions(self) -> list[dict]:
        """Each wrong-description-reach row (a rate, per replay set and system) with every situation
        behind it, from wrong-description-situations of the same replay set and system: `counted`,
        the denominator (reached under the expected, a candidate or a wrong description), then
        `excluded`, the situations the rate leaves out (reach unknown or ungraded), with why; `rows`
        is the two in that order (what the pages list); `wrong` the counted ones reached under a
        wrong description, `satisfied` those of them that satisfy the expected description all the
        same. `slug` names its page under wrong-descriptions/; `mismatch` lists any count that
        disagrees with the row's, and the page says so."""
        by_key: dict[tuple, list[dict]] = {}
        for r in self.query("wrong-description-situations").rows:
            by_key.setdefault((r["replay_set"], r["system"]), []).append(r)
        groups = []
        for row in self.query("wrong-description-reach").rows:
            rows = by_key.get((row["replay_set"], row["system"]), [])
            counted = [r for r in rows if r["counted"]]
            excluded = [r for r in rows if not r["counted"]]
            wrong = [r for r in counted if r["reach"] == "wrong"]
            satisfied = sum(bool(r["satisfies_expected"]) for r in wrong)
            mismatch = []
            for column, listed in (("situations", len(counted)), ("wrong", len(wrong)),
                                   ("satisfied_under_wrong", satisfied),
                                   ("unknown_reach", sum(r["reach"] == "unknown" for r in excluded)),
                                   ("ungraded", sum(r["reach"] == "ungraded" for r in excluded))):
                if listed != row[column]:
                    mismatch.append(f"{column} {row[column]} but {listed} situations listed")
            groups.append({"row": row, "slug": drill_slug(str(row["system"]).rsplit("/", 1)[-1], row["replay_set"], row["system"]),
                           "counted": counted, "excluded": excluded, "rows": counted + excluded,
                           "wrong": len(wrong), "satisfied": satisfied, "mismatch": mismatch})
        return groups

    def matrix(self, number: int = 1) -> dict:
        """Cases × systems, each cell the trials' current verdicts per grader kind, in the spirit of
        W3C implementation reports (earl-report's table): page `number` of MATRIX_CASES cases, with
        the systems that have a verdict on them (no empty columns). Every case a verdict names is a
        row, in a replay set or not; each mark links to its verdict on the case's page."""
        cases = self.all_cases()
        by_case = self.verdicts_by_case()
        pages = max(1, -(-len(cases) // MATRIX_CASES))
        shown = cases[(number - 1) * MATRIX_CASES: number * MATRIX_CASES]
        on_page = [v for case in dict.fromkeys(c["case"] for c in shown) for v in by_case.get(case, ())]
        cells: dict[tuple, dict[str, list]] = {}
        for v in on_page:
            cells.setdefault((v["case"], v["system"]), {}).setdefault(v["grader_kind"], []).append(v)
        for marks in cells.values():
            for kind in marks:
                marks[kind].sort(key=lambda v: (v["trial"], v["grader"] or ""))
        return {"cases": shown, "systems": sorted({case_system[1] for case_system in cells}), "cells": cells,
                "kinds": sorted({v["grader_kind"] for v in on_page}),
                "statuses": sorted({v["status"] for v in on_page if v["status"]}),
                "number": number, "pages": pages, "total": len(cases)}

    @staticmethod
    def pivot(result: catalogue.Result, keys: list[str], column: str, value: str) -> dict:
        """A long result as a grid: one row per distinct `keys`, one column per `column` value, in
        the order the query gives them."""
        columns: list = []
        grid: dict[tuple, dict] = {}
        for row in result.rows:
            if row[column] not in columns:
                columns.append(row[column])
            grid.setdefault(tuple(row[k] for k in keys), {})[row[column]] = row[value]
        return {"columns": columns, "rows": [(key, cells) for key, cells in grid.items()]}



def paginate(items: list, size: int | None = None) -> list[list]:
    """`items` in pages of `size` (PAGE_ROWS by default; one empty page for none)."""
    size = size or PAGE_ROWS
    return [items[i:i + size] for i in range(0, len(items), size)] or [[]]


def page_file(stem: str, number: int) -> str:
    """Page 1 is stem.html, page n is stem-n.html."""
    return f"{stem}.html" if number == 1 else f"{stem}-{number}.html"


def adapted_k(site) -> tuple[int, int]:
    """(k, most): the default k when none is given - 3, or the most eligible trials any case has
    (per system, grader and kind: the eligible-trials query) when that is fewer, so pass@k and pass^k
    have cases to read."""
    most = max((row["most_eligible_trials"] or 0 for row in site.query("eligible-trials").rows), default=0)
    return (min(3, most) if most else 3), most

