"""Delivered situations (*.situations.jsonl) → apeval:DeliveredSituation, one per line: the
records the run left (dul:isSettingFor, each typed with its domain class), the inputs it named
missing, whether it asked, the skill it selected, and apeval:reachedUnder — the description its
own plan was reaching for, which must be one the set's gold registered."""
from kg.loading import Projection, loader
from kg.lookups import descriptions_of, loaded_among
from kg.runs import RunRows
from kg.terms import Triples, declare, iri, literal, p


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
            cls = ctx.mint(f"line {n}, /records/{k}/class", lambda: mint.term(record["class"]))
            rec_iri = ctx.mint(f"line {n}, /records/{k}/id",
                               lambda: mint.iri(record["id"], "situation", row["id"], "record"))
            if cls and rec_iri:
                rec = iri(rec_iri)
                t.add(s, p("dul:isSettingFor"), rec)
                t.add(rec, p("rdf:type"), iri(cls))
                t.add(rec, p("dcterms:identifier"), literal(record["id"]))
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
    return Projection(t)
