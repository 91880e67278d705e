"""Shared by the loaders of other tools' results (Inspect AI logs, tau-bench results): the replay set
a results file implies, the run it records, and one EARL assertion per case, trial and grader.

A run is one file's execution of a set by a system (one Inspect log, one tau-bench results file).
Its verdicts are stated for the system *as run* - an earl:TestSubject of its own, `SYSTEM@RUN`,
prov:specializationOf the system - so two runs of the same set and system are two rows of every
result query (each with its own trials 0..k-1) and never meet as conflicting verdicts on one trial.
docs/formats.md, "Runs of imported results", says why."""
from __future__ import annotations

from .digests import canonical_digest
from .loading import Context
from .lookups import loaded_among, set_digest
from .terms import XSD, Triples, declare, iri, literal, p

OUTCOMES = ("passed", "failed", "cantTell", "inapplicable", "untested")
CAUSES = ("agent", "grader", "environment")


def implied_set(ctx: Context, t: Triples, set_id: str, case_ids: list[str], *, place: str,
                identity: dict | None = None, title: str | None = None,
                version: str | None = None) -> tuple[str, dict[str, str]] | None:
    """The replay set a results file implies, and the cases of it this file ran.

    The set is what the tool ran its cases from (an Inspect task's dataset, a tau-bench environment's
    tasks), pinned by a digest of what identifies it - sha256 of the RFC 8785 form of
    {"replaySet": id, **identity} - not of the cases one file happened to run: a run over part of the
    set (Inspect's --limit or --sample-id, a cancelled run, a tau-bench task range) is a run of the
    same set, with the cases it did not run not run. Each file states the cases it ran as the set's
    intents, so the set's cases are the union of those of its loaded runs, and two runs are compared
    on the cases both ran. Another file naming the same set id with another identity (the same task
    name on another dataset) is refused: pairing its cases by id would pair different questions."""
    mint = ctx.minter()
    set_iri = ctx.mint(place, lambda: mint.iri(set_id, "replayset"))
    if set_iri is None:
        return None
    ids = sorted(set(case_ids))
    identity = identity or {}
    digest = canonical_digest({"replaySet": set_id, **identity})
    loaded = set_digest(ctx, set_iri)
    if loaded is not None and loaded != digest:
        other = loaded_among(ctx, [set_iri], "apeval:setDigest ?d").get(set_iri, "another source")
        said = ", ".join(f"{k} {v!r}" for k, v in identity.items()) or "no other identity"
        ctx.problem(place, f'replay set "{set_id}" is already loaded from {other} as another set (digest {loaded}); '
                    f"this file's set is identified by {said} (digest {digest})",
                    "if this is another dataset under the same name, name its set apart with --replay-set; "
                    "if it is the same one, load it under the id the other source gives it")
        return None
    s = iri(set_iri)
    t.add(s, p("rdf:type"), p("apeval:ReplaySet"))
    t.add(s, p("rdf:type"), p("dcat:Dataset"))
    t.add(s, p("dcterms:identifier"), literal(set_id))
    t.add(s, p("apeval:setDigest"), literal(digest))
    if title:
        t.add(s, p("dcterms:title"), literal(title))
    if version is not None:
        t.add(s, p("dcat:version"), literal(str(version)))
    cases = {}
    for case_id in ids:
        c_iri = ctx.mint(f"{place}, case {case_id}", lambda: mint.under(case_id, "replayset", set_id, "intent"))
        if c_iri is None:
            continue
        cases[case_id] = c_iri
        c = iri(c_iri)
        t.add(s, p("apeval:hasIntent"), c)
        t.add(c, p("rdf:type"), p("apeval:ReplayIntent"))
        t.add(c, p("dcterms:identifier"), literal(case_id))
        t.add(c, p("apeval:inReplaySet"), s)
    return set_iri, cases


class Run:
    """One run of a set by a system: the subject its assertions are about, and the assertions."""

    def __init__(self, ctx: Context, t: Triples, system: str, run: str, *, date: str | None = None):
        self.ctx, self.t, self.run = ctx, t, run
        mint = ctx.minter()
        self.mint = mint
        system_iri = mint.under(system, "system")
        self.subject_id = f"{system}@{run}"
        self.subject = mint.under(run, "system", system, "run")
        declare(t, self.subject, "earl:TestSubject", self.subject_id)
        s = iri(self.subject)
        t.add(s, p("prov:specializationOf"), iri(system_iri))
        declare(t, system_iri, "prov:Entity", system)
        if date:
            t.add(s, p("prov:generatedAtTime"), literal(date, XSD + "dateTime"))
        self.graders: dict[str, str | None] = {}

    def grader(self, name: str, kind: str | None, implementation: str | None = None) -> str:
        g_iri = self.mint.under(name, "grader")
        if name not in self.graders:
            self.graders[name] = kind
            g = iri(g_iri)
            declare(self.t, g_iri, "apeval:Judge", name)
            self.t.add(g, p("rdf:type"), p("earl:Assertor"))
            if kind:
                self.t.add(g, p("apeval:judgeKind"), literal(kind))
            if implementation:
                self.t.add(g, p("apeval:evaluatorImplementation"), literal(implementation))
        return g_iri

    def assert_(self, case_iri: str, case_id: str, trial: int, grader: str, outcome: str, *,
                cause: str | None = None, info: str | None = None, date: str | None = None,
                score: str | None = None, automatic: bool = True) -> None:
        """One assertion: this run's system on this case at this trial, judged by this grader."""
        assert outcome in OUTCOMES and (cause is None or (cause in CAUSES and outcome == "cantTell"))
        kind = self.graders[grader]
        segments = ("assertion", self.subject_id, case_id, str(trial))
        a, r = iri(self.mint.under(grader, *segments)), iri(self.mint.under(grader, *segments, "result"))
        t = self.t
        t.add(a, p("rdf:type"), p("earl:Assertion"))
        t.add(a, p("earl:subject"), iri(self.subject))
        t.add(a, p("earl:test"), iri(case_iri))
        t.add(a, p("earl:assertedBy"), iri(self.mint.under(grader, "grader")))
        t.add(a, p("earl:result"), r)
        t.add(a, p("apeval:trialIndex"), literal(int(trial)))
        t.add(a, p("earl:mode"), p("earl:automatic" if automatic else "earl:semiAuto"))
        if kind:
            t.add(a, p("apeval:graderKind"), literal(kind))
        t.add(r, p("rdf:type"), p("earl:TestResult"))
        t.add(r, p("earl:outcome"), p(f"earl:{outcome}"))
        if cause:
            t.add(r, p("apeval:failureCause"), p(f"apeval:fc-{cause}"))
        if info:
            t.add(r, p("earl:info"), literal(info))
        if score is not None:
            t.add(r, p("rdf:value"), score)  # the grader's own score, as a rendered literal
        if date:
            t.add(r, p("dcterms:date"), literal(date, XSD + "dateTime"))
