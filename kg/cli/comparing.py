"""kg compare: a candidate system against its baseline, case by case, never pooled, and the gate
CI runs it as (exit 4 and why)."""
from __future__ import annotations

import difflib
import sys

import click

from .. import catalogue, output
from .shared import (
    EXIT_REGRESSION, store_option, _open, format_option, table_options, _print_rows, _prefixes, _system_iri,
    _set_iri)


# the columns `kg compare` shows in a table; csv, tsv and json give every column of the query
COMPARE_TABLE = ["replay_set", "grader_kind", "grader", "status", "cases", "paired_cases", "regressed", "improved",
                 "unchanged", "new_wrong_answers", "baseline_only", "candidate_only", "excluded_cases",
                 "pass1_cases", "pass_at_1_difference", "pass_at_1_difference_low", "pass_at_1_difference_high",
                 "mcnemar_p", "pass_rate_difference", "pass_rate_difference_low", "pass_rate_difference_high"]


# the grader kinds a verdict may have (pass-at-k's grader_kind column): a gate names one of these
GRADER_KINDS = ("mechanical", "model", "human", "undeclared")


def compare_gate(rows, kinds, fail_on_regression: bool, max_drop: float | None, new_wrong_answers: bool,
                 name=lambda iri: iri) -> list[str]:
    """Why the gate fails (nothing when it passes). Each grader kind is judged on its own rows,
    never pooled; a kind named but not compared, or a row of it refused, fails the gate: it cannot
    show there is no regression."""
    reasons = []
    present = sorted({r["grader_kind"] for r in rows})
    for kind in (kinds or present):
        mine = [r for r in rows if r["grader_kind"] == kind]
        if not mine:
            reasons.append(f"{kind}: no verdicts of this grader kind to compare (kinds here: {', '.join(present) or 'none'})")
        for r in mine:
            where = f"{kind}, {name(r['replay_set']) if r['replay_set'] else 'no replay set'}, {name(r['grader'])}"
            if r["status"].kind != "compared":
                reasons.append(f"{where}: not compared ({r['status']})")
                continue
            if fail_on_regression and r["regressed"]:
                reasons.append(f"{where}: {r['regressed']} case(s) regressed")
            high = r["pass_rate_difference_high"]
            if max_drop is not None and high is not None and high < -max_drop:
                reasons.append(f"{where}: the pass rate fell by more than {max_drop:g} (95% interval upper bound {high:+.4f})")
            if new_wrong_answers and r["new_wrong_answers"]:
                reasons.append(f"{where}: {r['new_wrong_answers']} new wrong answer(s)")
    return reasons


@click.command()
@click.argument("baseline")
@click.argument("candidate")
@click.option("--replay-set", metavar="SET", help="Compare the cases of this replay set only (its id or IRI).")
@click.option("--tolerance", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="A per-case pass-rate drop up to this much is not a regression.")
@click.option("--fail-on-regression", is_flag=True, help="Exit 4 when a case regressed under a gated grader kind.")
@click.option("--gate-kind", "gate_kinds", multiple=True, metavar="KIND",
              help="A grader kind the gate judges (repeatable; default: every kind compared, each on its own).")
@click.option("--max-drop", type=click.FloatRange(0, 1), default=None, metavar="DROP",
              help="Exit 4 when the upper bound of the 95% interval of a gated row's pass-rate difference is "
                   "below -DROP: the candidate is worse by more than DROP.")
@click.option("--new-wrong-answers", "strict", is_flag=True,
              help="The strict gate: exit 4 on any new wrong answer (a case the baseline passes by majority "
                   "of trials and the candidate fails by majority) under a gated kind.")
@format_option
@table_options
@store_option
def compare(baseline, candidate, replay_set, tolerance, fail_on_regression, gate_kinds, max_drop, strict, fmt,
            wide, chosen, store_path):
    """Compare a candidate system with its baseline, case by case.

    BASELINE and CANDIDATE are systems: the id their results gave them (cubby@1.4.0) or
    their IRI. Cases are paired within one replay set; rows per replay set, grader kind
    and grader, never pooled (the catalogue query `compare`, documented in
    docs/queries.md). The table is followed by the regressed cases per grader kind.

    With --fail-on-regression, --max-drop or --new-wrong-answers, kg compare is a gate
    for CI: it exits 4 and says why when a gated grader kind has a regressed case (or
    a new wrong answer, or a drop beyond DROP), or when it cannot be compared (refused,
    or no verdicts of that kind).

    \b
    Examples:
      kg compare cubby@1.4.0 cubby@1.5.0-rc1
      kg compare cubby@1.4.0 cubby@1.5.0-rc1 --replay-set cubby-regression --format json
      kg compare cubby@1.4.0 cubby@1.5.0-rc1 --fail-on-regression --gate-kind mechanical
      kg compare cubby@1.4.0 cubby@1.5.0-rc1 --fail-on-regression --max-drop 0.05 --tolerance 0.34
      kg compare cubby@1.4.0 cubby@1.5.0-rc1 --new-wrong-answers || echo "a new wrong answer"
    """
    unknown = [k for k in gate_kinds if k not in GRADER_KINDS]
    if unknown:  # a typo must not read as a gate failed (exit 4) for a kind with no verdicts
        close = [c for k in unknown for c in difflib.get_close_matches(k, GRADER_KINDS, n=1)]
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise click.UsageError(f"--gate-kind {', '.join(unknown)}: not a grader kind{hint}; the kinds: "
                               f"{', '.join(GRADER_KINDS)}")
    store = _open(store_path, read_only=True)
    params = {"baseline": _system_iri(store, baseline), "candidate": _system_iri(store, candidate),
              "tolerance": tolerance}
    if params["baseline"] == params["candidate"]:
        raise click.UsageError(f"the baseline and the candidate are the same system ({params['baseline']}): "
                               f"compare two different systems")
    if replay_set:
        params["replay_set"] = _set_iri(store, replay_set)
    named = catalogue.load()["compare"]
    result = catalogue.run(named, store, params)
    prefixes = _prefixes(store)
    if fmt != "table" or wide or chosen:
        _print_rows(result.columns, result.rows, fmt, prefixes, named.rates, wide, chosen)
    else:
        click.echo(f"baseline  {output.shorten(params['baseline'], prefixes)}\n"
                   f"candidate {output.shorten(params['candidate'], prefixes)}\n")
        _print_rows(COMPARE_TABLE, result.rows, "table", prefixes, named.rates)
        click.echo("regressed cases, per grader kind:")
        for kind in sorted({r["grader_kind"] for r in result.rows}):
            click.echo(f"  {kind}:")
            for r in (r for r in result.rows if r["grader_kind"] == kind):
                where = f"{output.shorten(r['replay_set'], prefixes) if r['replay_set'] else 'no replay set'}, " \
                        f"{output.shorten(r['grader'], prefixes)}"
                if r["status"].kind != "compared":
                    click.echo(f"    {where}: not compared - {r['status']}")
                elif r["regressed"]:
                    cases = [output.shorten(c, prefixes) for c in r["regressed_cases"].split(", ")]
                    click.echo(f"    {where}: {r['regressed']} of {r['paired_cases']} paired: {', '.join(cases)}")
                else:
                    click.echo(f"    {where}: none of {r['paired_cases']} paired")
        if not result.rows:
            click.echo("  (no verdicts of either system on a case they could share)")
    if fail_on_regression or max_drop is not None or strict:
        reasons = compare_gate(result.rows, list(gate_kinds), fail_on_regression, max_drop, strict,
                               lambda iri: output.shorten(iri, prefixes))
        for reason in reasons:
            click.echo(f"kg compare: gate failed: {reason}", err=True)
        if reasons:
            sys.exit(EXIT_REGRESSION)
        click.echo(f"kg compare: gate passed ({', '.join(gate_kinds) or 'every grader kind'})", err=True)
