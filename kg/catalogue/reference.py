"""The catalogue's reference page (docs/queries.md), generated from the queries' headers, with the
scheme of verdict statuses."""
from __future__ import annotations

from .. import paths
from .model import NamedQuery


def markdown(entries: dict[str, NamedQuery]) -> str:
    """The catalogue's reference page, generated from the headers (docs/queries.md)."""
    home = paths.home()
    lines = ["# The query catalogue", "",
             "Generated from the `#+` headers of `queries/**/*.rq` by `kg queries --format markdown`;",
             "a test fails when this page is stale. Run any of them with `kg query NAME -p key=value`,",
             "or from Python with `kg.open().query(NAME, key=value)`. A column marked *boolean* is declared",
             "so in the query's header (`types`): it is true or false from every engine (Virtuoso answers",
             "a computed boolean as 1 or 0; kg reads it back as the header says). A column marked *status*",
             "holds a state word, optionally followed by \": \" and why (\"refused: …\"); code and templates",
             "test its word (`kg.status.Status`: `.kind`, `.why`, `.refused`), never a prefix of its text.", "",
             "| query | summary |", "|---|---|"]
    lines += [f"| [`{q.name}`](#{q.name}) | {q.summary} |" for q in entries.values()]
    for q in entries.values():
        try:
            where = q.path.relative_to(home)
        except ValueError:
            where = q.path
        lines += ["", f"## {q.name}", "", q.summary + ".", ""]
        if q.description:
            lines += [q.description, ""]
        lines += [f"File: `{where}`" + (f" · tags: {', '.join(q.tags)}" if q.tags else ""), ""]
        if q.params:
            lines += ["| parameter | type | default | meaning |", "|---|---|---|---|"]
            for p in q.params.values():
                default = "required" if p.required else ("—" if p.default is None else f"`{p.default}`")
                kind = f"{p.type} {p.rule()}" if p.rule() else p.type
                lines.append(f"| `{p.name}` | {kind} | {default} | {p.doc} |")
            lines.append("")
        derived = {d.column: f"{d.function}({', '.join(d.arguments)})" for d in q.derive}
        lines += ["| column | meaning |", "|---|---|"]
        for c in q.output_columns:
            how = f" (computed: `{derived[c]}`)" if c in derived else ""
            if c in q.types:
                how += f" · *{q.types[c]}*"
            if c in q.rates:
                r = q.rates[c]
                what = "difference over" if r.signed else (f"`{r.count}` /" if r.count else "over")
                interval = f", 95% interval `{r.low}`–`{r.high}`" if r.low and r.high else ""
                how += f" · rate: {what} `{r.of}`{interval}"
            lines.append(f"| `{c}` | {q.columns[c]}{how} |")
    return "\n".join(lines + _statuses_markdown()) + "\n"


def _statuses_markdown() -> list[str]:
    """The scheme of verdict statuses (kg/statuses.py): what each kg:status means to every rate."""
    from .. import statuses
    lines = ["", "## Verdict statuses", "",
             "What each status of the verdict layer (`kg:status`) means to every rate, from the SKOS scheme",
             "`kg:verdictStatuses` in kg's vocabulary (`kg/vocab/kg.ttl`, and a project's `vocab/*.ttl`): the",
             "queries and the tally layer read it from the store, the report from the same files. A status that",
             "counts is in a rate's denominator; an excluded one is counted beside it, in the `excluded_*` column",
             "its exclusion names.", "", "| status | label | counts | exclusion |", "|---|---|---|---|"]
    for s in statuses.scheme():
        where = f"`excluded_{s.reason}`" if s.reason else "—"
        lines.append(f"| `{s.notation}` | {s.label} | {'yes' if s.counts else 'no'} | {where} |")
    return lines
