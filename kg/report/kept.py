"""Reuse of what an earlier report made from the same store state: its charts and downloads (kept
beside the store's answers, keyed by what they were made from and kg's code), and a whole site,
published again as it was when nothing it depends on has changed."""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import jinja2

from .files import KEPT_DONE
from .publish import MARKER


@functools.cache
def _code() -> str:
    """What a kept chart or data file depends on besides its key: kg's code that finishes, renders and
    draws (a kg upgrade draws again) and matplotlib's version."""
    import importlib.metadata
    digest = hashlib.sha256()
    kg = Path(__file__).parent.parent
    for path in (sorted(Path(__file__).parent.glob("*.py")) + [kg / m for m in ("output.py", "finishers.py", "jsonio.py")]
                 + sorted((kg / "catalogue").glob("*.py"))):
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()[:16] + "/matplotlib " + importlib.metadata.version("matplotlib")


def _copy(kept: Path, target: Path) -> bool:
    """Copies a kept file into the site; False when it is not there (or cannot be read)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(kept, target)
        return True
    except OSError:
        return False

def kept_path(cache, kind: str, key: Any, suffix: str) -> Path | None:
    """Where a file the report made from `key` is kept beside the store's answers (under the
    store's state, with the digest of kg's code and matplotlib's version): None without a cache."""
    if cache is None:
        return None
    digest = hashlib.sha256(json.dumps([_code(), key], default=str, sort_keys=True)
                            .encode()).hexdigest()[:32]
    return cache.folder / kind / f"{digest}.{suffix}"


# ── a whole site kept for a store that has not changed ──
_GENERATED = "Generated {} by kg."


def _templates(env: jinja2.Environment) -> str:
    """A digest of every template the site is rendered from (a template edited since renders again)."""
    digest = hashlib.sha256()
    for name in sorted(env.list_templates()):
        digest.update(name.encode() + b"\0" + env.loader.get_source(env, name)[0].encode() + b"\0")
    return digest.hexdigest()


def _keep_site(out: Path, kept: Path, generated: str) -> None:
    """Keeps a copy of the site just rendered, for the next report of the same store state, parameters,
    templates, queries and kg code; a copy that cannot be made is only not kept."""
    scratch = kept.with_name(f".{kept.name}.{os.getpid()}")
    try:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(out, scratch, ignore=shutil.ignore_patterns(MARKER), copy_function=_link_or_copy)
        (scratch / KEPT_DONE).write_text(generated, encoding="utf-8")
        shutil.rmtree(kept, ignore_errors=True)
        os.replace(scratch, kept)
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)


def _link_or_copy(source, target) -> None:
    """The same bytes in a second place: a hard link where the file system allows (a site is replaced
    whole, never edited in place, so the kept copy and the site may share their files), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _reuse_site(kept: Path, out: Path, generated: str) -> list[Path] | None:
    """Publishes the kept site of this very state again: the same files, each page saying when it was
    generated now. None (render afresh) when the copy fails."""
    try:
        before = _GENERATED.format((kept / KEPT_DONE).read_text(encoding="utf-8").strip())
        now = _GENERATED.format(generated)
        written = []
        for source in kept.rglob("*"):
            if source.is_dir() or source.name == KEPT_DONE:
                continue
            target = out / source.relative_to(kept)
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.suffix == ".html":
                target.write_text(source.read_text(encoding="utf-8").replace(before, now, 1), encoding="utf-8")
            else:
                _link_or_copy(source, target)
            written.append(target)
        return written
    except OSError:
        for child in out.iterdir():
            if child.name != MARKER:
                shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink(missing_ok=True)
        return None


