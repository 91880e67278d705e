"""What every kg command shares: the exit statuses, the store it works on (--store, --endpoint,
opened by _open), and the options and printing of an answer's rows and of its IRIs."""
from __future__ import annotations

import click

from .. import output
from ..errors import StoreBusy
from ..store import Store, Where, locate
from ..terms import PREFIXES


EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_GATE, EXIT_REGRESSION = 0, 1, 2, 3, 4


def _keep_endpoint(ctx, _, value):
    # ctx.meta is shared by a group and its subcommand: an option left out must not undo one given
    if value:
        ctx.meta["kg.endpoint"] = value


def store_option(command):
    """--store PATH for the embedded store, --endpoint URL for a remote SPARQL 1.1 server; neither
    reads the environment itself: kg.store.locate weighs them, KG_ENDPOINT, KG_STORE and kg.toml."""
    command = click.option("--endpoint", metavar="URL", expose_value=False,
                           callback=_keep_endpoint,
                           help="A SPARQL 1.1 server to use instead of the embedded store (env KG_ENDPOINT; "
                                "see docs/remote.md).")(command)
    return click.option("--store", "store_path", metavar="PATH",
                        help="The store folder (else KG_ENDPOINT, KG_STORE, kg.toml's store, or .kg/store "
                             "found from here upward).")(command)


def _where(store_path) -> Where:
    return locate(store_path, click.get_current_context().meta.get("kg.endpoint"))


def _open(store_path, read_only=False):
    """The store the command works on (kg.store.locate); a command that only reads never creates one."""
    where = _where(store_path)
    if where.endpoint:
        from ..remote import Endpoint, RemoteError, RemoteStore
        try:
            store = RemoteStore(Endpoint.resolve(where.endpoint))
            store.ensure_layers()
            return store
        except RemoteError as err:
            raise click.ClickException(str(err)) from None
    if read_only and not where.exists():
        raise click.ClickException(where.missing())
    try:
        return Store(where.path, read_only=read_only)
    except StoreBusy as err:
        raise click.ClickException(str(err)) from None


format_option = click.option("--format", "fmt", type=click.Choice(output.FORMATS), default="table",
                             show_default=True, help="table for people; csv, tsv or json for pipes.")


def table_options(command):
    """--wide and --columns, for every command that prints an answer's rows."""
    command = click.option("--columns", "chosen", metavar="A,B,C",
                           help="Only these columns, in this order (any format).")(command)
    return click.option("--wide", is_flag=True,
                        help="Every column as it is, nothing folded (the table folds rates, exclusions and "
                             "long ids to fit the terminal).")(command)


def _print_rows(columns, rows, fmt, prefixes, rates=None, wide=False, chosen=None) -> None:
    try:
        text = output.render(columns, rows, fmt, prefixes, rates=rates, wide=wide, chosen=chosen,
                             width=output.terminal_width())
    except output.ColumnError as err:
        raise click.UsageError(str(err)) from None
    click.echo(text, nl=False)


def _prefixes(store: Store) -> dict[str, str]:
    """The prefixes tables shorten IRIs with: kg's vocabularies, the minting base as `id:`, and
    every prefix a loaded replay set declared."""
    prefixes = dict(PREFIXES)
    prefixes["id"] = store.minting_base()
    for prefix, namespace in store.select("SELECT DISTINCT ?p ?ns WHERE { GRAPH ?g { ?d sh:prefix ?p ; sh:namespace ?ns } }"):
        prefixes.setdefault(prefix.value, namespace.value)
    return prefixes


def _iri(store, param: str, value: str, prefixes: dict[str, str]) -> str:
    from ..ids import UnknownId, resolve
    try:
        return resolve(store, param, value, prefixes)
    except UnknownId as err:
        raise click.UsageError(str(err)) from None


def _system_iri(store, value: str) -> str:
    return _iri(store, "system", value, _prefixes(store))


def _set_iri(store, value: str) -> str:
    return _iri(store, "replay_set", value, _prefixes(store))
