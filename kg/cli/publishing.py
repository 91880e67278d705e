"""What kg gives others to read: kg report (the static HTML site), kg report coverage (the coverage
page and its history, a gate safe from cron) and kg serve (a read-only SPARQL endpoint)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .. import report as report_module
from ..store import locate
from .shared import EXIT_GATE, store_option, _where, _open, _prefixes, _system_iri


def _protected(store_path) -> dict[str, Path]:
    """Places a report's --out must never replace: the embedded store (none for a remote engine)."""
    where = _where(store_path)
    return {} if where.endpoint or where.path == ":memory:" else {"the store": Path(where.path)}


@click.group(invoke_without_command=True)
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


@click.command()
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
