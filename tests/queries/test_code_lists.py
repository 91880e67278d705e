"""Coverage of the CubbyLLM code lists on the example estate, scheme by scheme and code by code.

The code lists are those the published CheezML-for-CubbyLLM draft lists (seed 001): six of Cubby's
own and the check kinds it adds to cheez:CheckKinds. What the estate exercises is computed here with
plain Python from the example JSON files, by the rule the coverage queries document: an intent
exercises a term it names in exercisesClasses or exercisesConcepts, in its starting state's
holdsClasses, in its gold criterion's expectedMissing, or in the describesClasses / describesMissing
of the outcome descriptions its criterion names (expectedOutcome, candidateOutcomes). The test then
holds coverage-concepts and coverage-summary to those numbers."""
import json
from collections import defaultdict

import pytest
import rdflib

from kg import catalogue, ingest
from kg.store import Store
from tests.conftest import EXAMPLES

CUBBY = "https://w3id.org/cheezml/cubby#"
CHEEZ = "https://w3id.org/cheezml#"
ONTOLOGY = "https://w3id.org/cheezml/cubby"

# The draft's code lists and codes, as published (seed 001), local names under cubby:.
PUBLISHED = {
    CUBBY + "RefusalReasons": {"Ambiguous", "Conflict", "DatesTooCoarse", "FactMissing", "NoPlan", "NotCertified",
                               "RelationMissing", "UnreadableSource", "WalkFailed"},
    CUBBY + "ConflictKinds": {"LogicalConflict", "RecordedVsDerivedConflict", "TemporalConflict", "TypeConflict",
                              "ValueConflict"},
    CUBBY + "DialogueActs": {"CertifiedAnswerAct", "ClarifyingQuestionAct", "FollowUpAct", "QuestionAct", "RefusalAct",
                             "SmallTalkAct"},
    CUBBY + "Proposers": {"EpisodicMemory", "EverydayTable", "HostGrammar", "LMProgramEmitter", "OvernightRuleLibrary"},
    CUBBY + "ReviewerRoles": {"FirstApprover", "SecondApprover"},
    CUBBY + "ReviewOutcomes": {"Approved"},
    CHEEZ + "CheckKinds": {"ArithmeticCheck", "ConflictCheck", "DatePrecisionCheck", "DuplicateCheck", "EntityGuardCheck",
                           "EscapeCheck", "FormatCheck", "GainCheck", "NoNewWrongAnswerCheck", "NumberInRegionCheck",
                           "PrerequisiteCheck", "PurchaseOrderCheck", "RejectionRateCheck", "ReproductionCheck",
                           "ScopeCheck", "SupplierCheck", "ToneCheck"},
}
SCHEMES = {scheme: {CUBBY + code for code in codes} for scheme, codes in PUBLISHED.items()}
CLASSES = {CUBBY + c for c in ("Answer", "DocumentRegion", "FieldCommit", "FieldSuggestion", "Helper", "HelperRejection",
                               "Refusal", "Review", "SandboxRun", "Turn")}


def expand(term: str, prefixes: dict) -> str:
    prefix, _, local = term.partition(":")
    return prefixes[prefix] + local if prefix in prefixes else term


def exercised_by_intent() -> dict[tuple[str, str], tuple[str, set[str]]]:
    """(replay set id, intent id) -> (split, terms it exercises), from the JSON files alone."""
    golds = {}
    for path in sorted(EXAMPLES.glob("*.gold.json")):
        doc = json.loads(path.read_text())
        golds[doc["replaySet"]] = doc
    out = {}
    for path in sorted(EXAMPLES.glob("*.replayset.json")):
        doc = json.loads(path.read_text())
        set_id, prefixes = doc["replaySet"], doc.get("prefixes", {})
        for intent in doc["intents"]:
            names = intent.get("exercisesClasses", []) + intent.get("exercisesConcepts", [])
            names += (intent.get("startingState") or {}).get("holdsClasses", [])
            out[(set_id, intent["id"])] = (intent["split"], {expand(n, prefixes) for n in names})
        gold = golds.get(set_id)
        if gold is None:
            continue
        g_prefixes = gold.get("prefixes", {})
        descriptions = {d["id"]: d for d in gold["descriptions"]}
        for criterion in gold["criteria"]:
            terms = out[(set_id, criterion["intent"])][1]
            terms |= {expand(n, g_prefixes) for n in criterion.get("expectedMissing", [])}
            named = [criterion.get("expectedOutcome")] + criterion.get("candidateOutcomes", [])
            for d in (descriptions[n] for n in named if n):
                terms |= {expand(n, g_prefixes) for n in d.get("describesClasses", []) + d.get("describesMissing", [])}
    return out


INTENTS = exercised_by_intent()
SETS = sorted({s for s, _ in INTENTS})


@pytest.fixture(scope="module")
def estate():
    store = Store(":memory:")
    outcomes = ingest.load(store, [EXAMPLES])
    assert all(o.status == "loaded" for o in outcomes), [(o.path, o.problems) for o in outcomes if o.status != "loaded"]
    return store


def test_the_ontology_carries_the_published_code_lists_exactly():
    graph = rdflib.Graph().parse(EXAMPLES / "cubby.ttl", format="turtle")
    skos = rdflib.namespace.SKOS
    found = defaultdict(set)
    for concept in graph.subjects(rdflib.RDF.type, skos.Concept):
        for scheme in graph.objects(concept, skos.inScheme):
            found[str(scheme)].add(str(concept))
    assert dict(found) == SCHEMES
    # (the unions that the domains of some properties are, blank owl:Class nodes, are no classes of the draft)
    assert {str(c) for c in graph.subjects(rdflib.RDF.type, rdflib.OWL.Class) if isinstance(c, rdflib.URIRef)} == CLASSES


def test_the_estate_leaves_some_codes_untouched_and_exercises_others():
    used = set().union(*(terms for _, terms in INTENTS.values()))
    # what the numbers below rest on, stated once in words
    assert used & SCHEMES[CUBBY + "DialogueActs"] == SCHEMES[CUBBY + "DialogueActs"]
    assert not used & SCHEMES[CUBBY + "ReviewerRoles"]
    assert 0 < len(used & SCHEMES[CHEEZ + "CheckKinds"]) < 17


def test_coverage_concepts_reports_every_code_once_with_its_intents(estate):
    rows = catalogue.run(catalogue.load()["coverage-concepts"], estate).rows
    got = {(r["scheme"], r["concept"]): r for r in rows}
    assert len(got) == len(rows) == sum(len(c) for c in SCHEMES.values()) == 45
    assert set(got) == {(s, c) for s, codes in SCHEMES.items() for c in codes}
    for (scheme, concept), row in sorted(got.items()):
        using = [(key, split) for key, (split, terms) in INTENTS.items() if concept in terms]
        assert row["ontology"] == ONTOLOGY
        assert row["intents"] == len(using), concept
        assert row["intents_development"] == sum(split == "development" for _, split in using), concept
        assert row["intents_held_out"] == sum(split == "held-out" for _, split in using), concept
        assert row["covered"] is bool(using), concept
        assert row["label"], concept
    untouched = {c for (s, c), r in got.items() if not r["covered"]}
    assert untouched == set().union(*SCHEMES.values()) - set().union(*(t for _, t in INTENTS.values()))


@pytest.mark.parametrize("replay_set", SETS)
def test_coverage_summary_counts_each_code_list_per_replay_set(estate, replay_set):
    rows = [r for r in catalogue.run(catalogue.load()["coverage-summary"], estate).rows
            if r["replay_set"].endswith(f"/replayset/{replay_set}")]
    used = set().union(*(terms for (s, _), (_, terms) in INTENTS.items() if s == replay_set))
    concepts = {r["scheme"]: r for r in rows if r["what"] == "concept"}
    assert set(concepts) == set(SCHEMES), "one row per code list, none missing"
    for scheme, codes in SCHEMES.items():
        row = concepts[scheme]
        assert (row["covered"], row["total"]) == (len(codes & used), len(codes)), scheme
        assert row["coverage"] == pytest.approx(len(codes & used) / len(codes)), scheme
    [classes] = [r for r in rows if r["what"] == "class"]
    assert (classes["covered"], classes["total"]) == (len(CLASSES & used), len(CLASSES))

