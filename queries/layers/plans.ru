#+ summary: The plans layer - whether an experiment plan's pins hold, and which runs are of the builds it pins, defined once and kept in the store
#+ graph: urn:kg:layer:plans
#+ description: >
#+   Two rules that experiment-plans, variant-comparison and new-wrong-answers all need, kept here
#+   once instead of in each of them.
#+
#+   Pins (kg:planPins on the plan): an apeval:ExperimentPlan pins the replay set's digest
#+   (apeval:replaySetDigest) and a criteria revision (kg:criteria, with kg:pinnedCriterionDigest per
#+   criterion). The first of these that fails refuses the plan, in this order: "refused: the replay
#+   set S is not loaded"; "refused: the plan pins replay-set digest D, the loaded set's is E";
#+   "refused: the criteria the plan pins (R) are not loaded"; "refused: the loaded criteria (R) are
#+   not the criterion digests the plan pins" (a pinned digest no loaded criterion of R has, or a
#+   loaded criterion of R whose digest the plan does not pin). Otherwise "pins hold". These depend
#+   on sources of any kind (plans, replay sets, gold files), so every write recomputes them for
#+   every plan; there are few plans.
#+
#+   Builds (issue 13): EARL JSON Lines "components" say which build a run used (the run prov:used a
#+   component with kg:componentKind and kg:componentDigest). For every plan and every current or
#+   superseded assertion on a system of one of its variants (kg:variantSystem): the assertion
#+   kg:statesComponentsUnder the plan when its run states any component, and
#+   kg:unpinnedComponentUnder the plan when its run states one that the plan's variant of that
#+   system does not pin (kg:component) with that kind and digest. A trial is then of another build
#+   when one of its verdicts' assertions is unpinned, bound by name only when none states a
#+   component. These are kept per (case, system) pair like the verdict layer: the mark step adds
#+   the pairs of every system a changed plan names.
#+   The shape of the graph is in docs/formats.md, "The plans layer".
#+ tags: [layer]
PREFIX earl: <http://www.w3.org/ns/earl#>
PREFIX apeval: <https://agenticprimitives.dev/ns/evaluation#>
PREFIX kg: <https://kg.example/ns#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX prov: <http://www.w3.org/ns/prov#>

#+ step: mark
# A changed plan changes which assertions are of its builds: the (case, system) pairs of every
# assertion on a system of its variants. (A changed results file's own pairs are marked by the
# verdict layer; the touched pairs are shared with the verdict and tally layers.)
INSERT { GRAPH <urn:kg:layer:touched> { ?case kg:touchedFor ?system } }
WHERE {
  SELECT DISTINCT ?case ?system WHERE {
    GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
    GRAPH ?changed { ?plan kg:baseline|kg:candidate ?variant }
    GRAPH ?variants { ?variant kg:variantSystem ?system }
    GRAPH ?subjects { ?assertion earl:subject ?system }
    GRAPH ?tests { ?assertion earl:test ?case }
  }
} ;

#+ step: derive
# 1. Every plan's pins, anew on every write (they depend on replay sets and gold files, not only on
#    plans and results). OPTIONALs and BOUND, not EXISTS in a BIND: Virtuoso 7 cannot compile that.
DELETE WHERE { GRAPH <urn:kg:layer:plans> { ?plan kg:planPins ?pins } } ;

INSERT { GRAPH <urn:kg:layer:plans> { ?plan kg:planPins ?pins } }
WHERE {
  GRAPH ?plans { ?plan a apeval:ExperimentPlan ; kg:replaySet ?set ; apeval:replaySetDigest ?pinned_set_digest ;
                       kg:criteria ?record }
  OPTIONAL { GRAPH ?sets { ?set apeval:setDigest ?loaded_set_digest } }
  OPTIONAL { GRAPH ?records { ?record a ?record_class } FILTER(?record_class = kg:CriterionRecord) }
  # a digest the plan pins that no loaded criterion of the record has
  OPTIONAL { GRAPH ?pinning { ?plan kg:pinnedCriterionDigest ?unmatched_pin }
             FILTER NOT EXISTS { GRAPH ?parts { ?pinned_criterion dcterms:isPartOf ?record }
                                 GRAPH ?digests { ?pinned_criterion apeval:criterionDigest ?unmatched_pin } } }
  # a loaded criterion of the record whose digest the plan does not pin
  OPTIONAL { GRAPH ?parts2 { ?loaded_criterion dcterms:isPartOf ?record }
             GRAPH ?digests2 { ?loaded_criterion apeval:criterionDigest ?unpinned_digest }
             FILTER NOT EXISTS { GRAPH ?pinning2 { ?plan kg:pinnedCriterionDigest ?unpinned_digest } } }
  BIND(IF(!BOUND(?loaded_set_digest), CONCAT("refused: the replay set ", STR(?set), " is not loaded"),
       IF(?loaded_set_digest != ?pinned_set_digest,
          CONCAT("refused: the plan pins replay-set digest ", ?pinned_set_digest, ", the loaded set's is ",
                 ?loaded_set_digest),
       IF(!BOUND(?record_class), CONCAT("refused: the criteria the plan pins (", STR(?record), ") are not loaded"),
       IF(BOUND(?unmatched_pin) || BOUND(?unpinned_digest),
          CONCAT("refused: the loaded criteria (", STR(?record), ") are not the criterion digests the plan pins"),
          "pins hold")))) AS ?pins)
} ;

# 2. The touched pairs' build marks go; the ones that still hold come back below.
DELETE { GRAPH <urn:kg:layer:plans> { ?assertion ?mark ?plan } }
WHERE {
  GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system }
  GRAPH ?tests { ?assertion earl:test ?case }
  GRAPH ?subjects { ?assertion earl:subject ?system }
  GRAPH <urn:kg:layer:plans> { ?assertion ?mark ?plan }
} ;

# 3. Each assertion of a touched pair, under each plan one of whose variants is of its system: does
#    its run state components, and does it state one that variant does not pin with that digest?
INSERT { GRAPH <urn:kg:layer:plans> { ?assertion kg:statesComponentsUnder ?plan .
                                      ?assertion kg:unpinnedComponentUnder ?unpinned_under } }
WHERE {
  { SELECT DISTINCT ?case ?system WHERE { GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system } } }
  GRAPH ?tests { ?assertion earl:test ?case }
  GRAPH ?subjects { ?assertion earl:subject ?system }
  GRAPH ?plans { ?plan a apeval:ExperimentPlan ; kg:baseline|kg:candidate ?variant }
  GRAPH ?variants { ?variant kg:variantSystem ?system }
  GRAPH ?uses { ?assertion prov:used ?run }
  GRAPH ?runs { ?run prov:used ?component }
  GRAPH ?components { ?component kg:componentKind ?component_kind ; kg:componentDigest ?component_digest }
  OPTIONAL { GRAPH ?pins { ?variant kg:component ?pin }
             GRAPH ?pinned { ?pin kg:componentKind ?component_kind ; kg:componentDigest ?component_digest } }
  BIND(IF(BOUND(?pin), ?not_unpinned, ?plan) AS ?unpinned_under)
}
