"""The kg command line. Exit status: 0 all went well, 1 a file was rejected (or a gate failed),
2 the command was called wrongly, 3 a coverage gate was missed, 4 a `kg compare` regression gate
failed."""
from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path

import click

from .. import catalogue, damage, output
from .. import report as report_module
from ..errors import OutputUnwritable, UsageError
from ..layers import LayerError
from ..store import locate, wait_seconds

# the rooms, one job each: every name each defines is re-exported here, reachable as kg.cli.NAME
# as when kg/cli.py held them all (the tests import kg.cli._prefixes)
from .shared import (
    EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_GATE, EXIT_REGRESSION, _keep_endpoint, store_option, _where, _open,
    format_option, table_options, _print_rows, _prefixes, _iri, _system_iri, _set_iri)
from .loading import (
    _list_kinds, _progress, _progress_lines, _report, _warning_summary, import_options, _import_options, load,
    validate)
from .sources import stats, _short, _source_graph, drop, erase, reset
from .reading import queries, _named, _describe, _parse_params, query, history, _history_subjects
from .adhoc import _list_prefixes, sparql, _syntax_error, _query_text, UPDATE_FORMS, _PROLOGUE, _query_form

# the name kg is installed under (pyproject.toml [project].name): "kg" on PyPI is another project
DISTRIBUTION = "kg-evalgraph"


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name=DISTRIBUTION, prog_name="kg")
def cli():
    """kg — the evaluation knowledge graph.

    Load replay sets, gold descriptions, delivered situations and EARL results into an
    embedded Oxigraph store, checked with SHACL, and ask it questions.

    \b
    Typical session:
      kg load examples/            # every file under examples/, sets before gold before results
      kg stats                     # what is loaded: sources, kinds, digests, triples, warnings
      kg validate new.gold.json    # would this file load? (writes nothing)
      kg drop examples/old.earl.jsonl
    """


# each room's commands, on the group (`kg --help` lists them by name)
cli.add_command(load)
cli.add_command(validate)
cli.add_command(stats)
cli.add_command(drop)
cli.add_command(erase)
cli.add_command(reset)
cli.add_command(queries)
cli.add_command(query)
cli.add_command(history)
cli.add_command(sparql)


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


@cli.command()
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


def _protected(store_path) -> dict[str, Path]:
    """Places a report's --out must never replace: the embedded store (none for a remote engine)."""
    where = _where(store_path)
    return {} if where.endpoint or where.path == ":memory:" else {"the store": Path(where.path)}


@cli.group(invoke_without_command=True)
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help=f"Where to write the site (default {report_module.DEFAULT_OUT}).")
@click.option("-k", "k", type=click.IntRange(min=1), default=None,
              help="The k of pass@k and pass^k (at least 1). Default 3, or the most eligible trials any case "
                   "has (per system, grader and kind) when that is fewer.")
@click.option("--compare", "compare_pairs", nargs=2, multiple=True, metavar="BASELINE CANDIDATE",
              help="Also compare these two systems on the compare page (repeatable); the latest two per replay "
                   "set are always compared.")
@store_option
@click.pass_context
def report(ctx, out, k, compare_pairs, store_path):
    """Render the HTML report: a static site of every page, from the named queries.

    The site is self-contained (no network, no CDN): open its index.html from disk or
    serve the folder. It is built aside and swapped in with one atomic rename.

    \b
    Examples:
      kg report                          # build/report/index.html
      kg report --out /srv/www/kg -k 2
      kg report --compare cubby@1.4.0 cubby@1.5.0-rc1
      kg report coverage --history coverage-history --fail-under 90
    """
    ctx.ensure_object(dict)
    ctx.obj.update(store_path=store_path, k=k)
    if ctx.invoked_subcommand is not None:
        return
    target = Path(out or report_module.DEFAULT_OUT)
    report_module.check_out(target.absolute(), _protected(store_path))  # before any work: refused at once
    store = _open(store_path, read_only=True)
    pairs = [tuple(_system_iri(store, name) for name in pair) for pair in compare_pairs]
    report_module.publish(target, lambda folder: report_module.render_site(
        store, folder, _prefixes(store), params={"k": k, "compare": pairs}), _protected(store_path))
    click.echo(f"report written: {(target / 'index.html').absolute()}")


@report.command("coverage")
@click.option("--history", type=click.Path(file_okay=False), required=True,
              help="Folder of coverage snapshots: one JSON file is added per run.")
@click.option("--out", type=click.Path(file_okay=False), default="build/coverage", show_default=True,
              help="Where to write the coverage page.")
@click.option("--fail-under", type=click.FloatRange(0, 100), default=None,
              help="Exit with status 3 when class coverage is below this percentage.")
@store_option
@click.pass_context
def report_coverage(ctx, history, out, fail_under, store_path):
    """Snapshot coverage into a history folder and render the coverage page with its trend.

    Safe from cron: every run adds a snapshot (even when nothing changed), the page is
    built aside and swapped in atomically under a lock, errors go to stderr with a
    non-zero status. With --fail-under, exits 3 when class coverage is below PCT, like
    coverage tools' gates.

    \b
    Examples:
      kg report coverage --history coverage-history
      kg report coverage --history coverage-history --fail-under 90 || echo "coverage gate missed"
    \b
    crontab (daily at 06:00):
      0 6 * * * cd /srv/kg && .venv/bin/kg report coverage --history history --out /srv/www/coverage
    """
    store_path = store_path or ctx.obj["store_path"]  # --store after `coverage` as well as before it
    target, protected = Path(out), _protected(store_path)
    report_module.check_out(target.absolute(), protected)
    store = _open(store_path, read_only=True)
    snapshot = report_module.coverage_snapshot(store, store.sources())
    path = report_module.write_snapshot(Path(history), snapshot)
    trend, foreign = report_module.read_history(Path(history))
    for skipped in foreign:
        click.echo(f"kg report coverage: warning: {skipped} (skipped, left as it is)", err=True)
    report_module.publish(target, lambda folder: report_module.render_site(
        store, folder, _prefixes(store), pages=["coverage"],
        extra={"trend": trend, **({"threshold": fail_under / 100} if fail_under is not None else {})}, params={"k": ctx.obj["k"]}),
        protected)
    figures = snapshot["class_coverage"]
    rate = figures["rate"]
    shown = "not computable (no class loaded)" if rate is None else f"{100 * rate:.1f}% ({figures['covered']} of {figures['total']} classes)"
    click.echo(f"class coverage {shown}; snapshot {path}; page {(target / 'coverage.html').absolute()}")
    if fail_under is not None and (rate is None or 100 * rate < fail_under):
        click.echo(f"kg report coverage: class coverage is below --fail-under {fail_under:g}%", err=True)
        sys.exit(EXIT_GATE)


@cli.command()
@click.option("--bind", default="127.0.0.1:7878", show_default=True, help="Host and port to listen on.")
@store_option
def serve(bind, store_path):
    """Serve the embedded store as a read-only SPARQL 1.1 endpoint (Oxigraph server).

    For notebooks and dashboards on the same machine: the default graph is the union of
    all graphs, as the catalogue expects, so `--endpoint http://BIND` runs every named
    query there. A query holding SERVICE is refused (400): the server would fetch that
    address for any client. Needs the `oxigraph` package (installed with kg's dev extras).

    \b
    Examples:
      kg serve                                   # http://127.0.0.1:7878/query
      kg query pass-at-k --endpoint http://127.0.0.1:7878
    """
    import shutil
    where = locate(store_path, endpoints=False)
    if not where.exists():
        raise click.ClickException(where.missing())
    path = where.path
    binary = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")
    if not Path(binary).exists():
        raise click.ClickException("the Oxigraph server is not installed: pip install oxigraph")
    click.echo(f"serving {path} read-only at http://{bind}/query (Ctrl-C to stop)", err=True)
    from ..serve import serve as serve_store
    try:
        serve_store(binary, path, bind)
    except KeyboardInterrupt:
        pass
    except (OSError, RuntimeError) as err:
        raise click.ClickException(f"cannot serve {path} at {bind}: {err}") from None


def main():
    try:
        wait_seconds()  # KG_WAIT checked by every command, not only by one that comes to wait
        damage.watching(True)  # a damaged store ends the command with a message, never a spin (kg/damage.py)
        cli(standalone_mode=False)
    except click.exceptions.Abort:
        sys.exit(EXIT_USAGE)
    except UsageError as err:
        click.echo(f"kg: {err}", err=True)
        sys.exit(EXIT_USAGE)
    except click.UsageError as err:
        err.show()
        sys.exit(EXIT_USAGE)
    except click.ClickException as err:
        err.show()
        sys.exit(EXIT_REJECTED)
    except catalogue.ParameterError as err:  # a value given on the command line (kg history, kg compare)
        click.echo(f"kg: {err}", err=True)
        sys.exit(EXIT_USAGE)
    except (catalogue.CatalogueError, LayerError, OutputUnwritable) as err:  # a query or layer file is wrong, or a disk full
        click.echo(f"kg: {err}", err=True)
        sys.exit(EXIT_REJECTED)
    except FileNotFoundError as err:
        # a reader's view of a store whose writer compacted a table file away mid-command (kg.store)
        table = re.search(r"(\S+)/\d+\.(?:sst|log)\b", str(err))
        if table is None:
            raise
        from ..store import changed_under_reader
        click.echo(f"kg: {changed_under_reader(table.group(1), err)}", err=True)
        sys.exit(EXIT_REJECTED)
    except RuntimeError as err:
        if "Corruption" not in str(err):
            raise
        # RocksDB checks each block it reads: flipped bytes in a store's file surface in the first
        # query that reads them, not when the store opens; its words name the table file, in the store
        problem = " ".join(str(err).split())
        table = re.search(r"(/\S+)/\d+\.(?:sst|log)\b", problem)
        if table:
            click.echo(damage.message(table.group(1), problem), err=True)
        else:
            click.echo(f"kg: the store is damaged: a read met a corrupted block ({problem}); no answer was given "
                       f"from it. Restore the store from a backup, or move it aside and load your files again into "
                       f"a new one", err=True)
        sys.exit(EXIT_REJECTED)
    except Exception as err:  # a remote engine's failure: say what and where, never a traceback
        from ..errors import StoreUnavailable
        if not isinstance(err, StoreUnavailable):
            raise
        click.echo(f"kg: {err}", err=True)
        sys.exit(EXIT_REJECTED)
