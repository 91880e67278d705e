"""Where the catalogue folders users extend live: queries/, shapes/, loaders/, reports/.

By default beside the kg package (the project checkout, installed editable); KG_HOME
points kg at another folder with the same layout."""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
VOCAB = PACKAGE / "vocab"


def home() -> Path:
    return Path(os.environ.get("KG_HOME") or PACKAGE.parent).resolve()


def queries() -> Path:
    return home() / "queries"


def shapes() -> Path:
    return home() / "shapes"


def loaders() -> Path:
    return home() / "loaders"


def reports() -> Path:
    return home() / "reports"
