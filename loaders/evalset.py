"""Eval-set rows with a case profile (*.evalset.jsonl) → a dcat:Dataset of earl:TestCase, one per line.

Each row is `{"id", "input"?, "expected"?, "evalSet"?, "metadata": {"case": {...}, "passLogicWritten"?}}`.
The eval set's id is the row's `evalSet`, else the file name before `.evalset` (cubby-cases for
cubby-cases.evalset.jsonl); a file may hold rows of several sets. The profile at metadata.case is
checked against case-profile.schema.json, the published v1 schema shipped unchanged (places under
/metadata/case); its caseId must equal the row's id, and its evaluator must be admissible for its
oracleType by the table in case-profile-admissibility.json. Case ids are unique in the store.

The case's IRI is {base}test/{id}: the IRI an EARL JSON Lines row with no replaySet mints for the same
id as its intent, so verdicts on a case name it by its plain id. The set is {base}evalset/{id}. Every
profile field becomes a triple (kg/vocab/kg-profiles.ttl): the closed code lists as SKOS concepts,
free text as literals. metadata.passLogicWritten {by, at} records when an expert wrote the pass logic
(kg:passLogicWrittenAt), which decides whether a verdict on an expected-behavior-only case counts."""
import json
from dataclasses import replace
from pathlib import Path

import rfc8785

from kg import paths
from kg.digests import canonical_digest
from kg.jsonio import schema_problems
from kg.loading import Projection, loader
from kg.lookups import loaded_among
from kg.terms import KG, XSD, Triples, declare, iri, literal, p

PROFILE_SCHEMA = "case-profile.schema.json"
ADMISSIBILITY = "case-profile-admissibility.json"

# profile field -> (property, IRI prefix of its codes in kg-profiles.ttl)
CODED = {"oracleType": ("kg:oracleType", "oracle-"), "evaluator": ("kg:evaluator", "evaluator-"),
         "reversibility": ("kg:reversibility", "reversibility-"), "blastRadius": ("kg:blastRadius", "blast-"),
         "provenance": ("kg:caseProvenance", "provenance-")}
TEXT = {"scenario": "dcterms:description", "actor": "kg:actor", "expectedBehavior": "kg:expectedBehavior",
        "toolActionExpectation": "kg:toolActionExpectation", "escalationExpectation": "kg:escalationExpectation",
        "reviewerExpertise": "kg:reviewerExpertise", "passLogic": "kg:passLogic", "version": "dcat:version",
        "retirementCondition": "kg:retirementCondition", "caseFamily": "kg:caseFamily"}
LISTS = {"unacceptableBehavior": "kg:unacceptableBehavior", "evaluationCriteria": "kg:evaluationCriterion",
         "linkedConcerns": "kg:linkedConcern"}


def admissibility() -> dict[str, list[str]]:
    """oracleType → admissible evaluators, from the one table kg keeps."""
    table = json.loads((paths.loaders() / ADMISSIBILITY).read_text(encoding="utf-8"))
    return {oracle: entry["evaluators"] for oracle, entry in table["admissible"].items()}


def profile_schema_id() -> str:
    return json.loads((paths.loaders() / PROFILE_SCHEMA).read_text(encoding="utf-8"))["$id"]


def set_id_from_name(path: Path) -> str:
    name = path.name
    return name[: name.lower().index(".evalset")]


def canonical_text(value) -> str:
    return rfc8785.dumps(value).decode("utf-8")


@loader(kind="evalset", parse="jsonl", patterns=("*.evalset.jsonl",), schema="evalset.schema.json",
        shapes="evalset.ttl", order=25)
def read_evalset(source, ctx):
    rows = source.jsonl()
    admissible = admissibility()
    conforms_to = iri(profile_schema_id())
    schema_path = str(paths.loaders() / PROFILE_SCHEMA)
    mint = ctx.minter()
    case_iris = {n: ctx.mint(f"line {n}, /id", lambda: mint.iri(row["id"], "test")) for n, row in rows}
    elsewhere = loaded_among(ctx, [c for c in case_iris.values() if c], "kg:oracleType ?o")
    ctx.duplicates(((f"line {n}, /id", row["id"]) for n, row in rows), "case id")
    default_set = set_id_from_name(source.path)
    t = Triples()
    for n, row in rows:
        profile = row["metadata"]["case"]
        here = f"line {n}, /metadata/case"
        for problem in schema_problems(source.name, profile, schema_path):
            pointer = "" if problem.place == "/" else problem.place
            ctx.problems.append(replace(problem, place=here + pointer))
        case_id = profile.get("caseId")
        if isinstance(case_id, str) and case_id != row["id"]:
            ctx.problem(f"{here}/caseId", f'caseId "{case_id}" differs from the row\'s id "{row["id"]}"',
                        "the profile repeats the row's id: make them equal")
        oracle, evaluator = profile.get("oracleType"), profile.get("evaluator")
        if oracle in admissible and isinstance(evaluator, str) and evaluator not in admissible[oracle]:
            ctx.problem(f"{here}/evaluator", f'evaluator "{evaluator}" is not admissible for oracleType "{oracle}" '
                        f"(admissible: {', '.join(admissible[oracle])})",
                        f"use one of the admissible evaluators, or another oracleType (the table: loaders/{ADMISSIBILITY})")
        criteria = [c for c in profile.get("evaluationCriteria") or [] if isinstance(c, str) and c.strip()]
        if oracle == "rubric" and not criteria:
            ctx.problem(f"{here}/evaluationCriteria", "a rubric case with no evaluation criteria has no rubric "
                        '(the profile schema: "For a rubric oracle this is the rubric")',
                        "write the rubric's criteria, one per entry, or declare another oracleType")
        written = row["metadata"].get("passLogicWritten")
        if written and not str(profile.get("passLogic", "")).strip():
            ctx.problem(f"line {n}, /metadata/passLogicWritten",
                        "says when the pass logic was written, but the profile has no passLogic",
                        'add "passLogic" to metadata.case, or remove "passLogicWritten"')

        set_id = row.get("evalSet") or default_set
        set_place = f"line {n}, /evalSet" if row.get("evalSet") else "the file name"
        set_iri = ctx.mint(set_place, lambda: mint.iri(set_id, "evalset"))
        case_iri = case_iris[n]
        if set_iri is None or case_iri is None:
            continue
        if case_iri in elsewhere:
            ctx.problem(f"line {n}, /id", f'case "{row["id"]}" is already loaded from {elsewhere[case_iri]}',
                        "case ids are unique across the store: drop the other source or rename the case")
            continue
        s, c = iri(set_iri), iri(case_iri)
        declare(t, set_iri, "dcat:Dataset", set_id)
        t.add(s, p("dcterms:hasPart"), c)
        declare(t, case_iri, "earl:TestCase", row["id"])
        t.add(c, p("dcterms:isPartOf"), s)
        t.add(c, p("dcterms:conformsTo"), conforms_to)
        t.add(c, p("kg:contentDigest"), literal(canonical_digest(row)))
        for key in ("input", "expected"):
            if key in row:
                t.add(c, p(f"kg:{key}"), literal(canonical_text(row[key])))
        for field, (prop, prefix) in CODED.items():
            if isinstance(profile.get(field), str):
                t.add(c, p(prop), iri(f"{KG}{prefix}{profile[field]}"))
        for field, prop in TEXT.items():
            value = profile.get(field)
            if isinstance(value, str) and value.strip():
                t.add(c, p(prop), literal(value))
        for field, prop in LISTS.items():
            for value in profile.get(field) or []:
                if isinstance(value, str) and value.strip():
                    t.add(c, p(prop), literal(value))
        if profile.get("extensions"):
            t.add(c, p("kg:extensions"), literal(canonical_text(profile["extensions"])))
        if written:
            expert = ctx.mint(f"line {n}, /metadata/passLogicWritten/by", lambda: mint.iri(written["by"], "expert"))
            if expert:
                declare(t, expert, "prov:Agent", written["by"])
                t.add(c, p("kg:passLogicWrittenBy"), iri(expert))
            t.add(c, p("kg:passLogicWrittenAt"), literal(written["at"], XSD + "dateTime"))
    return Projection(t)
