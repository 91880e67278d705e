"""Reading JSON and JSON Lines inputs with errors that point at the place: line and column for
syntax, a JSON pointer for content, and the nearest valid value for a mistyped enum."""
from __future__ import annotations

import difflib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import fastjsonschema
import jsonschema

from .errors import Problem, Rejected

MAX_PROBLEMS = 20  # past this, a report stops helping and starts hiding the first fault


def decode(file: str, data: bytes) -> str:
    if not data.strip():
        raise Rejected([Problem(file, "", "the file is empty", "give it content or leave it out")])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise Rejected([Problem(
            file, f"line {line}, column {column}",
            f"byte 0x{data[err.start]:02x} is not UTF-8",
            "save the file as UTF-8")]) from None


def parse_json(file: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise Rejected([Problem(file, f"line {err.lineno}, column {err.colno}",
                                f"malformed JSON: {err.msg}")]) from None


def parse_jsonl(file: str, text: str) -> list[tuple[int, Any]]:
    """Every non-blank line is one JSON value; returns (line number, value) pairs."""
    rows, problems = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, json.loads(line)))
        except json.JSONDecodeError as err:
            problems.append(Problem(file, f"line {number}, column {err.colno}",
                                    f"malformed JSON: {err.msg}",
                                    "JSON Lines takes one complete JSON object per line"))
            if len(problems) >= MAX_PROBLEMS:
                break
    if problems:
        raise Rejected(problems)
    if not rows:
        raise Rejected([Problem(file, "", "the file holds no JSON line", "give it one object a line")])
    return rows


@lru_cache(maxsize=None)
def load_schema(path: str) -> jsonschema.protocols.Validator:
    schema = json.loads(Path(path).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@lru_cache(maxsize=None)
def compiled_check(path: str):
    """The same schema compiled to Python code once (fastjsonschema): tens of times faster than
    walking it with jsonschema per row. It only says "valid"; a row it refuses goes to jsonschema,
    which stays the reference and explains the fault. Formats are checked by jsonschema's own
    checkers, so both agree on what a date-time is (tests/test_jsonio.py holds them to it)."""
    schema = json.loads(Path(path).read_text(encoding="utf-8"))
    checker = load_schema(path).format_checker
    formats = {name: (lambda value, name=name: checker.conforms(value, name)) for name in checker.checkers}
    return fastjsonschema.compile(schema, formats=formats, use_default=False, detailed_exceptions=False)


def pointer(parts) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts) if parts else "/"


def schema_problems(file: str, value: Any, schema_path: str, line: int | None = None) -> list[Problem]:
    try:
        compiled_check(schema_path)(value)
        return []
    except fastjsonschema.JsonSchemaException:
        pass  # jsonschema decides, and says where and why
    validator = load_schema(schema_path)
    problems = []
    for err in sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.absolute_path))):
        where = pointer(list(err.absolute_path))
        if line is not None:
            where = f"line {line}, {where}"
        problems.append(Problem(file, where, *_explain(err)))
    return problems


def _explain(err: jsonschema.ValidationError) -> tuple[str, str]:
    if err.validator in ("oneOf", "anyOf") and err.context:
        # "a value or null": explain the branch that describes a value, not the null one
        branches = [e for e in err.context if not (e.validator == "type" and e.validator_value == "null")]
        if branches:
            return _explain(min(branches, key=lambda e: (e.validator == "type", len(e.path))))
    found = json.dumps(err.instance, ensure_ascii=False)
    if len(found) > 60:
        found = found[:57] + "..."
    if err.validator == "enum":
        allowed = err.validator_value
        message = f"expected one of {' | '.join(map(str, allowed))}, found {found}"
        near = difflib.get_close_matches(str(err.instance), [str(a) for a in allowed], n=1, cutoff=0.4)
        return message, (f'did you mean "{near[0]}"?' if near else "")
    if err.validator == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return f'required field "{missing}" is missing', f'add "{missing}"'
    if err.validator == "type":
        expected = err.validator_value if isinstance(err.validator_value, str) else " or ".join(err.validator_value)
        return f"expected {expected}, found {found}", ""
    if err.validator == "additionalProperties":
        known = sorted((err.schema.get("properties") or {}))
        extra = sorted(set(err.instance) - set(known)) if isinstance(err.instance, dict) else []
        near = [m for x in extra for m in difflib.get_close_matches(x, known, n=1, cutoff=0.6)]
        message = f"unknown field{'s' if len(extra) > 1 else ''} {', '.join(map(repr, extra))} (known: {', '.join(known)})"
        return message, (f'did you mean "{near[0]}"?' if near else "remove the field, or check its spelling")
    if err.validator in ("minimum", "maximum", "minLength", "minItems"):
        return f"{err.validator} {err.validator_value}, found {found}", ""
    if err.validator == "pattern":
        return f"expected a value matching {err.validator_value}, found {found}", ""
    return err.message, ""


def duplicate_problems(file: str, items: Iterator[tuple[str, Any]], what: str) -> list[Problem]:
    """items: (place, id) pairs; every repeat of an id is a problem naming the first place."""
    first: dict[Any, str] = {}
    problems = []
    for place, ident in items:
        if ident in first:
            problems.append(Problem(file, place, f'duplicate {what} "{ident}" (first at {first[ident]})',
                                    f"give each {what} a unique id"))
        else:
            first[ident] = place
    return problems
