"""What the store holds and how a source leaves it: kg stats, kg drop (withdrawn, kept readable),
kg erase (destroyed, a legal removal) and kg reset."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .shared import EXIT_REJECTED, EXIT_USAGE, store_option, _where, _open


@click.command()
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--warnings/--no-warnings", default=True, help="List each source's SHACL warnings.")
@store_option
def stats(fmt, warnings, store_path):
    """What the store holds: each source with its kind, digest, triples and warnings.

    \b
    Examples:
      kg stats
      kg stats --format json | jq '.sources[] | select(.kind == "earl")'
    """
    store = _open(store_path, read_only=True)
    sources = store.sources()
    derived = store.derived()
    if fmt == "json":
        click.echo(json.dumps({"store": store.path, "quads": len(store), "derived": derived, "sources": [
            {"path": s.path, "graph": s.graph, "kind": s.kind, "sha256": s.sha256, "pins": s.pins,
             "triples": s.triples, "loaded_at": s.loaded_at, "loader": s.loader,
             "warnings": [{k: v for k, v in w.items() if v is not None} for w in s.warnings]}
            for s in sources]}, indent=2))
        return
    rows = [("kind", "triples", "warnings", "info", "sha256", "pins", "path")]
    for s in sources:
        pins = s.pins[0][:19] + (f" (+{len(s.pins) - 1})" if len(s.pins) > 1 else "") if s.pins else ""
        warned = sum(1 for w in s.warnings if w["severity"].endswith("#Warning"))
        informed = sum(1 for w in s.warnings if w["severity"].endswith("#Info"))
        rows.append((s.kind, str(s.triples), str(warned), str(informed), s.sha256[:12], pins, _short(s.path)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        click.echo("  ".join(c.ljust(w) if i in (0, 4, 5, 6) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    data = [s for s in sources if s.kind != "vocabulary"]
    click.echo(f"\n{len(data)} source(s), {sum(s.triples for s in data)} triples "
               f"(+{len(sources) - len(data)} vocabularies); {len(store)} quads in {store.path}")
    withdrawn = store.select("SELECT (COUNT(?w) AS ?n) (SUM(?a) AS ?assertions) WHERE { GRAPH <urn:kg:catalogue> { "
                             "?w a kg:Withdrawal ; kg:withdrawnAssertions ?a FILTER NOT EXISTS { ?w kg:revisedAs ?later } } }")
    if withdrawn and int(withdrawn[0][0].value):
        click.echo(f"withdrawn: {withdrawn[0][0].value} source(s) by kg drop, {withdrawn[0][1].value} assertion(s) out "
                   f"of every rate; kept readable (kg history SOURCE)")
    for layer in derived:  # not sources: made from them by the rules in queries/layers/
        state = "" if layer["current"] else " (out of date: rebuilt when the store is next opened for writing)"
        click.echo(f"derived: {layer['name']} — {layer['nodes']} nodes, {layer['triples']} triples in "
                   f"{layer['graph']}, from {_short(layer['rules'])}{state}")
    if warnings:  # warnings (sh:Warning) apart from information (sh:Info): only the first are counted above
        for s in sources:
            for severity, heading in (("warning", "warnings"), ("info", "information (not warnings)")):
                mine = [w for w in s.warnings if w["severity"].rsplit("#", 1)[-1].lower() == severity]
                if not mine:
                    continue
                click.echo(f"\n{heading} in {_short(s.path)}:")
                grouped: dict[str, list] = {}
                for w in mine:
                    grouped.setdefault(w["message"], []).append(w)
                for message, ws in grouped.items():
                    where = ws[0]["value"] or ws[0]["focus"] or "a blank node"
                    more = f" and {len(ws) - 1} more" if len(ws) > 1 else ""
                    click.echo(f"  {severity}: {message} — {where}{more}")


def _short(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


def _source_graph(source: str) -> str:
    """A loaded file's graph, from its path (as loaded) or the graph IRI itself."""
    graph = source if "://" in source or source.startswith("urn:") else Path(source).resolve().as_uri()
    try:
        import pyoxigraph as ox
        ox.NamedNode(graph)  # checked before it is written into an update
    except ValueError as err:
        raise click.UsageError(f"{source} is not a loaded file's path or graph IRI ({err}); "
                               f"`kg stats` lists what is loaded") from None
    return graph


@click.command()
@click.argument("source")
@store_option
def drop(source, store_path):
    """Withdraw one source: its graph and record leave the store, and every rate with them.

    What it held stays readable (`kg history SOURCE` shows the withdrawal), and loading the
    file again is judged against it by the append-only rules (`--revise` accepts a changed
    one, kept as a revision). `kg erase` is the one command that destroys a source's words.

    SOURCE is the file's path (as loaded) or its graph IRI.

    \b
    Example:
      kg drop examples/cubby-routing.earl.jsonl
    """
    graph = _source_graph(source)
    store = _open(store_path)
    if store.drop_source(graph):
        store.flush()
        click.echo(f"dropped {source} (withdrawn: kept readable in the record; `kg history {source}` shows it)")
    else:
        click.echo(f"kg drop: {source} is not loaded (see `kg stats` for what is)", err=True)
        sys.exit(EXIT_REJECTED)


@click.command()
@click.argument("source")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@store_option
def erase(source, yes, store_path):
    """Destroy a source's words for good (a legal removal): its graph if it is loaded, and the
    content every earlier version and withdrawal of it kept. `kg drop` withdraws and keeps;
    only this destroys. The history keeps that it happened (a kg:Erasure: when, which digests).

    SOURCE is the file's path (as loaded) or its graph IRI.

    \b
    Example:
      kg erase runs/leaked.earl.jsonl --yes
    """
    graph = _source_graph(source)
    store = _open(store_path)
    loaded = store.source_sha256(graph) is not None
    if not loaded and not store.ask(f"ASK {{ GRAPH <urn:kg:catalogue> {{ ?r prov:specializationOf <{graph}> ; "
                                    f"kg:content|kg:change ?words }} }}"):
        click.echo(f"kg erase: nothing of {source} is kept (not loaded, no earlier version or withdrawal with "
                   f"its words); `kg history {source}` shows what happened to it", err=True)
        sys.exit(EXIT_REJECTED)
    what = ("its graph (it is loaded) and " if loaded else "") + "the words every earlier version and withdrawal of it kept"
    if not yes and not click.confirm(f"Destroy {what}, for good? kg history will say only that it happened", err=True):
        sys.exit(EXIT_USAGE)
    digests = store.erase_source(graph)
    store.flush()
    click.echo(f"erased {source}: {what} ({len(digests)} version(s): {', '.join(d[:12] for d in digests)}); "
               f"kg history {source} shows the erasure")


@click.command()
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@store_option
def reset(yes, store_path):
    """Empty the store: every source, the catalogue and the vocabularies."""
    path = _where(store_path)
    if not yes and not click.confirm(f"Remove everything from {path}?", err=True):
        sys.exit(EXIT_USAGE)
    store = _open(store_path)
    store.reset()
    store.flush()
    click.echo(f"reset {path}")
