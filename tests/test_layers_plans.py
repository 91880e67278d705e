"""The plans layer (queries/layers/plans.ru): whether a plan's pins hold and which runs are of the
builds it pins. Its inputs come from sources of different kinds (plans, replay sets, gold files,
results), so whatever order they are written, replaced or dropped in, the layer must be the one a
rebuild from scratch makes, and the experiment queries' rows the same on both.

The data are the hand-computed golden cases of the experiment queries (tests/queries/golden/), each
named graph of their TriG written as a source of its own through the store's write path."""
import pytest
import yaml

from kg import catalogue
from tests.layer_writes import GOLDEN, check_any_order, graphs_of, write, written_without

CASES = ["variant-comparison--components", "variant-comparison--refused", "new-wrong-answers--components",
         "experiment-plans"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", range(3))
def test_any_order_of_writes_and_drops_leaves_the_plans_layer_a_rebuild_makes(case, seed):
    check_any_order(case, seed, "urn:kg:layer:plans")


def test_a_plan_is_refused_while_its_replay_set_is_not_loaded_and_holds_once_it_is():
    # experiment-plans: one plan's pins hold on the whole golden, another's set digest differs (expected.yaml)
    graphs = graphs_of("experiment-plans")
    set_graph = next(g for g, text in graphs.items() if "setDigest" in text)
    store = written_without(graphs, set_graph)
    pins = {row["plan"]: row["pins"] for row in catalogue.run(catalogue.load()["experiment-plans"], store, {}).rows}
    assert pins and all(p.startswith("refused: the replay set ") and p.endswith(" is not loaded") for p in pins.values())
    write(store, set_graph, graphs[set_graph])  # a replay set states no assertion: no key is touched, pins change
    pins = {row["plan"]: row["pins"] for row in catalogue.run(catalogue.load()["experiment-plans"], store, {}).rows}
    expected = yaml.safe_load((GOLDEN / "experiment-plans" / "expected.yaml").read_text())["rows"]
    assert pins == {row["plan"]: row["pins"] for row in expected}
    assert "pins hold" in pins.values()
