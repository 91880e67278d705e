"""AIGP anticipation declarations (*.anticipation.json, RFC-032 §11) → kg:Anticipation, its
criteria and its grading policy.

The file is validated against the RFC's draft-07 schema, shipped unchanged as
anticipation.schema.json. The declaration becomes a kg:Anticipation (an earl:TestRequirement)
issued at its `timestamp`, pinned by kg:contentDigest (sha256 of its RFC 8785 canonical JSON);
every outcome, trajectory and anti-criterion a kg:AnticipationCriterion (an earl:TestCase) with
its role, measurement, assertion and weight, so that an EARL result names it as its test:

    anticipation   {base}anticipation/{anticipation_id}
    criterion      {base}anticipation/{anticipation_id}/criterion/{criterion_id}
    grading policy {base}anticipation/{anticipation_id}/grading-policy

These three are always minted under the base, each id encoded as one segment. The ids the
declaration only refers to (session, agent, app, plan, scope envelope) are kept when they are
absolute IRIs and otherwise minted under {base}session/, agent/, app/, plan/, scope-envelope/;
the schema admits no "prefixes", so a colon in such an id is encoded, never an error. The
d_dna_signature is recorded as kg:signature and never verified."""
import difflib

from kg.digests import canonical_digest
from kg.loading import Projection, loader
from kg.lookups import owner
from kg.terms import XSD, MintError, Triples, declare, decimal, iri, literal, p

ROLES = (("outcome_criteria", "kg:role-outcome"), ("trajectory_criteria", "kg:role-trajectory"),
         ("anti_criteria", "kg:role-anti"))
MEASUREMENTS = {"DETERMINISTIC": "kg:measurement-deterministic", "HEURISTIC": "kg:measurement-heuristic",
                "HUMAN": "kg:measurement-human"}
GRADER_TYPES = {"CODE": "kg:grader-code", "MODEL": "kg:grader-model", "HUMAN": "kg:grader-human",
                "COMPOSITE": "kg:grader-composite"}
REFERENCES = (("session_id", "session", "kg:session", "prov:Activity"),
              ("agent_id", "agent", "kg:anticipatedAgent", "prov:Agent"),
              ("app_id", "app", "kg:application", "prov:SoftwareAgent"),
              ("plan_id", "plan", "kg:followsPlan", "prov:Plan"),
              ("scope_envelope_id", "scope-envelope", "kg:scopeEnvelope", "prov:Entity"))


@loader(kind="anticipation", parse="json", patterns=("*.anticipation.json",), schema="anticipation.schema.json",
        shapes="anticipation.ttl", order=30)
def read_anticipation(source, ctx):
    doc = source.json()
    mint = ctx.minter()
    check_ids(ctx, doc)
    check_expectation_lists(ctx, doc["expectations"])
    ctx.raise_if_problems()
    anticipation_id = doc["anticipation_id"]
    a_iri = mint.under(anticipation_id, "anticipation")
    other = owner(ctx, a_iri, "kg:Anticipation")
    if other:
        ctx.problem("/anticipation_id", f'anticipation "{anticipation_id}" is already loaded from {other}',
                    "a declaration is sealed: give a new declaration its own anticipation_id, "
                    f"or drop that source first (kg drop {other})")
    ctx.raise_if_problems()

    digest = canonical_digest(doc)
    t = Triples()
    a = iri(a_iri)
    t.add(a, p("rdf:type"), p("kg:Anticipation"))
    t.add(a, p("dcterms:identifier"), literal(anticipation_id))
    t.add(a, p("dcterms:issued"), literal(doc["timestamp"], XSD + "dateTime"))
    t.add(a, p("kg:contentDigest"), literal(digest))
    if doc.get("d_dna_signature") is not None:
        t.add(a, p("kg:signature"), literal(doc["d_dna_signature"]))
    for key, scope, prop, rdf_class in REFERENCES:
        if key in doc:
            ref = reference(mint, doc[key], scope)
            declare(t, ref, rdf_class, doc[key])
            t.add(a, p(prop), iri(ref))

    policy = doc["grading_policy"]
    g = iri(mint.under("grading-policy", "anticipation", anticipation_id))
    t.add(a, p("kg:gradingPolicy"), g)
    t.add(g, p("rdf:type"), p("kg:GradingPolicy"))
    t.add(g, p("kg:graderType"), p(GRADER_TYPES[policy["grader_type"]]))
    t.add(g, p("kg:passingThreshold"), decimal(policy["passing_threshold"]))
    t.add(g, p("kg:weightedScoring"), literal(policy["weighted_scoring"]))
    t.add(g, p("kg:failOnAnyAntiCriteria"), literal(policy["fail_on_any_anti_criteria"]))

    for key, role in ROLES:
        for c in doc["expectations"].get(key, []):
            c_iri = iri(mint.under(c["criterion_id"], "anticipation", anticipation_id, "criterion"))
            t.add(a, p("dcterms:hasPart"), c_iri)
            t.add(c_iri, p("rdf:type"), p("kg:AnticipationCriterion"))
            t.add(c_iri, p("dcterms:isPartOf"), a)
            t.add(c_iri, p("dcterms:identifier"), literal(c["criterion_id"]))
            t.add(c_iri, p("dcterms:description"), literal(c["description"]))
            t.add(c_iri, p("kg:criterionRole"), p(role))
            t.add(c_iri, p("kg:measurement"), p(MEASUREMENTS[c["measurement"]]))
            t.add(c_iri, p("kg:criterionAssertion"), literal(c["assertion"]))
            t.add(c_iri, p("kg:weight"), decimal(c["weight"]))
    return Projection(t, pins=[digest])


def check_ids(ctx, doc) -> None:
    """Ids become IRI segments: none may be empty, and a criterion id is unique across the three
    lists (the schema says "unique within this anticipation" but cannot check it)."""
    for key in ("anticipation_id", "agent_id", "app_id", "plan_id", "scope_envelope_id", "session_id"):
        if doc.get(key) == "":
            ctx.problem(f"/{key}", f"{key} is empty", "give it an identifier")
    places = []
    for key, _ in ROLES:
        for n, c in enumerate(doc["expectations"].get(key, [])):
            here = f"/expectations/{key}/{n}/criterion_id"
            if c["criterion_id"] == "":
                ctx.problem(here, "criterion_id is empty", "give the criterion an identifier")
            places.append((here, c["criterion_id"]))
    ctx.duplicates(places, "criterion id")


def check_expectation_lists(ctx, expectations) -> None:
    """The schema lets `expectations` hold any other key; a misspelt list ("anti_criterion")
    would silently drop criteria the verdict must count, so an unknown key is refused."""
    known = [key for key, _ in ROLES]
    for key in sorted(set(expectations) - set(known)):
        near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        ctx.problem(f"/expectations/{key}", f'unknown list "{key}" (known: {", ".join(known)}): '
                    "its criteria would not be counted",
                    f'did you mean "{near[0]}"?' if near else "remove it, or move its criteria to a known list")


def reference(mint, value: str, scope: str) -> str:
    """An id the declaration refers to: an absolute IRI as it is, anything else minted under
    {base}{scope}/ (a colon included, encoded: the schema declares no prefixes to expand)."""
    try:
        return mint.resolve(value) or mint.under(value, scope)
    except MintError:
        return mint.under(value, scope)
