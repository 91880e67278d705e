#+ summary: The verdict layer - what a current verdict is, defined once and kept in the store
#+ graph: urn:kg:layer:verdicts
#+ description: >
#+   A verdict is one node per system (earl:subject), case (earl:test), trial (apeval:trialIndex,
#+   0 when absent), grader (earl:assertedBy) and grader kind (apeval:graderKind, "undeclared" when
#+   absent), made from that grader's current EARL assertions: those no assertion names with
#+   apeval:supersedes. Each assertion's outcome has a class - passed; failed (earl:failed, or
#+   cantTell caused by the agent); grader or environment (cantTell caused by them); unexplained
#+   (cantTell with no cause, or another cause); inapplicable; untested; other (an outcome that is not
#+   an EARL outcome value). A passed or failed outcome whose selection is apeval:so-undetected
#+   ("excluded from denominators (a verdict of cantTell, never a pass or a fail)") is read as the
#+   cantTell with no cause it is: unexplained; an undetected cantTell keeps its cause's class.
#+   Agreeing assertions count once; when they disagree in class the verdict
#+   is conflicting. A verdict with a current assertion that breaks pre-registration (J2, "stated
#+   before, cited by digest": on a case with registered criteria it cites a digest its case's gold
#+   lacks, or cites none, or its run began before the criterion was registered) is
#+   not-preregistered whatever its classes; each verdict notes kg:preregistration (steps 4 and 5).
#+   Every catalogue query reads verdicts from this graph; none re-derives them.
#+
#+   kg keeps the layer current on every write (kg load, a changed file's replacement, kg drop), in
#+   the same transaction as the source: the mark step runs before the change and notes the (case,
#+   system) pairs the changed sources' assertions touch - their own, and those of assertions they
#+   supersede - and the derive step runs after it and recomputes every verdict of those pairs. A
#+   rebuild marks every pair. Beside each verdict the layer keeps each current assertion's own class
#+   (kg:class), for the queries that judge assertion by assertion. The layer's version is a digest
#+   of this file: a store whose layer was made with other rules is rebuilt when it is opened.
#+   The shape of the graph is in docs/formats.md, "The verdict layer".
#+ tags: [layer]
PREFIX earl: <http://www.w3.org/ns/earl#>
PREFIX apeval: <https://agenticprimitives.dev/ns/evaluation#>
PREFIX kg: <https://kg.example/ns#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX ep-plan: <https://w3id.org/ep-plan#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>

#+ step: mark
# The (case, system) pairs the changed sources' assertions touch, as their triples stand now: kg runs
# this step before a change (the old triples) and, where the new triples are not in a staging graph,
# after it. Updates see no union default graph, so every pattern names its graph (any graph).
INSERT { GRAPH <urn:kg:layer:touched> { ?case kg:touchedFor ?system } }
WHERE {
  SELECT DISTINCT ?case ?system WHERE {
    { SELECT DISTINCT ?assertion WHERE {
        GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
        # an assertion any of whose own triples, or its result's, the source states
        { GRAPH ?changed { ?assertion earl:test ?value } }
        UNION { GRAPH ?changed { ?assertion earl:subject ?value } }
        UNION { GRAPH ?changed { ?assertion earl:assertedBy ?value } }
        UNION { GRAPH ?changed { ?assertion earl:result ?value } }
        UNION { GRAPH ?changed { ?assertion apeval:trialIndex ?value } }
        UNION { GRAPH ?changed { ?assertion apeval:graderKind ?value } }
        UNION { GRAPH ?changed { ?result earl:outcome ?value } GRAPH ?results { ?assertion earl:result ?result } }
        UNION { GRAPH ?changed { ?result apeval:failureCause ?value } GRAPH ?results { ?assertion earl:result ?result } }
        UNION { GRAPH ?changed { ?result apeval:selectionOutcome ?value } GRAPH ?results { ?assertion earl:result ?result } }
        # and an assertion it supersedes, whose verdict changes with it
        UNION { GRAPH ?changed { ?newer apeval:supersedes ?assertion } }
        # and (J2, issue 13) every assertion on a case whose registered criteria the source states
        UNION { GRAPH ?changed { ?criterion ep-plan:constrains ?gold_case }
                GRAPH ?judged { ?assertion earl:test ?gold_case } } } }
    # each assertion's case and system looked up, one assertion at a time: as OPTIONALs kept only where
    # both are found (a join, said so that Oxigraph looks them up rather than joining by hash with
    # every earl:test and earl:subject of the store: at 101k assertions 113 -> 67 MiB above the process,
    # at 1.7M 1,706 -> 988 MiB, no longer the peak of the load; BENCHMARKS.md, "The mark step looks keys up")
    OPTIONAL { GRAPH ?tests { ?assertion earl:test ?case } }
    OPTIONAL { GRAPH ?subjects { ?assertion earl:subject ?system } }
    FILTER(BOUND(?case) && BOUND(?system))
  }
} ;

#+ step: derive
# Runs on the pairs kg has moved from <urn:kg:layer:touched> into <urn:kg:layer:deriving>: all of them
# in the write's own transaction, or a few thousand at a time where the write is a bulk load or a
# rebuild (one transaction's cost grows faster than its size).
# 1. The touched pairs' verdicts go, with the classes of their assertions; the ones that still have
#    current assertions come back below.
DELETE { GRAPH <urn:kg:layer:verdicts> { ?verdict ?property ?value . ?assertion kg:class ?class } }
WHERE {
  GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system }
  GRAPH <urn:kg:layer:verdicts> { ?verdict kg:case ?case ; kg:system ?system ; ?property ?value }
  OPTIONAL { GRAPH <urn:kg:layer:verdicts> { ?verdict kg:assertion ?assertion . ?assertion kg:class ?class } }
} ;

# 2. Each current assertion of a touched pair - one no assertion names with apeval:supersedes - with its
#    trial (apeval:trialIndex, 0 when absent), grader kind (apeval:graderKind, "undeclared" when absent)
#    and the class of its outcome, joins the verdict of its system, case, trial, grader and kind. The
#    verdict is named by a digest of those five, so the same verdict is made however it is reached;
#    a system, case or grader that is a blank node has no name to digest and makes no verdict.
INSERT { GRAPH <urn:kg:layer:verdicts> {
  ?verdict a kg:Verdict ; kg:system ?system ; kg:case ?case ; kg:grader ?grader ; kg:trial ?trial ;
           kg:graderKind ?grader_kind ; kg:assertion ?assertion .
  ?assertion kg:class ?class } }
WHERE {
  { SELECT DISTINCT ?case ?system WHERE { GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system } } }
  GRAPH ?tests { ?assertion earl:test ?case }
  GRAPH ?subjects { ?assertion earl:subject ?system }
  GRAPH ?graders { ?assertion earl:assertedBy ?grader }
  GRAPH ?results { ?assertion earl:result ?result }
  GRAPH ?outcomes { ?result earl:outcome ?outcome }
  FILTER NOT EXISTS { GRAPH ?superseding { ?newer apeval:supersedes ?assertion } }
  OPTIONAL { GRAPH ?trials { ?assertion apeval:trialIndex ?trial_index } }
  OPTIONAL { GRAPH ?kinds { ?assertion apeval:graderKind ?declared_kind } }
  OPTIONAL { GRAPH ?causes { ?result apeval:failureCause ?cause } }
  BIND(COALESCE(?trial_index, 0) AS ?trial)
  BIND(COALESCE(?declared_kind, "undeclared") AS ?grader_kind)
  # issue 14: an undetected selection is a cantTell, never a pass or a fail (apeval:so-undetected)
  # (an OPTIONAL, not BIND(EXISTS ...): Virtuoso 7 cannot compile an EXISTS inside a BIND's expression)
  OPTIONAL { GRAPH ?selections { ?result apeval:selectionOutcome ?undetected }
             FILTER(?undetected = apeval:so-undetected) }
  BIND(IF(BOUND(?undetected) && (?outcome = earl:passed || ?outcome = earl:failed), "unexplained",
       IF(?outcome = earl:passed, "passed",
       IF(?outcome = earl:failed, "failed",
       IF(?outcome = earl:cantTell,
          IF(!BOUND(?cause), "unexplained",
          IF(?cause = apeval:fc-agent, "failed",
          IF(?cause = apeval:fc-grader, "grader",
          IF(?cause = apeval:fc-environment, "environment", "unexplained")))),
       IF(?outcome = earl:inapplicable, "inapplicable",
       IF(?outcome = earl:untested, "untested", "other")))))) AS ?class)
  BIND(IRI(CONCAT("urn:kg:verdict:", SHA1(CONCAT(STR(?system), " ", STR(?case), " ", STR(?grader), " ",
       STR(?trial), "^^", STR(DATATYPE(?trial)), " ", STR(?grader_kind))))) AS ?verdict)
} ;

# 3. A verdict's status: the class its assertions agree on, or conflicting when they disagree. (The
#    IF is outside the grouping: Virtuoso 7 cannot compile an IF applied to an aggregate.)
INSERT { GRAPH <urn:kg:layer:verdicts> { ?verdict kg:status ?status } }
WHERE {
  { SELECT ?verdict (COUNT(DISTINCT ?class) AS ?classes) (SAMPLE(?class) AS ?one_class)
    WHERE {
      GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system }
      GRAPH <urn:kg:layer:verdicts> { ?verdict kg:case ?case ; kg:system ?system ; kg:assertion ?assertion .
                                      ?assertion kg:class ?class }
    }
    GROUP BY ?verdict }
  BIND(IF(?classes > 1, "conflicting", ?one_class) AS ?status)
}
 ;

# ── J2, pre-registration (issue 13): begin ──
# 4. A criterion "MUST pre-date the subject". Each verdict on a case with registered criteria (an
#    apeval:SelectionCriterion that ep-plan:constrains it, pinned by apeval:criterionDigest, part of
#    a record whose dcterms:issued says when it was registered) gets a kg:preregistration note per
#    current assertion that: cites a digest no criterion of its case has ("digest-mismatch"); cites
#    none ("no-digest": apeval:criterionDigest is "the criterion record the judgment applied (J2:
#    stated before, cited by digest)" - a verdict naming none cannot be held to what was registered);
#    ran before the criterion it cites (any, when it cites none) was registered ("registered-after":
#    its run's prov:startedAtTime earlier than dcterms:issued or, with no start time, its result's
#    dcterms:date earlier - judged before, so run before); or cannot be put in order ("order-unknown":
#    no start time, and no judgement date earlier than the registration). Dates compare as xsd:dateTime.
INSERT { GRAPH <urn:kg:layer:verdicts> { ?verdict kg:preregistration ?reason } }
WHERE {
  GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system }
  GRAPH <urn:kg:layer:verdicts> { ?verdict kg:case ?case ; kg:system ?system ; kg:assertion ?assertion }
  GRAPH ?gold { ?criterion ep-plan:constrains ?case ; a apeval:SelectionCriterion ; apeval:criterionDigest ?registered }
  OPTIONAL { GRAPH ?cites { ?assertion apeval:criterionDigest ?cited } }
  # is the cited digest one a criterion of this case has? (an OPTIONAL, not NOT EXISTS: see preregistration.rq)
  OPTIONAL { GRAPH ?matching { ?match ep-plan:constrains ?case ; apeval:criterionDigest ?registered_as_cited ;
                                      a apeval:SelectionCriterion }
             FILTER(?registered_as_cited = ?cited) }
  OPTIONAL { GRAPH ?parts { ?criterion dcterms:isPartOf ?record } GRAPH ?records { ?record dcterms:issued ?issued } }
  # when the touched pairs' assertions ran and were judged: each of these two OPTIONALs starts from the
  # touched pairs' assertions itself. An OPTIONAL of two patterns is evaluated apart and joined by hash:
  # written as plain patterns they read every run and every result of the store, and this step took
  # 15-18 s per EARL file at 1M assertions (1.0 s at 100k); now 1.9 s (BENCHMARKS.md, "The 1M estate")
  OPTIONAL { SELECT DISTINCT ?assertion ?started WHERE {
               GRAPH <urn:kg:layer:deriving> { ?runs_case kg:touchedFor ?runs_system }
               GRAPH <urn:kg:layer:verdicts> { ?runs_verdict kg:case ?runs_case ; kg:system ?runs_system ; kg:assertion ?assertion }
               GRAPH ?runs { ?assertion prov:used ?run } GRAPH ?starts { ?run prov:startedAtTime ?started } } }
  OPTIONAL { SELECT DISTINCT ?assertion ?judged WHERE {
               GRAPH <urn:kg:layer:deriving> { ?results_case kg:touchedFor ?results_system }
               GRAPH <urn:kg:layer:verdicts> { ?results_verdict kg:case ?results_case ; kg:system ?results_system ; kg:assertion ?assertion }
               GRAPH ?results { ?assertion earl:result ?result } GRAPH ?dates { ?result dcterms:date ?judged } } }
  # the criterion this assertion is judged against: the one it cites, or any when it cites none
  BIND(!BOUND(?cited) || ?cited = ?registered AS ?against)
  BIND(IF(BOUND(?started), xsd:dateTime(STR(?started)) < xsd:dateTime(STR(?issued)),
          BOUND(?judged) && xsd:dateTime(STR(?judged)) < xsd:dateTime(STR(?issued))) AS ?before)
  BIND(IF(BOUND(?cited), IF(BOUND(?match), "", "digest-mismatch"), "no-digest") AS ?digest_note)
  BIND(IF(?against && BOUND(?issued),
          IF(COALESCE(?before, false), "registered-after", IF(BOUND(?started), "", "order-unknown")), "") AS ?order_note)
  VALUES ?reason { "digest-mismatch" "no-digest" "registered-after" "order-unknown" }
  FILTER(?reason = ?digest_note || ?reason = ?order_note)
} ;

# 5. A verdict with a current assertion that breaks pre-registration is excluded from every metric:
#    its status is "not-preregistered" whatever its assertions' classes (the metrics count it beside,
#    as excluded_not_preregistered). "order-unknown" alone excludes nothing: it is counted, flagged.
DELETE { GRAPH <urn:kg:layer:verdicts> { ?verdict kg:status ?status } }
INSERT { GRAPH <urn:kg:layer:verdicts> { ?verdict kg:status "not-preregistered" } }
WHERE {
  GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system }
  GRAPH <urn:kg:layer:verdicts> { ?verdict kg:case ?case ; kg:system ?system ; kg:status ?status ;
                                           kg:preregistration ?reason }
  FILTER(?reason = "digest-mismatch" || ?reason = "no-digest" || ?reason = "registered-after")
  # ── J2, pre-registration (issue 13): end ──
}
