"""Gold descriptions (*.gold.json) → the pre-registered criteria of one replay-set version.

Each criterion becomes an apeval:SelectionCriterion (ep-plan:constrains its intent, pinned by
apeval:criterionDigest, the sha256 of its RFC 8785 canonical object); its expectations are
stated on the intent with the apeval terms (expectedBehaviour, expectedSkill, expectedOutcome,
…), and the outcome descriptions become apeval:OutcomeDescription. Gold whose setDigest is not
the loaded set's digest was registered against another version of the set and is refused."""
import pyoxigraph as ox

from kg.digests import canonical_digest
from kg.loading import Projection, loader
from kg.lookups import gold_owner, intents_of, pinned_set_digest
from kg.terms import XSD, Triples, declare, decimal, iri, literal, p

BEHAVIOURS = {b: f"apeval:behaviour-{b}" for b in ("route", "decline", "clarify", "several", "plan")}
SKILL_LISTS = (("acceptableSkills", "apeval:acceptableSkill"), ("forbiddenSkills", "apeval:forbiddenSkill"),
               ("optionSkills", "apeval:optionSkill"))
SKILL_FIELDS = (("expectedSkill", "apeval:expectedSkill"), ("collidesWith", "apeval:collidesWith"))


@loader(kind="gold", parse="json", patterns=("*.gold.json",), schema="gold.schema.json",
        shapes="gold.ttl", order=20)
def read_gold(source, ctx):
    doc = source.json()
    mint = ctx.minter(doc.get("prefixes"))
    set_id = doc["replaySet"]
    set_iri = ctx.mint("/replaySet", lambda: mint.iri(set_id, "replayset"))
    ctx.raise_if_problems()
    pinned_set_digest(ctx, set_iri, set_id, doc["setDigest"], "gold")
    other = gold_owner(ctx, set_iri)
    if other:
        ctx.problem("/replaySet", f'gold for "{set_id}" is already loaded from {other}',
                    f"drop that source first (kg drop {other}): one revision of a set's gold is in force at a time")
    ctx.raise_if_problems()
    intents = intents_of(ctx, set_iri)
    buckets = {r[0].value: r[1].value for r in ctx.select(
        "SELECT ?i ?bucket WHERE { GRAPH ?g { ?i apeval:inReplaySet ?set ; apeval:bucket ?bucket } "
        "FILTER(?g != ?this_graph) }", set=ox.NamedNode(set_iri))}
    revision = doc["revision"]
    record_iri = mint.under(f"r{revision}", "replayset", set_id, "gold")
    record = iri(record_iri)

    t = Triples()
    t.add(record, p("rdf:type"), p("kg:CriterionRecord"))
    t.add(record, p("dcterms:references"), iri(set_iri))
    t.add(record, p("apeval:setDigest"), literal(doc["setDigest"]))
    t.add(record, p("kg:revision"), literal(revision))
    t.add(record, p("dcterms:issued"), literal(doc["registeredAt"], XSD + "dateTime"))

    descriptions = doc.get("descriptions", [])
    ctx.duplicates(((f"/descriptions/{n}/id", d["id"]) for n, d in enumerate(descriptions)), "description id")
    known: dict[str, str] = {}
    for n, d in enumerate(descriptions):
        here = f"/descriptions/{n}"
        d_iri = ctx.mint(f"{here}/id", lambda: mint.iri(d["id"], "replayset", set_id, "description"))
        if d_iri is None:
            continue
        known[d["id"]] = d_iri
        di = iri(d_iri)
        t.add(record, p("dcterms:hasPart"), di)
        t.add(di, p("rdf:type"), p("apeval:OutcomeDescription"))
        t.add(di, p("dcterms:identifier"), literal(d["id"]))
        t.add(di, p("apeval:describesAsk"), literal(bool(d.get("describesAsk", False))))
        for key, prop in (("describesClasses", "apeval:describesClass"), ("describesMissing", "apeval:describesMissing")):
            for term in ctx.mint_each(f"{here}/{key}", d.get(key, []), mint.term):
                t.add(di, p(prop), iri(term))

    criteria = doc["criteria"]
    ctx.duplicates(((f"/criteria/{n}/intent", c["intent"]) for n, c in enumerate(criteria)), "criterion for intent")
    digests = []
    for n, c in enumerate(criteria):
        here = f"/criteria/{n}"
        i_iri = ctx.mint(f"{here}/intent", lambda: mint.iri(c["intent"], "replayset", set_id, "intent"))
        if i_iri is None:
            continue
        if i_iri not in intents:
            ctx.problem(f"{here}/intent", f'intent "{c["intent"]}" is not in the loaded replay set "{set_id}"',
                        "check the id against the set's intents")
            continue
        negative = buckets.get(i_iri, "").startswith("negative-")
        if c.get("expectedSkill") and (c["expectedBehaviour"] == "decline" or negative):
            why = "a decline case" if c["expectedBehaviour"] == "decline" else \
                f'intent "{c["intent"]}" is in the bucket {buckets[i_iri]}, a negative: it'
            ctx.problem(f"{here}/expectedSkill",
                        f'{why} names no expected skill (apeval:expectedSkill: "Absent on a negative"), '
                        f'found "{c["expectedSkill"]}"',
                        'remove "expectedSkill", or give the intent another behaviour and bucket')
            continue
        digest = canonical_digest(c)
        digests.append(digest)
        i = iri(i_iri)
        crit = iri(mint.under(c["intent"], "replayset", set_id, "gold", f"r{revision}", "criterion"))
        t.add(record, p("dcterms:hasPart"), crit)
        t.add(crit, p("rdf:type"), p("apeval:SelectionCriterion"))
        t.add(crit, p("ep-plan:constrains"), i)
        t.add(crit, p("apeval:criterionDigest"), literal(digest))
        t.add(crit, p("dcterms:isPartOf"), record)
        t.add(i, p("apeval:expectedBehaviour"), p(BEHAVIOURS[c["expectedBehaviour"]]))

        def skill(value, place):
            s_iri = ctx.mint(place, lambda: mint.iri(value, "skill"))
            if s_iri:
                declare(t, s_iri, "prov:Entity", value)
            return s_iri

        for key, prop in SKILL_FIELDS:
            if c.get(key):
                s_iri = skill(c[key], f"{here}/{key}")
                if s_iri:
                    t.add(i, p(prop), iri(s_iri))
        for key, prop in SKILL_LISTS:
            for k, value in enumerate(c.get(key, [])):
                s_iri = skill(value, f"{here}/{key}/{k}")
                if s_iri:
                    t.add(i, p(prop), iri(s_iri))
        for k, value in enumerate(c.get("expectedPlan", [])):
            s_iri = skill(value, f"{here}/expectedPlan/{k}")
            if s_iri:
                step = iri(f"{crit[1:-1]}/step/{k}")
                t.add(i, p("apeval:expectedPlanStep"), step)
                t.add(step, p("rdf:type"), p("apeval:ExpectedPlanStep"))
                t.add(step, p("apeval:planPosition"), literal(k))
                t.add(step, p("apeval:stepSkill"), iri(s_iri))
        for term in ctx.mint_each(f"{here}/expectedMissing", c.get("expectedMissing", []), mint.term):
            t.add(i, p("apeval:expectedMissing"), iri(term))
        outcomes = [("expectedOutcome", c.get("expectedOutcome"), "apeval:expectedOutcome")]
        outcomes += [(f"candidateOutcomes/{k}", d, "apeval:candidateOutcome")
                     for k, d in enumerate(c.get("candidateOutcomes", []))]
        for place, d, prop in outcomes:
            if d is None:
                continue
            if d not in known:
                ctx.problem(f"{here}/{place}", f'outcome description "{d}" is not among this file\'s descriptions',
                            f"add it to \"descriptions\" (known: {', '.join(sorted(known)) or 'none'})")
                continue
            t.add(i, p(prop), iri(known[d]))
        if c.get("referenceAnswer") is not None:
            t.add(i, p("apeval:referenceAnswer"), literal(c["referenceAnswer"]))
        if c.get("referenceScore") is not None:
            t.add(i, p("apeval:referenceScore"), decimal(c["referenceScore"]))
    return Projection(t, pins=digests)
