"""Supersession is sound (issue 13): a chain of corrections that ends nowhere is refused with its
ids, and the store is left as it was. (Cycles and corrections of another system, case or grader are
in tests/bad/79-81.)"""
from kg import ingest
from kg.store import Store

HEAD = ("@prefix earl: <http://www.w3.org/ns/earl#> .\n"
        "@prefix apeval: <https://agenticprimitives.dev/ns/evaluation#> .\n")


def assertion(name, outcome, supersedes=None):
    corr = f" apeval:supersedes <http://t.example/{supersedes}> ;" if supersedes else ""
    return (f"<http://t.example/{name}> a earl:Assertion ; earl:subject <http://t.example/S> ; "
            f"earl:test <http://t.example/c> ; earl:assertedBy <http://t.example/g> ;{corr} "
            f"earl:result [ a earl:TestResult ; earl:outcome earl:{outcome} ] .\n")


def test_a_chain_that_ends_nowhere_is_refused(tmp_path):
    store = Store(":memory:")
    files = {"a.ttl": assertion("a1", "passed"), "b.ttl": assertion("b1", "failed", "a1"),
             "c.ttl": assertion("c1", "passed", "b1")}
    for name, text in files.items():
        (tmp_path / name).write_text(HEAD + text)
    for name in ("a.ttl", "b.ttl"):
        assert [o.status for o in ingest.load(store, [tmp_path / name], kind="earl")] == ["loaded"]
    assert store.drop_source((tmp_path / "a.ttl").resolve().as_uri())  # b1 now corrects nothing loaded
    before = store.dump()
    [outcome] = ingest.load(store, [tmp_path / "c.ttl"], kind="earl")
    assert outcome.status == "rejected"
    text = "\n".join(map(str, outcome.problems))
    assert ("the supersession chain from <http://t.example/c1> ends nowhere: <http://t.example/c1> supersedes "
            "<http://t.example/b1> supersedes <http://t.example/a1>, and <http://t.example/a1> is not loaded") in text
    assert store.dump() == before
