"""The check of situation records against the domain's shapes (kg/domain_shapes.py) is derived at
load from the shapes loaded then: a shape loaded after a situations file leaves its records
unchecked until the file loads again, and appending to the file then re-checks the earlier records
without counting their new check as a change to evidence. The records' own words stay append-only."""
import shutil
from pathlib import Path

GOLDEN = Path(__file__).parents[1] / "queries" / "golden" / "situation-check--validates"
CHECKED = "https://kg.example/ns#checkedAgainst"


def checked(store) -> set[str]:
    rows = store.select(f"SELECT ?record WHERE {{ GRAPH ?g {{ ?record <{CHECKED}> ?shapes }} }}")
    return {r[0].value.split("/situation/")[1] for r in rows}


def test_a_shape_loaded_later_checks_the_records_when_their_file_grows(load, store, tmp_path):
    for name in ("desk.replayset.json", "desk.gold.json", "cubby.ttl", "cubby.shapes.ttl"):
        shutil.copy(GOLDEN / name, tmp_path / name)
    lines = (GOLDEN / "desk.situations.jsonl").read_text().splitlines(keepends=True)
    situations = tmp_path / "desk.situations.jsonl"
    situations.write_text("".join(lines[:2]))
    first = load(*(tmp_path / n for n in ("desk.replayset.json", "desk.gold.json", "cubby.ttl", situations.name)))
    assert {o.status for o in first.values()} == {"loaded"}
    assert checked(store) == set()  # no shape was loaded: nothing checked
    assert load(tmp_path / "cubby.shapes.ttl")["cubby.shapes.ttl"].status == "loaded"
    assert checked(store) == set()  # loading a shape checks no record already loaded

    situations.write_text("".join(lines[:3]))  # a line appended
    grown = load(situations)[situations.name]
    assert grown.status == "loaded", grown.problems
    assert checked(store) == {"s-valid/record/r", "s-conflict-no-kind/record/r", "s-kind-without-conflict/record/r"}

    situations.write_text("".join(lines[:3]).replace("FactMissing", "Conflict", 1))  # a record's words edited
    edited = load(situations)[situations.name]
    assert edited.status == "rejected"
    assert "cubby#refusalReason" in "\n".join(str(p) for p in edited.problems)
