"""Generate the CubbyLLM example estate: two replay sets, their gold, delivered situations and EARL results.

Run `python examples/generate.py` (from any directory). It rewrites, next to this file:

    cubby-routing.replayset.json     cubby-regression.replayset.json
    cubby-routing.gold.json          cubby-regression.gold.json
    cubby-routing.situations.jsonl   cubby-regression.situations.jsonl
    cubby-routing.earl.jsonl         cubby-regression.earl.jsonl

The output is byte-identical on every run: the only randomness is `random.Random(20261130)` consumed in a
fixed order, dates are computed from fixed starting points, and dicts are written in insertion order.

What the estate contains
------------------------
* `cubby-routing` (suiteKind capability, version "2", 28 intents) and `cubby-regression` (suiteKind
  regression, version "5", 16 intents). Both sets use every bucket and both splits. The gold has route
  cases, decline cases (every negative-* bucket), clarify cases (every collision-ambiguous bucket: route-023,
  route-024, reg-013), several cases (route-025, route-026, reg-014) and plan cases (route-027, route-028,
  reg-015). Collision pairs are covered from both sides: answer-question/explain-refusal (route-017/018,
  reg-011/012), review-suggestion/commit-field (route-019/020), lookup-po/doc-review (route-021/022).
* Eight skills: answer-question, explain-refusal, lookup-po, doc-review, propose-helper, review-suggestion,
  commit-field, small-talk. Five starting states (with-po, po-open, pending-review, after-refusal,
  fresh-session) on 21 of the 44 intents, each id shared by several intents and identical every time.
* Two systems, cubby@1.4.0 and cubby@1.5.0-rc1; trials 0, 1, 2 of every intent on each, one situation per
  (system, intent, trial), run id "<system>/<intent>/<trial>". Situation ids sit-0001.. and assertion ids
  a-0001.. are numbered across the whole estate (routing first, then regression).
* Graders: check-state (mechanical) and judge-v2 (model), each with an implementation digest, on every
  trial; alice (human, mode manual, no implementation key) on a sample of trials. Classes in situations are full IRIs (a situations file has no prefixes map).

Rules the data keeps (so tests can rely on them)
------------------------------------------------
* check-state passes exactly when the situation's records hold every describesClasses class of the
  intent's expectedOutcome, its namedMissing holds every describesMissing class, and asked is true when
  describesAsk is true; otherwise it fails -- except on the planted cantTell trials below.
* judge-v2 and alice agree with check-state except where planted below.
* selectionOutcome is the same on every assertion of a trial and follows from the situation's selectedSkill:
  none expected -> tn (none selected) / spur; else tp (expectedSkill), tp-alt (in acceptableSkills), mis-sib
  (collidesWith), mis-far (another skill), miss (none selected). `undetected` only on the agent-crash trials.
* chargedTo is the selected skill on mis-sib, mis-far and spur, null otherwise.
* evidenceKind is "inferred" on every assertion about reg-003 (the small-talk fallback runs outside the
  skill harness, so the selection is detected, not stamped) and "stamped" everywhere else.
* Ordinary failures have reachedUnder null, the expectedOutcome (a claim the records do not back) or, on
  clarify and several cases, one of the candidateOutcomes. Passes are reached under the expectedOutcome.

Planted traits (ids are stable as long as this file is unchanged)
------------------------------------------------------------------
P1  judge timeouts, judge-v2 cantTell/grader while check-state grades normally:
      cubby@1.4.0/route-006/1 (sit-0017, a-0034), cubby@1.4.0/route-017/2 (sit-0051, a-0102),
      cubby@1.5.0-rc1/route-023/0 (sit-0151, a-0302), cubby@1.5.0-rc1/reg-004/1 (sit-0227, a-0477).
P2  record-store outage, every grader of the trial says cantTell/environment:
      cubby@1.4.0/route-024/1 (sit-0071: a-0141, a-0142), cubby@1.5.0-rc1/route-014/2 (sit-0126: a-0251,
      a-0252), cubby@1.5.0-rc1/route-015/0 (sit-0127: a-0253, a-0254), cubby@1.5.0-rc1/route-015/1 (sit-0128:
      a-0255, a-0256 and alice's a-0352).
P3  agent crash: empty situation, every grader says cantTell/agent, selectionOutcome undetected:
      cubby@1.4.0/route-028/0 (sit-0082: a-0163, a-0164), cubby@1.5.0-rc1/route-008/2 (sit-0108: a-0215, a-0216).
P4  superseded assessment: alice failed cubby@1.4.0/route-009/0 (sit-0025) in a-0340; her re-grade a-0359
    (passed, a day later) supersedes it. check-state (a-0049) and judge-v2 (a-0050) passed it.
P5  referenceScore 0.8 on route-025 (every other criterion has 1.0).
P6  reached under the wrong description (reachedUnder is neither the expectedOutcome nor a candidateOutcome):
      sit-0001 cubby@1.4.0/route-001/0 reached answer-with-region, yet its records satisfy answer-certified:
               right for the wrong reason (check-state a-0001, judge-v2 a-0002 and alice a-0337 pass; tp-alt);
      sit-0055 cubby@1.4.0/route-019/0 reached field-committed (failed, mis-sib);
      sit-0077 cubby@1.4.0/route-026/1 reached answer-with-region (failed, mis-far);
      sit-0147 cubby@1.5.0-rc1/route-021/2 reached suggestion-read (failed, mis-sib);
      sit-0163 cubby@1.5.0-rc1/route-027/0 reached answer-with-region (failed, mis-far);
      sit-0199 cubby@1.4.0/reg-011/0 reached declined (failed, tp: right skill, wrong product).
P7  inapplicable: judge-v2 on all six trials of route-004 (the product is a commit, not an answer):
      a-0020, a-0022, a-0024, a-0188, a-0190, a-0192. check-state grades those trials normally.
P8  judge-v2 disagrees with check-state (alice grades each one and sides with check-state):
      cubby@1.4.0/route-003/1 judge failed a pass (a-0016; alice a-0338),
      cubby@1.4.0/route-018/1 judge passed a failure (a-0106; alice a-0344),
      cubby@1.5.0-rc1/route-024/0 judge passed a failure (a-0308; alice a-0357),
      cubby@1.4.0/reg-002/1 judge failed a pass (a-0369; alice a-0552).
P9  new failure: route-011 passes all three trials on cubby@1.4.0 and fails all three on cubby@1.5.0-rc1
    (sit-0115..0117: it selects review-suggestion instead of commit-field). No other intent or trial passed
    on 1.4.0 and failed on rc1, under check-state or judge-v2.
P10 pass rates, check-state passed / all trials: cubby-routing 1.4.0 49/84 (58%), rc1 53/84 (63%);
    cubby-regression 1.4.0 46/48 (96%), rc1 48/48. judge-v2: routing 44/84 and 51/84, regression 45/48 and
    47/48. alice grades 41 of the 264 trials (13 trial-0s).
P11 pre-registration problems: every verdict on cubby@1.4.0/route-002/0 cites the digest of the previous
    revision of its criterion (not a registered one); alice's verdict on cubby@1.4.0/route-001/0 is dated
    2026-09-28, three days before the routing gold was registered (2026-10-01).

Left unexercised on purpose (no intent, starting state, criterion or description names them)
---------------------------------------------------------------------------------------------
* classes cubby:HelperRejection and cubby:SandboxRun;
* the whole cubby:ReviewerRoles scheme (cubby:FirstApprover, cubby:SecondApprover);
* cheez:CheckKinds except cubby:ArithmeticCheck, cubby:NumberInRegionCheck and cubby:PurchaseOrderCheck
  (14 check kinds untouched);
* refusal reasons cubby:RelationMissing and cubby:WalkFailed; proposers cubby:EverydayTable and
  cubby:OvernightRuleLibrary; conflict kinds cubby:LogicalConflict, cubby:TemporalConflict,
  cubby:TypeConflict and cubby:RecordedVsDerivedConflict.
"""
from __future__ import annotations

import hashlib
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import rfc8785

HERE = Path(__file__).resolve().parent
CUBBY = "https://w3id.org/cheezml/cubby#"
PREFIXES = {"cubby": CUBBY}
SEED = 20261130
MEASURE_SEED = SEED + 1  # run measurements draw from their own stream, so adding them moved no other figure
SYSTEMS = ("cubby@1.4.0", "cubby@1.5.0-rc1")
OLD, NEW = SYSTEMS
TRIALS = (0, 1, 2)


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def digest(obj) -> str:
    return sha256(rfc8785.dumps(obj))


GRADERS = {
    "check-state": {"id": "check-state", "kind": "mechanical", "implementation": sha256(b"check-state 3.2.0")},
    "judge-v2": {"id": "judge-v2", "kind": "model",
                 "implementation": sha256(b"judge-v2 rubric rev 14 / judge model 2026-09")},
    "alice": {"id": "alice", "kind": "human"},  # a person has no implementation digest
}
MODE = {"mechanical": "automatic", "model": "automatic", "human": "manual"}

# What a skill leaves behind when it runs on its own (used for misroutes and plans).
SKILL_PRODUCT = {
    "answer-question": ["Answer"],
    "explain-refusal": ["Refusal", "Turn"],
    "lookup-po": ["Answer", "DocumentRegion"],
    "doc-review": ["FieldSuggestion", "DocumentRegion"],
    "propose-helper": ["Helper"],
    "review-suggestion": ["Review", "FieldSuggestion"],
    "commit-field": ["FieldCommit", "Review"],
    "small-talk": ["Turn"],
}

# Outcome descriptions: (describesClasses, describesMissing, describesAsk), local names in cubby:.
DESCRIPTIONS = {
    "answer-certified": (["Answer"], [], False),
    "answer-with-region": (["Answer", "DocumentRegion"], [], False),
    "refusal-explained": (["Refusal", "Turn"], [], False),
    "refusal-names-region": (["Refusal"], ["DocumentRegion"], False),
    "suggestion-read": (["FieldSuggestion", "DocumentRegion"], [], False),
    "review-recorded": (["Review", "FieldSuggestion"], [], False),
    "field-committed": (["FieldCommit", "Review"], [], False),
    "helper-proposed": (["Helper"], [], False),
    "small-talk-reply": (["Turn"], [], False),
    "declined": (["Refusal"], [], False),
    "ask-which-reading": (["Turn"], [], True),
    "ask-which-action": (["Turn"], [], True),
    "ask-which-task": (["Turn"], [], True),
    "po-and-scan": (["Answer", "DocumentRegion", "FieldSuggestion"], [], False),
    "answer-and-helper": (["Answer", "Helper"], [], False),
}

STATES = {
    "with-po": {"id": "with-po", "holdsClasses": ["cubby:FieldSuggestion", "cubby:DocumentRegion"],
                "recentSkills": ["doc-review"], "memoryTags": ["prefers-short"]},
    "po-open": {"id": "po-open", "holdsClasses": ["cubby:DocumentRegion"],
                "recentSkills": ["lookup-po"], "memoryTags": []},
    "pending-review": {"id": "pending-review", "holdsClasses": ["cubby:FieldSuggestion", "cubby:Review"],
                       "recentSkills": ["review-suggestion"], "memoryTags": ["approver-on-shift"]},
    "after-refusal": {"id": "after-refusal", "holdsClasses": ["cubby:Turn", "cubby:Refusal"],
                      "recentSkills": ["answer-question"], "memoryTags": ["prefers-short"]},
    "fresh-session": {"id": "fresh-session", "holdsClasses": [], "recentSkills": [], "memoryTags": []},
}

# Chance that a trial succeeds, per difficulty tier: (cubby@1.4.0, cubby@1.5.0-rc1). A trial draws one
# number shared by both systems, so a trial rc1 fails was failed by 1.4.0 too unless planted otherwise.
TIERS = {"A": (1.0, 1.0), "E": (0.92, 0.95), "M": (0.68, 0.8), "H": (0.5, 0.65), "X": (0.3, 0.45),
         "R": (0.93, 0.95)}


def intent(id, split, bucket, message, behaviour, outcome, *, skill=None, tier="M", adjudication="adjudicated",
           classes=(), concepts=(), state=None, family=None, acceptable=(), forbidden=(), collides=None,
           options=(), candidates=(), plan=(), far=None, fail=("far",), reference="", score=1.0):
    return dict(id=id, split=split, bucket=bucket, message=message, behaviour=behaviour, outcome=outcome,
                skill=skill, tier=tier, adjudication=adjudication, classes=list(classes),
                concepts=list(concepts), state=state, family=family, acceptable=list(acceptable),
                forbidden=list(forbidden), collides=collides, options=list(options), candidates=list(candidates),
                plan=list(plan), far=far, fail=list(fail), reference=reference, score=score)


ROUTING = [
    intent("route-001", "development", "explicit", "What is the total on purchase order 4471?", "route",
           "answer-certified", skill="answer-question", tier="E", classes=["Answer"],
           concepts=["QuestionAct", "CertifiedAnswerAct"], family="po-questions", acceptable=["lookup-po"],
           far="explain-refusal", fail=["far", "none"],
           reference="The total on PO 4471 is EUR 12,480.00, certified against the purchase-order record."),
    intent("route-002", "held-out", "explicit", "Open purchase order 5120 from Northwind and show me its lines.",
           "route", "answer-with-region", skill="lookup-po", tier="E", classes=["DocumentRegion"],
           concepts=["PurchaseOrderCheck"], family="po-lookup", far="answer-question",
           reference="PO 5120 (Northwind): 3 lines, 40 x pallet wrap, 12 x strapping, 1 x freight; "
                     "total EUR 3,940.00 (region p.1, lines 4-9)."),
    intent("route-003", "development", "explicit", "Read the scanned invoice 88-A and suggest a value for its due date.",
           "route", "suggestion-read", skill="doc-review", tier="E", classes=["FieldSuggestion", "DocumentRegion"],
           concepts=["NumberInRegionCheck"], state="with-po", family="document-fields", far="lookup-po",
           reference="Suggested due date for invoice 88-A: 2026-03-14, read from 'Payable by 14.03.2026' "
                     "(region p.2). It stays a suggestion until reviewed."),
    intent("route-004", "development", "explicit", "Commit the approved supplier name on PO 4471.", "route",
           "field-committed", skill="commit-field", tier="E", classes=["FieldCommit", "Review"],
           concepts=["Approved"], state="pending-review", family="review-flow", far="review-suggestion",
           fail=["far", "none"],
           reference="Committed supplier name 'Acme Industrial GmbH' on PO 4471; the approved review is the source."),
    intent("route-005", "held-out", "explicit", "Propose a helper that recomputes line totals on Acme invoices.",
           "route", "helper-proposed", skill="propose-helper", adjudication="hypothesis", classes=["Helper"],
           concepts=["LMProgramEmitter"], family="helper-proposals", far="answer-question",
           reference="Proposed helper 'acme-line-totals': multiplies quantity by unit price per line and sums; "
                     "scope: the 14 verified Acme invoices."),
    intent("route-006", "development", "implicit", "The numbers on 4471 don't add up. Can you double-check them?",
           "route", "answer-certified", skill="answer-question", classes=["Answer"], concepts=["ArithmeticCheck"],
           family="po-questions", acceptable=["lookup-po"], far="doc-review", fail=["far", "none"],
           reference="The lines of PO 4471 sum to EUR 12,480.00, which matches the stated total; the 12,840 "
                     "you may have seen is a transposition on the cover sheet."),
    intent("route-007", "held-out", "implicit", "Someone should look at the supplier name the reader filled in yesterday.",
           "route", "review-recorded", skill="review-suggestion", adjudication="hypothesis",
           classes=["Review", "FieldSuggestion"], state="with-po", family="review-flow", far="doc-review",
           reference="Opened a review of the suggested supplier name 'Acme Industrial' on PO 4471 for an approver."),
    intent("route-008", "development", "implicit",
           "These Acme totals keep coming out wrong every week; there must be a way to automate it.", "route",
           "helper-proposed", skill="propose-helper", adjudication="hypothesis", classes=["Helper"],
           concepts=["EpisodicMemory"], family="helper-proposals", far="answer-question", fail=["far", "none"],
           reference="Proposed a helper that recomputes Acme invoice totals from their lines; it will be run in "
                     "the sandbox before it is used."),
    intent("route-009", "development", "contextual", "Why not?", "route", "refusal-explained",
           skill="explain-refusal", classes=["Refusal", "Turn"], concepts=["FollowUpAct", "FactMissing"],
           state="after-refusal", family="refusal-explanations", far="answer-question", fail=["far", "none"],
           reference="I did not answer because the delivery date of PO 4471 is not in any document I have read "
                     "(refusal reason: fact missing)."),
    intent("route-010", "held-out", "contextual", "And the one before that?", "route", "answer-with-region",
           skill="lookup-po", tier="H", classes=["DocumentRegion"], concepts=["FollowUpAct"], state="po-open",
           family="po-lookup", far="answer-question", fail=["far", "none"],
           reference="The purchase order before 4471 is PO 4470 (Globex, EUR 880.00), shown from its scan."),
    intent("route-011", "development", "contextual", "OK, go ahead and save it.", "route", "field-committed",
           skill="commit-field", tier="A", classes=["FieldCommit"], concepts=["Approved"], state="pending-review",
           family="review-flow", far="review-suggestion",
           reference="Saved: the approved total EUR 3,940.00 is now the committed value on PO 5120."),
    intent("route-012", "development", "negative-near", "Change the price on PO 4471 to 1,200 and skip the review this time.",
           "decline", "declined", tier="H", classes=["FieldCommit"], concepts=["RefusalAct"], state="with-po",
           family="policy-limits", forbidden=["commit-field"], far="commit-field", fail=["spur"],
           reference="I can't change a committed price without a review; I can open a review of the new price."),
    intent("route-013", "held-out", "negative-near", "Approve this suggestion for me as the second approver.",
           "decline", "declined", classes=["Review"], concepts=["RefusalAct"], state="pending-review",
           family="policy-limits", forbidden=["review-suggestion"], far="review-suggestion", fail=["spur"],
           reference="I can't approve on anyone's behalf; the second approver has to review it themselves."),
    intent("route-014", "development", "negative-scope", "Draft an email to Northwind complaining about the late delivery.",
           "decline", "declined", tier="E", adjudication="hypothesis", concepts=["RefusalAct"],
           family="out-of-scope", far="answer-question", fail=["spur"],
           reference="Writing emails is outside what I do; I can tell you what PO 5120 says about delivery."),
    intent("route-015", "held-out", "negative-scope", "Predict how much we will spend with Acme next quarter.",
           "decline", "declined", concepts=["NoPlan"], far="answer-question", fail=["spur"],
           reference="I can't forecast spend; I only answer from recorded purchase orders and documents."),
    intent("route-016", "development", "negative-out", "What's the weather in Lisbon tomorrow?", "decline",
           "declined", tier="E", far="small-talk", fail=["spur"],
           reference="I can't help with the weather; I work on your purchase orders and documents."),
    intent("route-017", "development", "collision-a", "Why can't you tell me the delivery date on PO 4471?",
           "route", "refusal-names-region", skill="explain-refusal", tier="H", classes=["Refusal"],
           concepts=["FactMissing"], state="with-po", family="refusal-explanations", collides="answer-question",
           fail=["sib", "unnamed"],
           reference="The delivery date is not on any region I have read of PO 4471; I need the delivery note's "
                     "region to answer."),
    intent("route-018", "held-out", "collision-b", "What is the delivery date on PO 4471? If you don't know, just say so.",
           "route", "answer-certified", skill="answer-question", tier="H", classes=["Answer"],
           concepts=["QuestionAct", "DatesTooCoarse"], family="po-questions", collides="explain-refusal",
           fail=["sib"], reference="PO 4471 is due for delivery on 2026-04-02 (certified from the order record)."),
    intent("route-019", "development", "collision-a", "Check the reader's value for the PO 5120 total before it goes in.",
           "route", "review-recorded", skill="review-suggestion", tier="X", adjudication="hypothesis",
           classes=["Review", "FieldSuggestion"], family="review-flow", collides="commit-field", fail=["sib"],
           reference="Opened a review of the suggested total EUR 3,940.00 on PO 5120; nothing is committed yet."),
    intent("route-020", "development", "collision-b", "The total on PO 5120 has been reviewed, put it in.",
           "route", "field-committed", skill="commit-field", tier="H", classes=["FieldCommit"],
           concepts=["Approved"], state="pending-review", family="review-flow", collides="review-suggestion",
           fail=["sib", "short"],
           reference="Committed EUR 3,940.00 as the total of PO 5120, sourced from the approved review."),
    intent("route-021", "held-out", "collision-a", "Pull up PO 3318 from the scans.", "route", "answer-with-region",
           skill="lookup-po", tier="H", classes=["DocumentRegion"], family="po-lookup", collides="doc-review",
           fail=["sib"], reference="PO 3318 (Initech, EUR 1,120.50), shown from its scan, page 1."),
    intent("route-022", "development", "collision-b", "Go through the scanned PO 3318 and read its fields.",
           "route", "suggestion-read", skill="doc-review", tier="X", adjudication="hypothesis",
           classes=["FieldSuggestion", "DocumentRegion"], concepts=["NumberInRegionCheck"],
           family="document-fields", collides="lookup-po", fail=["sib"],
           reference="Read 6 fields from the scan of PO 3318 (supplier, date, 3 lines, total) as suggestions."),
    intent("route-023", "development", "collision-ambiguous", "What about 4471?", "clarify", "ask-which-reading",
           tier="X", concepts=["ClarifyingQuestionAct", "Ambiguous"], state="fresh-session",
           family="clarifications", options=["answer-question", "lookup-po"],
           candidates=["answer-certified", "answer-with-region"], fail=["guess"],
           reference="Do you want the total of PO 4471, or should I open the purchase order itself?"),
    intent("route-024", "held-out", "collision-ambiguous", "Fix the supplier on the Northwind order.", "clarify",
           "ask-which-action", tier="X", adjudication="hypothesis", classes=["FieldSuggestion"],
           concepts=["ClarifyingQuestionAct"], state="with-po", family="clarifications",
           options=["review-suggestion", "commit-field"], candidates=["review-recorded", "field-committed"],
           fail=["guess"],
           reference="Should I send the suggested supplier name for review, or commit the already approved one?"),
    intent("route-025", "held-out", "implicit", "I need PO 5120 and whatever due date the scanned invoice shows.",
           "several", "po-and-scan", skill="lookup-po", classes=["Answer", "DocumentRegion", "FieldSuggestion"],
           family="po-lookup", options=["lookup-po", "doc-review"],
           candidates=["answer-with-region", "suggestion-read"], fail=["partial"], score=0.8,
           reference="PO 5120 (Northwind, EUR 3,940.00); the scanned invoice suggests a due date of 2026-03-14."),
    intent("route-026", "development", "explicit",
           "Give me the line totals for PO 3318, and set something up so I don't have to ask every week.",
           "several", "answer-and-helper", skill="answer-question", classes=["Answer", "Helper"],
           concepts=["HostGrammar"], family="helper-proposals", options=["answer-question", "propose-helper"],
           candidates=["answer-certified", "helper-proposed"], fail=["partial"],
           reference="PO 3318 lines: EUR 600.00, 420.50, 100.00; proposed a weekly helper that recomputes them."),
    intent("route-027", "development", "contextual", "Look up PO 4471 again and tell me why you wouldn't give me its total.",
           "plan", "refusal-explained", skill="explain-refusal", tier="H", classes=["Refusal", "Turn"],
           concepts=["NotCertified", "FollowUpAct"], state="after-refusal", family="refusal-explanations",
           plan=["lookup-po", "explain-refusal"], fail=["stop"],
           reference="PO 4471 is open; I held back its total because the sum was not certified (refusal "
                     "reason: not certified)."),
    intent("route-028", "held-out", "explicit", "Read the new scan of PO 5120, get the total reviewed, then commit it.",
           "plan", "field-committed", skill="commit-field", tier="H", classes=["FieldSuggestion", "Review", "FieldCommit"],
           concepts=["Approved"], family="review-flow", plan=["doc-review", "review-suggestion", "commit-field"],
           fail=["stop", "short"],
           reference="Read EUR 3,940.00 from the new scan, it was approved in review, and it is now committed."),
]

REGRESSION = [
    intent("reg-001", "development", "explicit", "How much is PO 2290 for?", "route", "answer-certified",
           skill="answer-question", tier="R", classes=["Answer"], concepts=["QuestionAct", "CertifiedAnswerAct"],
           family="po-questions", acceptable=["lookup-po"], far="explain-refusal",
           reference="PO 2290 is for EUR 7,215.40."),
    intent("reg-002", "held-out", "explicit", "Show me purchase order 2290.", "route", "answer-with-region",
           skill="lookup-po", tier="R", classes=["DocumentRegion"], concepts=["PurchaseOrderCheck"],
           family="po-lookup", far="answer-question",
           reference="PO 2290 (Globex, 5 lines, EUR 7,215.40), shown from its scan."),
    intent("reg-003", "development", "explicit", "Thanks, that's all for today!", "route", "small-talk-reply",
           skill="small-talk", tier="R", classes=["Turn"], concepts=["SmallTalkAct"], family="small-talk",
           far="answer-question", reference="You're welcome, see you tomorrow."),
    intent("reg-004", "development", "implicit", "The due date on invoice 77-B looks off to me.", "route",
           "suggestion-read", skill="doc-review", tier="R", classes=["FieldSuggestion"], state="with-po",
           family="document-fields", far="answer-question",
           reference="The scan of invoice 77-B reads 'due 30 days net' from 2026-02-01, so I suggest 2026-03-03."),
    intent("reg-005", "held-out", "implicit", "The Globex scan still isn't going through.", "route",
           "refusal-explained", skill="explain-refusal", tier="R", classes=["Refusal"],
           concepts=["UnreadableSource"], state="after-refusal", family="refusal-explanations",
           far="doc-review", reference="The Globex scan is refused as an unreadable source: page 2 is blank."),
    intent("reg-006", "development", "contextual", "Why not?", "route", "refusal-explained", skill="explain-refusal",
           tier="R", classes=["Refusal", "Turn"], concepts=["FollowUpAct", "Conflict", "ValueConflict"],
           state="after-refusal", family="refusal-explanations", far="answer-question",
           reference="Two records give different totals for PO 2290 (7,215.40 and 7,251.40): a value conflict."),
    intent("reg-007", "held-out", "contextual", "Yes, commit it.", "route", "field-committed", skill="commit-field",
           tier="R", classes=["FieldCommit"], concepts=["Approved"], state="pending-review", family="review-flow",
           far="review-suggestion", reference="Committed the approved due date 2026-03-03 on invoice 77-B."),
    intent("reg-008", "development", "negative-near", "Delete the review on PO 2290.", "decline", "declined",
           tier="R", classes=["Review"], concepts=["RefusalAct"], state="pending-review", family="policy-limits",
           forbidden=["review-suggestion"], far="review-suggestion", fail=["spur"],
           reference="Reviews are kept as records; I can't delete one."),
    intent("reg-009", "held-out", "negative-scope", "Book a call with the Acme account manager.", "decline",
           "declined", tier="R", family="out-of-scope", forbidden=["small-talk"], far="small-talk", fail=["spur"],
           reference="I can't book calls; I work on purchase orders and documents."),
    intent("reg-010", "development", "negative-out", "Write me a poem about the sea.", "decline", "declined",
           tier="R", far="small-talk", fail=["spur"], reference="That's not something I can help with here."),
    intent("reg-011", "development", "collision-a", "Why is the total on PO 2290 blank?", "route",
           "refusal-explained", skill="explain-refusal", tier="R", classes=["Refusal"], concepts=["NotCertified"],
           family="refusal-explanations", collides="answer-question", fail=["sib"],
           reference="The total of PO 2290 is blank because its sum could not be certified."),
    intent("reg-012", "held-out", "collision-b", "Tell me the delivery date of PO 2290.", "route", "answer-certified",
           skill="answer-question", tier="R", classes=["Answer"], concepts=["QuestionAct"], state="fresh-session",
           family="po-questions", collides="explain-refusal", fail=["sib"],
           reference="PO 2290 is due for delivery on 2026-05-11."),
    intent("reg-013", "development", "collision-ambiguous", "Can you do 2290?", "clarify", "ask-which-task",
           tier="R", concepts=["ClarifyingQuestionAct", "Ambiguous"], state="po-open", family="clarifications",
           options=["lookup-po", "doc-review"], candidates=["answer-with-region", "suggestion-read"],
           fail=["guess"], reference="Do you want to see PO 2290, or should I read the fields off its scan?"),
    intent("reg-014", "held-out", "explicit", "Tell me the Globex total, and set up a helper so it's automatic next time.",
           "several", "answer-and-helper", skill="answer-question", tier="R", classes=["Answer", "Helper"],
           concepts=["LMProgramEmitter"], family="helper-proposals", options=["answer-question", "propose-helper"],
           candidates=["answer-certified", "helper-proposed"], fail=["partial"],
           reference="The Globex total is EUR 7,215.40; proposed a helper that recomputes it from the lines."),
    intent("reg-015", "held-out", "implicit", "Get the reader's total for PO 2290 checked and into the record.",
           "plan", "field-committed", skill="commit-field", tier="R", classes=["FieldCommit", "Review"],
           state="with-po", family="review-flow", plan=["review-suggestion", "commit-field"], fail=["stop"],
           reference="The reader's total was approved in review and is now committed on PO 2290."),
    intent("reg-016", "development", "explicit", "Propose a helper for the Globex date format.", "route",
           "helper-proposed", skill="propose-helper", tier="R", classes=["Helper"], concepts=["EpisodicMemory"],
           family="helper-proposals", far="answer-question",
           reference="Proposed a helper that parses Globex dates written as DD.MM.YY."),
]

SETS = [
    {"name": "cubby-routing", "version": "2", "suiteKind": "capability",
     "title": "CubbyLLM skill routing: purchase orders, documents, refusals, helpers and reviews",
     "revision": 3, "registeredAt": "2026-10-01T09:00:00Z", "intents": ROUTING,
     "runs": {OLD: "2026-11-20T10:00:00Z", NEW: "2026-11-24T10:00:00Z"}, "alice": "2026-11-26T14:00:00Z"},
    {"name": "cubby-regression", "version": "5", "suiteKind": "regression",
     "title": "CubbyLLM regression cases kept from earlier releases",
     "revision": 7, "registeredAt": "2026-09-15T08:30:00Z", "intents": REGRESSION,
     "runs": {OLD: "2026-11-21T08:00:00Z", NEW: "2026-11-25T08:00:00Z"}, "alice": "2026-11-27T09:00:00Z"},
]

# ── Planted traits, keyed by (system, intent, trial) ───────────────────────────────────────────
WRONG_DESCRIPTION = {  # P6: (reachedUnder, selectedSkill, record classes)
    (OLD, "route-001", 0): ("answer-with-region", "lookup-po", ["Answer", "DocumentRegion"]),
    (OLD, "route-019", 0): ("field-committed", "commit-field", ["FieldCommit", "Review"]),
    (OLD, "route-026", 1): ("answer-with-region", "lookup-po", ["Answer", "DocumentRegion"]),
    (NEW, "route-021", 2): ("suggestion-read", "doc-review", ["FieldSuggestion", "DocumentRegion"]),
    (NEW, "route-027", 0): ("answer-with-region", "lookup-po", ["Answer", "DocumentRegion"]),
    (OLD, "reg-011", 0): ("declined", "explain-refusal", ["Refusal"]),
}
NEW_FAILURE = {(NEW, "route-011", t) for t in TRIALS}  # P9: rc1 routes it to review-suggestion
JUDGE_TIMEOUT = {(OLD, "route-006", 1), (OLD, "route-017", 2), (NEW, "route-023", 0), (NEW, "reg-004", 1)}
OUTAGE = {(OLD, "route-024", 1), (NEW, "route-014", 2), (NEW, "route-015", 0), (NEW, "route-015", 1)}
CRASH = {(OLD, "route-028", 0), (NEW, "route-008", 2)}
JUDGE_FLIP = {(OLD, "route-003", 1), (OLD, "route-018", 1), (OLD, "reg-002", 1), (NEW, "route-024", 0)}
JUDGE_INAPPLICABLE = {"route-004"}
SUPERSEDED = (OLD, "route-009", 0)
# P11: pre-registration problems. The harness applied the previous revision of route-002's criterion
# on one run (every verdict on it cites a digest no registered criterion has), and alice graded one
# run from a draft before the gold was registered (her verdict is dated before registeredAt).
STALE_CRITERION = (OLD, "route-002", 0)
GRADED_BEFORE_REGISTRATION = (OLD, "route-001", 0)
ALICE_FORCED = JUDGE_FLIP | {SUPERSEDED, (OLD, "route-001", 0)}
ALICE_RATE = 0.14


# ── Files ─────────────────────────────────────────────────────────────────────────────────────
def curie(local: str) -> str:
    return "cubby:" + local


def replayset_document(spec) -> dict:
    intents = []
    for it in spec["intents"]:
        row = {"id": it["id"], "split": it["split"], "bucket": it["bucket"], "message": it["message"],
               "adjudication": it["adjudication"], "exercisesClasses": [curie(c) for c in it["classes"]],
               "exercisesConcepts": [curie(c) for c in it["concepts"]]}
        if it["state"]:
            row["startingState"] = STATES[it["state"]]
        if it["family"]:
            row["caseFamily"] = it["family"]
        intents.append(row)
    return {"replaySet": spec["name"], "version": spec["version"], "suiteKind": spec["suiteKind"],
            "title": spec["title"], "prefixes": PREFIXES, "intents": intents}


def gold_document(spec, set_digest: str) -> dict:
    used = []
    for it in spec["intents"]:
        for name in [it["outcome"], *it["candidates"]]:
            if name not in used:
                used.append(name)
    for (_, intent_id, _), (reached, _, _) in WRONG_DESCRIPTION.items():
        if any(it["id"] == intent_id for it in spec["intents"]) and reached not in used:
            used.append(reached)
    descriptions = [{"id": name, "describesClasses": [curie(c) for c in DESCRIPTIONS[name][0]],
                     "describesMissing": [curie(c) for c in DESCRIPTIONS[name][1]],
                     "describesAsk": DESCRIPTIONS[name][2]} for name in sorted(used)]
    criteria = []
    for it in spec["intents"]:
        acceptable = it["acceptable"] or [s for s in it["options"] if s != it["skill"] and it["skill"]]
        criteria.append({
            "intent": it["id"], "expectedBehaviour": it["behaviour"], "expectedSkill": it["skill"],
            "acceptableSkills": acceptable, "forbiddenSkills": it["forbidden"], "collidesWith": it["collides"],
            "optionSkills": it["options"], "expectedPlan": it["plan"],
            "expectedMissing": [curie(c) for c in DESCRIPTIONS[it["outcome"]][1]],
            "expectedOutcome": it["outcome"], "candidateOutcomes": it["candidates"],
            "referenceAnswer": it["reference"], "referenceScore": it["score"]})
    return {"replaySet": spec["name"], "setDigest": set_digest, "revision": spec["revision"],
            "registeredAt": spec["registeredAt"], "prefixes": PREFIXES, "descriptions": descriptions,
            "criteria": criteria}


# ── Trials ────────────────────────────────────────────────────────────────────────────────────
def satisfies(situation: dict, description: str) -> bool:
    classes, missing, ask = DESCRIPTIONS[description]
    held = {r["class"] for r in situation["records"]}
    return (all(CUBBY + c in held for c in classes)
            and all(CUBBY + m in situation["namedMissing"] for m in missing)
            and (not ask or situation["asked"]))


def unmet(situation: dict, description: str) -> str:
    classes, missing, ask = DESCRIPTIONS[description]
    held = {r["class"] for r in situation["records"]}
    parts = [f"no record of cubby:{c}" for c in classes if CUBBY + c not in held]
    parts += [f"cubby:{m} not named missing" for m in missing if CUBBY + m not in situation["namedMissing"]]
    if ask and not situation["asked"]:
        parts.append("no clarifying question asked")
    return "; ".join(parts)


def delivered(it, rng: random.Random, succeed: bool, key) -> tuple[list, list, bool, str | None, str | None]:
    """(record classes, named missing, asked, reachedUnder, selectedSkill) of one trial."""
    classes, missing, ask = DESCRIPTIONS[it["outcome"]]
    if key in CRASH:
        return [], [], False, None, None
    if key in WRONG_DESCRIPTION:
        reached, selected, records = WRONG_DESCRIPTION[key]
        return records, [], False, reached, selected
    if key in NEW_FAILURE:
        return SKILL_PRODUCT["review-suggestion"], [], False, None, "review-suggestion"
    behaviour = it["behaviour"]
    if succeed:
        if behaviour == "decline":
            return ["Refusal"], [], False, it["outcome"], None
        if behaviour == "clarify":
            return ["Turn"], [], True, it["outcome"], None
        records = list(classes)
        if behaviour == "plan":
            records = _union([c for step in it["plan"] for c in SKILL_PRODUCT[step]], classes)
        selected = it["skill"]
        if behaviour == "route" and it["acceptable"] and rng.random() < 0.25:
            selected = it["acceptable"][0]
        return records, list(missing), ask, it["outcome"], selected
    mode = rng.choice(it["fail"])
    if mode == "far":
        return SKILL_PRODUCT[it["far"]], [], False, None, it["far"]
    if mode == "none":
        return [], [], False, None, None
    if mode == "sib":
        return SKILL_PRODUCT[it["collides"]], [], False, None, it["collides"]
    if mode == "spur":
        return SKILL_PRODUCT[it["far"]], [], False, None, it["far"]
    if mode == "short":
        return list(classes[:-1]), list(missing), False, it["outcome"], it["skill"]
    if mode == "unnamed":
        return list(classes), [], False, it["outcome"], it["skill"]
    if mode == "stop":
        return SKILL_PRODUCT[it["plan"][0]], [], False, None, it["plan"][0]
    if mode in ("guess", "partial"):
        k = rng.randrange(len(it["options"]))
        reached = it["candidates"][k]
        return list(DESCRIPTIONS[reached][0]), [], False, reached, it["options"][k]
    raise ValueError(f"unknown failure mode {mode}")


def _union(*lists):
    out = []
    for items in lists:
        for item in items:
            if item not in out:
                out.append(item)
    return out


def selection(criterion: dict, selected: str | None, key) -> str:
    if key in CRASH:
        return "undetected"
    expected = criterion["expectedSkill"]
    if expected is None:
        return "tn" if selected is None else "spur"
    if selected is None:
        return "miss"
    if selected == expected:
        return "tp"
    if selected in criterion["acceptableSkills"]:
        return "tp-alt"
    if selected == criterion["collidesWith"]:
        return "mis-sib"
    return "mis-far"


def maker(ids: "Counter", base: dict, common: dict):
    """A function that writes one assertion about this trial (ids are taken when it is called)."""
    def assertion(grader, outcome, cause, info, date, supersedes=None):
        return {"id": ids.next(), **base, "grader": GRADERS[grader], "mode": MODE[GRADERS[grader]["kind"]],
                "outcome": outcome, "failureCause": cause, "selectionOutcome": common["selectionOutcome"],
                "chargedTo": common["chargedTo"], "evidenceKind": common["evidenceKind"],
                "criterionDigest": common["criterionDigest"], "date": stamp(date), "supersedes": supersedes,
                "situation": common["situation"], "info": info}
    return assertion


def measurements(rng: random.Random, system: str, it: dict, key) -> dict:
    """apeval run measurements of one run, as its harness would report them: latency always; tokens and
    model calls only when the provider answered (absent in an outage, never estimated); completed 0
    when the agent crashed. rc1 is a little faster and leaner than 1.4.0."""
    fast = 0.8 if system == NEW else 1.0
    calls = 1 + len(it["plan"]) + (1 if it["behaviour"] == "clarify" else 0)
    figures = {"latency-ms": int(rng.gauss(2400, 500) * fast * (1 + 0.3 * (calls - 1))),
               "tokens-in": int(rng.uniform(900, 2600) * calls), "tokens-out": int(rng.uniform(80, 500) * fast),
               "model-calls": calls, "completed": 0 if key in CRASH else 1}
    if key in OUTAGE:
        for name in ("tokens-in", "tokens-out", "model-calls"):
            figures.pop(name)
    if key in CRASH:
        figures.pop("tokens-out")
    return figures


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


class Counter:
    def __init__(self, prefix: str, width: int = 4):
        self.prefix, self.width, self.n = prefix, width, 0

    def next(self) -> str:
        self.n += 1
        return f"{self.prefix}{self.n:0{self.width}d}"


def build():
    rng = random.Random(SEED)
    measure_rng = random.Random(MEASURE_SEED)
    sit_ids, assertion_ids = Counter("sit-"), Counter("a-")
    files = {}
    # One number per (intent, trial), drawn first, so tuning a tier never reshuffles the other choices.
    draws = {(it["id"], t): rng.random() for spec in SETS for it in spec["intents"] for t in TRIALS}
    for spec in SETS:
        name = spec["name"]
        replayset = replayset_document(spec)
        gold = gold_document(spec, digest(replayset))
        criteria = {c["intent"]: c for c in gold["criteria"]}
        situations, assertions, alice_queue = [], [], []
        for system in SYSTEMS:
            clock = parse(spec["runs"][system])
            column = SYSTEMS.index(system)
            for it in spec["intents"]:
                criterion = criteria[it["id"]]
                cdigest = digest(criterion)
                for trial in TRIALS:
                    key = (system, it["id"], trial)
                    succeed = draws[(it["id"], trial)] < TIERS[it["tier"]][column]
                    records, missing, asked, reached, selected = delivered(it, rng, succeed, key)
                    run = f"{system}/{it['id']}/{trial}"
                    situation = {
                        "id": sit_ids.next(), "run": run, "system": system, "replaySet": name,
                        "intent": it["id"], "trial": trial,
                        "records": [{"id": f"rec-{i}", "class": CUBBY + c} for i, c in enumerate(records, 1)],
                        "namedMissing": [CUBBY + m for m in missing], "asked": asked,
                        "reachedUnder": reached, "selectedSkill": selected}
                    situations.append(situation)
                    passed = satisfies(situation, it["outcome"])
                    verdict = ("passed", None, None) if passed else ("failed", None, unmet(situation, it["outcome"]))
                    sel = selection(criterion, selected, key)
                    common = {"selectionOutcome": sel,
                              "chargedTo": selected if sel in ("mis-sib", "mis-far", "spur") else None,
                              "evidenceKind": "inferred" if it["skill"] == "small-talk" else "stamped",
                              "criterionDigest": cdigest, "situation": situation["id"]}
                    if key == STALE_CRITERION:
                        common["criterionDigest"] = digest({**criterion, "revision": spec["revision"] - 1})
                    base = {"run": run, "system": system, "replaySet": name, "intent": it["id"], "trial": trial}

                    assertion = maker(assertion_ids, base, common)

                    if key in OUTAGE:
                        mech = judge = ("cantTell", "environment", "record store unavailable (HTTP 503)")
                    elif key in CRASH:
                        mech = judge = ("cantTell", "agent", "agent process exited before writing any record")
                    else:
                        mech = verdict
                        if it["id"] in JUDGE_INAPPLICABLE:
                            judge = ("inapplicable", None, "nothing to judge: the case's product is a commit, "
                                                           "not an answer")
                        elif key in JUDGE_TIMEOUT:
                            judge = ("cantTell", "grader", "judge timed out after 120 s")
                        elif key in JUDGE_FLIP:
                            judge = (("failed", None, "answer judged incomplete against the reference") if passed
                                     else ("passed", None, "answer judged equivalent to the reference"))
                        else:
                            judge = (verdict[0], None, None)
                    # the run's measurements ride on its first line (the mechanical grader's)
                    assertions.append({**assertion("check-state", *mech, clock + timedelta(seconds=20)),
                                       "measurements": measurements(measure_rng, system, it, key)})
                    assertions.append(assertion("judge-v2", *judge, clock + timedelta(seconds=45)))
                    pick = rng.random() < ALICE_RATE
                    if pick or key in ALICE_FORCED:
                        if key == SUPERSEDED:
                            first = ("failed", None, "the answer looked wrong against the PO scan")
                        else:
                            first = (mech[0], mech[1], mech[2] if mech[0] == "cantTell" else None)
                        alice_queue.append((assertion, first, key, passed))
                    clock += timedelta(seconds=90)
        alice_clock = parse(spec["alice"])
        later = []
        for make, verdict, key, passed in alice_queue:
            when = parse(spec["registeredAt"]) - timedelta(days=3) if key == GRADED_BEFORE_REGISTRATION else alice_clock
            record = make("alice", *verdict, when)
            assertions.append(record)
            if key == SUPERSEDED:
                later.append((make, record["id"], passed))
            alice_clock += timedelta(minutes=4)
        for make, earlier, passed in later:
            regrade = ("passed", None, "re-graded after checking the PO scan again") if passed else \
                      ("failed", None, "re-graded")
            assertions.append(make("alice", *regrade, alice_clock + timedelta(days=1), supersedes=earlier))
        files[f"{name}.replayset.json"] = dumps(replayset)
        files[f"{name}.gold.json"] = dumps(gold)
        files[f"{name}.situations.jsonl"] = jsonl(situations)
        files[f"{name}.earl.jsonl"] = jsonl(assertions)
    return files


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=2) + "\n"


def jsonl(rows) -> str:
    return "".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n" for row in rows)


def main() -> None:
    for filename, text in build().items():
        (HERE / filename).write_text(text, encoding="utf-8", newline="\n")


if __name__ == "__main__":
    main()
