#+ summary: The verdict layer - what a current verdict is, defined once and kept in the store
#+ graph: urn:kg:layer:verdicts
#+ description: >
#+   A verdict is one node per system (earl:subject), case (earl:test), trial (apeval:trialIndex,
#+   0 when absent), grader (earl:assertedBy) and grader kind (apeval:graderKind, "undeclared" when
#+   absent), made from that grader's current EARL assertions: those no assertion names with
#+   apeval:supersedes. Each assertion's outcome has a class - passed; failed (earl:failed, or
#+   cantTell caused by the agent); grader or environment (cantTell caused by them); unexplained
#+   (cantTell with no cause, or another cause); inapplicable; untested; other (an outcome that is not
#+   an EARL outcome value). Agreeing assertions count once; when they disagree in class the verdict
#+   is conflicting. Every catalogue query reads verdicts from this graph; none re-derives them.
#+
#+   kg keeps the layer current on every write (kg load, a changed file's replacement, kg drop), in
#+   the same transaction as the source: the mark step runs before the change and notes the (system,
#+   case, grader) keys the changed sources' assertions touch - their own, and those of assertions
#+   they supersede - and the derive step runs after it and recomputes those keys' verdicts. A
#+   rebuild marks every key. The layer's version is this file's sha256: a store whose layer was
#+   made by another version is rebuilt when it is opened.
#+ tags: [layer]
PREFIX earl: <http://www.w3.org/ns/earl#>
PREFIX apeval: <https://agenticprimitives.dev/ns/evaluation#>
PREFIX kg: <https://kg.example/ns#>

#+ step: mark
# The keys the changed sources touch, as their triples stand now: kg runs this step before a change
# (the old triples) and, where the new triples are not yet in a staging graph, after it (the new ones).
# Updates see no union default graph, so every pattern names its graph (any graph).
INSERT { GRAPH <urn:kg:layer:pending> { [] kg:system ?system ; kg:case ?case ; kg:grader ?grader } }
WHERE {
  SELECT DISTINCT ?system ?case ?grader WHERE {
    GRAPH <urn:kg:layer:pending> { ?changed a kg:ChangedSource }
    { GRAPH ?changed { ?assertion earl:result|earl:subject|earl:test|earl:assertedBy|apeval:trialIndex|apeval:graderKind|apeval:supersedes ?value } }
    UNION
    { GRAPH ?changed { ?result earl:outcome|apeval:failureCause ?value } GRAPH ?results { ?assertion earl:result ?result } }
    UNION
    { GRAPH ?changed { ?newer apeval:supersedes ?assertion } }
    GRAPH ?subjects { ?assertion earl:subject ?system }
    GRAPH ?tests { ?assertion earl:test ?case }
    GRAPH ?graders { ?assertion earl:assertedBy ?grader }
  }
} ;

#+ step: derive
# 1. The marked keys' verdicts go; the ones that still have current assertions come back below.
DELETE { GRAPH <urn:kg:layer:verdicts> { ?verdict ?property ?value } }
WHERE {
  { SELECT DISTINCT ?system ?case ?grader
    WHERE { GRAPH <urn:kg:layer:pending> { ?mark kg:system ?system ; kg:case ?case ; kg:grader ?grader } } }
  GRAPH <urn:kg:layer:verdicts> { ?verdict kg:system ?system ; kg:case ?case ; kg:grader ?grader ; ?property ?value }
} ;

# 2. Each current assertion of a marked key, with its trial, grader kind and the class of its outcome.
INSERT { GRAPH <urn:kg:layer:classified> {
  ?assertion kg:system ?system ; kg:case ?case ; kg:grader ?grader ; kg:trial ?trial ;
             kg:graderKind ?grader_kind ; kg:status ?status } }
WHERE {
  { SELECT DISTINCT ?system ?case ?grader
    WHERE { GRAPH <urn:kg:layer:pending> { ?mark kg:system ?system ; kg:case ?case ; kg:grader ?grader } } }
  GRAPH ?subjects { ?assertion earl:subject ?system }
  GRAPH ?tests { ?assertion earl:test ?case }
  GRAPH ?graders { ?assertion earl:assertedBy ?grader }
  GRAPH ?results { ?assertion earl:result ?result }
  GRAPH ?outcomes { ?result earl:outcome ?outcome }
  FILTER NOT EXISTS { GRAPH ?superseding { ?newer apeval:supersedes ?assertion } }
  OPTIONAL { GRAPH ?trials { ?assertion apeval:trialIndex ?trial_index } }
  OPTIONAL { GRAPH ?kinds { ?assertion apeval:graderKind ?declared_kind } }
  OPTIONAL { GRAPH ?causes { ?result apeval:failureCause ?cause } }
  BIND(COALESCE(?trial_index, 0) AS ?trial)
  BIND(COALESCE(?declared_kind, "undeclared") AS ?grader_kind)
  BIND(IF(?outcome = earl:passed, "passed",
       IF(?outcome = earl:failed, "failed",
       IF(?outcome = earl:cantTell,
          IF(!BOUND(?cause), "unexplained",
          IF(?cause = apeval:fc-agent, "failed",
          IF(?cause = apeval:fc-grader, "grader",
          IF(?cause = apeval:fc-environment, "environment", "unexplained")))),
       IF(?outcome = earl:inapplicable, "inapplicable",
       IF(?outcome = earl:untested, "untested", "other"))))) AS ?status)
} ;

# 3. One verdict per key, trial and kind: the class its assertions agree on, or conflicting.
INSERT { GRAPH <urn:kg:layer:verdicts> {
  _:verdict a kg:Verdict ; kg:system ?system ; kg:case ?case ; kg:grader ?grader ; kg:trial ?trial ;
            kg:graderKind ?grader_kind ; kg:status ?status } }
WHERE {
  SELECT ?system ?case ?grader ?trial ?grader_kind
         (IF(COUNT(DISTINCT ?class) > 1, "conflicting", SAMPLE(?class)) AS ?status)
  WHERE { GRAPH <urn:kg:layer:classified> {
    ?assertion kg:system ?system ; kg:case ?case ; kg:grader ?grader ; kg:trial ?trial ;
               kg:graderKind ?grader_kind ; kg:status ?class } }
  GROUP BY ?system ?case ?grader ?trial ?grader_kind
} ;

# 4. Each verdict names the assertions it came from.
INSERT { GRAPH <urn:kg:layer:verdicts> { ?verdict kg:assertion ?assertion } }
WHERE {
  GRAPH <urn:kg:layer:classified> {
    ?assertion kg:system ?system ; kg:case ?case ; kg:grader ?grader ; kg:trial ?trial ; kg:graderKind ?grader_kind }
  GRAPH <urn:kg:layer:verdicts> {
    ?verdict kg:system ?system ; kg:case ?case ; kg:grader ?grader ; kg:trial ?trial ; kg:graderKind ?grader_kind }
} ;

DROP SILENT GRAPH <urn:kg:layer:classified>
