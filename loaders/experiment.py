"""Experiment plans (*.experiment.json) → apeval:ExperimentPlan, its two compared apexec:Variants
and their components.

A plan is pre-registered by digest: it names the replay set (its loaded setDigest), the revision
of the set's gold it judges by (the revision and a digest over its criterion digests), the
variants — each a system, as EARL results name it, with its model, prompt, tools, ontology and any
other component pinned by digest — the split, the repeats and the gate's thresholds. It is refused
when the set is not loaded or is another version, when the gold is another revision, and when the
baseline or the candidate names a variant the plan does not declare.

The loader derives what the plan implies: kg:differsIn for each component the candidate does not
share with the baseline (another digest, or pinned on one side only), and apeval:confounded, true
when there are more than one. Minted IRIs:

    plan       {base}experiment/{experiment}           (or the id itself, when an IRI or CURIE)
    variant    {base}experiment/{experiment}/variant/{variant id}
    component  {base}experiment/{experiment}/variant/{variant id}/component/{kind}
    system     {base}system/{system}                   (as the EARL loaders mint it)"""
import pyoxigraph as ox

from kg.digests import canonical_digest
from kg.loading import Projection, loader
from kg.lookups import owner, pinned_set_digest, set_prefixes
from kg.terms import XSD, Triples, declare, decimal, iri, literal, p


@loader(kind="experiment", parse="json", patterns=("*.experiment.json",), schema="experiment.schema.json",
        shapes="experiment.ttl", order=25)
def read_experiment(source, ctx):
    doc = source.json()
    set_id = doc["replaySet"]
    plain = ctx.minter(doc.get("prefixes"))
    set_iri = ctx.mint("/replaySet", lambda: plain.iri(set_id, "replayset"))
    ctx.raise_if_problems()
    mint = ctx.minter({**set_prefixes(ctx, set_iri), **(doc.get("prefixes") or {})})
    plan_id = doc["experiment"]
    plan_iri = ctx.mint("/experiment", lambda: mint.iri(plan_id, "experiment"))

    variants = doc["variants"]
    ctx.duplicates(((f"/variants/{n}/id", v["id"]) for n, v in enumerate(variants)), "variant id")
    declared = {v["id"]: n for n, v in enumerate(variants)}
    for role in ("baseline", "candidate"):
        if doc[role] not in declared:
            ctx.problem(f"/{role}", f'the {role} names variant "{doc[role]}", which this plan does not declare '
                        f"(declared: {', '.join(declared)})", 'name one of the variants by its "id"')
    if doc["baseline"] == doc["candidate"]:
        ctx.problem("/candidate", f'the candidate is the baseline ("{doc["candidate"]}")',
                    "compare two different variants")
    systems: dict[str, tuple[str, int]] = {}
    for n, v in enumerate(variants):
        s_iri = ctx.mint(f"/variants/{n}/system", lambda: mint.iri(v["system"], "system"))
        if s_iri in systems:
            ctx.problem(f"/variants/{n}/system", f'system "{v["system"]}" is already the system of variant '
                        f'"{systems[s_iri][0]}" (/variants/{systems[s_iri][1]}): verdicts name systems, so the '
                        "two variants could not be told apart", "give each variant the system id its results name")
        elif s_iri:
            systems[s_iri] = (v["id"], n)

    loaded_digest = pinned_set_digest(ctx, set_iri, set_id, doc["setDigest"], "plan")
    record, revision, digests = loaded_gold(ctx, set_iri) if loaded_digest else (None, None, [])
    gold = doc["gold"]
    criteria_digest = canonical_digest(sorted(digests))
    if loaded_digest and record is None:
        ctx.problem("/gold/revision", f'no gold is loaded for replay set "{set_id}"',
                    "load its *.gold.json first, or in the same command")
    elif record is not None and revision != gold["revision"]:
        ctx.problem("/gold/revision", f"expected the loaded gold's revision {revision}, found {gold['revision']}: "
                    "this plan judges by another revision of the criteria",
                    "register the plan against the loaded revision, or load the revision it names")
    elif record is not None and criteria_digest != gold["criteriaDigest"]:
        ctx.problem("/gold/criteriaDigest", f"expected {criteria_digest} (over the loaded revision's "
                    f"{len(digests)} criterion digests), found {gold['criteriaDigest']}",
                    "the criteria changed since the plan was registered: register it again")
    check_pins_agree(ctx, variants, systems)
    if plan_iri:
        other = owner(ctx, plan_iri, "apeval:ExperimentPlan")
        if other:
            ctx.problem("/experiment", f'experiment plan "{plan_id}" is already loaded from {other}',
                        f"a plan is registered once: give a new plan its own id, or drop that source first (kg drop {other})")
    ctx.raise_if_problems()

    digest = canonical_digest(doc)
    t = Triples()
    plan = iri(plan_iri)
    t.add(plan, p("rdf:type"), p("apeval:ExperimentPlan"))
    t.add(plan, p("dcterms:identifier"), literal(plan_id))
    for key, prop in (("title", "dcterms:title"), ("description", "dcterms:description")):
        if key in doc:
            t.add(plan, p(prop), literal(doc[key]))
    t.add(plan, p("dcterms:issued"), literal(doc["registeredAt"], XSD + "dateTime"))
    t.add(plan, p("kg:contentDigest"), literal(digest))
    t.add(plan, p("kg:replaySet"), iri(set_iri))
    t.add(plan, p("apeval:replaySetDigest"), literal(doc["setDigest"]))
    t.add(plan, p("kg:criteria"), iri(record))
    t.add(plan, p("kg:criteriaDigest"), literal(gold["criteriaDigest"]))
    for d in digests:
        t.add(plan, p("kg:pinnedCriterionDigest"), literal(d))
    t.add(plan, p("kg:evaluatesSplit"), literal(doc["split"]))
    t.add(plan, p("apeval:repeats"), literal(doc["repeats"]))
    thresholds = doc["thresholds"]
    t.add(plan, p("apeval:thresholdsDigest"), literal(canonical_digest(thresholds)))
    t.add(plan, p("kg:minimumGain"), decimal(thresholds["minimumGain"]))
    t.add(plan, p("kg:maximumNewWrongAnswers"), literal(thresholds["maximumNewWrongAnswers"]))

    components: dict[str, dict[str, str]] = {}
    for v in variants:
        v_iri = mint.under(v["id"], "experiment", plan_id, "variant")
        vi = iri(v_iri)
        v_digest = canonical_digest(v)
        system = mint.iri(v["system"], "system")
        declare(t, system, "earl:TestSubject", v["system"])
        t.add(plan, p("dcterms:hasPart"), vi)
        t.add(plan, p("apeval:variantDigest"), literal(v_digest))
        t.add(vi, p("rdf:type"), p("apexec:Variant"))
        t.add(vi, p("dcterms:identifier"), literal(v["id"]))
        t.add(vi, p("kg:contentDigest"), literal(v_digest))
        t.add(vi, p("kg:variantSystem"), iri(system))
        if "description" in v:
            t.add(vi, p("dcterms:description"), literal(v["description"]))
        for kind, c in sorted(v["components"].items()):
            ci = iri(mint.under(kind, "experiment", plan_id, "variant", v["id"], "component"))
            t.add(vi, p("kg:component"), ci)
            t.add(ci, p("rdf:type"), p("prov:Entity"))
            t.add(ci, p("kg:componentKind"), literal(kind))
            t.add(ci, p("kg:componentDigest"), literal(c["digest"]))
            if "version" in c:
                t.add(ci, p("dcat:version"), literal(c["version"]))
        components[v["id"]] = {kind: c["digest"] for kind, c in v["components"].items()}
        if v["id"] == doc["baseline"]:
            t.add(plan, p("kg:baseline"), vi)
        if v["id"] == doc["candidate"]:
            t.add(plan, p("kg:candidate"), vi)

    differs = differing_components(components[doc["baseline"]], components[doc["candidate"]])
    for kind in differs:
        t.add(plan, p("kg:differsIn"), literal(kind))
    t.add(plan, p("apeval:confounded"), literal(len(differs) > 1))
    return Projection(t, pins=[digest])


def check_pins_agree(ctx, variants: list[dict], systems: dict[str, tuple[str, int]]) -> None:
    """A system is one build: a loaded plan that pins a component of the same system (verdicts reach
    a variant through its system) by another digest contradicts this one, and one of the two would
    be compared on runs it never pinned (issue 13)."""
    if not systems:
        return
    values = " ".join(str(ox.NamedNode(s)) for s in sorted(systems))
    rows = ctx.select(f"""SELECT ?system ?kind ?digest ?plan_id ?variant_id ?path WHERE {{
        VALUES ?system {{ {values} }}
        GRAPH ?g {{ ?variant kg:variantSystem ?system ; kg:component ?c ; dcterms:identifier ?variant_id .
                   ?c kg:componentKind ?kind ; kg:componentDigest ?digest .
                   ?plan dcterms:hasPart ?variant ; dcterms:identifier ?plan_id }}
        FILTER(?g != ?this_graph)
        OPTIONAL {{ GRAPH <urn:kg:catalogue> {{ ?g kg:path ?path }} }} }} ORDER BY ?plan_id ?kind""")
    pinned: dict[tuple[str, str], list[tuple[str, str, str, str]]] = {}
    for system, kind, digest, plan_id, variant_id, path in rows:
        pinned.setdefault((system.value, kind.value), []).append(
            (digest.value, plan_id.value, variant_id.value, path.value if path else ""))
    for s_iri, (variant_id, n) in sorted(systems.items(), key=lambda kv: kv[1][1]):
        for kind, c in sorted(variants[n]["components"].items()):
            for digest, plan_id, other_variant, path in pinned.get((s_iri, kind), []):
                if digest != c["digest"]:
                    ctx.problem(f"/variants/{n}/components/{kind}/digest",
                                f'system "{variants[n]["system"]}" is pinned with {kind} {digest} by plan "{plan_id}" '
                                f'(variant "{other_variant}", {path}); this plan pins {c["digest"]}',
                                "a system id names one build, and its results cannot say which of the two ran: "
                                "give the other build its own system id")
                    break


def differing_components(baseline: dict[str, str], candidate: dict[str, str]) -> list[str]:
    """The component kinds whose digest differs, a kind pinned on one side only included: a
    component the plan does not pin on both sides cannot be shown to be the same."""
    return sorted(k for k in set(baseline) | set(candidate) if baseline.get(k) != candidate.get(k))


def loaded_gold(ctx, set_iri: str) -> tuple[str | None, int | None, list[str]]:
    """The loaded gold of a set: its record, its revision and its criterion digests (sorted)."""
    rows = ctx.select("""SELECT ?record ?revision ?d WHERE { GRAPH ?g { ?record a kg:CriterionRecord ;
                         dcterms:references ?set ; kg:revision ?revision .
                         OPTIONAL { ?record dcterms:hasPart ?c . ?c apeval:criterionDigest ?d } }
                         FILTER(?g != ?this_graph) }""", set=ox.NamedNode(set_iri))
    if not rows:
        return None, None, []
    record, revision = rows[0][0].value, int(rows[0][1].value)
    return record, revision, sorted({r[2].value for r in rows if r[0].value == record and r[2] is not None})
