"""The compiled JSON Schema check (fastjsonschema) only ever says "valid" where jsonschema, the
reference, says so too: it is the fast path for rows that pass, and a row it refuses is explained
by jsonschema. Held to that on every JSON input the project ships (examples, loader goldens, bad
inputs) and on mutants of them: each value swapped for values of other types, near-miss
date-times and numbers, a field deleted, an unknown field added."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import fastjsonschema
import pytest

from kg import jsonio, paths
from kg.ingest import recognise

ROOT = Path(__file__).resolve().parent.parent
PROFILE_SCHEMA = str(paths.loaders() / "case-profile.schema.json")
# values a mistaken writer puts where another was due; near misses for formats and integers
SWAPS = [None, True, 0, -1, 1.0, 2.5, "", "x", "2026-01-01T00:00:00+0000", "2026-13-01T00:00:00Z",
         "2026-01-01T00:00:00Z", "2026-01-01", [], {}, ["x"], {"x": 1}]
INSTANCES_PER_SCHEMA = 4


def instances() -> dict[str, list]:
    """schema path → JSON values found in the project's files, in a stable order."""
    found: dict[str, list] = {}
    files = sorted([*(ROOT / "examples").glob("*.json*"), *(ROOT / "tests").glob("**/*.json*")])
    for path in files:
        spec = recognise(path)
        if spec is None or not spec.schema:
            continue
        try:
            text = path.read_text(encoding="utf-8")
            values = ([json.loads(line) for line in text.splitlines() if line.strip()]
                      if path.name.endswith(".jsonl") else [json.loads(text)])
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue  # malformed on purpose: never reaches a schema
        for value in values:
            found.setdefault(spec.schema_path(), []).append(value)
            profile = value.get("metadata", {}).get("case") if isinstance(value, dict) and isinstance(value.get("metadata"), dict) else None
            if spec.kind == "evalset" and profile is not None:
                found.setdefault(PROFILE_SCHEMA, []).append(profile)
    return found


def mutants(value):
    """Every one-edit variant of a JSON value (at every depth)."""
    yield from (swap for swap in SWAPS if swap != value or type(swap) is not type(value))
    if isinstance(value, dict):
        yield {**value, "unexpectedField": 1}
        for key in value:
            yield {k: v for k, v in value.items() if k != key}
            for inner in mutants(value[key]):
                yield {**value, key: inner}
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield value[:i] + value[i + 1:]
            for inner in mutants(item):
                yield value[:i] + [inner] + value[i + 1:]


def shrink(value):
    """Lists cut to their first two items: a whole replay set's mutants would number in the tens of
    thousands, and its intents all follow one schema."""
    if isinstance(value, dict):
        return {k: shrink(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shrink(v) for v in value[:2]]
    return value


def seeds(schema: str) -> list:
    """Up to INSTANCES_PER_SCHEMA valid instances, shrunk where the shrunk form is still valid."""
    valid = [v for v in FOUND[schema] if jsonio.load_schema(schema).is_valid(v)][:INSTANCES_PER_SCHEMA]
    return [shrink(v) if jsonio.load_schema(schema).is_valid(shrink(v)) else v for v in valid]


def verdicts(schema: str, value) -> tuple[bool, bool]:
    reference = jsonio.load_schema(schema).is_valid(value)
    try:
        jsonio.compiled_check(schema)(copy.deepcopy(value))
        fast = True
    except fastjsonschema.JsonSchemaException:
        fast = False
    return fast, reference


FOUND = instances()


def test_every_schema_has_instances():
    schemas = sorted(str(p) for p in paths.loaders().glob("*.json") if "admissibility" not in p.name)
    assert sorted(FOUND) == schemas


@pytest.mark.parametrize("schema", sorted(FOUND), ids=lambda s: Path(s).name)
def test_compiled_check_agrees_with_jsonschema(schema):
    checked = valid = 0
    disagreements = []
    for value in FOUND[schema]:
        fast, reference = verdicts(schema, value)
        checked, valid = checked + 1, valid + reference
        if fast != reference:
            disagreements.append((value, fast, reference))
    for value in seeds(schema):
        for mutant in mutants(value):
            fast, reference = verdicts(schema, mutant)
            checked, valid = checked + 1, valid + reference
            if fast != reference:
                disagreements.append((mutant, fast, reference))
    assert not disagreements, f"{len(disagreements)} of {checked}, first: {disagreements[0]}"
    # both verdicts must occur, or the comparison proves nothing
    assert 0 < valid < checked and checked > 100


def test_a_refused_row_is_explained_by_jsonschema():
    schema = str(paths.loaders() / "earl-jsonl.schema.json")
    row = next(v for v in FOUND[schema] if jsonio.load_schema(schema).is_valid(v))
    bad = {**row, "trial": "two"}
    problems = jsonio.schema_problems("f.earl.jsonl", bad, schema, line=3)
    assert [p.place for p in problems] == ["line 3, /trial"]
    assert jsonio.schema_problems("f.earl.jsonl", row, schema, line=3) == []


# ── strict parsing: what json.loads accepts or fails on, and kg must refuse with a place ──

@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
def test_a_jsonl_string_may_hold_unicode_line_separators(separator):
    """Valid JSON: str.splitlines() split such a line in two and rejected the file."""
    text = json.dumps({"info": f"a{separator}b"}, ensure_ascii=False) + "\n" + json.dumps({"info": "c"}) + "\n"
    assert jsonio.parse_jsonl("f.jsonl", text) == [(1, {"info": f"a{separator}b"}), (2, {"info": "c"})]


def test_jsonl_lines_may_end_with_crlf():
    assert jsonio.parse_jsonl("f.jsonl", '{"a": 1}\r\n{"a": 2}\r\n') == [(1, {"a": 1}), (2, {"a": 2})]


@pytest.mark.parametrize("text, place, message", [
    ('{"a": 1,\n "b": {"c": 1, "c": 2}}', "line 2, column 16", 'the key "c" appears twice'),
    ('{"a": "{\\"a\\": 1}", "a": 2}', "line 1, column 21", 'the key "a" appears twice'),  # not fooled by a string
    ('{"a": [1, -Infinity]}', "line 1, column 11", "-Infinity is not a JSON number"),
    ('{"a": "NaN", "b": NaN}', "line 1, column 19", "NaN is not a JSON number"),
    ('{"a": "x\\udc00"}', "/a", "a lone UTF-16 surrogate"),
    ('{"a\\ud800": 1}', "/a\ud800", "a lone UTF-16 surrogate"),
    ("[" * 50_000 + "]" * 50_000, "line 1, column 257", "nests more than 256 levels deep"),
])
def test_json_faults_are_placed(text, place, message):
    with pytest.raises(jsonio.Rejected) as err:
        jsonio.parse_json("f.json", text)
    problem = err.value.problems[0]
    assert (problem.place, message in problem.message) == (place, True), problem
    str(problem).encode("utf-8")  # printable, whatever the file holds


def test_a_surrogate_pair_is_one_character():
    assert jsonio.parse_json("f.json", '{"a": "\\ud83d\\ude00"}') == {"a": "\U0001F600"}
