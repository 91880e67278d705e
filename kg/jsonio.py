"""Reading JSON and JSON Lines inputs with errors that point at the place: line and column for
syntax, a JSON pointer for content, and the nearest valid value for a mistyped enum."""
from __future__ import annotations

import difflib
import json
import re
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


class _Duplicate(ValueError):
    pass


class _Constant(ValueError):
    pass


def _strict_object(pairs: list) -> dict:
    # json keeps the last of two equal keys without a word; a row saying "passed" then "failed"
    # would load as failed, so a repeated key is an error
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _Duplicate()
    return value


class _Overflow(ValueError):
    pass


_BIG_EXPONENT = re.compile(r"\d[eE][+]?\d{3}")


def _finite_float(lexical: str) -> float:
    value = float(lexical)
    if value in (float("inf"), float("-inf")):
        raise _Overflow(lexical)
    return value


def _no_constant(name: str):
    raise _Constant(name)  # NaN and Infinity are not JSON (RFC 8259), though Python's json reads them


def _loads(file: str, text: str, line: int | None = None) -> Any:
    """One JSON text, strictly: no repeated key, no NaN or Infinity, no lone surrogate, no nesting
    deeper than Python's stack. `line` is the line the text starts on (JSON Lines)."""
    def at(index: int | None) -> str:
        if index is None:
            return f"line {line}" if line is not None else ""
        if line is not None:
            return f"line {line}, column {index + 1}"
        start = text.rfind("\n", 0, index) + 1
        return f"line {text.count(chr(10), 0, index) + 1}, column {index - start + 1}"
    try:
        # a number beyond a double's range (1e400) reads as Infinity: refused where it is written (only
        # a text holding an exponent of three digits pays for the check)
        finite = {"parse_float": _finite_float} if _BIG_EXPONENT.search(text) else {}
        value = json.loads(text, object_pairs_hook=_strict_object, parse_constant=_no_constant, **finite)
    except _Duplicate:
        index, key = _scan(text, duplicate=True)
        raise Rejected([Problem(file, at(index), f'the key "{key}" appears twice in one object '
                                f"(JSON would keep only the last one)", f'keep one "{key}"')]) from None
    except _Constant as err:
        index, _ = _scan(text, constant=True)
        raise Rejected([Problem(file, at(index), f"{err} is not a JSON number",
                                "write a number (or null where the field allows it)")]) from None
    except _Overflow as err:
        number = str(err)
        found = re.search(r'(?<![\w."-])-?' + re.escape(number.lstrip("-")), text)
        raise Rejected([Problem(file, at(found.start() if found else None),
                                f"the number {number} is beyond the range of a double (about 1.8e308): "
                                f"it would be read as Infinity", "write a number within that range")]) from None
    except RecursionError:
        index, _ = _scan(text, depth=MAX_DEPTH)
        raise Rejected([Problem(file, at(index), f"the JSON nests more than {MAX_DEPTH} levels deep, more than kg reads",
                                "flatten the structure")]) from None
    if _SURROGATE_ESCAPE.search(text):
        where = _lone_surrogate(value)
        if where is not None:
            place = pointer(where) if line is None else f"line {line}, {pointer(where)}"
            raise Rejected([Problem(file, place, "a lone UTF-16 surrogate (\\ud800-\\udfff) is not a character",
                                    "escape a character beyond U+FFFF as a surrogate pair, or remove it")])
    return value


MAX_DEPTH = 256  # reported when Python's own stack runs out; real inputs nest a handful of levels
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_INTERESTING = re.compile(r'["{}\[\]NI]')


def _scan(text: str, *, duplicate=False, constant=False, depth: int | None = None) -> tuple[int | None, str]:
    """Where in a JSON text json.loads found the fault it does not place: the first repeated key
    (and the key), the first NaN or Infinity outside a string, or the first bracket deeper than
    `depth`. Only run on a text already known to hold the fault; iterative, so any depth is fine."""
    stack: list[set | None] = []
    i = 0
    while True:
        match = _INTERESTING.search(text, i)
        if match is None:
            return None, ""
        i = match.start()
        c = text[i]
        if c == '"':
            try:
                key, end = json.decoder.scanstring(text, i + 1)
            except ValueError:
                return None, ""
            j = end
            while j < len(text) and text[j] in " \t\r\n":
                j += 1
            if duplicate and j < len(text) and text[j] == ":" and stack and stack[-1] is not None:
                if key in stack[-1]:
                    return i, key
                stack[-1].add(key)
            i = end
            continue
        if c in "{[":
            stack.append(set() if c == "{" else None)
            if depth is not None and len(stack) > depth:
                return i, ""
        elif c in "}]":
            if stack:
                stack.pop()
        elif constant and (text.startswith("NaN", i) or text.startswith("Infinity", i)):
            return (i - 1 if i and text[i - 1] == "-" else i), ""
        i += 1


def _lone_surrogate(value: Any) -> list | None:
    """The JSON pointer parts of the first string (or key) holding a lone surrogate."""
    todo: list[tuple[list, Any]] = [([], value)]
    while todo:
        where, v = todo.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return where
        elif isinstance(v, dict):
            for k, item in v.items():
                todo.append((where + [k], k))
                todo.append((where + [k], item))
        elif isinstance(v, list):
            todo.extend((where + [n], item) for n, item in enumerate(v))
    return None


def _no_bom(file: str, text: str) -> None:
    if text.startswith("\ufeff"):
        raise Rejected([Problem(file, "line 1, column 1", "the file starts with a UTF-8 byte-order mark (BOM), "
                                "which JSON does not allow", "save the file as UTF-8 without a BOM")])


def parse_json(file: str, text: str) -> Any:
    _no_bom(file, text)
    try:
        return _loads(file, text)
    except json.JSONDecodeError as err:
        raise Rejected([Problem(file, f"line {err.lineno}, column {err.colno}",
                                f"malformed JSON: {err.msg}")]) from None


def parse_jsonl(file: str, text: str) -> list[tuple[int, Any]]:
    """Every non-blank line is one JSON value; returns (line number, value) pairs. Lines end at
    "\\n" only: str.splitlines() also splits at U+2028, U+2029 and U+0085, which a JSON string
    may hold as they are."""
    _no_bom(file, text)
    rows, problems = [], []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, _loads(file, line, number)))
        except json.JSONDecodeError as err:
            problems.append(Problem(file, f"line {number}, column {err.colno}",
                                    f"malformed JSON: {err.msg}",
                                    "JSON Lines takes one complete JSON object per line"))
        except Rejected as rejected:
            problems += rejected.problems
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise Rejected(problems)
    if not rows:
        raise Rejected([Problem(file, "", "the file holds no JSON line", "give it one object a line")])
    return rows


def iter_jsonl(file: str, lines: Iterator[bytes], check=None) -> Iterator[tuple[int, Any]]:
    """parse_jsonl over a file's lines (bytes, each ending at "\\n"), a line at a time, so a file of any
    size is read in bounded memory: yields (line number, value) for every line that parses (and, with
    `check(line, value) -> problems`, passes it), and at the end raises Rejected with what parse_jsonl
    would: the first MAX_PROBLEMS syntax problems, or else the first MAX_PROBLEMS `check` problems.
    A byte that is not UTF-8 is rejected at once, as decode() does for a whole file."""
    syntax: list[Problem] = []
    checked: list[Problem] = []
    seen_content = seen_row = False
    for number, raw in enumerate(lines, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise Rejected([Problem(file, f"line {number}, column {err.start + 1}",
                                    f"byte 0x{raw[err.start]:02x} is not UTF-8", "save the file as UTF-8")]) from None
        if number == 1:
            _no_bom(file, line)
        line = line[:-1] if line.endswith("\n") else line
        if not line.strip():
            continue
        seen_content = True
        try:
            value = _loads(file, line, number)
        except json.JSONDecodeError as err:
            syntax.append(Problem(file, f"line {number}, column {err.colno}", f"malformed JSON: {err.msg}",
                                  "JSON Lines takes one complete JSON object per line"))
        except Rejected as rejected:
            syntax += rejected.problems
        else:
            seen_row = True
            if syntax:
                continue  # rows after a syntax problem are not handed on: the file is refused anyway
            found = check(number, value) if check and len(checked) < MAX_PROBLEMS else []
            if found:
                checked += found
            elif not checked:
                yield number, value
        if len(syntax) >= MAX_PROBLEMS:
            break
    if not seen_content:
        raise Rejected([Problem(file, "", "the file is empty", "give it content or leave it out")])
    if syntax:
        raise Rejected(syntax[:MAX_PROBLEMS])
    if checked:
        raise Rejected(checked[:MAX_PROBLEMS])
    if not seen_row:
        raise Rejected([Problem(file, "", "the file holds no JSON line", "give it one object a line")])


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


def duplicate_problem(file: str, place: str, ident: Any, first: str, what: str) -> Problem:
    """An id given again at `place`, first given at `first`."""
    return Problem(file, place, f'duplicate {what} "{ident}" (first at {first})', f"give each {what} a unique id")


def duplicate_problems(file: str, items: Iterator[tuple[str, Any]], what: str) -> list[Problem]:
    """items: (place, id) pairs; every repeat of an id is a problem naming the first place."""
    first: dict[Any, str] = {}
    problems = []
    for place, ident in items:
        if ident in first:
            problems.append(duplicate_problem(file, place, ident, first[ident], what))
        else:
            first[ident] = place
    return problems
