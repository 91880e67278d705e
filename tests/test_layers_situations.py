"""The situations layer (queries/layers/situations.ru): whether a delivered situation satisfies an
outcome description (apeval:satisfies), defined once. Its inputs come from sources of different kinds
(situations files, replay sets, gold files, the domain's ontologies), so whatever order they are
written, replaced or dropped in, the layer must be the one a rebuild from scratch makes, and the
situations queries' rows the same on both.

The data are the hand-computed golden cases of the situations queries (tests/queries/golden/), each
named graph of their TriG written as a source of its own through the store's write path."""
import random

from pathlib import Path

import pyoxigraph as ox
import pytest
import yaml

from kg import ingest
from kg.store import Store
from tests.layer_writes import GOLDEN, check_any_order, graphs_of, layer_triples, rebuilt, rows, write, written_without

# goldens written as TriG, whose graphs can be written in any order
CASES = ["situation-check", "situation-check--system", "situation-check--unchecked", "wrong-description-cases",
         "wrong-description-reach", "wrong-description-situations"]
# goldens written as the files kg loads, through its loaders (which take a set before its gold before
# its situations)
FILE_CASES = ["situation-check--components", "situation-check--validates", "wrong-description-cases--invalid-record",
              "wrong-description-reach--invalid-record", "wrong-description-reach--components",
              "wrong-description-reach--readings"]
SITUATIONS_GRAPH = "urn:kg:layer:situations"
SATISFIES = "https://agenticprimitives.dev/ns/evaluation#satisfies"
KG = "https://kg.example/ns#"


def situations_layer(store: Store) -> set[str]:
    return layer_triples(store, SITUATIONS_GRAPH)


def satisfied(store: Store) -> set[tuple[str, str]]:
    return {(q.subject.value, q.object.value)
            for q in store.ox.quads_for_pattern(None, ox.NamedNode(SATISFIES), None, ox.NamedNode(SITUATIONS_GRAPH))}


def test_every_situations_golden_is_here():
    # a situations golden added later is held to the layer too: the list is the goldens of the three queries
    found = sorted(p.name for p in GOLDEN.iterdir()
                   if yaml.safe_load((p / "expected.yaml").read_text())["query"]
                   in {"situation-check", "wrong-description-cases", "wrong-description-reach",
                       "wrong-description-situations"})
    assert found == sorted(CASES + FILE_CASES)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_any_order_of_writes_and_drops_leaves_the_situations_layer_a_rebuild_makes(case, seed):
    check_any_order(case, seed, SITUATIONS_GRAPH)


@pytest.mark.parametrize("case", FILE_CASES)
def test_files_loaded_dropped_and_loaded_again_leave_the_situations_layer_a_rebuild_makes(case):
    rng = random.Random(case)
    store = Store(":memory:")
    ingest.ensure_vocabularies(store)
    files = sorted(p for p in (GOLDEN / case).iterdir() if p.is_file() and p.name != "expected.yaml")
    assert all(o.status == "loaded" for o in ingest.load(store, files))
    whole = rebuilt(store)
    assert situations_layer(store) == situations_layer(whole) and satisfied(store), case
    assert rows(store, case) == rows(whole, case)
    loaded = [r for r in store.sources() if Path(r.path).name in {f.name for f in files}]
    for record in rng.sample(loaded, k=3):
        store.drop_source(record.graph)
        assert situations_layer(store) == situations_layer(rebuilt(store)), f"{case}: after dropping {record.path}"
        outcomes = ingest.load(store, [Path(record.path)])
        assert all(o.status == "loaded" for o in outcomes), [(o.path, o.problems) for o in outcomes]
        assert situations_layer(store) == situations_layer(rebuilt(store)), f"{case}: after loading {record.path} again"
    assert rows(store, case) == rows(whole, case)


def _by_content(graphs: dict[str, str], word: str) -> str:
    found = [g for g, text in graphs.items() if word in text]
    assert len(found) == 1, (word, found)
    return found[0]


def reaches(store: Store) -> set[str]:
    """How each situation was reached, as the layer says (kg:reach)."""
    return {q.object.value for q in store.ox.quads_for_pattern(None, ox.NamedNode(f"{KG}reach"), None,
                                                                ox.NamedNode(SITUATIONS_GRAPH))}


def test_a_gold_file_loaded_after_the_situations_re_derives_their_satisfaction():
    # situation-check: the expected outcomes are in their own graph (t:gold); without them no situation
    # has anything to satisfy, and once it is written the layer says what the golden's rows say
    graphs = graphs_of("situation-check")
    gold = _by_content(graphs, "expectedOutcome")
    store = written_without(graphs, gold)
    assert not satisfied(store) and reaches(store) == {"ungraded"}  # no expected outcome: no reach is graded
    write(store, gold, graphs[gold])  # a gold file states no situation: only the mark step can touch them
    assert satisfied(store), "the gold file's descriptions did not re-derive the situations' satisfaction"
    # (the golden has a decline too, which stays ungraded)
    assert reaches(store) - {"ungraded", "unknown"}, "the gold file's expected outcomes did not re-derive the reaches"
    assert situations_layer(store) == situations_layer(rebuilt(store))
    expected = yaml.safe_load((GOLDEN / "situation-check" / "expected.yaml").read_text())
    assert [r["satisfies_expected"] for r in rows(store, "situation-check")] == \
        [r.get("satisfies_expected") for r in expected["rows"]]
    store.drop_source(gold)  # and dropping it takes the judgements away, and leaves every reach ungraded
    assert not satisfied(store) and reaches(store) == {"ungraded"}
    assert {t for t in situations_layer(store) if "urn:kg:reach:" not in t.split()[0]} == set()


def test_an_ontology_loaded_after_the_situations_re_derives_their_satisfaction():
    # situation-check: a record typed t:SignedCert is an t:Answer only through the ontology's subclasses
    graphs = graphs_of("situation-check")
    onto = _by_content(graphs, "subClassOf")
    store = written_without(graphs, onto)
    before = satisfied(store)
    write(store, onto, graphs[onto])
    after = satisfied(store)
    assert after - before, "the ontology's subclasses did not re-derive the situations' satisfaction"
    assert situations_layer(store) == situations_layer(rebuilt(store))


def test_a_trial_index_stated_by_another_file_than_the_situations_re_derives_the_trial():
    # situation-check: t:r8, the run of t:s8, states no trial index (trial 0). A results file that
    # states one for it (kg:Reach keeps the trial) must re-derive the layer when written and when dropped
    graphs = graphs_of("situation-check")
    store = written_without(graphs, "")
    late = "urn:test:results-stating-a-trial"

    def trials_of_s8() -> list:
        return sorted({r["trial"] for r in rows(store, "situation-check") if r["situation"] == "urn:test:s8"})

    assert trials_of_s8() == [0]
    write(store, late, "<urn:test:r8> <https://agenticprimitives.dev/ns/evaluation#trialIndex> 3 .\n")
    assert trials_of_s8() == [3], "a trial stated in another file than the situation's did not re-derive the layer"
    assert situations_layer(store) == situations_layer(rebuilt(store))
    store.drop_source(late)
    assert trials_of_s8() == [0], "dropping the file that stated the trial did not re-derive the layer"
    assert situations_layer(store) == situations_layer(rebuilt(store))
