"""Delivered situations (*.situations.jsonl) → apeval:DeliveredSituation, one per line: the
records the run left (dul:isSettingFor, each typed with its domain class), the inputs it named
missing, whether it asked, the skill it selected, and apeval:reachedUnder — the description its
own plan was reaching for, which must be one the set's gold registered. A record may state its own
properties; the records are checked against the domain's SHACL shapes (kg/domain_shapes.py)."""
from kg import domain_shapes
from kg.loading import Projection, loader
from kg.lookups import descriptions_of, loaded_into
from kg.runs import RunRows
from kg.spill import Spill
from kg.terms import Triples, decimal, declare, iri, literal, p


# situations projected per chunk of triples: a file is read, checked and written a chunk at a time,
# so a load holds a chunk's rows and triples, not the file's (a situation holds several records)
CHUNK_LINES = 2_000


@loader(kind="situations", parse="jsonl", patterns=("*.situations.jsonl",), schema="situations.schema.json",
        shapes="situations.ttl", order=30)
def read_situations(source, ctx):
    """Two passes over the file, a line at a time. The first checks every line (JSON, schema) and
    keeps each situation's id and IRI, on disk (kg/spill.py): ids are unique in the file and in the
    store. The second, lazily, makes the triples CHUNK_LINES lines at a time, the records of those
    lines checked against the domain's shapes (kg/domain_shapes.py) with them; its problems are known
    once it is spent."""
    refs = RunRows(ctx)
    spill = Spill(source.name)
    with spill.closed_on_error():
        ids, minted = spill.unique("situation id"), spill.keys()
        for n, row in source.jsonl_stream():
            ids.see(row["id"], f"line {n}, /id")
            try:
                minted.add(refs.minter(row).iri(row["id"], "situation"))
            except ValueError:
                pass  # reported with its place in the second pass
        ctx.say_first(ids.problems)
        loaded = spill.keys()
        loaded_into(ctx, minted, "a apeval:DeliveredSituation", loaded)
    return Projection(spill.closing(_triples(source, ctx, refs, loaded)))


def _triples(source, ctx, refs, loaded):
    """The second pass: N-Triples text a chunk at a time."""
    described: dict[str, set[str]] = {}
    shapes = domain_shapes.Checker(ctx)
    chunk = _Chunk()
    for n, row in source.jsonl_stream(checked=False):  # the first pass checked them
        if chunk.lines == CHUNK_LINES:
            yield chunk.text(ctx, shapes)
            chunk = _Chunk()
        chunk.lines += 1
        t = chunk.triples
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
                for target in (t, chunk.own):
                    target.add(rec, p("rdf:type"), iri(cls))
                    target.add(rec, p("dcterms:identifier"), literal(record["id"]))
                chunk.record_iris.append(rec_iri)
                _properties(ctx, chunk.own, rec, record.get("properties", {}), mint, f"{here}/properties", chunk.values)
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
    yield chunk.text(ctx, shapes)


class _Chunk:
    """A chunk's situations: their triples, their records' own triples (which the domain's shapes
    check), the records and the IRIs their properties name."""

    def __init__(self):
        self.lines, self.triples, self.own = 0, Triples(), Triples()
        self.record_iris: list[str] = []
        self.values: set[str] = set()

    def text(self, ctx, shapes: domain_shapes.Checker) -> str:
        if ctx.problems:  # the file is refused: its records need no check
            return ""
        joined = Triples()
        joined.lines = self.triples.lines + self.own.lines + shapes.check(self.own, self.record_iris, self.values).lines
        return joined.text()


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
