"""Content digests: sha256 over the RFC 8785 canonical form of a JSON value."""
from __future__ import annotations

import hashlib
from typing import Any

import rfc8785


def canonical_digest(value: Any) -> str:
    return "sha256:" + hashlib.sha256(rfc8785.dumps(value)).hexdigest()
