"""kg/spill.py: a loader's keys kept by SQLite, with the semantics of the dicts and sets they replace."""
import json
import os
import random
import subprocess
import sys

from kg.spill import Spill


def test_add_keeps_the_first_value_like_setdefault():
    with Spill() as spill:
        keys, reference = spill.keys(), {}
        rng = random.Random(7)
        for line in range(1, 5001):
            key = f"urn:x:{rng.randrange(3000)}"
            assert keys.add(key, line) == reference.setdefault(key, line)
        assert len(keys) == len(reference)
        assert all(keys.get(k) == v for k, v in reference.items())
        assert "urn:x:absent" not in keys and keys.get("urn:x:absent", -1) == -1
        assert 3 not in keys  # not a string: never a key


def test_tables_of_one_spill_are_apart():
    with Spill() as spill:
        a, b = spill.keys(), spill.keys()
        a.add("k", 1)
        assert "k" in a and "k" not in b
        b.update([("k", 2), ("m", 3), ("k", 4)])
        assert (a.get("k"), b.get("k"), b.get("m")) == (1, 2, 3)


def test_chunks_give_every_key_once_in_order_while_another_table_is_written():
    with Spill() as spill:
        keys, found = spill.keys(), spill.keys()
        wanted = {f"urn:x:{n:05d}" for n in random.Random(3).sample(range(100000), 2345)}
        keys.update((k, None) for k in wanted)
        seen = []
        for part in keys.chunks(1000):
            assert len(part) <= 1000
            seen += part
            found.update((k, "p") for k in part[::2])  # what a lookup of the store would write meanwhile
        assert seen == sorted(wanted)
        assert len(found) == 500 + 500 + 173  # every other key of chunks of 1000, 1000 and 345


def test_common_gives_the_first_shared_keys_in_order():
    with Spill() as spill:
        here, earlier = spill.keys(), spill.keys()
        here.update([("c", 3), ("a", 1), ("b", 2), ("d", 4)])
        earlier.update([("d", "x"), ("b", "y"), ("z", "w")])
        assert here.common(earlier, 10) == [("b", 2), ("d", 4)]
        assert here.common(earlier, 1) == [("b", 2)]


def test_a_full_temporary_folder_rejects_the_file_alone_saying_where(tmp_path):
    """A real full disk under SQLite's temporary folder (a small tmpfs; SQLite reads SQLITE_TMPDIR when
    a process starts, so the load runs in one of its own, its cache made tiny so the keys of a 600-line
    EARL file must go to disk): that file is rejected with the folder to free, the store holds nothing
    of it, and the file beside it still loads."""
    from kg import ingest
    from kg.store import Store

    from .conftest import ROOT, TESTS, small_disk
    from .test_streaming import BASE, big_file

    store_path = tmp_path / "store"
    store = Store(store_path)
    assert all(o.status == "loaded" for o in ingest.load(store, [BASE]))
    before = store.dump()
    del store
    results = big_file(tmp_path / "big.earl.jsonl")
    ontology = TESTS / "queries" / "golden" / "situation-check--validates" / "cubby.ttl"
    script = f"""
import json, sys
from kg import ingest, spill
from kg.store import Store
spill.CACHE_KIB = 8
ingest.STREAM_BYTES = 0
store = Store({str(store_path)!r})
print(json.dumps({{o.path.rsplit("/", 1)[-1]: [o.status, [str(p) for p in o.problems]]
                  for o in ingest.load(store, [{str(results)!r}, {str(ontology)!r}])}}))
"""
    with small_disk(tmp_path / "disk", "64k") as disk:
        env = {**os.environ, "SQLITE_TMPDIR": str(disk)}
        ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT)
    assert ran.returncode == 0, ran.stderr
    outcomes = json.loads(ran.stdout)
    status, problems = outcomes["big.earl.jsonl"]
    assert status == "rejected"
    assert "could not write it: database or disk is full" in problems[0] and "SQLITE_TMPDIR" in problems[0]
    assert outcomes["cubby.ttl"][0] == "loaded"
    # nothing of the rejected file: no triple of its graph or of its staging graph, no record
    rejected = results.resolve().as_uri().encode()
    after = Store(store_path).dump()
    assert after != before and not [line for line in after.splitlines() if rejected in line]
