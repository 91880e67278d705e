"""The catalogue's named queries on the command line: kg queries lists and describes them, kg query
runs one, kg history reads the audit trail back (the catalogue's `history` query)."""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import click

from .. import catalogue, output, withdrawals
from ..errors import OutputUnwritable
from .shared import store_option, _open, format_option, table_options, _print_rows, _prefixes, _iri


@click.command()
@click.argument("name", required=False)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown"]), default="table", show_default=True)
def queries(name, fmt):
    """List the catalogue of named queries, or describe one.

    \b
    Examples:
      kg queries                    # every query: name, summary, parameters
      kg queries pass-at-k          # one query: description, parameters, columns, file
      kg queries --format markdown > docs/queries.md   # the catalogue's reference page
    """
    entries = catalogue.load()
    if fmt == "markdown":
        click.echo(catalogue.markdown(entries), nl=False)
        return
    if name:
        q = _named(entries, name)
        if fmt == "json":
            click.echo(json.dumps(_describe(q), indent=2))
            return
        click.echo(f"{q.name} — {q.summary}\n")
        if q.description:
            click.echo(textwrap.fill(q.description, 96) + "\n")
        if q.params:
            click.echo("parameters:")
            for p in q.params.values():
                default = f", default {p.default}" if p.default is not None else (", required" if p.required else ", optional")
                rule = f" {p.rule()}" if p.rule() else ""
                click.echo(f"  -p {p.name}=…  ({p.type}{rule}{default})  {p.doc}")
        click.echo("columns:")
        for column in q.output_columns:
            click.echo(f"  {column}: {q.columns[column]}")
        click.echo(f"\nfile: {q.path}")
        return
    if fmt == "json":
        click.echo(json.dumps([_describe(q) for q in entries.values()], indent=2))
        return
    # a query a line (its name and parameters), its summary folded below it to the terminal's width
    width = output.terminal_width() or 100
    for q in entries.values():
        params = " ".join(f"-p {p.name}={p.default if p.default is not None else '…'}" for p in q.params.values())
        click.echo(textwrap.fill(f"{q.name}  {params}".rstrip(), width, subsequent_indent="    ",
                                 break_on_hyphens=False))
        click.echo(textwrap.fill(q.summary, width, initial_indent="    ", subsequent_indent="    ",
                                 break_on_hyphens=False))
    click.echo(f"({len(entries)} queries; kg queries NAME describes one)")


def _named(entries, name):
    try:
        return catalogue.lookup(entries, name)
    except catalogue.UnknownQuery as err:
        raise click.UsageError(str(err)) from None


def _describe(q) -> dict:
    return {"name": q.name, "summary": q.summary, "description": q.description, "path": str(q.path),
            "params": {p.name: {"type": p.type, "default": p.default, "required": p.required, "doc": p.doc,
                                **{k: v for k, v in (("min", p.min), ("max", p.max)) if v is not None}}
                       for p in q.params.values()},
            "columns": {c: q.columns[c] for c in q.output_columns}, "tags": q.tags}


def _parse_params(pairs) -> dict[str, str]:
    params = {}
    for pair in pairs:
        if "=" not in pair:
            raise click.UsageError(f"-p takes key=value, got {pair!r}")
        key, _, value = pair.partition("=")
        params[key.strip()] = value
    return params


@click.command()
@click.argument("name")
@click.option("-p", "--param", "pairs", multiple=True, metavar="KEY=VALUE", help="A parameter (repeatable).")
@format_option
@table_options
@store_option
def query(name, pairs, fmt, wide, chosen, store_path):
    """Run a named query from the catalogue.

    \b
    Examples:
      kg query pass-at-k -p k=2
      kg query pass-at-k -p k=2 --format json | jq '.[] | {system, grader_kind, pass_at_1}'
      kg query coverage-classes --format csv > coverage.csv
      kg query pass-at-k --columns system,grader_kind,pass_at_1,pass_at_1_low,pass_at_1_high

    The table folds each rate with its count, denominator and 95% interval into one
    cell (14/16 87.5% [64.0–96.5]), the exclusion counts into one column, IRIs into
    short ids; --wide shows every column as it is. CSV, TSV and JSON are never folded.
    """
    named = _named(catalogue.load(), name)
    store = _open(store_path, read_only=True)
    params, prefixes = _parse_params(pairs), _prefixes(store)
    try:
        def iri(key):
            return key in named.params and named.params[key].type == "iri"
        # unknown, missing and ill-typed parameters refused before any IRI is looked up
        named.terms({key: "urn:kg:checked-below" if iri(key) else value for key, value in params.items()})
        for key, value in params.items():  # an IRI as kg prints it (short id, prefixed name or IRI)
            if iri(key):
                params[key] = _iri(store, key, value, prefixes)
        if fmt != "table":  # rows written as the engine's answer is read, never held whole
            with catalogue.stream(named, store, params) as (columns, rows):
                try:
                    output.expand(columns, chosen)
                except output.ColumnError as err:
                    raise click.UsageError(str(err)) from None
                try:
                    output.write(columns, rows, fmt, sys.stdout, chosen)
                except BrokenPipeError:
                    raise  # the reader stopped reading (`| head`): as before
                except OSError as err:  # a full disk under a redirect: said, not a traceback
                    raise OutputUnwritable(f"cannot write the answer to standard output: "
                                           f"{err.strerror or err}") from None
            return
        result = catalogue.run(named, store, params)
    except catalogue.ParameterError as err:
        raise click.UsageError(str(err)) from None
    _print_rows(result.columns, result.rows, fmt, prefixes, named.rates, wide, chosen)


@click.command()
@click.argument("subject", required=False)
@format_option
@store_option
def history(subject, fmt, store_path):
    """The audit trail: every version and supersession, with times and digests.

    SUBJECT is a loaded file (its path), a case or an assertion (its id or IRI), or a source's
    graph IRI; without it, every source's versions and every supersession. Nothing in the record is
    rewritten, so this reads it back: each source as loaded, each earlier version a revision
    (kg load --revise) kept, each correction (supersedes) and, for a case or an assertion, each
    assertion as its source stated it. The `history` query of the catalogue, with `of` bound.

    \b
    Examples:
      kg history                                   # sources, revisions, supersessions
      kg history examples/cubby-routing.earl.jsonl # one file's versions
      kg history a-0001                            # one assertion: as stated, revised, superseded
      kg history route-001 --format json           # one case: every assertion on it
    """
    store = _open(store_path, read_only=True)
    named = catalogue.load()["history"]
    subjects = [None] if subject is None else _history_subjects(store, subject)
    rows = []
    for iri in subjects:
        rows += catalogue.run(named, store, {} if iri is None else {"of": iri}).rows
    if len(subjects) > 1:  # several answers merged, in the order the query gives each (its ORDER BY)
        rows = sorted({tuple(sorted(r.items(), key=lambda kv: kv[0])): r for r in rows}.values(),
                      key=lambda r: (str(r.get("time") or ""), r.get("event") not in ("revised", "withdrawn"),
                                     *("" if r.get(c) is None else str(r[c]) for c in ("event", "subject", "detail"))))
    columns = [c for c in named.columns]
    click.echo(output.render(columns, rows, fmt, _prefixes(store), width=output.terminal_width()), nl=False)


def _history_subjects(store, value: str) -> list[str]:
    """What `kg history` is asked about: a file's graph, an IRI as given, or every case and assertion
    whose id (dcterms:identifier) is the value; none is a usage error."""
    import pyoxigraph as ox
    path = Path(value)
    if path.exists():
        return [path.resolve().as_uri()]
    if "://" in value or value.startswith(("urn:", "file:")) or ":" in value and not value.startswith("sha"):
        if withdrawals.in_record(store, value):  # a source or item no longer loaded, that the record keeps
            return [value]
        return [_iri(store, "of", value, _prefixes(store))]  # an IRI or prefixed name: refused when it names nothing
    rows = store.select("""SELECT DISTINCT ?s WHERE { GRAPH ?g { ?s dcterms:identifier ?id }
                           { GRAPH ?h { ?s earl:result ?r } } UNION { GRAPH ?h { ?a earl:test ?s } } }
                           ORDER BY ?s""", id=ox.Literal(value))
    found = [r[0].value for r in rows] or withdrawals.items_named(store, value)
    if not found:
        raise click.UsageError(f"{value!r} is neither a file, an IRI, nor the id of a loaded or withdrawn case or "
                               f"assertion")
    return found
