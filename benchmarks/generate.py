"""A deterministic estate generator for the benchmarks: replay sets, their gold, delivered
situations, EARL results and a domain ontology, in kg's own input formats, at any size.

    python benchmarks/generate.py --intents N --trials T --systems S --seed X OUT_DIR

The same arguments always write byte-identical files (one `random.Random(seed)` per replay set,
consumed in a fixed order; dates from fixed starting points; dicts in insertion order).

Size. Assertions ≈ intents × trials × systems × graders per trial, where a trial has two
automated graders (check-state, mechanical; judge-v2, model) and a human (alice) on a sample
of `--human-rate` of the trials (plus a re-grade where she corrected herself), so graders per
trial ≈ 2 + human rate. `--assertions N` picks the intents for a target instead of `--intents`.

Layout. Intents are split evenly into replay sets of at most `--intents-per-set` (default 1000;
at least two sets, so both suite kinds appear), and each (set, system) gets its own situations
file and EARL file — the way a harness writes one results file per run of one system on one
suite. Per set: `<set>.replayset.json`, `<set>.gold.json`; per set and system:
`<set>.<system>.situations.jsonl`, `<set>.<system>.earl.jsonl`; once: `domain.ttl`, an OWL
ontology of a few hundred classes and some SKOS concept schemes (some left unexercised).
`--single-file` joins every EARL file into one, `bench-all.earl.jsonl` (the big-file memory benchmark).

Mix (every figure is a rate per trial unless said otherwise; each trait is also planted at least
once per set so that even a tiny estate has every one):
* every one of the nine buckets (the first nine intents of a set cover them); behaviours route,
  decline (negative-*), clarify (collision-ambiguous), several and plan; starting states shared
  by many intents and identical every time; both splits; hypothesis and adjudicated;
* environment outage 0.8% (every grader says cantTell/environment), agent crash 0.4% (cantTell/
  agent, empty situation, selection undetected), judge timeout 2% (judge-v2 cantTell/grader),
  judge cantTell with no cause 0.3%, judge untested 0.1%, judge inapplicable on every trial of
  1 intent in 97, judge disagreeing with check-state 3% (alice always grades those);
* alice (human, mode manual) on 10% of trials, siding with check-state; 5% of her grades are
  corrected by a re-grade a day later that supersedes the first (a superseded assessment);
* 0.1% of trials cite a stale criterion digest (a pre-registration problem the quality page shows).

check-state passes exactly when the situation's records hold every class the expected outcome
describes (and asked, when it describes asking) — the rule of examples/generate.py.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import rfc8785

DOM = "https://bench.example/domain#"
ONTOLOGY = "https://bench.example/domain"
PREFIXES = {"dom": DOM}
BUCKETS = ("explicit", "implicit", "contextual", "negative-near", "negative-scope", "negative-out",
           "collision-a", "collision-b", "collision-ambiguous")
BUCKET_WEIGHTS = (25, 15, 10, 8, 7, 5, 10, 10, 10)
AREAS = ("Order", "Invoice", "Shipment", "Supplier", "Contract", "Payment", "Ledger", "Claim", "Ticket",
         "Asset", "Report", "Policy")
FACETS = ("Record", "Draft", "Review", "Approval", "Commit", "Region", "Answer", "Summary", "Note", "Alert",
          "Check", "Request", "Reply", "Version", "Link", "Score", "Label", "Task", "Plan", "Helper", "Trace",
          "Query", "Batch", "Audit", "Export")
SCHEMES = {  # scheme → concepts (a few hundred classes above, some dozens of codes here)
    "DialogueActs": ("Question", "Follow-up", "Clarifying question", "Small talk", "Refusal", "Certified answer",
                     "Command", "Confirmation", "Greeting", "Complaint", "Correction", "Thanks"),
    "RefusalReasons": ("Fact missing", "Ambiguous", "Not certified", "Unreadable source", "Policy limit",
                       "Out of scope", "Dates too coarse", "Value conflict", "No plan", "Walk failed"),
    "ReviewOutcomes": ("Approved", "Rejected", "Returned", "Escalated", "Withdrawn"),
    "CheckKinds": ("Arithmetic", "Number in region", "Purchase order", "Supplier", "Date precision", "Duplicate",
                   "Format", "Scope", "Tone", "Escape", "Entity guard", "Reproduction", "Gain", "Prerequisite",
                   "Rejection rate", "Conflict"),
    "Channels": ("Chat", "Email", "Voice", "Batch job", "API", "Mobile"),
    "Priorities": ("Low", "Normal", "High", "Urgent"),
}
GRADERS = {
    "check-state": {"id": "check-state", "kind": "mechanical",
                    "implementation": "sha256:" + hashlib.sha256(b"check-state 3.2.0").hexdigest()},
    "judge-v2": {"id": "judge-v2", "kind": "model",
                 "implementation": "sha256:" + hashlib.sha256(b"judge-v2 rubric rev 14").hexdigest()},
    "alice": {"id": "alice", "kind": "human"},
}
MODE = {"mechanical": "automatic", "model": "automatic", "human": "manual"}
RATES = {"outage": 0.008, "crash": 0.004, "timeout": 0.02, "unexplained": 0.003, "untested": 0.001,
         "flip": 0.03, "stale": 0.001, "supersede": 0.05}
INAPPLICABLE_EVERY = 97
SKILLS = 30
STATES = 12
START = datetime(2026, 1, 5, 8, 0, tzinfo=timezone.utc)


def digest(obj) -> str:
    return "sha256:" + hashlib.sha256(rfc8785.dumps(obj)).hexdigest()


def camel(text: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in text.replace("-", " ").split())


def graders_per_trial(human_rate: float) -> float:
    return 2 + human_rate * (1 + RATES["supersede"])


def intents_for(assertions: int, trials: int, systems: int, human_rate: float = 0.1) -> int:
    return max(2, round(assertions / (trials * systems * graders_per_trial(human_rate))))


# ── the domain ────────────────────────────────────────────────────────────────────────────────
def domain_classes() -> list[str]:
    return [a for a in AREAS] + [a + f for a in AREAS for f in FACETS] + ["Turn", "Refusal"]


def domain_concepts() -> list[tuple[str, str, str]]:
    """(scheme, local name, label)."""
    return [(s, camel(c) + ("Act" if s == "DialogueActs" else ""), c) for s, cs in SCHEMES.items() for c in cs]


def ontology_ttl() -> str:
    lines = ["# A generated domain ontology for kg's benchmarks: classes in areas, and SKOS code lists.",
             f"@prefix dom: <{DOM}> .", "@prefix owl: <http://www.w3.org/2002/07/owl#> .",
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
             "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .", "",
             f'<{ONTOLOGY}> a owl:Ontology ; rdfs:label "Benchmark domain" ; owl:versionInfo "1.0" .', ""]
    for area in AREAS:
        lines.append(f'dom:{area} a owl:Class ; rdfs:label "{area}"@en ; rdfs:isDefinedBy <{ONTOLOGY}> .')
        for facet in FACETS:
            lines.append(f'dom:{area}{facet} a owl:Class ; rdfs:label "{area.lower()} {facet.lower()}"@en ; '
                         f'rdfs:subClassOf dom:{area} ; rdfs:isDefinedBy <{ONTOLOGY}> .')
    lines.append(f'dom:Turn a owl:Class ; rdfs:label "Turn"@en ; rdfs:isDefinedBy <{ONTOLOGY}> .')
    lines.append(f'dom:Refusal a owl:Class ; rdfs:label "Refusal"@en ; rdfs:subClassOf dom:Turn ; '
                 f'rdfs:isDefinedBy <{ONTOLOGY}> .')
    lines.append("")
    for scheme in SCHEMES:
        tops = ", ".join(f"dom:{local}" for s, local, _ in domain_concepts() if s == scheme)
        lines.append(f'dom:{scheme} a skos:ConceptScheme ; skos:prefLabel "{scheme}"@en ; skos:hasTopConcept {tops} .')
    for scheme, local, label in domain_concepts():
        lines.append(f'dom:{local} a skos:Concept ; skos:inScheme dom:{scheme} ; skos:topConceptOf dom:{scheme} ; '
                     f'skos:prefLabel "{label.lower()}"@en ; rdfs:isDefinedBy <{ONTOLOGY}> .')
    return "\n".join(lines) + "\n"


class World:
    """Skills, what each leaves behind, outcome descriptions and starting states: fixed by the seed."""

    def __init__(self, seed: int):
        rng = random.Random(f"{seed}/world")
        classes = [c for c in domain_classes() if c not in ("Turn", "Refusal")]
        # about a third of the classes are never exercised, so coverage is not trivially full
        usable = rng.sample(classes, k=2 * len(classes) // 3)
        self.skills = [f"skill-{n:02d}" for n in range(SKILLS)]
        self.product = {s: rng.sample(usable, k=rng.choice((1, 2, 2, 3))) for s in self.skills}
        self.exercised = usable
        concepts = [local for _, local, _ in domain_concepts()]
        self.concepts = rng.sample(concepts, k=3 * len(concepts) // 4)
        # descriptions: (describesClasses, describesAsk)
        self.descriptions = {f"{s}-done": (self.product[s], False) for s in self.skills}
        self.descriptions["declined"] = (["Refusal"], False)
        self.descriptions["ask-which"] = (["Turn"], True)
        self.states = {}
        for n in range(STATES):
            self.states[f"state-{n:02d}"] = {
                "id": f"state-{n:02d}", "holdsClasses": [f"dom:{c}" for c in rng.sample(usable, k=rng.randint(0, 2))],
                "recentSkills": rng.sample(self.skills, k=rng.randint(0, 1)),
                "memoryTags": rng.sample(["prefers-short", "approver-on-shift", "new-user", "audit-mode"],
                                         k=rng.randint(0, 2))}


# ── one replay set ────────────────────────────────────────────────────────────────────────────
def make_intents(world: World, rng: random.Random, set_index: int, count: int) -> list[dict]:
    intents = []
    for n in range(count):
        bucket = BUCKETS[n] if n < len(BUCKETS) else rng.choices(BUCKETS, BUCKET_WEIGHTS)[0]
        skill = rng.choice(world.skills)
        other = rng.choice([s for s in world.skills if s != skill])
        it = {"id": f"i{set_index:03d}-{n:05d}", "bucket": bucket, "split": "development" if n % 3 else "held-out",
              "adjudication": "hypothesis" if rng.random() < 0.3 else "adjudicated",
              "family": f"family-{rng.randrange(40):02d}", "state": None,
              "skill": skill, "acceptable": [], "forbidden": [], "collides": None, "options": [], "plan": [],
              "candidates": [], "far": other, "score": 1.0 if rng.random() < 0.97 else 0.8,
              "p": rng.choice((0.97, 0.9, 0.75, 0.55, 0.35)), "inferred": rng.random() < 0.05,
              "inapplicable": n % INAPPLICABLE_EVERY == 5}
        if bucket.startswith("negative"):
            it.update(behaviour="decline", skill=None, outcome="declined", forbidden=[other] if bucket == "negative-near" else [])
        elif bucket == "collision-ambiguous":
            it.update(behaviour="clarify", skill=None, outcome="ask-which", options=[skill, other],
                      candidates=[f"{skill}-done", f"{other}-done"])
        else:
            behaviour = "route"
            if n == 1 or (n > 9 and rng.random() < 0.08):
                behaviour = "several"
            elif n == 2 or (n > 9 and rng.random() < 0.07):
                behaviour = "plan"
            it.update(behaviour=behaviour, outcome=f"{skill}-done")
            if bucket in ("collision-a", "collision-b"):
                it["collides"] = other
            elif rng.random() < 0.25:
                it["acceptable"] = [rng.choice([s for s in world.skills if s not in (skill, other)])]
            if behaviour == "several":
                it["options"] = [skill, other]
                it["candidates"] = [f"{skill}-done", f"{other}-done"]
            elif behaviour == "plan":
                it["plan"] = [other, skill]
        if rng.random() < 0.4:
            it["state"] = rng.choice(sorted(world.states))
        it["classes"] = [f"dom:{c}" for c in (world.product[it["skill"]] if it["skill"] else rng.sample(world.exercised, k=1))]
        it["concepts"] = [f"dom:{c}" for c in rng.sample(world.concepts, k=rng.randint(1, 2))]
        it["message"] = f"Request {it['id']} ({bucket}): please handle {' and '.join(c[4:] for c in it['classes'])}."
        intents.append(it)
    return intents


def replayset_document(name: str, suite: str, intents: list[dict], world: World) -> dict:
    rows = []
    for it in intents:
        row = {"id": it["id"], "split": it["split"], "bucket": it["bucket"], "message": it["message"],
               "adjudication": it["adjudication"], "exercisesClasses": it["classes"],
               "exercisesConcepts": it["concepts"], "caseFamily": it["family"]}
        if it["state"]:
            row["startingState"] = world.states[it["state"]]
        rows.append(row)
    return {"replaySet": name, "version": "1", "suiteKind": suite, "title": f"Benchmark suite {name}",
            "prefixes": PREFIXES, "intents": rows}


def gold_document(name: str, set_digest: str, intents: list[dict], world: World, registered: str) -> dict:
    used = sorted({d for it in intents for d in [it["outcome"], *it["candidates"]]})
    descriptions = [{"id": d, "describesClasses": [f"dom:{c}" for c in world.descriptions[d][0]],
                     "describesMissing": [], "describesAsk": world.descriptions[d][1]} for d in used]
    criteria = []
    for it in intents:
        criteria.append({
            "intent": it["id"], "expectedBehaviour": it["behaviour"], "expectedSkill": it["skill"],
            "acceptableSkills": it["acceptable"], "forbiddenSkills": it["forbidden"], "collidesWith": it["collides"],
            "optionSkills": it["options"], "expectedPlan": it["plan"], "expectedMissing": [],
            "expectedOutcome": it["outcome"], "candidateOutcomes": it["candidates"],
            "referenceAnswer": f"The reference answer to {it['id']}.", "referenceScore": it["score"]})
    return {"replaySet": name, "setDigest": set_digest, "revision": 1, "registeredAt": registered,
            "prefixes": PREFIXES, "descriptions": descriptions, "criteria": criteria}


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def satisfies(world: World, records: list[str], asked: bool, description: str) -> bool:
    classes, ask = world.descriptions[description]
    return all(c in records for c in classes) and (not ask or asked)


def selection(it: dict, selected: str | None, crashed: bool) -> str:
    if crashed:
        return "undetected"
    if it["skill"] is None:
        return "tn" if selected is None else "spur"
    if selected is None:
        return "miss"
    if selected == it["skill"]:
        return "tp"
    if selected in it["acceptable"]:
        return "tp-alt"
    if selected == it["collides"]:
        return "mis-sib"
    return "mis-far"


def trial_traits(rng: random.Random, first: dict, key: str) -> bool:
    """A trait's draw, forced true the first time a set reaches its planting slot."""
    if first.get(key) is False:
        first[key] = True
        return True
    return rng.random() < RATES[key]


def write_set(out: Path, world: World, seed: int, set_index: int, count: int, trials: int, systems: list[str],
              human_rate: float, situations: bool = True) -> dict:
    name = f"bench-{set_index:03d}"
    suite = "regression" if set_index % 3 == 1 else "capability"
    rng = random.Random(f"{seed}/{name}")
    intents = make_intents(world, rng, set_index, count)
    registered = stamp(START + timedelta(days=set_index))
    replayset = replayset_document(name, suite, intents, world)
    gold = gold_document(name, digest(replayset), intents, world, registered)
    criteria = {c["intent"]: digest(c) for c in gold["criteria"]}
    write_json(out / f"{name}.replayset.json", replayset)
    write_json(out / f"{name}.gold.json", gold)
    counts = {"intents": count, "trials": 0, "situations": 0, "assertions": 0, "superseded": 0}
    for s_index, system in enumerate(systems):
        srng = random.Random(f"{seed}/{name}/{system}")
        clock = START + timedelta(days=30 + set_index, hours=s_index * 6)
        alice_clock = clock + timedelta(days=2)
        tag = system.replace("@", "-")
        # plant every trait once per (set, system) near the start, at trials no other trait takes
        first = {k: False for k in ("outage", "crash", "timeout", "unexplained", "untested", "flip", "stale",
                                    "supersede")}
        n_sit = n_a = 0
        sits_path = out / f"{name}.{tag}.situations.jsonl" if situations else Path(os.devnull)
        with open(sits_path, "w", encoding="utf-8", newline="\n") as sits, \
             open(out / f"{name}.{tag}.earl.jsonl", "w", encoding="utf-8", newline="\n") as earl:
            alice_rows = []
            p_shift = 0.03 * s_index
            for it in intents:
                for trial in range(trials):
                    counts["trials"] += 1
                    n_sit += 1
                    sit_id = f"sit-{set_index:03d}-{s_index}-{n_sit:07d}"
                    run = f"{system}/{name}/{it['id']}/{trial}"
                    outage = trial_traits(srng, first, "outage")
                    crash = not outage and trial_traits(srng, first, "crash")
                    succeed = srng.random() < min(0.99, it["p"] + p_shift)
                    records, asked, reached, selected = delivered(world, it, srng, succeed, crash)
                    sit = {"id": sit_id, "run": run, "system": system, "replaySet": name, "intent": it["id"],
                           "trial": trial, "records": [{"id": f"rec-{k}", "class": DOM + c}
                                                        for k, c in enumerate(records, 1)],
                           "namedMissing": [], "asked": asked, "reachedUnder": reached, "selectedSkill": selected}
                    sits.write(json.dumps(sit, separators=(",", ":")) + "\n")
                    passed = satisfies(world, records, asked, it["outcome"])
                    sel = selection(it, selected, crash)
                    common = {"run": run, "system": system, "replaySet": name, "intent": it["id"], "trial": trial,
                              "selectionOutcome": sel,
                              "chargedTo": selected if sel in ("mis-sib", "mis-far", "spur") else None,
                              "evidenceKind": "inferred" if it["inferred"] else "stamped",
                              "criterionDigest": criteria[it["id"]],
                              "situation": sit_id if situations else None}
                    if not outage and not crash and trial_traits(srng, first, "stale"):
                        common["criterionDigest"] = digest({"stale": it["id"]})
                    if outage:
                        mech = judge = ("cantTell", "environment", "record store unavailable (HTTP 503)")
                    elif crash:
                        mech = judge = ("cantTell", "agent", "agent process exited before writing any record")
                    else:
                        mech = ("passed", None, None) if passed else ("failed", None, "the records miss a class")
                        judge = (mech[0], None, None)
                        flip = False
                        if it["inapplicable"]:
                            judge = ("inapplicable", None, "nothing to judge for this case")
                        elif trial_traits(srng, first, "timeout"):
                            judge = ("cantTell", "grader", "judge timed out after 120 s")
                        elif trial_traits(srng, first, "unexplained"):
                            judge = ("cantTell", None, "judge gave no verdict")
                        elif trial_traits(srng, first, "untested"):
                            judge = ("untested", None, "judge skipped")
                        elif trial_traits(srng, first, "flip"):
                            flip = True
                            judge = ("failed", None, "judged incomplete") if passed else ("passed", None, "judged fine")
                    when = clock + timedelta(seconds=20)
                    n_a += 1
                    earl.write(assertion(f"a-{set_index:03d}-{s_index}-{n_a:07d}", common, "check-state", mech, when))
                    n_a += 1
                    earl.write(assertion(f"a-{set_index:03d}-{s_index}-{n_a:07d}", common, "judge-v2", judge,
                                         when + timedelta(seconds=25)))
                    if srng.random() < human_rate or (not outage and not crash and flip):
                        alice_rows.append((common, mech))
                    clock += timedelta(seconds=90)
            for common, mech in alice_rows:
                n_a += 1
                first_id = f"a-{set_index:03d}-{s_index}-{n_a:07d}"
                if mech[0] in ("passed", "failed") and trial_traits(srng, first, "supersede"):
                    wrong = ("failed", None, "looked wrong at first") if mech[0] == "passed" else ("passed", None, None)
                    earl.write(assertion(first_id, common, "alice", wrong, alice_clock))
                    n_a += 1
                    earl.write(assertion(f"a-{set_index:03d}-{s_index}-{n_a:07d}", common, "alice",
                                         (mech[0], None, "re-graded after checking again"),
                                         alice_clock + timedelta(days=1), supersedes=first_id))
                    counts["superseded"] += 1
                else:
                    earl.write(assertion(first_id, common, "alice", mech, alice_clock))
                alice_clock += timedelta(minutes=4)
        counts["situations"] += n_sit if situations else 0
        counts["assertions"] += n_a
    return counts


def delivered(world: World, it: dict, rng: random.Random, succeed: bool, crash: bool):
    """(record classes, asked, reachedUnder, selectedSkill) of one trial."""
    if crash:
        return [], False, None, None
    classes, ask = world.descriptions[it["outcome"]]
    if succeed:
        if it["behaviour"] == "decline":
            return ["Refusal"], False, it["outcome"], None
        if it["behaviour"] == "clarify":
            return ["Turn"], True, it["outcome"], None
        selected = it["skill"]
        if it["acceptable"] and rng.random() < 0.25:
            selected = it["acceptable"][0]
        records = list(classes)
        if it["behaviour"] == "plan":
            records = list(dict.fromkeys(world.product[it["plan"][0]] + records))
        return records, ask, it["outcome"], selected
    mode = rng.random()
    if it["behaviour"] == "decline":  # a spurious selection
        return list(world.product[it["far"]]), False, None, it["far"]
    if it["behaviour"] in ("clarify", "several"):  # guessed one reading
        k = rng.randrange(2)
        return list(world.descriptions[it["candidates"][k]][0]), False, it["candidates"][k], it["options"][k]
    if it["collides"] and mode < 0.7:
        return list(world.product[it["collides"]]), False, None, it["collides"]
    if mode < 0.25:
        return [], False, None, None
    if mode < 0.4 and len(classes) > 1:
        return list(classes[:-1]), False, it["outcome"], it["skill"]
    return list(world.product[it["far"]]), False, None, it["far"]


def assertion(ident: str, common: dict, grader: str, verdict: tuple, when: datetime, supersedes: str | None = None) -> str:
    g = GRADERS[grader]
    outcome, cause, info = verdict
    row = {"id": ident, "run": common["run"], "system": common["system"], "replaySet": common["replaySet"],
           "intent": common["intent"], "trial": common["trial"], "grader": g, "mode": MODE[g["kind"]],
           "outcome": outcome, "failureCause": cause, "selectionOutcome": common["selectionOutcome"],
           "chargedTo": common["chargedTo"], "evidenceKind": common["evidenceKind"],
           "criterionDigest": common["criterionDigest"], "date": stamp(when), "supersedes": supersedes,
           "situation": common["situation"], "info": info}
    return json.dumps(row, separators=(",", ":")) + "\n"


def write_json(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8", newline="\n")


def systems_named(count: int) -> list[str]:
    return [f"agent@1.{n}.0" for n in range(count)]


SINGLE_EARL = "bench-all.earl.jsonl"


def generate(out: Path, *, intents: int, trials: int = 5, systems: int = 3, seed: int = 1,
             intents_per_set: int = 1000, human_rate: float = 0.1, single_file: bool = False,
             situations: bool = True) -> dict:
    """Writes the estate into `out` (emptied of earlier estates first); returns what it wrote."""
    if intents < 2 or trials < 1 or systems < 1:
        raise ValueError("need at least 2 intents, 1 trial and 1 system")
    out.mkdir(parents=True, exist_ok=True)
    for old in list(out.glob("bench-*")) + list(out.glob("domain.ttl")):  # bench-all.earl.jsonl too
        old.unlink()
    world = World(seed)
    (out / "domain.ttl").write_text(ontology_ttl(), encoding="utf-8", newline="\n")
    sets = max(2, math.ceil(intents / intents_per_set))
    sizes = [intents // sets + (1 if k < intents % sets else 0) for k in range(sets)]
    totals = {"intents": 0, "trials": 0, "situations": 0, "assertions": 0, "superseded": 0}
    names = systems_named(systems)
    for k, count in enumerate(sizes):
        for key, value in write_set(out, world, seed, k, count, trials, names, human_rate, situations).items():
            totals[key] += value
    if single_file:
        # every EARL file's lines, in the same order, as one file: how a harness that writes one results
        # file per campaign hands it over (what the memory benchmark loads, BENCHMARKS.md)
        with open(out / SINGLE_EARL, "wb") as whole:
            for part in sorted(out.glob("bench-[0-9]*.earl.jsonl")):
                with open(part, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        whole.write(block)
                part.unlink()
    manifest = {"intents": intents, "trials_per_intent": trials, "systems": names, "seed": seed,
                "intents_per_set": intents_per_set, "human_rate": human_rate, "replay_sets": sets,
                "single_file": single_file, "situations_written": situations,
                "classes": len(domain_classes()), "concepts": len(domain_concepts()), "schemes": len(SCHEMES),
                "files": sorted(p.name for p in out.iterdir() if p.name != "manifest.json"), **totals}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    size = ap.add_mutually_exclusive_group(required=True)
    size.add_argument("--intents", type=int, help="intents in all (split into replay sets)")
    size.add_argument("--assertions", type=int, help="a target number of assertions instead of --intents")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--systems", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--intents-per-set", type=int, default=1000)
    ap.add_argument("--human-rate", type=float, default=0.1)
    ap.add_argument("--single-file", action="store_true",
                    help=f"write every EARL result into one file, {SINGLE_EARL} (the other files as usual)")
    ap.add_argument("--no-situations", dest="situations", action="store_false",
                    help="write no situations files, and let no assertion cite a situation: an EARL file "
                         "loaded on its own, without the base of 800k situations a 1 GB file would cite")
    ap.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    intents = args.intents or intents_for(args.assertions, args.trials, args.systems, args.human_rate)
    manifest = generate(args.out, intents=intents, trials=args.trials, systems=args.systems, seed=args.seed,
                        intents_per_set=args.intents_per_set, human_rate=args.human_rate, single_file=args.single_file,
                        situations=args.situations)
    print(f"{args.out}: {manifest['replay_sets']} replay sets, {manifest['intents']} intents, "
          f"{manifest['situations']} situations, {manifest['assertions']} assertions "
          f"({manifest['superseded']} superseded), {len(manifest['files'])} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
