"""Rows out: an aligned table for people (IRIs shortened with the prefixes in use), CSV and TSV
for spreadsheets and pipes, JSON for programs (full IRIs, numbers as numbers, null when unbound)."""
from __future__ import annotations

import csv
import io
import json
from typing import Any, Iterable

FORMATS = ("table", "csv", "tsv", "json")


def shorten(value: str, prefixes: dict[str, str]) -> str:
    best = max((ns for ns in prefixes.values() if value.startswith(ns)), key=len, default=None)
    if best is None:
        return value
    prefix = next(p for p, ns in prefixes.items() if ns == best)
    return f"{prefix}:{value[len(best):]}"


def _cell(value: Any, prefixes: dict[str, str] | None) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if value == value else ""
    text = str(value)
    if prefixes and ("://" in text or text.startswith("urn:")):
        return shorten(text, prefixes)
    return text.replace("\n", " ")


def render(columns: list[str], rows: Iterable[dict[str, Any]], fmt: str = "table",
           prefixes: dict[str, str] | None = None) -> str:
    rows = list(rows)
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    if fmt in ("csv", "tsv"):
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow(["" if row.get(c) is None else _cell(row.get(c), None) for c in columns])
        return buffer.getvalue()
    cells = [columns] + [[_cell(row.get(c), prefixes) for c in columns] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    numeric = [all(isinstance(row.get(c), (int, float)) or row.get(c) is None for row in rows) for c in columns]
    lines = []
    for n, r in enumerate(cells):
        lines.append("  ".join(v.rjust(w) if numeric[i] and n else v.ljust(w)
                               for i, (v, w) in enumerate(zip(r, widths))).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(lines) + "\n"
