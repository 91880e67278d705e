"""Replay sets (*.replayset.json) → apeval:ReplaySet, apeval:ReplayIntent and starting states.

The set is pinned by apeval:setDigest (sha256 of its RFC 8785 canonical JSON); each intent by
kg:contentDigest of its own canonical object. One replay set id is loaded from one file at a
time: a second file claiming the same set would mix two versions' intents."""
from kg.digests import canonical_digest
from kg.loading import Projection, loader
from kg.lookups import owner
from kg.terms import Triples, declare, iri, literal, p

SUITE_KINDS = {"capability": "apeval:suite-capability", "regression": "apeval:suite-regression"}


@loader(kind="replayset", parse="json", patterns=("*.replayset.json",), schema="replayset.schema.json",
        shapes="replayset.ttl", order=10)
def read_replayset(source, ctx):
    doc = source.json()
    mint = ctx.minter(doc.get("prefixes"))
    set_id = doc["replaySet"]
    set_iri = ctx.mint("/replaySet", lambda: mint.iri(set_id, "replayset"))
    if set_iri is None:
        ctx.raise_if_problems()
    other = owner(ctx, set_iri, "apeval:ReplaySet")
    if other:
        ctx.problem("/replaySet", f'replay set "{set_id}" is already loaded from {other}',
                    f"drop that source first (kg drop {other}) to load another version of the set")
    digest = canonical_digest(doc)
    t = Triples()
    s = iri(set_iri)
    t.add(s, p("rdf:type"), p("apeval:ReplaySet"))
    t.add(s, p("rdf:type"), p("dcat:Dataset"))
    t.add(s, p("dcterms:identifier"), literal(set_id))
    t.add(s, p("dcat:version"), literal(str(doc["version"])))
    t.add(s, p("apeval:setDigest"), literal(digest))
    t.add(s, p("apeval:suiteKind"), p(SUITE_KINDS[doc["suiteKind"]]))
    for key, prop in (("title", "dcterms:title"), ("description", "dcterms:description")):
        if key in doc:
            t.add(s, p(prop), literal(doc[key]))
    for prefix, namespace in sorted((doc.get("prefixes") or {}).items()):
        decl = iri(mint.under(prefix, "replayset", set_id, "prefix"))
        t.add(s, p("sh:declare"), decl)
        t.add(decl, p("sh:prefix"), literal(prefix))
        t.add(decl, p("sh:namespace"), literal(namespace, "http://www.w3.org/2001/XMLSchema#anyURI"))

    ctx.duplicates(((f"/intents/{n}/id", it["id"]) for n, it in enumerate(doc["intents"])), "intent id")
    states: dict[str, tuple[str, dict]] = {}
    for n, intent in enumerate(doc["intents"]):
        here = f"/intents/{n}"
        i_iri = ctx.mint(f"{here}/id", lambda: mint.iri(intent["id"], "replayset", set_id, "intent"))
        if i_iri is None:
            continue
        i = iri(i_iri)
        t.add(s, p("apeval:hasIntent"), i)
        t.add(i, p("rdf:type"), p("apeval:ReplayIntent"))
        t.add(i, p("dcterms:identifier"), literal(intent["id"]))
        t.add(i, p("apeval:inReplaySet"), s)
        t.add(i, p("apeval:split"), literal(intent["split"]))
        t.add(i, p("apeval:bucket"), literal(intent["bucket"]))
        t.add(i, p("apeval:message"), literal(intent["message"]))
        t.add(i, p("apeval:adjudication"), literal(intent.get("adjudication", "hypothesis")))
        t.add(i, p("kg:contentDigest"), literal(canonical_digest(intent)))
        if "caseFamily" in intent:
            t.add(i, p("kg:caseFamily"), literal(intent["caseFamily"]))
        for term in ctx.mint_each(f"{here}/exercisesClasses", intent.get("exercisesClasses", []), mint.term):
            t.add(i, p("apeval:exercisesClass"), iri(term))
        for term in ctx.mint_each(f"{here}/exercisesConcepts", intent.get("exercisesConcepts", []), mint.term):
            t.add(i, p("dcterms:subject"), iri(term))
        state = intent.get("startingState")
        if state is None:
            continue
        st_iri = ctx.mint(f"{here}/startingState/id", lambda: mint.iri(state["id"], "replayset", set_id, "state"))
        if st_iri is None:
            continue
        t.add(i, p("apeval:underStartingState"), iri(st_iri))
        if st_iri in states:
            first_place, first = states[st_iri]
            if first != state:
                ctx.problem(f"{here}/startingState", f'starting state "{state["id"]}" differs from its first '
                            f"definition at {first_place}", "give the variant its own id, or make the two identical")
            continue
        states[st_iri] = (f"{here}/startingState", state)
        st = iri(st_iri)
        t.add(st, p("rdf:type"), p("apexec:StartingState"))
        t.add(st, p("dcterms:identifier"), literal(state["id"]))
        for term in ctx.mint_each(f"{here}/startingState/holdsClasses", state.get("holdsClasses", []), mint.term):
            t.add(st, p("apeval:holdsClass"), iri(term))
        for k, skill in enumerate(state.get("recentSkills", [])):
            term = ctx.mint(f"{here}/startingState/recentSkills/{k}", lambda: mint.iri(skill, "skill"))
            if term:
                t.add(st, p("apeval:recentSkill"), iri(term))
                declare(t, term, "prov:Entity", skill)
        for tag in state.get("memoryTags", []):
            t.add(st, p("apeval:memoryTag"), literal(tag))
    return Projection(t, pins=[digest])
