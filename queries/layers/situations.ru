#+ summary: The situations layer - whether a delivered situation satisfies an outcome description (apeval:satisfies), defined once and kept in the store
#+ graph: urn:kg:layer:situations
#+ description: >
#+   What "satisfies" means (apeval:satisfies: "every expected class exists and validates; every
#+   missing input was named; the ask was asked"), stated once for situation-check,
#+   wrong-description-cases and wrong-description-reach. A situation S satisfies a description D when
#+   every class D apeval:describesClass has a record of S (dul:isSettingFor) that is an instance of
#+   it, directly or through a subclass (rdf:type, then rdfs:subClassOf+ as one loaded graph states
#+   it); no such record fails the domain's shapes (an sh:ValidationResult of severity sh:Violation
#+   whose sh:focusNode is the record, written when S was loaded: kg/domain_shapes.py); every class D
#+   apeval:describesMissing is among S's kg:namedMissing; and when D apeval:describesAsk is true, S's
#+   kg:asked is true (absent = false).
#+
#+   Which descriptions S is judged against (kg:judgedAs, one or more per pair): its intent's
#+   apeval:expectedOutcome ("expected outcome"), its apeval:candidateOutcome(s) ("candidate
#+   outcome"), and, for a decline - an intent whose apeval:expectedBehaviour is
#+   apeval:behaviour-decline and that has no expected outcome - its set's products ("decline
#+   product"): every description another intent of its replay set, not itself a decline, names as
#+   expectedOutcome or candidateOutcome and that asks for something (a class, a missing input or an
#+   ask). S's intent and system are its run's (prov:wasGeneratedBy; prov:used, prov:wasAssociatedWith).
#+
#+   Per situation, pair and reach: a kg:Reach saying how the situation was reached against its
#+   intent's descriptions (kg:reach: expected, candidate, wrong, unknown or ungraded; kg:counted
#+   when in a rate's denominator), the wrong-reach rule stated once for the wrong-description
#+   queries, and the situations of a case (not of a component the run was built from) that
#+   situation-check lists, each with its run's trial (kg:trial: apeval:trialIndex, 0 when absent).
#+   Per judged pair: a kg:SatisfactionJudgement with the counts the queries show, and
#+   `S apeval:satisfies D` or `S kg:doesNotSatisfy D`. Per situation whose intent has an expected
#+   outcome or is a decline: a kg:StateCheck saying which check it gets (kg:checkKind), with the
#+   tallies situation-check shows (steps 5 and 6: descriptions checked and satisfied, missing
#+   classes, unnamed missing inputs, unasked ask; invalid and unchecked records, and why). Kept per
#+   (case, system) pair like the verdict layer, in keys of its own (<urn:kg:layer:touched:situations>,
#+   then deriving:situations: no other layer reads them, nor does it read another's keys, so a results
#+   file does not re-derive it, unless it states a trial of a situation's run that the situation's
#+   graph does not). The mark step marks the pairs whose situations a
#+   changed source can change: situations it states; runs of situations whose trial it states apart
#+   from the situation's own graph; intents whose descriptions, behaviour or set it
#+   states, or that name a description whose classes, missing inputs or ask it states, with every
#+   decline of their sets; and every situation when it states rdfs:subClassOf or sh:targetClass.
#+   The shape of the graph is in docs/formats.md, "The situations layer".
#+ tags: [layer]
PREFIX apeval: <https://agenticprimitives.dev/ns/evaluation#>
PREFIX kg: <https://kg.example/ns#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX dul: <http://www.ontologydesignpatterns.org/ont/dul/DUL.owl#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX sh: <http://www.w3.org/ns/shacl#>

#+ step: mark
# The (case, system) pairs of the situations a changed source can change the satisfaction of.
INSERT { GRAPH <urn:kg:layer:touched:situations> { ?case kg:touchedFor ?system } }
WHERE {
  SELECT DISTINCT ?case ?system WHERE {
    {
      # a situation the source states
      GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
      GRAPH ?changed { ?situation a apeval:DeliveredSituation }
      GRAPH ?generated { ?situation prov:wasGeneratedBy ?run }
    }
    UNION
    {
      # a trial index of a situation's run that the situation's own graph does not state (a results file
      # restating the run with the same trial, as kg's loaders write it, marks nothing): kg:Reach keeps it
      GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
      GRAPH ?changed { ?run apeval:trialIndex ?trial_index }
      GRAPH ?generated { ?situation prov:wasGeneratedBy ?run }
      FILTER NOT EXISTS { GRAPH ?generated { ?run apeval:trialIndex ?trial_index } }
    }
    UNION
    {
      # an intent whose descriptions, behaviour or set the source states
      GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
      GRAPH ?changed { ?judged_intent apeval:expectedOutcome|apeval:candidateOutcome|apeval:expectedBehaviour|apeval:inReplaySet ?value }
      GRAPH ?uses { ?run prov:used ?judged_intent }
      GRAPH ?generated { ?situation prov:wasGeneratedBy ?run }
    }
    UNION
    {
      # an intent that names a description the source describes
      GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
      GRAPH ?changed { ?described apeval:describesClass|apeval:describesMissing|apeval:describesAsk ?value }
      GRAPH ?naming { ?judged_intent apeval:expectedOutcome|apeval:candidateOutcome ?described }
      GRAPH ?uses { ?run prov:used ?judged_intent }
      GRAPH ?generated { ?situation prov:wasGeneratedBy ?run }
    }
    UNION
    {
      # every decline of the set of an intent of the two kinds above (whose products it may change)
      # (each branch finds the changed sources first and their intents' sets inside it: a branch of a
      # UNION is evaluated apart, and the sets joined to the union read every member of every set in
      # the store, 0.95 s a hundred small files; 0.01 s so)
      { SELECT DISTINCT ?set WHERE {
          { GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
            GRAPH ?changed { ?intent apeval:expectedOutcome|apeval:candidateOutcome|apeval:expectedBehaviour|apeval:inReplaySet ?value }
            GRAPH ?sets { ?intent apeval:inReplaySet ?set } }
          UNION
          { GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
            GRAPH ?changed { ?described apeval:describesClass|apeval:describesMissing|apeval:describesAsk ?value }
            GRAPH ?naming { ?intent apeval:expectedOutcome|apeval:candidateOutcome ?described }
            GRAPH ?sets { ?intent apeval:inReplaySet ?set } } } }
      GRAPH ?members { ?judged_intent apeval:inReplaySet ?set }
      GRAPH ?behaviours { ?judged_intent apeval:expectedBehaviour apeval:behaviour-decline }
      GRAPH ?uses { ?run prov:used ?judged_intent }
      GRAPH ?generated { ?situation prov:wasGeneratedBy ?run }
    }
    UNION
    {
      # a class hierarchy, or a shape's target class (which says why a record went unchecked): every
      # situation (ontologies and shapes change rarely)
      { SELECT DISTINCT ?changed WHERE {
          GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
          GRAPH ?changed { ?sub rdfs:subClassOf|sh:targetClass ?super } } }
      GRAPH ?generated { ?situation prov:wasGeneratedBy ?run }
    }
    GRAPH ?kinds { ?situation a apeval:DeliveredSituation }
    GRAPH ?used { ?run prov:used ?case }
    # a run prov:used its intent, and the components it was built from (a results file's "components":
    # kg:componentKind), which are no case
    FILTER NOT EXISTS { GRAPH ?parts { ?case kg:componentKind ?component_kind } }
    GRAPH ?associated { ?run prov:wasAssociatedWith ?system }
  }
} ;

#+ step: derive
# 1. The touched pairs' judgements go, with the satisfies / does-not-satisfy triples they state; the
#    ones that still hold come back below.
DELETE { GRAPH <urn:kg:layer:situations> { ?situation ?relation ?description } }
WHERE {
  GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
  GRAPH <urn:kg:layer:situations> { ?judgement kg:keyCase ?case ; kg:keySystem ?system ;
                                               kg:situation ?situation ; kg:description ?description .
                                    ?situation ?relation ?description }
} ;

DELETE { GRAPH <urn:kg:layer:situations> { ?node ?property ?value } }
WHERE {
  GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
  GRAPH <urn:kg:layer:situations> { ?node kg:keyCase ?case ; kg:keySystem ?system ; ?property ?value }
} ;

# 2. Which check each situation of a touched pair gets: its intent's expected outcome, or a decline
#    (expectedBehaviour decline, no expected outcome). OPTIONALs and BOUND, not EXISTS in a BIND:
#    Virtuoso 7 cannot compile that.
INSERT { GRAPH <urn:kg:layer:situations> { ?state_check a kg:StateCheck ; kg:situation ?situation ;
                                             kg:keyCase ?case ; kg:keySystem ?system ; kg:checkKind ?kind } }
WHERE {
  { SELECT DISTINCT ?case ?system ?situation ?kind WHERE {
      GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
      GRAPH ?used { ?run prov:used ?case }
      GRAPH ?associated { ?run prov:wasAssociatedWith ?system }
      GRAPH ?generated { ?situation prov:wasGeneratedBy ?run }
      # an EXISTS, looked up per row: as a pattern, Oxigraph joined every situation of the store by hash
      # before it found the chunk held no key of this layer (1 s a step at 100k assertions on no key)
      FILTER EXISTS { GRAPH ?kinds { ?situation a apeval:DeliveredSituation } }
      OPTIONAL { GRAPH ?expectations { ?case apeval:expectedOutcome ?expected } }
      OPTIONAL { GRAPH ?behaviours { ?case apeval:expectedBehaviour ?behaviour }
                 FILTER(?behaviour = apeval:behaviour-decline) }
      BIND(IF(BOUND(?expected), "expected outcome", IF(BOUND(?behaviour), "decline", ?none)) AS ?kind)
      FILTER(BOUND(?kind) && isIRI(?situation))
  } }
  BIND(IRI(CONCAT("urn:kg:state-check:", SHA1(STR(?situation)))) AS ?state_check)
} ;

# 2b. How each situation of a touched pair was reached (kg:Reach), with its run's trial, the wrong-reach
#    rule stated once for wrong-description-reach, -situations and -cases. apeval:reachedUnder: "When
#    it differs from the case's expectedOutcome the run reached a situation under the WRONG
#    description"; apeval:DeliveredSituation: "A clarify case is a situation under TWO candidate
#    descriptions; a decline case a situation no description satisfies". So: a decline (expected
#    behaviour decline, no expected outcome) is "wrong" when it reached under any description (a
#    product) and "expected" when under none, both counted; otherwise "ungraded" when its intent has
#    no expected outcome; "unknown" when it has one and the situation no apeval:reachedUnder; else
#    "expected" when the reach is an expected outcome of the intent, "candidate" when one of its
#    candidate outcomes and the case is not a clarify (a several case reaches each of its
#    candidates), and "wrong" otherwise - a clarify case that reached a candidate other than its
#    expected one (the ask) guessed instead of asking; the last three are counted (kg:counted), the
#    denominator of a wrong-description rate. One node per situation, pair and reach (a situation
#    reached under two descriptions has two). OPTIONALs and BOUND, not EXISTS in a BIND.
INSERT { GRAPH <urn:kg:layer:situations> { ?reach_node a kg:Reach ; kg:situation ?situation ;
                                             kg:keyCase ?case ; kg:keySystem ?system ; kg:trial ?trial ;
                                             kg:reachedUnder ?reached ; kg:reach ?reach ; kg:counted ?counted } }
WHERE {
  { SELECT DISTINCT ?case ?system ?situation ?trial ?reached ?reach ?counted WHERE {
      GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
      GRAPH ?used { ?run prov:used ?case }
      GRAPH ?associated { ?run prov:wasAssociatedWith ?system }
      GRAPH ?generated { ?situation prov:wasGeneratedBy ?run }
      FILTER EXISTS { GRAPH ?kinds { ?situation a apeval:DeliveredSituation } }
      # the trial: the run's apeval:trialIndex, 0 when absent (a situation of two runs has a trial each)
      OPTIONAL { GRAPH ?trials { ?run apeval:trialIndex ?trial_index } }
      BIND(COALESCE(?trial_index, 0) AS ?trial)
      OPTIONAL { GRAPH ?expectations { ?case apeval:expectedOutcome ?expected } }
      OPTIONAL { GRAPH ?reaches { ?situation apeval:reachedUnder ?reached } }
      OPTIONAL { GRAPH ?named_expectations { ?case apeval:expectedOutcome ?named_expected }
                 FILTER(?named_expected = ?reached) }
      OPTIONAL { GRAPH ?named_candidates { ?case apeval:candidateOutcome ?named_candidate }
                 FILTER(?named_candidate = ?reached) }
      OPTIONAL { GRAPH ?behaviours { ?case apeval:expectedBehaviour ?behaviour } }
      # a decline: apeval's "a decline case [is] a situation no description satisfies"
      BIND(!BOUND(?expected) && COALESCE(?behaviour = apeval:behaviour-decline, false) AS ?decline)
      BIND(IF(?decline, IF(BOUND(?reached), "wrong", "expected"),
           IF(!BOUND(?expected), "ungraded", IF(!BOUND(?reached), "unknown",
           IF(BOUND(?named_expected), "expected",
           IF(BOUND(?named_candidate) && !COALESCE(?behaviour = apeval:behaviour-clarify, false), "candidate", "wrong"))))) AS ?reach)
      BIND(?decline || (BOUND(?expected) && BOUND(?reached)) AS ?counted)
      FILTER(isIRI(?situation))
  } }
  BIND(IRI(CONCAT("urn:kg:reach:", SHA1(CONCAT(STR(?situation), " ", STR(?case), " ", STR(?system), " ",
                                               COALESCE(STR(?reached), ""))))) AS ?reach_node)
} ;

# 3. The descriptions each situation of a touched pair is judged against, and in which role. A
#    situation or description that is a blank node has no name to digest and is not judged.
INSERT { GRAPH <urn:kg:layer:situations> { ?judgement a kg:SatisfactionJudgement ; kg:situation ?situation ;
                                             kg:description ?description ; kg:judgedAs ?role ;
                                             kg:keyCase ?case ; kg:keySystem ?system } }
WHERE {
  { SELECT DISTINCT ?case ?system ?situation ?description ?role WHERE {
      GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
      GRAPH ?used { ?run prov:used ?case }
      GRAPH ?associated { ?run prov:wasAssociatedWith ?system }
      GRAPH ?generated { ?situation prov:wasGeneratedBy ?run }
      FILTER EXISTS { GRAPH ?kinds { ?situation a apeval:DeliveredSituation } }
      { GRAPH ?expectations { ?case apeval:expectedOutcome ?description } BIND("expected outcome" AS ?role) }
      UNION
      { GRAPH ?candidates { ?case apeval:candidateOutcome ?description } BIND("candidate outcome" AS ?role) }
      UNION
      { # a decline with no expected outcome: the products of its set. Its own sub-selects, the
        # touched declines found first: joined in the pattern above, Oxigraph read every member of
        # every set's products before it filtered the declines (50 s for 477 keys of the 10k estate, 0.3 s so)
        { SELECT DISTINCT ?case ?description WHERE {
            { SELECT DISTINCT ?case ?set WHERE {
                GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?any_system }
                GRAPH ?behaviours { ?case apeval:expectedBehaviour apeval:behaviour-decline }
                FILTER NOT EXISTS { GRAPH ?own { ?case apeval:expectedOutcome ?its_own } }
                GRAPH ?sets { ?case apeval:inReplaySet ?set } } }
            GRAPH ?members { ?other apeval:inReplaySet ?set }
            FILTER NOT EXISTS { GRAPH ?other_behaviours { ?other apeval:expectedBehaviour apeval:behaviour-decline } }
            GRAPH ?products { ?other apeval:expectedOutcome|apeval:candidateOutcome ?description }
            # that asks for something (a description asking for nothing is satisfied by every situation)
            { GRAPH ?asks { ?description apeval:describesClass|apeval:describesMissing ?something } }
            UNION
            { GRAPH ?asks { ?description apeval:describesAsk ?ask } FILTER(?ask = true) }
        } }
        BIND("decline product" AS ?role) }
      FILTER(isIRI(?situation) && isIRI(?description))
  } }
  BIND(IRI(CONCAT("urn:kg:satisfaction:", SHA1(CONCAT(STR(?situation), " ", STR(?description))))) AS ?judgement)
} ;

# 4. Each judgement's counts, and the rule: every described class has a record of it (or of a
#    subclass), none of them fails the domain's shapes, every described-missing class was named, and
#    an ask was asked. (Each OPTIONAL joins on the row's own situation and compares the class in
#    its FILTER.)
INSERT { GRAPH <urn:kg:layer:situations> { ?judgement kg:describedClasses ?described_classes ;
                                             kg:coveredClasses ?covered_classes ; kg:invalidClasses ?invalid_classes ;
                                             kg:describedMissing ?described_gaps ; kg:namedMissingClasses ?named_gaps ;
                                             kg:askUnasked ?ask_unasked .
                                             ?situation ?relation ?description } }
WHERE {
  { SELECT ?judgement ?situation ?description (COUNT(DISTINCT ?described) AS ?described_classes)
           (COUNT(DISTINCT ?covered) AS ?covered_classes) (COUNT(DISTINCT ?broken) AS ?invalid_classes)
           (COUNT(DISTINCT ?gap) AS ?described_gaps) (COUNT(DISTINCT ?named) AS ?named_gaps)
    WHERE {
      { SELECT DISTINCT ?judgement ?situation ?description WHERE {
          GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
          GRAPH <urn:kg:layer:situations> { ?judgement a kg:SatisfactionJudgement ; kg:keyCase ?case ;
                                              kg:keySystem ?system ; kg:situation ?situation ;
                                              kg:description ?description } } }
      OPTIONAL { GRAPH ?classes { ?description apeval:describesClass ?described } }
      OPTIONAL { GRAPH ?gaps { ?description apeval:describesMissing ?gap } }
      # the classes of the touched pairs' situations' records: each branch starts from the touched keys
      # (the OPTIONAL's side is evaluated apart, and read every record of the store: 1.55 s where this
      # takes 0.25 s for 159 keys at 100k assertions, 0.24 s for the same at 10k)
      OPTIONAL { { SELECT DISTINCT ?situation ?record_class WHERE {
                   { GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
                     GRAPH <urn:kg:layer:situations> { ?touched a kg:SatisfactionJudgement ; kg:keyCase ?case ;
                                                         kg:keySystem ?system ; kg:situation ?situation }
                     GRAPH ?settings { ?situation dul:isSettingFor ?record }
                     GRAPH ?types { ?record rdf:type ?record_class } }
                   UNION
                   { GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
                     GRAPH <urn:kg:layer:situations> { ?touched a kg:SatisfactionJudgement ; kg:keyCase ?case ;
                                                         kg:keySystem ?system ; kg:situation ?situation }
                     GRAPH ?settings { ?situation dul:isSettingFor ?record }
                     GRAPH ?types { ?record rdf:type ?record_type }
                     GRAPH ?hierarchy { ?record_type rdfs:subClassOf+ ?record_class } } } }
                 FILTER(?record_class = ?described) BIND(?record_class AS ?covered) }
      OPTIONAL { GRAPH ?broken_settings { ?situation dul:isSettingFor ?broken_record }
                 GRAPH ?results { ?result sh:focusNode ?broken_record ; sh:resultSeverity sh:Violation }
                 { GRAPH ?broken_types { ?broken_record rdf:type ?broken_class } }
                 UNION
                 { GRAPH ?broken_types { ?broken_record rdf:type ?broken_type }
                   GRAPH ?broken_hierarchy { ?broken_type rdfs:subClassOf+ ?broken_class } }
                 FILTER(?broken_class = ?described) BIND(?broken_class AS ?broken) }
      OPTIONAL { GRAPH ?naming { ?situation kg:namedMissing ?named_class }
                 FILTER(?named_class = ?gap) BIND(?named_class AS ?named) }
    }
    GROUP BY ?judgement ?situation ?description }
  OPTIONAL { SELECT DISTINCT ?description ?ask WHERE { GRAPH ?asks { ?description apeval:describesAsk ?ask } FILTER(?ask = true) } }
  OPTIONAL { SELECT DISTINCT ?situation ?asked WHERE { GRAPH ?askings { ?situation kg:asked ?asked } FILTER(?asked = true) } }
  BIND(BOUND(?ask) && !BOUND(?asked) AS ?ask_unasked)
  BIND(IF(?described_classes = ?covered_classes && ?invalid_classes = 0 && ?described_gaps = ?named_gaps
          && !?ask_unasked, apeval:satisfies, kg:doesNotSatisfy) AS ?relation)
} ;

# 5. Each state check's tallies, which situation-check shows: over the situation's judgements against
#    the descriptions its check reads (its expected outcome, or a decline's products), how many there
#    are and how many it satisfies, and its expected outcome's missing classes, unnamed missing inputs
#    and unasked ask. Stated only when it has such a judgement (a decline whose set has no product
#    has none, and situation-check says so).
INSERT { GRAPH <urn:kg:layer:situations> { ?state_check kg:descriptionsChecked ?checked ;
                                             kg:descriptionsSatisfied ?satisfied_count ;
                                             kg:missingClasses ?missing ; kg:unnamedMissing ?unnamed ;
                                             kg:askMissing ?ask_missing } }
WHERE {
  { SELECT ?state_check (COUNT(?judgement) AS ?checked) (SUM(COALESCE(?satisfied, 0)) AS ?satisfied_count)
           (SUM(?described_classes - ?covered_classes) AS ?missing)
           (SUM(?described_gaps - ?named_gaps) AS ?unnamed) (SUM(IF(?asks_unasked, 1, 0)) AS ?asks)
    WHERE {
      { SELECT DISTINCT ?state_check ?situation WHERE {
          GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
          GRAPH <urn:kg:layer:situations> { ?state_check a kg:StateCheck ; kg:keyCase ?case ; kg:keySystem ?system ;
                                              kg:situation ?situation } } }
      # the judgements of the touched pairs alone, with their counts, in one keyed sub-select (every
      # judgement of the layer, or every judgement's counts, read and joined by hash made a file's upkeep
      # grow with the store: 0.15 s for 159 keys at 10k assertions, 1.0 s for the same keys at 100k; 0.14 s so)
      { SELECT DISTINCT ?judgement ?situation ?description ?described_classes ?covered_classes ?described_gaps
                        ?named_gaps ?asks_unasked WHERE {
          GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
          GRAPH <urn:kg:layer:situations> { ?judgement a kg:SatisfactionJudgement ; kg:keyCase ?case ; kg:keySystem ?system ;
                                              kg:situation ?situation ; kg:description ?description ; kg:judgedAs ?role ;
                                              kg:describedClasses ?described_classes ; kg:coveredClasses ?covered_classes ;
                                              kg:describedMissing ?described_gaps ; kg:namedMissingClasses ?named_gaps ;
                                              kg:askUnasked ?asks_unasked }
          FILTER(?role = "expected outcome" || ?role = "decline product") } }
      # 1 when it satisfies the description, joined and decided inside the OPTIONAL (with the
      # description compared in the OPTIONAL's FILTER and BOUND() outside, Virtuoso 7.2 counted 0
      # satisfied where the embedded store counted 1, in 200 state checks of the examples)
      OPTIONAL { GRAPH <urn:kg:layer:situations> { ?situation apeval:satisfies ?description } BIND(1 AS ?satisfied) }
    }
    GROUP BY ?state_check }
  BIND(?asks > 0 AS ?ask_missing)
} ;

# 6. Each state check's records of a class its check reads (a class of a description of step 5's):
#    how many fail the domain's shapes (an sh:Violation whose sh:focusNode is the record) and how many
#    were never checked (no kg:checkedAgainst), stated only when it has such a record; then, per
#    record class never checked, why (kg:uncheckedReason, one each: no loaded shape targets the class,
#    directly or through rdfs:subClassOf+ as one loaded graph states it, or one does now but none did
#    when the situation was loaded). The reasons are kept apart, not concatenated: an engine
#    concatenates in the order it happens to group, and the layer must be the same however reached.
INSERT { GRAPH <urn:kg:layer:situations> { ?state_check kg:invalidRecords ?invalid ; kg:uncheckedRecords ?unchecked } }
WHERE {
  SELECT ?state_check (COUNT(DISTINCT ?broken_record) AS ?invalid) (COUNT(DISTINCT ?unchecked_record) AS ?unchecked)
  WHERE {
    { SELECT DISTINCT ?state_check ?record WHERE {
        GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
        GRAPH <urn:kg:layer:situations> { ?state_check a kg:StateCheck ; kg:keyCase ?case ; kg:keySystem ?system ;
                                            kg:situation ?situation .
                                          ?judgement a kg:SatisfactionJudgement ; kg:situation ?situation ;
                                            kg:description ?description ; kg:judgedAs ?role }
        FILTER(?role = "expected outcome" || ?role = "decline product")
        GRAPH ?classes { ?description apeval:describesClass ?described }
        GRAPH ?settings { ?situation dul:isSettingFor ?record }
        { GRAPH ?types { ?record rdf:type ?described } }
        UNION
        { GRAPH ?types { ?record rdf:type ?record_type }
          GRAPH ?hierarchy { ?record_type rdfs:subClassOf+ ?described } }
    } }
    OPTIONAL { GRAPH ?results { ?result sh:focusNode ?record ; sh:resultSeverity sh:Violation }
               BIND(?record AS ?broken_record) }
    OPTIONAL { GRAPH ?checks { ?record kg:checkedAgainst ?shapes } }
    BIND(IF(BOUND(?shapes), ?checked, ?record) AS ?unchecked_record)
  }
  GROUP BY ?state_check
} ;

INSERT { GRAPH <urn:kg:layer:situations> { ?state_check kg:uncheckedReason ?why } }
WHERE {
  { SELECT DISTINCT ?state_check ?record_class WHERE {
      { SELECT DISTINCT ?state_check ?record ?record_class WHERE {
          GRAPH <urn:kg:layer:deriving:situations> { ?case kg:touchedFor ?system }
          GRAPH <urn:kg:layer:situations> { ?state_check a kg:StateCheck ; kg:keyCase ?case ; kg:keySystem ?system ;
                                              kg:situation ?situation .
                                            ?judgement a kg:SatisfactionJudgement ; kg:situation ?situation ;
                                              kg:description ?description ; kg:judgedAs ?role }
          FILTER(?role = "expected outcome" || ?role = "decline product")
          GRAPH ?classes { ?description apeval:describesClass ?described }
          GRAPH ?settings { ?situation dul:isSettingFor ?record }
          { GRAPH ?types { ?record rdf:type ?described } }
          UNION
          { GRAPH ?types { ?record rdf:type ?record_type }
            GRAPH ?hierarchy { ?record_type rdfs:subClassOf+ ?described } }
          # the records' classes, read here for the touched records (joined outside, every typed node of
          # the store was read and joined by hash: 0.80 s for 159 keys at 100k assertions, 0.15 s so)
          GRAPH ?record_types { ?record rdf:type ?record_class }
      } }
      FILTER NOT EXISTS { GRAPH ?checks { ?record kg:checkedAgainst ?shapes } }
  } }
  # whether a loaded shape targets the class now, or a superclass of it (OPTIONALs, not EXISTS in a
  # BIND: Virtuoso 7 cannot compile that)
  OPTIONAL { GRAPH ?shapes_graph { ?shape sh:targetClass ?direct_target } FILTER(?direct_target = ?record_class) }
  OPTIONAL { GRAPH ?super_shapes { ?super_shape sh:targetClass ?super_target }
             GRAPH ?target_hierarchy { ?record_class rdfs:subClassOf+ ?super_target } }
  BIND(CONCAT(STR(?record_class), IF(BOUND(?direct_target) || BOUND(?super_target),
       ": a loaded shape targets the class, but none did when the situation was loaded (drop and load the situations file again to check it)",
       ": no loaded shape targets the class")) AS ?why)
}
