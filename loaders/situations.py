"""Delivered situations (*.situations.jsonl) → apeval:DeliveredSituation, one per line: the
records the run left (dul:isSettingFor, each typed with its domain class), the inputs it named
missing, whether it asked, the skill it selected, and apeval:reachedUnder — the description its
own plan was reaching for, which must be one the set's gold registered. A record may state its own
properties; the records are checked against the domain's SHACL shapes (kg/domain_shapes.py)."""
from kg import domain_shapes
from kg.loading import Projection, loader
from kg.lookups import descriptions_of, loaded_among
from kg.runs import RunRows
from kg.terms import Triples, decimal, declare, iri, literal, p


@loader(kind="situations", parse="jsonl", patterns=("*.situations.jsonl",), schema="situations.schema.json",
        shapes="situations.ttl", order=30)
def read_situations(source, ctx):
    rows = source.jsonl()
    refs = RunRows(ctx)
    ids = set()
    for _, row in rows:
        try:
            ids.add(refs.minter(row).iri(row["id"], "situation"))
        except ValueError:
            pass  # reported with its place below
    loaded = loaded_among(ctx, ids, "a apeval:DeliveredSituation")
    described: dict[str, set[str]] = {}
    ctx.duplicates(((f"line {n}, /id", row["id"]) for n, row in rows), "situation id")
    t = Triples()
    own = Triples()  # the records' own triples, which the domain's shapes check
    record_iris: list[str] = []
    values: set[str] = set()
    for n, row in rows:
        mint = refs.minter(row)
        intent = refs.intent(n, row, mint)
        sit_iri = ctx.mint(f"line {n}, /id", lambda: mint.iri(row["id"], "situation"))
        if intent is None or sit_iri is None:
            continue
        if sit_iri in loaded:
            ctx.problem(f"line {n}, /id", f'situation "{row["id"]}" is already loaded from another source',
                        "situation ids are unique across the store; drop the other source or rename")
            continue
        ran = refs.run(t, n, row, mint, intent)
        if ran is None:
            continue
        run, _ = ran
        s = iri(sit_iri)
        t.add(s, p("rdf:type"), p("apeval:DeliveredSituation"))
        t.add(s, p("dcterms:identifier"), literal(row["id"]))
        if run:
            t.add(s, p("prov:wasGeneratedBy"), iri(run))
        t.add(s, p("kg:asked"), literal(bool(row.get("asked", False))))
        ctx.duplicates(((f"line {n}, /records/{k}/id", r["id"]) for k, r in enumerate(row["records"])), "record id")
        for k, record in enumerate(row["records"]):
            here = f"line {n}, /records/{k}"
            cls = ctx.mint(f"{here}/class", lambda: mint.term(record["class"]))
            rec_iri = ctx.mint(f"{here}/id", lambda: mint.iri(record["id"], "situation", row["id"], "record"))
            if cls and rec_iri:
                rec = iri(rec_iri)
                t.add(s, p("dul:isSettingFor"), rec)
                for target in (t, own):
                    target.add(rec, p("rdf:type"), iri(cls))
                    target.add(rec, p("dcterms:identifier"), literal(record["id"]))
                record_iris.append(rec_iri)
                _properties(ctx, own, rec, record.get("properties", {}), mint, f"{here}/properties", values)
        for term in ctx.mint_each(f"line {n}, /namedMissing", row.get("namedMissing", []), mint.term):
            t.add(s, p("kg:namedMissing"), iri(term))
        if row.get("selectedSkill"):
            skill = ctx.mint(f"line {n}, /selectedSkill", lambda: mint.iri(row["selectedSkill"], "skill"))
            if skill:
                declare(t, skill, "prov:Entity", row["selectedSkill"])
                t.add(s, p("kg:selectedSkill"), iri(skill))
        if row.get("reachedUnder"):
            set_iri = refs.set_iri(row)
            if set_iri not in described:
                described[set_iri] = descriptions_of(ctx, set_iri) if set_iri else set()
            d_iri = ctx.mint(f"line {n}, /reachedUnder",
                             lambda: mint.iri(row["reachedUnder"], "replayset", row["replaySet"], "description"))
            if d_iri is not None and d_iri not in described[set_iri]:
                ctx.problem(f"line {n}, /reachedUnder",
                            f'outcome description "{row["reachedUnder"]}" is not registered by the gold of '
                            f'"{row["replaySet"]}"', "load the set's *.gold.json first, or use one of: "
                            + (", ".join(sorted(d.rsplit("/", 1)[-1] for d in described[set_iri])) or "none registered"))
            elif d_iri is not None:
                t.add(s, p("apeval:reachedUnder"), iri(d_iri))
    ctx.raise_if_problems()
    t.lines += own.lines + domain_shapes.check(ctx, own, record_iris, values).lines
    return Projection(t)


def _properties(ctx, t, rec, properties, mint, place, values):
    """A record's own statements: each value a literal, or {"id": …} for a node."""
    for key, given in properties.items():
        prop = ctx.mint(f"{place}/{key}", lambda: mint.term(key))
        if prop is None:
            continue
        for k, value in enumerate(given if isinstance(given, list) else [given]):
            if isinstance(value, dict):
                node = ctx.mint(f"{place}/{key}" + (f"/{k}" if isinstance(given, list) else "") + "/id",
                                lambda: mint.term(value["id"]))
                if node:
                    values.add(node)
                    t.add(rec, iri(prop), iri(node))
            elif isinstance(value, float) and not isinstance(value, bool):
                t.add(rec, iri(prop), decimal(value))
            else:
                t.add(rec, iri(prop), literal(value))
