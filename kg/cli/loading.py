"""kg load and kg validate: files read into the store (or into a scratch copy of it, to check them),
the progress shown while many load, and the summary of what each file came to."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from .. import ingest
from ..errors import UsageError
from ..store import Store
from .shared import EXIT_OK, EXIT_REJECTED, EXIT_USAGE, store_option, _where, _open


def _list_kinds(ctx, value):
    if not value or ctx.resilient_parsing:
        return
    from ..loading import registry
    for spec in sorted(registry().values(), key=lambda s: s.order):
        sniff = " (by content)" if spec.sniff else ""
        click.echo(f"{spec.kind:12} {', '.join(spec.patterns)}{sniff}")
    ctx.exit(0)


def _progress(files):
    if len(files) < 2:
        return files
    if not sys.stderr.isatty():
        return _progress_lines(files)
    return click.progressbar(files, label="loading", file=sys.stderr,
                             item_show_func=lambda item: Path(item[0]).name if item else "")


def _progress_lines(files, every: float = 5.0):
    """Progress for a log or a pipe: a line on stderr at most every `every` seconds (and at the end),
    each written at once, so that a long load of many files shows how far it got."""
    import time
    started = last = time.monotonic()
    for done, item in enumerate(files):
        yield item
        now = time.monotonic()
        if now - last >= every or done + 1 == len(files):
            last = now
            sys.stderr.write(f"kg load: {done + 1} of {len(files)} files done in {now - started:.0f} s "
                             f"(last: {item[0]})\n")
            sys.stderr.flush()


def _report(outcomes, verb: str) -> int:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
        if o.status in ("rejected", "failed"):
            click.echo(f"{o.status} {o.path}:", err=True)
            for problem in o.problems:
                click.echo(f"  {problem}", err=True)
        elif o.status in ("loaded", "valid"):
            n = sum(1 for w in o.warnings if w["severity"].endswith("#Warning"))
            warn = f", {n} warning(s)" if n else ""
            click.echo(f"{o.status:9} {o.path} ({o.kind}, {o.triples} triples{warn})")
        elif o.status == "unchanged":
            click.echo(f"unchanged {o.path} (skipped: same sha256 as loaded)")
        elif o.status == "skipped":
            click.echo(f"skipped  {o.path}: {o.problems[0].message}", err=True)
    order = ["loaded", "valid", "unchanged", "skipped", "rejected", "failed"]
    summary = ", ".join(f"{counts[k]} {k}" for k in order if counts.get(k))
    bad = counts.get("rejected") or counts.get("failed")
    click.echo(f"{verb}: {summary or 'no input files found'}", err=bool(bad))
    _warning_summary([o for o in outcomes if o.status in ("loaded", "valid")], verb)
    return EXIT_REJECTED if bad else EXIT_OK


def _warning_summary(outcomes, verb: str) -> None:
    """The SHACL warnings of the files just read, one line per kind of warning with its count and the
    number of files (a folder of real EARL reports raises thousands, all of a few kinds); each
    warning, with its file and place, is on `kg stats --warnings`."""
    kinds: dict[str, list] = {}
    for o in outcomes:
        for w in o.warnings:
            if w["severity"].endswith("#Warning"):
                kinds.setdefault(w["message"], []).append(o.path)
    if not kinds:
        return
    total, files = sum(map(len, kinds.values())), len({f for fs in kinds.values() for f in fs})
    click.echo(f"{total} warning(s) in {files} file(s), by kind:")
    for message, where in sorted(kinds.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        click.echo(f"  {len(where):>6}  {message} ({len(set(where))} file(s))")
    click.echo("  (each with its file and place: kg stats --warnings)" if verb == "load" else
               "  (each with its place: kg load the files, then kg stats --warnings)")


def import_options(fn):
    """The facts another tool's files may not state (kg.loading.LOAD_OPTIONS), for the loaders that
    read them (Inspect AI logs, tau-bench results)."""
    for option in reversed([
            click.option("--system", metavar="ID", help="The system under test, where a file does not name it "
                         "(tau-bench: else from the file name)."),
            click.option("--replay-set", metavar="ID", help="The replay set of a file's cases, where the file does "
                         "not name it (tau-bench: else from the file name)."),
            click.option("--grader-kind", metavar="NAME=KIND", multiple=True,
                         help="A grader's (scorer's) kind: mechanical, model or human; repeatable."),
            click.option("--threshold", metavar="NAME=SCORE", multiple=True,
                         help="A numeric score at or above SCORE passes under grader NAME; repeatable. "
                         "Without one a numeric score is kept but not counted."),
            click.option("--test-base", metavar="IRI", help="W3C manifests: the IRI the suite's reports resolve "
                         "the manifest's folder against (SHACL: urn:x-shacl-test:/).")]):
        fn = option(fn)
    return fn


def _import_options(system=None, replay_set=None, grader_kind=(), threshold=(), test_base=None) -> dict:
    def pairs(values, flag, convert):
        out = {}
        for value in values:
            name, sep, right = value.partition("=")
            if not sep or not name:
                raise click.UsageError(f"{flag} takes NAME=VALUE, got {value!r}")
            try:
                out[name] = convert(right)
            except ValueError as err:
                raise click.UsageError(f"{flag} {value!r}: {err}") from None
        return out

    def kind(value):
        if value not in ("mechanical", "model", "human"):
            raise ValueError("the kind is one of mechanical, model, human")
        return value

    def number(value):
        result = float(value)
        if result != result or result in (float("inf"), float("-inf")):
            raise ValueError("the threshold is a finite number")
        return result
    return {"system": system, "replay_set": replay_set, "test_base": test_base,
            "grader_kind": pairs(grader_kind, "--grader-kind", kind),
            "threshold": pairs(threshold, "--threshold", number)}


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())  # kg.ingest.discover says what is missing
@click.option("--kind", help="Read every file as this kind instead of recognising it "
              "(a loader's kind: `kg load --kinds` lists them).")
@click.option("--kinds", is_flag=True, is_eager=True, expose_value=False, callback=lambda ctx, _, value: _list_kinds(ctx, value),
              help="List the loaders' kinds and the file names each reads, and exit.")
@click.option("--base", metavar="IRI", envvar="KG_BASE", help="Mint IRIs for plain ids under this base "
              "(fixed by the store's first load; env KG_BASE).")
@click.option("--force", is_flag=True, help="Reload files even when their bytes are unchanged (or to reload "
              "them with other --system, --replay-set, --grader-kind or --threshold).")
@click.option("--revise", is_flag=True, help="Accept a changed file whose loaded items changed or disappeared "
              "as a revision: the earlier version stays in the store, linked (prov:wasRevisionOf).")
@click.option("--no-validate", "skip_validation", is_flag=True,
              help="Skip the SHACL check (JSON Schema and reference checks still run); recorded in the catalogue.")
@import_options
@store_option
def load(paths, kind, base, force, revise, skip_validation, store_path, **imported):
    """Load files or folders (recursively) into the store.

    Each file goes into its own named graph, with a catalogue record of its path, kind,
    sha256, loader, time, triple count and the digests it pins. An unchanged file is
    skipped. Evidence is append-only: a changed file whose new items are additions loads
    them; one whose loaded items changed or disappeared is rejected, naming each, unless
    --revise accepts it as a revision (the earlier version stays, readable: kg history FILE).
    A file with an error is rejected whole, the store keeps what it had, and the other files
    still load.

    \b
    Examples:
      kg load examples/
      kg load runs/2026-11-20.earl.jsonl --store /srv/kg/store
      kg load harness-report.json --kind earl     # JSON-LD EARL with a plain .json name
      kg load --revise runs/2026-11-20.earl.jsonl # a corrected file: the earlier version stays
    """
    try:
        ingest.check_arguments(paths, base)  # before the store is opened: a refused command creates no store
    except UsageError as err:
        click.echo(f"kg load: {err}", err=True)
        sys.exit(EXIT_USAGE)
    store = _open(store_path)
    try:
        outcomes = ingest.load(store, paths, kind=kind, base=base, force=force, validate=not skip_validation,
                               revise=revise, progress=_progress, options=_import_options(**imported))
    except UsageError as err:
        click.echo(f"kg load: {err}", err=True)
        sys.exit(EXIT_USAGE)
    sys.exit(_report(outcomes, "load"))


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())  # kg.ingest.discover says what is missing
@click.option("--kind", help="Read every file as this kind instead of recognising it.")
@import_options
@store_option
def validate(paths, kind, store_path, **imported):
    """Check files as `kg load` would, without writing anything.

    References (a gold file's replay set, a result's intent and situation) are checked
    against what the store already holds plus the files given, in load order.

    \b
    Example:
      kg validate examples/cubby-routing.gold.json
    """
    where = _where(store_path)
    if where.endpoint or (where.exists() and where.path != ":memory:"):
        # a copy the load cannot reach the store (or the server) through, in memory only when it is small
        scratch_store = _open(store_path, read_only=True).scratch_copy()
    else:
        scratch_store = contextlib.nullcontext(Store(":memory:"))
    try:
        with scratch_store as scratch:
            # force: a file already loaded unchanged is checked all the same, against the rules kg has now
            outcomes = ingest.load(scratch, paths, kind=kind, force=True, options=_import_options(**imported))
    except UsageError as err:
        click.echo(f"kg validate: {err}", err=True)
        sys.exit(EXIT_USAGE)
    for o in outcomes:
        if o.status == "loaded":
            o.status = "valid"
    sys.exit(_report(outcomes, "validate"))
