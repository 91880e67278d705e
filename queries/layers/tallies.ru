#+ summary: The tally layer - per case, the verdict layer's verdicts counted by status, kept in the store
#+ graph: urn:kg:layer:tallies
#+ after: [verdicts]
#+ description: >
#+   A tally is one node per system, case, grader and grader kind of the verdict layer
#+   (queries/layers/verdicts.ru), holding integer counts of that grader's verdicts on that case: trials
#+   (verdicts), eligible (of a status the scheme of verdict statuses counts, kg:counts true - passed or
#+   failed: the trials pass@k's n counts), passed, failed (status failed and an assertion said earl:failed),
#+   failedByAgent (status failed otherwise: cantTell caused by the agent), the excluded ones by the
#+   exclusion their status feeds (kg:feeds in kg/vocab/kg.ttl: grader, environment, unexplained, inapplicable, untested, other, conflicting, not-preregistered),
#+   orderUnknown (passed or failed verdicts with a kg:preregistration "order-unknown"), and trial 0's
#+   status as two 0/1 counts: firstJudged (trial 0 passed or failed) and firstPassed (trial 0 passed).
#+   It says nothing the verdict layer does not: it is that layer counted once per write rather than
#+   on every query, so that queries which group verdicts per case (pass-at-k, judge-kind-metrics)
#+   read a few thousand small nodes instead of grouping a hundred thousand verdicts. Zero counts are
#+   stated (0), never left out: a missing count would read as unknown.
#+
#+   The layer keys are the verdict layer's (case, system) pairs: its mark step is the verdict layer's
#+   (this file marks nothing of its own), and its derive step runs after the verdict layer's, in the
#+   same transaction (kg/layers.py orders layers by `after`). A replay set is not part of a tally:
#+   membership lives in other sources (gold, replay sets) whose writes do not touch verdicts, so
#+   queries join a tally's case to its replay set when they read it.
#+   The shape of the graph is in docs/formats.md, "The tally layer".
#+ tags: [layer]
PREFIX earl: <http://www.w3.org/ns/earl#>
PREFIX kg: <https://kg.example/ns#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>

#+ step: mark
# Nothing of its own: a tally's key is a (case, system) pair the verdict layer's mark step notes.

#+ step: derive
# 1. The touched pairs' tallies go; the ones whose pairs still have verdicts come back below.
DELETE { GRAPH <urn:kg:layer:tallies> { ?tally ?property ?value } }
WHERE {
  GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system }
  GRAPH <urn:kg:layer:tallies> { ?tally kg:case ?case ; kg:system ?system ; ?property ?value }
} ;

# 2. Each touched pair's verdicts, counted per grader and grader kind. A verdict counts once (DISTINCT:
#    the OPTIONALs below match all of a verdict's assertions or none of them). The tally is named by a
#    digest of its key, so the same tally is made however it is reached.
INSERT { GRAPH <urn:kg:layer:tallies> {
  ?tally a kg:Tally ; kg:system ?system ; kg:case ?case ; kg:grader ?grader ; kg:graderKind ?grader_kind ;
         kg:trials ?trials ; kg:eligible ?eligible ; kg:passed ?passed ; kg:failed ?failed ; kg:failedByAgent ?failed_by_agent ;
         kg:excludedGrader ?x_grader ; kg:excludedEnvironment ?x_environment ;
         kg:excludedUnexplained ?x_unexplained ; kg:excludedInapplicable ?x_inapplicable ;
         kg:excludedUntested ?x_untested ; kg:excludedOther ?x_other ; kg:excludedConflicting ?x_conflicting ;
         kg:excludedNotPreregistered ?x_not_preregistered ; kg:orderUnknown ?order_unknown ;
         kg:firstJudged ?first_judged ; kg:firstPassed ?first_passed } }
WHERE {
  { SELECT ?system ?case ?grader ?grader_kind
           (COUNT(?verdict) AS ?trials)
           # eligible: a trial of a status the scheme counts (kg:counts true: passed, or failed - which
           # includes cantTell caused by the agent); the excluded ones are counted beside it, never against
           # the agent, each under the exclusion its status feeds (kg:feeds; kg/vocab/kg.ttl)
           (SUM(?counted) AS ?eligible)
           (SUM(IF(?status = "passed", 1, 0)) AS ?passed)
           (SUM(IF(?counted = 1 && ?status != "passed" && ?said_failed = 1, 1, 0)) AS ?failed)
           (SUM(IF(?counted = 1 && ?status != "passed" && ?said_failed = 0, 1, 0)) AS ?failed_by_agent)
           (SUM(IF(?feeds = kg:excludedGrader, 1, 0)) AS ?x_grader)
           (SUM(IF(?feeds = kg:excludedEnvironment, 1, 0)) AS ?x_environment)
           (SUM(IF(?feeds = kg:excludedUnexplained, 1, 0)) AS ?x_unexplained)
           (SUM(IF(?feeds = kg:excludedInapplicable, 1, 0)) AS ?x_inapplicable)
           (SUM(IF(?feeds = kg:excludedUntested, 1, 0)) AS ?x_untested)
           (SUM(IF(?feeds = kg:excludedOther, 1, 0)) AS ?x_other)
           (SUM(IF(?feeds = kg:excludedConflicting, 1, 0)) AS ?x_conflicting)
           (SUM(IF(?feeds = kg:excludedNotPreregistered, 1, 0)) AS ?x_not_preregistered)
           (SUM(IF(?counted = 1 && ?order_unknown_flag = 1, 1, 0)) AS ?order_unknown)
           # trial 0's status, counted (not concatenated: Virtuoso 7 cannot group a GROUP_CONCAT of an IF)
           (SUM(IF(?trial = 0, 1, 0)) AS ?zeros)
           (SUM(IF(?trial = 0 && ?counted = 1, 1, 0)) AS ?zeros_judged)
           (SUM(IF(?trial = 0 && ?status = "passed", 1, 0)) AS ?zeros_passed)
    WHERE {
      { SELECT DISTINCT ?verdict ?system ?case ?grader ?grader_kind ?trial ?status ?said_failed ?order_unknown_flag WHERE {
          GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system }
          GRAPH <urn:kg:layer:verdicts> { ?verdict kg:case ?case ; kg:system ?system ; kg:grader ?grader ;
                                                   kg:graderKind ?grader_kind ; kg:trial ?trial ; kg:status ?status }
          OPTIONAL { GRAPH <urn:kg:layer:verdicts> { ?verdict kg:preregistration ?unordered }
                     FILTER(?unordered = "order-unknown") }
          # the layer's failed joins earl:failed and cantTell caused by the agent; a tally counts them
          # apart: earl:failed when one of the verdict's assertions said so, else cantTell/agent. A
          # sub-select of the touched pairs' verdicts that said so, its patterns looked up from the pairs:
          # an OPTIONAL of the patterns alone was joined by hash with every result of the store, so each
          # chunk of a bulk load cost more as the store grew (2.7 s at 100k assertions, 6.6 s at 300k)
          OPTIONAL { SELECT DISTINCT ?verdict ?said WHERE {
                       GRAPH <urn:kg:layer:deriving> { ?said_case kg:touchedFor ?said_system }
                       GRAPH <urn:kg:layer:verdicts> { ?verdict kg:case ?said_case ; kg:system ?said_system ;
                                                                kg:assertion ?assertion }
                       GRAPH ?results { ?assertion earl:result ?result }
                       GRAPH ?outcomes { ?result earl:outcome ?said }
                       FILTER(?said = earl:failed) } }
          # what the OPTIONALs found, as 0/1 decided here, beside them: Virtuoso 7.2 reports BOUND() true
          # outside a SELECT DISTINCT for a variable the sub-select left unbound (it counted 40 of the
          # examples' 244 tallies wrong: cantTell/agent as said earl:failed, orders as unknown)
          BIND(IF(BOUND(?said), 1, 0) AS ?said_failed)
          BIND(IF(BOUND(?unordered), 1, 0) AS ?order_unknown_flag) } }
      # what each status means: the scheme of verdict statuses (kg's vocabulary, in a graph of its own;
      # DISTINCT: a status stated in two vocabularies counts once). An OPTIONAL: as a join it cost a
      # quarter more CPU than the literal tests it replaces, as an OPTIONAL a tenth (at 10k, one EARL
      # file's keys). A status the scheme lacks leaves its counts unbound, never counted as another
      # (tests/test_statuses.py holds the scheme to the statuses queries/layers/verdicts.ru writes)
      OPTIONAL { SELECT DISTINCT ?status (IF(?counts, 1, 0) AS ?counted) (COALESCE(?fed, kg:counts) AS ?feeds) WHERE {
          GRAPH ?statuses { ?scheme_status skos:inScheme kg:verdictStatuses ; skos:notation ?status ; kg:counts ?counts }
          OPTIONAL { GRAPH ?feeding { ?scheme_status kg:feeds ?fed } } } }
    }
    GROUP BY ?system ?case ?grader ?grader_kind }
  # two verdicts on trial 0 (trial numbers of different datatypes) make neither count
  BIND(IF(?zeros = 1, ?zeros_judged, 0) AS ?first_judged)
  BIND(IF(?zeros = 1, ?zeros_passed, 0) AS ?first_passed)
  BIND(IRI(CONCAT("urn:kg:tally:", SHA1(CONCAT(STR(?system), " ", STR(?case), " ", STR(?grader), " ",
       STR(?grader_kind))))) AS ?tally)
}
