"""The overview's data: per replay set one compact matrix - rows grader kind and grader, columns the
systems latest first, each cell pass@1 with n/N and its interval, pass^k beside it, what was
excluded, and the change against the previous system (compare's paired pass@1 difference), marked
when its 95% interval excludes 0 - with the set's coverage, and what needs attention, counted."""
from __future__ import annotations

from ..status import status_kind
from .cells import drill_slug, group_slug
from .statuses import exclusion_words, exclusions

COLUMNS = 4  # systems per matrix; older systems go into further matrices, folded under the first


def _set_anchor(replay_set) -> str:
    return "set-" + drill_slug(str(replay_set or "none").rsplit("/", 1)[-1], replay_set)


class Overview:
    """The Site's overview: `overview()` once per render (it reads pass-at-k, system-runs,
    replay-sets, coverage-summary and, per pair of systems next to each other in time, compare)."""

    @staticmethod
    def overview_anchor(replay_set) -> str:
        """The id of a replay set's matrix on the overview."""
        return _set_anchor(replay_set)

    def overview_pairs(self) -> list[tuple]:
        """(replay set, previous system, system): each dated system and the one before it in time on
        the same replay set, whose change the overview shows (compare runs once per pair of systems)."""
        pairs = []
        # only systems with a pass@1 row on the set: a system whose verdicts no pass-at-k row counts
        # (anticipation criteria, profiled cases) has no cell to show a change in
        figured = {(r["replay_set"], r["system"]) for r in self.query("pass-at-k", k=self.k).rows}
        for replay_set, systems in self._systems_by_set().items():
            dated = [s for s in systems if s["first_date"] and (replay_set, s["system"]) in figured]
            for newer, older in zip(dated, dated[1:]):
                pairs.append((replay_set, older["system"], newer["system"]))
        return pairs

    def _systems_by_set(self) -> dict:
        """The system-runs rows per replay set, latest first (by the first date of their results),
        undated ones last."""
        by_set: dict = {}
        for r in self.query("system-runs").rows:
            by_set.setdefault(r["replay_set"], []).append(r)
        for rows in by_set.values():
            dated = sorted((r for r in rows if r["first_date"]), key=lambda r: str(r["first_date"]), reverse=True)
            rows[:] = dated + [r for r in rows if not r["first_date"]]
        return by_set

    def overview(self) -> dict:
        """{"sets": [...], "attention": {...}, "unknown_order": n}: a block per replay set (loaded
        sets in the replay-sets query's order, then sets no loaded file describes, then the cases of
        no replay set), each {anchor, replay_set, title, suite_kind, described, coverage, chunks,
        rows, systems}; `chunks` the systems in matrices of COLUMNS, latest first; each row
        {grader_kind, grader, cells: {system: cell}}, each cell {row (the pass-at-k row), href,
        excluded: [(reason, count, short words, words, href)], change}."""
        if "_overview" in self.__dict__:
            return self.__dict__["_overview"]
        results = self.query("pass-at-k", k=self.k).rows
        described = {r["replay_set"]: r for r in self.query("replay-sets").rows}
        coverage: dict = {}
        for r in self.query("coverage-summary").rows:
            coverage.setdefault(r["replay_set"], []).append(r)
        systems_by_set = self._systems_by_set()
        order = list(described) + [r["replay_set"] for r in results if r["replay_set"] not in described]
        sets, drops, rises, refused, other_gold, not_computable, unknown = [], [], [], [], [], 0, 0
        for replay_set in dict.fromkeys(order):
            rows_of_set = [r for r in results if r["replay_set"] == replay_set]
            if not rows_of_set and replay_set not in described:
                continue
            known = [s["system"] for s in systems_by_set.get(replay_set, [])]
            systems = [s for s in known if any(r["system"] == s for r in rows_of_set)]
            systems += sorted({r["system"] for r in rows_of_set} - set(systems), key=self.label)
            dated = [s["system"] for s in systems_by_set.get(replay_set, []) if s["first_date"] and s["system"] in systems]
            previous = dict(zip(dated, dated[1:]))  # each dated system -> the one before it in time
            dates = {s["system"]: s["first_date"] for s in systems_by_set.get(replay_set, [])}
            rows: dict[tuple, dict] = {}
            for r in rows_of_set:
                key = (r["grader_kind"], r["grader"])
                entry = rows.setdefault(key, {"grader_kind": key[0], "grader": key[1], "cells": {}})
                cell = self._overview_cell(r, previous.get(r["system"]))
                entry["cells"][r["system"]] = cell
                not_computable += r["pass_at_1"] is None
                unknown += r["order_unknown"] or 0
                change = cell["change"]
                if change and change["marked"]:
                    (drops if change["value"] < 0 else rises).append((replay_set, r))
                if change and change["refused"]:
                    refused.append((replay_set, r))
                if change and change["refused_cases"]:
                    other_gold.append((replay_set, r, change["refused_cases"]))
            block = {"anchor": _set_anchor(replay_set), "replay_set": replay_set, "described": replay_set in described,
                     "title": (described[replay_set]["replay_set_id"] if replay_set in described
                               else self.label(replay_set) if replay_set else "Cases of no loaded replay set"),
                     "suite_kind": described[replay_set]["suite_kind"] if replay_set in described else None,
                     "coverage": self._coverage_headline(coverage.get(replay_set, [])),
                     "systems": systems, "dates": dates,
                     "chunks": [systems[i:i + COLUMNS] for i in range(0, len(systems), COLUMNS)] or [[]],
                     "rows": [rows[key] for key in sorted(rows, key=lambda k: (k[0], self.label(k[1])))]}
            sets.append(block)
        attention = {"drops": drops, "rises": rises, "refused": refused, "other_gold": other_gold,
                     "not_computable": not_computable}
        self.__dict__["_overview"] = {"sets": sets, "attention": attention, "unknown_order": unknown}
        return self.__dict__["_overview"]

    def _overview_cell(self, r: dict, previous: str | None) -> dict:
        base = "groups/" + group_slug(r["replay_set"], r["system"], r["grader_kind"], r["grader"]) + "-"
        short = exclusion_words()
        excluded = [(reason, r[f"excluded_{reason}"], short[reason], words, f"{base}excluded-{reason}.html")
                    for reason, words in exclusions().items() if r.get(f"excluded_{reason}")]
        change = None
        if previous is not None:
            compared = [c for c in self.comparison(previous, r["system"], r["replay_set"]).rows
                        if c["grader_kind"] == r["grader_kind"] and c["grader"] == r["grader"]]
            if compared:
                c = compared[0]
                value, low, high = (c.get("pass_at_1_difference"), c.get("pass_at_1_difference_low"),
                                    c.get("pass_at_1_difference_high"))
                refused = status_kind(c["status"]) != "compared"  # the whole row: no number to show
                change = {"against": previous, "status": c["status"], "refused": refused,
                          "refused_cases": c.get("refused_cases") or 0,
                          "value": value, "low": low, "high": high, "n": c.get("pass1_cases"),
                          "marked": value is not None and low is not None and high is not None and (low > 0 or high < 0)}
        return {"row": r, "href": base + "counted.html" if self.drill_pages else None, "excluded": excluded,
                "excluded_total": sum(e[1] for e in excluded), "change": change}

    def _coverage_headline(self, rows: list[dict]) -> list[dict]:
        """A set's coverage in a line: per ontology its classes covered of its classes, and its
        concepts covered of its concepts over its schemes (how many schemes said), each a rate with
        its n/N; the coverage page has every row."""
        headline = []
        for ontology in dict.fromkeys(r["ontology"] for r in rows):
            of = [r for r in rows if r["ontology"] == ontology]
            for what, words in (("class", "classes"), ("concept", "concepts")):
                parts = [r for r in of if r["what"] == what]
                if parts:
                    covered, total = sum(r["covered"] or 0 for r in parts), sum(r["total"] or 0 for r in parts)
                    headline.append({"ontology": ontology, "what": words, "covered": covered, "total": total,
                                     "rate": covered / total if total else None,
                                     "schemes": len(parts) if what == "concept" else None})
        return headline
