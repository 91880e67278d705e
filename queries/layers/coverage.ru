#+ summary: The coverage layer - which domain terms each intent exercises, defined once and kept in the store
#+ graph: urn:kg:layer:coverage
#+ description: >
#+   What "an intent exercises a term" means, for the coverage queries (coverage-summary,
#+   coverage-classes, coverage-concepts, coverage-exercised-by), which read it here instead of each
#+   re-deriving it. An intent of a replay set (apeval:inReplaySet, or apeval:hasIntent from the set)
#+   exercises a term T when it reaches T through a property P with P rdfs:subPropertyOf*
#+   dcterms:subject (dcterms:subject included): on the intent itself, on an outcome description it
#+   names by apeval:expectedOutcome or apeval:candidateOutcome, or on its starting state
#+   (apeval:underStartingState). Kept as `?intent kg:exercises ?term`; which sets the intent is of is
#+   not kept (the queries join the sets, as the tally layer's readers do).
#+
#+   Subproperties are followed across graphs: a chain may start in a replay set (its own property
#+   under apeval:exercisesClass) and end in kg's apeval vocabulary (apeval:exercisesClass under
#+   dcterms:subject). An update reads each graph apart, so the derive step copies every
#+   rdfs:subPropertyOf into the layer's graph, follows the chain there, and takes the copies out.
#+
#+   Keys are intents, kept apart from the other layers' (<urn:kg:layer:touched:coverage>, then
#+   deriving:coverage; the system of a key is kg:coverage): a results or situations file re-derives
#+   nothing here. The mark step marks the intents a changed source can change: intents it makes
#+   members of a set or names an outcome description or starting state of; nodes it states a term
#+   of (an intent, or a description or state some intent names; the properties taken wide: see the
#+   mark step); and every intent of a set when it states rdfs:subPropertyOf (a vocabulary; they
#+   change rarely).
#+   The shape of the graph is in docs/formats.md, "The coverage layer".
#+ tags: [layer]
PREFIX apeval: <https://agenticprimitives.dev/ns/evaluation#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX kg: <https://kg.example/ns#>

#+ step: mark
# The intents whose terms a changed source can change (its triples as they stand: run before a change
# for what it takes out, after it for what it puts in). The properties a term can be reached through
# are taken wide here, dcterms:subject and every property some graph says is a subproperty of
# anything (a chain may cross files, which an update cannot follow as one path): marking more than
# needed costs a re-derivation, marking less a wrong layer.
INSERT { GRAPH <urn:kg:layer:touched:coverage> { ?intent kg:touchedFor kg:coverage } }
WHERE {
  SELECT DISTINCT ?intent WHERE {
    # (each branch finds the changed sources first: a branch of a UNION is evaluated apart, and one
    # without them read every graph's terms, 0.8 s a write at 100k assertions)
    {
      # an intent the source makes a member of a set, or names a description or starting state of
      GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
      { GRAPH ?changed { ?set apeval:hasIntent ?intent } }
      UNION
      { GRAPH ?changed { ?intent apeval:inReplaySet ?set } }
      UNION
      { GRAPH ?changed { ?intent apeval:expectedOutcome|apeval:candidateOutcome|apeval:underStartingState ?node } }
    }
    UNION
    {
      # an intent the source states a term of (an intent of a set as the store stands: a node that
      # becomes one later is marked by the source that makes it one; not a situation's records)
      GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
      { SELECT DISTINCT ?via WHERE { { BIND(dcterms:subject AS ?via) } UNION { GRAPH ?vocabulary { ?via rdfs:subPropertyOf ?super } } } }
      GRAPH ?changed { ?intent ?via ?term }
      { GRAPH ?sets { ?set apeval:hasIntent ?intent } } UNION { GRAPH ?members { ?intent apeval:inReplaySet ?set } }
    }
    UNION
    {
      # every intent naming a description or starting state the source states a term of
      GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
      { SELECT DISTINCT ?via WHERE { { BIND(dcterms:subject AS ?via) } UNION { GRAPH ?vocabulary { ?via rdfs:subPropertyOf ?super } } } }
      GRAPH ?changed { ?node ?via ?term }
      GRAPH ?links { ?intent apeval:expectedOutcome|apeval:candidateOutcome|apeval:underStartingState ?node }
    }
    UNION
    {
      # a source stating subproperties: every intent of a set (vocabularies; they change rarely)
      # (the sources that state one found first, as a sub-select: as a FILTER EXISTS after the union,
      # every member of every set was read once per changed source, 0.56 s a hundred small files)
      { SELECT DISTINCT ?changed WHERE {
          GRAPH <urn:kg:layer:changed> { ?changed a kg:ChangedSource }
          GRAPH ?changed { ?property rdfs:subPropertyOf ?super } } }
      { GRAPH ?sets { ?set apeval:hasIntent ?intent } } UNION { GRAPH ?members { ?intent apeval:inReplaySet ?set } }
    }
  }
} ;

#+ step: derive
# 1. The marked intents' terms go; those that still hold come back below.
DELETE { GRAPH <urn:kg:layer:coverage> { ?intent kg:exercises ?term } }
WHERE {
  GRAPH <urn:kg:layer:deriving:coverage> { ?intent kg:touchedFor ?key }
  GRAPH <urn:kg:layer:coverage> { ?intent kg:exercises ?term }
} ;

# 2. Every graph's rdfs:subPropertyOf copied into the layer's graph for the length of this step (taken
#    out in 4): an update reads each graph apart, and a chain of subproperties may cross files (a
#    replay set's own property under apeval:exercisesClass, which kg's apeval vocabulary puts under
#    dcterms:subject), which one path over the copies follows.
INSERT { GRAPH <urn:kg:layer:coverage> { ?property rdfs:subPropertyOf ?super } }
WHERE { GRAPH ?vocabulary { ?property rdfs:subPropertyOf ?super } } ;

#    and dcterms:subject under itself (RDFS's rdfs6), so that the path below starts from it in that graph
#    whatever the sources state: a zero-length path in a named graph matches only the terms in it
INSERT DATA { GRAPH <urn:kg:layer:coverage> { dcterms:subject rdfs:subPropertyOf dcterms:subject } } ;

# 3. What each marked intent of a set exercises: a term it reaches through dcterms:subject or a
#    property under it, on itself, on an outcome description it names, or on its starting state.
INSERT { GRAPH <urn:kg:layer:coverage> { ?intent kg:exercises ?term } }
WHERE {
  SELECT DISTINCT ?intent ?term WHERE {
    { SELECT DISTINCT ?intent WHERE {
        GRAPH <urn:kg:layer:deriving:coverage> { ?intent kg:touchedFor ?key }
        { GRAPH ?sets { ?set apeval:hasIntent ?intent } } UNION { GRAPH ?members { ?intent apeval:inReplaySet ?set } } } }
    # (one path, no UNION with the constant: Virtuoso 7.2 refuses that form, "transitive start not given")
    { SELECT DISTINCT ?via WHERE { GRAPH <urn:kg:layer:coverage> { ?via rdfs:subPropertyOf* dcterms:subject } } }
    {
      # on the intent itself
      GRAPH ?terms { ?intent ?via ?term }
    }
    UNION
    {
      # on an outcome description it names, or its starting state
      GRAPH ?links { ?intent apeval:expectedOutcome|apeval:candidateOutcome|apeval:underStartingState ?node }
      GRAPH ?node_terms { ?node ?via ?term }
    }
  }
} ;

# 4. The copies of 2 go: the layer keeps what intents exercise, nothing else.
DELETE WHERE { GRAPH <urn:kg:layer:coverage> { ?property rdfs:subPropertyOf ?super } }
