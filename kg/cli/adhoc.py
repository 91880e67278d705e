"""kg sparql: an ad-hoc SELECT over the union of all graphs, the catalogue's prefixes declared for it,
an update or another form refused, and the engine's parse error shown at its place in the text."""
from __future__ import annotations

import re
from pathlib import Path

import click

from .. import catalogue
from ..terms import PREFIXES
from .shared import store_option, _where, _open, format_option, table_options, _print_rows, _prefixes


def _list_prefixes(store_path) -> None:
    where = _where(store_path)
    prefixes = _prefixes(_open(store_path, read_only=True)) if where.endpoint or where.exists() else dict(PREFIXES)
    width = max(len(p) for p in prefixes) + 1
    for prefix, namespace in prefixes.items():
        click.echo(f"{(prefix + ':').ljust(width)}  {namespace}")


@click.command()
@click.argument("query_text", required=False)
@click.option("--prefixes", "list_prefixes", is_flag=True,
              help="List the prefixes every query may use undeclared, and exit.")
@format_option
@table_options
@store_option
def sparql(query_text, list_prefixes, fmt, wide, chosen, store_path):
    """Run ad-hoc SPARQL (text, or a .rq file) over the union of all graphs.

    The catalogue's prefixes (earl:, apeval:, prov:, dcterms:, kg:, ...), the store's `id:` and the
    prefixes the loaded replay sets declare may be used without a PREFIX line (`--prefixes` lists them);
    a query's own PREFIX lines take precedence.

    \b
    Examples:
      kg sparql 'SELECT ?set ?digest WHERE { ?set apeval:setDigest ?digest }'
      kg sparql queries/results/pass-at-k.rq --format csv     # a catalogue file runs as plain SPARQL too
      kg sparql --prefixes
    """
    if list_prefixes:
        return _list_prefixes(store_path)
    if query_text is None:
        raise click.UsageError("give a SELECT query (its text in quotes, or a .rq file), or --prefixes")
    text = _query_text(query_text)
    form = _query_form(text)
    if form in UPDATE_FORMS:  # else the engine's parser says "expected CONSTRUCT", which misleads
        raise click.UsageError(f"kg sparql runs SELECT queries only, and this is a SPARQL Update ({form}): "
                               f"kg changes a store only by loading files (kg load) or dropping them (kg drop)")
    if form in ("ASK", "CONSTRUCT", "DESCRIBE"):
        raise click.UsageError(f"kg sparql runs SELECT queries only, and this is {form}: rewrite it as a SELECT")
    store = _open(store_path, read_only=True)
    prefixes = _prefixes(store)
    declared = {m.group(1) for m in re.finditer(r"PREFIX\s+([^\s:]*):", catalogue.code_only(text), re.IGNORECASE)}
    # on one line, so that the engine's line numbers are the text's plus one
    prologue = " ".join(f"PREFIX {p}: <{ns}>" for p, ns in prefixes.items() if p not in declared)
    try:
        variables, rows = store.select_values(prologue + "\n" + text)
    except SyntaxError as err:
        raise click.UsageError(_syntax_error(str(err), text, prefixes)) from None
    except AttributeError:
        raise click.UsageError("kg sparql runs SELECT queries only") from None
    _print_rows(variables, [dict(zip(variables, r)) for r in rows], fmt, prefixes, None, wide, chosen)


def _syntax_error(message: str, text: str, prefixes: dict[str, str]) -> str:
    """The engine's parser error said shortly, at its place in the text as given: the line with a caret
    under the column, and what was expected (without the character classes the parser lists)."""
    where = re.match(r"error at (\d+):(\d+): (.*)", " ".join(message.split()))
    if not where:
        return f"the query is not valid SPARQL: {message.splitlines()[0][:200]}"
    line, column, expected = int(where.group(1)) - 1, int(where.group(2)), where.group(3)
    lines = text.splitlines() or [""]
    shown = lines[line - 1] if 0 < line <= len(lines) else ""
    caret = " " * max(0, column - 1) + "^"
    if "Prefix not found" in expected:
        start = shown.rfind(" ", 0, column - 1) + 1
        word = shown[start:].split(":", 1)[0] if shown else "?"
        why = (f"the prefix {word}: is not declared: add PREFIX {word}: <...> "
               f"(`kg sparql --prefixes` lists those kg declares)")
    else:
        words = [w.strip(" '\"") for w in re.split(r",\s*", re.sub(r"\[[^\]]*\]", "", expected.removeprefix("expected one of ")))]
        words = [w for w in words if w]
        why = "expected " + (" or ".join(words[:6]) if words else expected[:120])
    return f"the query is not valid SPARQL at line {line}, column {column}: {why}\n  {shown}\n  {caret}"


def _query_text(argument: str) -> str:
    """The argument as a file's content when it names a file, else as the query itself; a word with no
    space or brace (`pass-at-k.rq`) is a file's name, and one that does not exist is said to be missing."""
    try:
        is_file = Path(argument).is_file()
    except (OSError, ValueError):  # a query longer than a file name may be, or holding a NUL
        is_file = False
    if not is_file:
        if not re.search(r"[\s{]", argument):
            raise click.UsageError(f"no query file {argument}: it does not exist (a query given as text "
                                   f"has a {{ ... }} pattern; quote it)")
        return argument
    try:
        return Path(argument).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise click.ClickException(f"cannot read the query file {argument}: "
                                   f"{getattr(err, 'strerror', None) or err}") from None


UPDATE_FORMS = {"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"}
_PROLOGUE = re.compile(r"\s*(?:(?:PREFIX\s+[^\s:]*:\s*<[^>]*>|BASE\s*<[^>]*>)\s*)*([A-Za-z]+)", re.IGNORECASE)


def _query_form(text: str) -> str:
    """The first keyword after the prologue (SELECT, CONSTRUCT, INSERT, ...), comments left out."""
    match = _PROLOGUE.match(catalogue.code_only(text))
    return match.group(1).upper() if match else ""
