"""Writing a file of the site."""
from __future__ import annotations

from pathlib import Path

KEPT_DONE = ".kept-complete"  # written last into a kept site: a copy cut short is never reused


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
