"""The verdict layer (queries/layers/verdicts.ru, kept by kg/layers.py): whatever sequence of loads,
replacements, drops and cross-file supersessions built a store, its layer is the one a rebuild from
scratch makes, the catalogue's rows are the same on both, and both agree with an independent
computation in Python of what the verdicts must be (the rule as docs/formats.md states it)."""
import gc
import random
from collections import defaultdict

import pyoxigraph as ox
import pytest

from kg import catalogue, ingest, layers
from kg.store import Store

T = "http://t.example/"
SYSTEMS, CASES, GRADERS, TRIALS = ["S1", "S2"], ["c1", "c2", "c3"], {"g1": "mechanical", "g2": None}, [0, 1]
OUTCOMES = [("passed", None), ("failed", None), ("cantTell", "agent"), ("cantTell", "grader"),
            ("cantTell", "environment"), ("cantTell", None), ("inapplicable", None), ("untested", None)]
LAYER_ROWS = """PREFIX kg: <https://kg.example/ns#>
SELECT ?verdict ?system ?case ?trial ?grader ?kind ?status ?assertion ?class WHERE {
  ?verdict a kg:Verdict ; kg:system ?system ; kg:case ?case ; kg:trial ?trial ; kg:grader ?grader ;
           kg:graderKind ?kind ; kg:status ?status ; kg:assertion ?assertion . ?assertion kg:class ?class }"""


def assertion(rng, name, supersede_pool):
    system, case, grader = rng.choice(SYSTEMS), rng.choice(CASES), rng.choice(list(GRADERS))
    outcome, cause = rng.choice(OUTCOMES)
    older = rng.choice(supersede_pool) if supersede_pool and rng.random() < 0.25 else None
    if older:  # a correction is of the same system, case and grader (kg.lookups.check_supersessions)
        system, case, grader = older["system"], older["case"], older["grader"]
    fact = {"id": name, "system": system, "case": case, "grader": grader, "kind": GRADERS[grader],
            "trial": rng.choice(TRIALS) if rng.random() < 0.8 else None, "outcome": outcome, "cause": cause,
            "supersedes": older["id"] if older else None}
    return fact


def whole_chains(facts: list[dict]) -> list[dict]:
    """The facts whose supersession chain ends in a loaded assertion (one that a drop left dangling
    is refused as a target: the chain would end nowhere)."""
    by_id = {f["id"]: f for f in facts}

    def whole(f, depth=0):
        return not f["supersedes"] or (f["supersedes"] in by_id and depth < 50 and whole(by_id[f["supersedes"]], depth + 1))
    return [f for f in facts if whole(f)]


def turtle(facts) -> str:
    lines = ["@prefix earl: <http://www.w3.org/ns/earl#> .",
             "@prefix apeval: <https://agenticprimitives.dev/ns/evaluation#> ."]
    for f in facts:
        parts = [f"<{T}{f['id']}> a earl:Assertion", f"earl:subject <{T}{f['system']}>", f"earl:test <{T}{f['case']}>",
                 f"earl:assertedBy <{T}{f['grader']}>",
                 # semiAuto says no kind, so a fact without one stays undeclared (automatic would read as
                 # mechanical: loaders/rdf.py DEFAULT_KIND)
                 "earl:mode earl:automatic" if f["kind"] else "earl:mode earl:semiAuto"]
        if f["trial"] is not None:
            parts.append(f"apeval:trialIndex {f['trial']}")
        if f["kind"]:
            parts.append(f'apeval:graderKind "{f["kind"]}"')
        if f["supersedes"]:
            parts.append(f"apeval:supersedes <{T}{f['supersedes']}>")
        cause = f" ; apeval:failureCause apeval:fc-{f['cause']}" if f["cause"] else ""
        parts.append(f"earl:result [ a earl:TestResult ; earl:outcome earl:{f['outcome']}{cause} ]")
        lines.append(" ;\n  ".join(parts) + " .")
    return "\n".join(lines) + "\n"


def expected_verdicts(files: dict[str, list[dict]]) -> dict:
    """The rule, computed independently: current = named by no loaded apeval:supersedes; an assertion's
    class from its outcome and cause; one verdict per system, case, trial, grader and kind, conflicting
    when its current assertions' classes differ."""
    facts = [f for fs in files.values() for f in fs]
    superseded = {f["supersedes"] for f in facts if f["supersedes"]}
    classes: dict[tuple, set] = defaultdict(set)
    members: dict[tuple, set] = defaultdict(set)
    for f in facts:
        if f["id"] in superseded:
            continue
        outcome, cause = f["outcome"], f["cause"]
        if outcome == "cantTell":
            cls = {"agent": "failed", "grader": "grader", "environment": "environment"}.get(cause, "unexplained")
        else:
            cls = outcome
        key = (T + f["system"], T + f["case"], f["trial"] or 0, T + f["grader"], f["kind"] or "undeclared")
        classes[key].add(cls)
        members[key].add(T + f["id"])
    return {key: ("conflicting" if len(cls) > 1 else next(iter(cls)), frozenset(members[key]))
            for key, cls in classes.items()}


TALLY_COUNTS = ["trials", "eligible", "passed", "failed", "failedByAgent", "excludedGrader", "excludedEnvironment",
                "excludedUnexplained", "excludedInapplicable", "excludedUntested", "excludedOther",
                "excludedConflicting", "excludedNotPreregistered", "orderUnknown", "firstJudged", "firstPassed"]
TALLY_ROWS = ("PREFIX kg: <https://kg.example/ns#>\nSELECT ?tally ?system ?case ?grader ?kind "
              + " ".join(f"?{c}" for c in TALLY_COUNTS) + " WHERE { ?tally a kg:Tally ; kg:system ?system ; "
              "kg:case ?case ; kg:grader ?grader ; kg:graderKind ?kind ; "
              + " ; ".join(f"kg:{c} ?{c}" for c in TALLY_COUNTS) + " }")
STATUS_COUNT = {"passed": "passed", "grader": "excludedGrader", "environment": "excludedEnvironment",
                "unexplained": "excludedUnexplained", "inapplicable": "excludedInapplicable",
                "untested": "excludedUntested", "conflicting": "excludedConflicting"}


def expected_tallies(files: dict[str, list[dict]]) -> dict:
    """The tally layer's rule, computed from the expected verdicts: per system, case, grader and kind,
    the verdicts counted by status, a failed one as earl:failed when one of its assertions said so."""
    outcome_of = {T + f["id"]: f["outcome"] for fs in files.values() for f in fs}
    tallies: dict[tuple, dict] = {}
    for (system, case, trial, grader, kind), (status, members) in expected_verdicts(files).items():
        counts = tallies.setdefault((system, case, grader, kind), dict.fromkeys(TALLY_COUNTS, 0))
        counts["trials"] += 1
        counts["eligible"] += status in ("passed", "failed")
        if status == "failed":
            counts["failed" if any(outcome_of[m] == "failed" for m in members) else "failedByAgent"] += 1
        else:
            counts[STATUS_COUNT[status]] += 1
        if trial == 0:
            counts["firstJudged"] += status in ("passed", "failed")
            counts["firstPassed"] += status == "passed"
    return tallies


def tallies_of(store) -> dict:
    found: dict[tuple, dict] = {}
    _, rows = store.select_values(TALLY_ROWS)
    for tally, system, case, grader, kind, *counts in rows:
        key = (system, case, grader, kind)
        assert key not in found, f"two tallies for {key}"
        found[key] = dict(zip(TALLY_COUNTS, counts))
    return found


def layer_of(store) -> dict:
    found: dict[tuple, tuple] = {}
    _, rows = store.select_values(LAYER_ROWS)
    for verdict, system, case, trial, grader, kind, status, member, cls in rows:
        key = (system, case, trial, grader, kind)
        previous = found.get(key, (status, frozenset(), verdict))
        assert previous[0] == status and previous[2] == verdict, f"two verdicts or statuses for {key}"
        found[key] = (status, previous[1] | {member}, verdict)
    return {key: (status, members) for key, (status, members, _) in found.items()}


def rebuilt(store) -> Store:
    fresh = Store(":memory:")
    fresh.ox.load(store.dump(), format=ox.RdfFormat.N_QUADS)
    fresh.rebuild_layers()
    return fresh


def write(folder, name, facts):
    path = folder / f"{name}.ttl"
    path.write_text(turtle(facts))
    return path


@pytest.mark.parametrize("seed", range(12))
def test_any_sequence_of_writes_leaves_the_layer_a_rebuild_makes(tmp_path, seed):
    rng = random.Random(seed)
    store = Store(":memory:")
    files: dict[str, list[dict]] = {}
    counter = iter(range(10_000))
    names = ["f0", "f1", "f2", "f3"]
    for step in range(10):
        name = rng.choice(names)
        action = "drop" if name in files and rng.random() < 0.3 else "write"
        if action == "drop":
            assert store.drop_source(write(tmp_path, name, files[name]).resolve().as_uri())
            del files[name]
        else:
            others = whole_chains([f for n, fs in files.items() if n != name for f in fs])
            facts = [assertion(rng, f"a{next(counter)}", others) for _ in range(rng.randint(1, 8))]
            for f in facts[1:]:  # sometimes a correction inside the file, sometimes a restated trial
                if rng.random() < 0.2 and not f["supersedes"]:
                    f.update(supersedes=facts[0]["id"], system=facts[0]["system"], case=facts[0]["case"],
                             grader=facts[0]["grader"], kind=facts[0]["kind"])
            outcomes = ingest.load(store, [write(tmp_path, name, facts)], kind="earl", validate=False,
                                   revise=True)  # a file rewritten: a revision (kg/revisions.py)
            assert [o.status for o in outcomes] == ["loaded"], [o.problems for o in outcomes]
            files[name] = facts
        expected = expected_verdicts(files)
        assert layer_of(store) == expected, f"seed {seed}, step {step}: {action} {name}"
        assert tallies_of(store) == expected_tallies(files), f"tallies: seed {seed}, step {step}: {action} {name}"
    fresh = rebuilt(store)
    assert layer_of(fresh) == layer_of(store)
    assert tallies_of(fresh) == tallies_of(store)
    assert store.layers_current() and fresh.layers_current()
    for query in ("pass-at-k", "verdicts", "judge-kind-metrics"):
        q = catalogue.load()[query]
        assert catalogue.run(q, store, {}).rows == catalogue.run(q, fresh, {}).rows, query


def test_a_store_of_another_layer_version_is_rebuilt_when_opened(tmp_path, capsys):
    path = tmp_path / "store"
    store = Store(path)
    facts = [{"id": "a1", "system": "S1", "case": "c1", "grader": "g1", "kind": "mechanical", "trial": 0,
              "outcome": "passed", "cause": None, "supersedes": None}]
    ingest.load(store, [write(tmp_path, "f", facts)], kind="earl")
    before, tallies_before = layer_of(store), tallies_of(store)
    assert len(before) == 1 and len(tallies_before) == 1
    for graph in sorted(layers.graphs()):  # what an older kg left: no layer, or one of other rules
        store.ox.update(f"DROP SILENT GRAPH <{graph}>")
    store.set_setting("layerVersion", "an older version")
    store.flush()
    del store
    capsys.readouterr()
    reader = Store(path, read_only=True)  # even a reader: it opens the store for writing once to rebuild
    assert "rebuilt from its sources" in capsys.readouterr().err
    assert layer_of(reader) == before and tallies_of(reader) == tallies_before and reader.layers_current()
    del reader
    Store(path, read_only=True)
    assert capsys.readouterr().err == ""  # once


def test_a_rebuild_cut_short_while_it_empties_the_layers_is_done_again_on_the_next_open(tmp_path, monkeypatch, capsys):
    # a rebuild takes the layers out a chunk at a time (CLEAR_CHUNK triples per transaction, 3 here);
    # cut short after the first chunk, the store must not pass for current with half its layers
    path = tmp_path / "store"
    store = Store(path)
    facts = [{"id": f"a{n}", "system": "S1", "case": f"c{n}", "grader": "g1", "kind": "mechanical", "trial": 0,
              "outcome": "passed", "cause": None, "supersedes": None} for n in range(4)]
    ingest.load(store, [write(tmp_path, "f", facts)], kind="earl")
    before, tallies_before = layer_of(store), tallies_of(store)

    def derived_triples(st):
        return sum(len(list(st.ox.quads_for_pattern(None, None, None, ox.NamedNode(layer.graph))))
                   for layer in layers.load())
    derived_before = derived_triples(store)
    monkeypatch.setattr(layers, "CLEAR_CHUNK", 3)
    cleared = []

    def cut_short(engine, update):
        if update.startswith("DELETE") and "LIMIT 3" in update:
            cleared.append(update)
            if len(cleared) == 2:
                raise KeyboardInterrupt  # a kill between two transactions
        return engine.update(update)
    store.ox = _UpdateSpy(store.ox, cut_short)
    with pytest.raises(KeyboardInterrupt):
        store.rebuild_layers()
    store.ox = store.ox.inner
    gc.collect()  # nothing of the interrupted call may keep the engine (and its lock) alive
    assert 0 < derived_triples(store) < derived_before and not store.layers_current()
    store.flush()
    del store
    capsys.readouterr()
    reader = Store(path, read_only=True)
    assert "rebuilt from its sources" in capsys.readouterr().err
    assert layer_of(reader) == before and tallies_of(reader) == tallies_before and reader.layers_current()


class _UpdateSpy:
    """The engine, with its `update` seen by a function first (everything else passed through)."""

    def __init__(self, inner, update):
        self.inner, self.seen = inner, update

    def update(self, text):
        return self.seen(self.inner, text)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_a_bulk_loaded_file_is_derived_a_chunk_at_a_time_to_the_same_layer(tmp_path, monkeypatch):
    # a new file of BULK_TRIPLES or more goes in by bulk_load, and its verdicts are derived in
    # transactions of CHUNK_KEYS (case, system) pairs; a chunk of 2 makes it dozens of them here
    from kg.store import writing
    monkeypatch.setattr(layers, "CHUNK_KEYS", 2)
    monkeypatch.setattr(writing, "BULK_TRIPLES", 50)
    rng = random.Random(7)
    facts = [assertion(rng, f"b{n}", []) for n in range(60)]
    for f in facts[30:40]:  # corrections, each of the same system, case and grader as what it corrects
        older = facts[rng.randrange(30)]
        f.update(supersedes=older["id"], system=older["system"], case=older["case"], grader=older["grader"],
                 kind=older["kind"])
    store = Store(":memory:")
    outcomes = ingest.load(store, [write(tmp_path, "big", facts)], kind="earl", validate=False)
    assert [o.status for o in outcomes] == ["loaded"] and outcomes[0].triples >= 50
    assert layer_of(store) == expected_verdicts({"big": facts})
    assert tallies_of(store) == expected_tallies({"big": facts})
    assert store.layers_current()
    assert layer_of(rebuilt(store)) == layer_of(store)


def test_a_layer_derived_from_another_runs_after_it(tmp_path):
    # tallies.ru sorts before verdicts.ru by name; its `#+ after: [verdicts]` puts its derive step after
    names = [layer.name for layer in layers.load()]
    assert names.index("verdicts") < names.index("tallies"), names
    assert not next(l for l in layers.load() if l.name == "tallies").mark  # it marks nothing of its own: comments only
    body = "#+ step: mark\n# nothing\n#+ step: derive\nINSERT DATA { GRAPH <urn:kg:layer:x> { <urn:a> <urn:b> <urn:c> } }\n"
    for name, after in (("a", "[b]"), ("b", "[a]")):
        (tmp_path / f"{name}.ru").write_text(f"#+ summary: s\n#+ graph: urn:kg:layer:{name}\n#+ after: {after}\n{body}")
    with pytest.raises(layers.LayerError, match="cycle"):
        layers._ordered([layers.parse(tmp_path / "a.ru"), layers.parse(tmp_path / "b.ru")])
    (tmp_path / "c.ru").write_text("#+ summary: s\n#+ graph: urn:kg:layer:c\n#+ after: [nowhere]\n" + body)
    with pytest.raises(layers.LayerError, match="nowhere"):
        layers._ordered([layers.parse(tmp_path / "c.ru")])


def test_a_bulk_derive_is_given_its_chunks_keys_as_values_and_a_blank_node_key_keeps_the_pattern():
    # layers.with_keys: the same solutions as the deriving graph's pattern (the goldens and the chunked
    # load above hold the layer to that), stated so that the engine knows how few keys there are
    step = ("{ SELECT DISTINCT ?case ?system WHERE { GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system } } }\n"
            "GRAPH <urn:kg:layer:deriving:situations> { ?c <https://kg.example/ns#touchedFor> ?s }")
    iri, system, blank = ox.NamedNode("urn:case:1"), ox.NamedNode("urn:system:1"), ox.BlankNode("b1")
    bound = layers.with_keys(step, {"urn:kg:layer:deriving": [(iri, system)],
                                    "urn:kg:layer:deriving:situations": [(blank, system)]})
    assert "VALUES (?case ?system) { (<urn:case:1> <urn:system:1>) }" in bound
    assert "GRAPH <urn:kg:layer:deriving:situations> { ?c <https://kg.example/ns#touchedFor> ?s }" in bound
    assert "GRAPH <urn:kg:layer:deriving> {" not in bound
    # a graph with no keys binds none: no solution, as the empty graph gives
    assert "VALUES (?case ?system) {  }" in layers.with_keys(step, {"urn:kg:layer:deriving": []})


SHIPPED_VERDICTS = layers.load()[[l.name for l in layers.load()].index("verdicts")].path


def _broken(tmp_path, old: str, new: str):
    text = SHIPPED_VERDICTS.read_text(encoding="utf-8")
    assert text.count(old) >= 1, old
    path = tmp_path / "verdicts.ru"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path, text[:text.index(old)].count("\n") + 1


def test_two_operations_without_the_blank_line_between_them_are_refused_naming_the_line(tmp_path):
    """Issue 44: the upkeep splits a step at ';' and a blank line. Run together, two operations were
    one INSERT the bulk path could not read as a CONSTRUCT: the slow path, silently."""
    layers.parse(SHIPPED_VERDICTS)  # the shipped file has the form
    path, at = _broken(tmp_path, " ;\n\n# 5. A verdict with a current assertion", " ;\n# 5. A verdict with a current assertion")
    with pytest.raises(layers.LayerError, match=r"verdicts\.ru:\d+: 2 operations run together") as refused:
        layers.parse(path)
    line = int(str(refused.value).split(":")[1])
    assert line < at  # the step that runs on, from its first line


def test_keys_read_in_another_form_are_refused_naming_the_line(tmp_path):
    """with_keys binds `GRAPH <urn:kg:layer:deriving> { ?a kg:touchedFor ?b }`; another spelling of the
    same read (a trailing '.') would never be given its keys as VALUES."""
    old = "GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system }"
    path, at = _broken(tmp_path, old, "GRAPH <urn:kg:layer:deriving> { ?case kg:touchedFor ?system . }")
    with pytest.raises(layers.LayerError, match=rf"verdicts\.ru:{at}: the keys being derived are read as"):
        layers.parse(path)
