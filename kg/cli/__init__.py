"""The kg command line. Exit status: 0 all went well, 1 a file was rejected (or a gate failed),
2 the command was called wrongly, 3 a coverage gate was missed, 4 a `kg compare` regression gate
failed."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from .. import catalogue, damage
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
from .comparing import COMPARE_TABLE, GRADER_KINDS, compare_gate, compare

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
cli.add_command(compare)


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
