"""Reading the tally layer of a store: as one pattern (a seek per property of each tally) or as one
sub-select per property (a scan each, joined by hash), and the costs around it.

    python benchmarks/tally_probe.py STORE [PROBE ...]"""
import sys, time, pyoxigraph as ox
s = ox.Store.read_only(sys.argv[1])
P = "PREFIX kg: <https://kg.example/ns#>\nPREFIX apeval: <https://agenticprimitives.dev/ns/evaluation#>\nPREFIX skos: <http://www.w3.org/2004/02/skos/core#>\n"
Q = {
 "bgp-5": "SELECT (COUNT(*) AS ?n) WHERE { ?t a kg:Tally ; kg:system ?s ; kg:case ?c ; kg:grader ?g ; kg:graderKind ?k }",
 "bgp-20": "SELECT (COUNT(*) AS ?n) WHERE { ?t a kg:Tally ; kg:system ?s ; kg:case ?c ; kg:grader ?g ; kg:graderKind ?k ; kg:trials ?a ; kg:passed ?b ; kg:failed ?d ; kg:failedByAgent ?e ; kg:excludedGrader ?f ; kg:excludedEnvironment ?h ; kg:excludedUnexplained ?i ; kg:excludedInapplicable ?j ; kg:excludedUntested ?l ; kg:excludedOther ?m ; kg:excludedConflicting ?o ; kg:excludedNotPreregistered ?p ; kg:orderUnknown ?q ; kg:firstJudged ?r ; kg:firstPassed ?u }",
 "bgp-5-notexists": "SELECT (COUNT(*) AS ?n) WHERE { ?t a kg:Tally ; kg:system ?s ; kg:case ?c ; kg:grader ?g ; kg:graderKind ?k FILTER NOT EXISTS { ?c kg:oracleType ?x } FILTER NOT EXISTS { ?c a kg:AnticipationCriterion } }",
 "bgp-5-sets": "SELECT (COUNT(*) AS ?n) WHERE { ?t a kg:Tally ; kg:system ?s ; kg:case ?c ; kg:grader ?g ; kg:graderKind ?k OPTIONAL { SELECT DISTINCT ?c ?rs ?sk WHERE { ?c apeval:inReplaySet ?rs . OPTIONAL { ?rs apeval:suiteKind/skos:notation ?sk } } } }",
 "g-bgp-5": "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:kg:layer:tallies> { ?t a kg:Tally ; kg:system ?s ; kg:case ?c ; kg:grader ?g ; kg:graderKind ?k } }",
 "g-bgp-20": "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:kg:layer:tallies> { ?t a kg:Tally ; kg:system ?s ; kg:case ?c ; kg:grader ?g ; kg:graderKind ?k ; kg:trials ?a ; kg:passed ?b ; kg:failed ?d ; kg:failedByAgent ?e ; kg:excludedGrader ?f ; kg:excludedEnvironment ?h ; kg:excludedUnexplained ?i ; kg:excludedInapplicable ?j ; kg:excludedUntested ?l ; kg:excludedOther ?m ; kg:excludedConflicting ?o ; kg:excludedNotPreregistered ?p ; kg:orderUnknown ?q ; kg:firstJudged ?r ; kg:firstPassed ?u } }",
 "sub-20": "SELECT (COUNT(*) AS ?n) WHERE { { SELECT ?t ?v0 WHERE { ?t kg:system ?v0 } } { SELECT ?t ?v1 WHERE { ?t kg:case ?v1 } } { SELECT ?t ?v2 WHERE { ?t kg:grader ?v2 } } { SELECT ?t ?v3 WHERE { ?t kg:graderKind ?v3 } } { SELECT ?t ?v4 WHERE { ?t kg:trials ?v4 } } { SELECT ?t ?v5 WHERE { ?t kg:passed ?v5 } } { SELECT ?t ?v6 WHERE { ?t kg:failed ?v6 } } { SELECT ?t ?v7 WHERE { ?t kg:failedByAgent ?v7 } } { SELECT ?t ?v8 WHERE { ?t kg:excludedGrader ?v8 } } { SELECT ?t ?v9 WHERE { ?t kg:excludedEnvironment ?v9 } } { SELECT ?t ?v10 WHERE { ?t kg:excludedUnexplained ?v10 } } { SELECT ?t ?v11 WHERE { ?t kg:excludedInapplicable ?v11 } } { SELECT ?t ?v12 WHERE { ?t kg:excludedUntested ?v12 } } { SELECT ?t ?v13 WHERE { ?t kg:excludedOther ?v13 } } { SELECT ?t ?v14 WHERE { ?t kg:excludedConflicting ?v14 } } { SELECT ?t ?v15 WHERE { ?t kg:excludedNotPreregistered ?v15 } } { SELECT ?t ?v16 WHERE { ?t kg:orderUnknown ?v16 } } { SELECT ?t ?v17 WHERE { ?t kg:firstJudged ?v17 } } { SELECT ?t ?v18 WHERE { ?t kg:firstPassed ?v18 } } }",
 "sub-5": "SELECT (COUNT(*) AS ?n) WHERE {  { SELECT ?t ?s WHERE { ?t kg:system ?s } } { SELECT ?t ?c WHERE { ?t kg:case ?c } } { SELECT ?t ?g WHERE { ?t kg:grader ?g } } { SELECT ?t ?k WHERE { ?t kg:graderKind ?k } } { SELECT ?t WHERE { ?t a kg:Tally } } }",
 "bgp-5-group": "SELECT ?s ?g ?k (COUNT(*) AS ?n) WHERE { ?t a kg:Tally ; kg:system ?s ; kg:case ?c ; kg:grader ?g ; kg:graderKind ?k } GROUP BY ?s ?g ?k",
}
for name in sys.argv[2:] or Q:
    t = time.perf_counter(); rows = list(s.query(P + Q[name], use_default_graph_as_union=True)); print(f"{name:20s} {time.perf_counter()-t:7.2f} s  {rows[0][0] if rows else ''}", flush=True)
