"""The kg command line. Exit status: 0 all went well, 1 a file was rejected (or a gate failed),
2 the command was called wrongly, 3 a coverage gate was missed, 4 a `kg compare` regression gate
failed.

The group and main() are here; the commands live in rooms of their own, one job each (issue 44):
shared.py what every command uses (the store it works on, the options and printing of rows),
loading.py kg load and kg validate, sources.py kg stats, drop, erase and reset, reading.py kg queries,
query and history, adhoc.py kg sparql, comparing.py kg compare and its gate, publishing.py kg report,
kg report coverage and kg serve."""
from __future__ import annotations

import re
import sys

import click

from .. import catalogue, damage
from ..errors import OutputUnwritable, UsageError
from ..layers import LayerError
from ..store import wait_seconds

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
from .publishing import _protected, report, report_coverage, serve

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
cli.add_command(report)
cli.add_command(serve)


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
        click.echo(damage.message(table.group(1) if table else None, problem), err=True)
        sys.exit(EXIT_REJECTED)
    except Exception as err:  # a remote engine's failure: say what and where, never a traceback
        from ..errors import StoreUnavailable
        if not isinstance(err, StoreUnavailable):
            raise
        click.echo(f"kg: {err}", err=True)
        sys.exit(EXIT_REJECTED)
