"""Where things are: the built-in catalogue folders (queries/, shapes/, loaders/, reports/), the
user's project folder that extends them, and the project's settings in kg.toml.

The built-ins are the checkout's top-level folders when kg runs from a checkout (installed
editable), else the copies the wheel carries in kg/builtin/ (pyproject.toml maps them there).

A project folder is the nearest folder, from the working directory upward, holding a kg.toml
(or the folder KG_HOME names). Its own queries/, shapes/, loaders/, reports/ and vocab/ extend the
built-ins; a file named like a built-in one replaces it, and kg says so on stderr."""
from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from .errors import UsageError

PACKAGE = Path(__file__).resolve().parent
VOCAB = PACKAGE / "vocab"
CONFIG = "kg.toml"
KINDS = ("queries", "shapes", "loaders", "reports")
# kg.toml's keys and what each means; anything else in the file is refused, so a typo is not ignored
CONFIG_KEYS = {"store": "the store folder, relative to kg.toml's folder (default: .kg/store found upward)"}


def builtin() -> Path:
    """The folder holding the built-in queries/, shapes/, loaders/ and reports/."""
    checkout = PACKAGE.parent
    # a checkout, not merely any site-packages that happens to hold a folder named queries/
    if (checkout / "pyproject.toml").is_file() and (checkout / "queries").is_dir():
        return checkout
    return PACKAGE / "builtin"


def home() -> Path:
    """The built-ins' folder (kept under this name: docs and tests cite files relative to it)."""
    return builtin()


def queries() -> Path:
    return builtin() / "queries"


def shapes() -> Path:
    return builtin() / "shapes"


def loaders() -> Path:
    return builtin() / "loaders"


def reports() -> Path:
    return builtin() / "reports"


def find_upward(name: str, start: Path | None = None) -> Path | None:
    """The nearest `name` in start (default: the working directory) or a folder above it, as git finds .git."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / name).exists():
            return folder / name
    return None


def project() -> Path | None:
    """The user's project folder: KG_HOME, else the folder of the nearest kg.toml; None outside any."""
    if os.environ.get("KG_HOME"):
        home_dir = Path(os.environ["KG_HOME"]).resolve()
        if not home_dir.is_dir():
            raise UsageError(f"KG_HOME is {home_dir}, which is not a folder: point it at your project "
                             f"folder (the one with queries/, loaders/, shapes/, reports/) or unset it")
        return home_dir
    found = find_upward(CONFIG)
    return found.parent if found else None


def config() -> dict:
    """The project's kg.toml, checked: {} when there is none."""
    folder = project()
    path = folder / CONFIG if folder else None
    if path is None or not path.is_file():
        return {}
    try:
        settings = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise UsageError(f"{path}: not valid TOML ({err}); fix it, or empty it (an empty kg.toml just "
                         f"marks the project folder)") from None
    unknown = sorted(set(settings) - set(CONFIG_KEYS))
    if unknown:
        known = "; ".join(f"{k}: {v}" for k, v in CONFIG_KEYS.items())
        raise UsageError(f"{path}: unknown key(s) {', '.join(unknown)} (kg.toml knows {known})")
    if "store" in settings and not isinstance(settings["store"], str):
        raise UsageError(f"{path}: store must be a string, a folder path such as store = \".kg/store\"")
    return settings


def folders(kind: str) -> list[Path]:
    """Where files of a kind are looked for: the built-in folder, then the project's (when it has one)."""
    found = [builtin() / kind]
    folder = project()
    if folder is not None and (folder / kind).is_dir() and (folder / kind).resolve() != found[0].resolve():
        found.append(folder / kind)
    return found


def vocabularies() -> list[Path]:
    """The vocabularies loaded into every store, each into a graph named by its file's stem: kg's own
    (kg/vocab/*.ttl), then the project's vocab/*.ttl, which add terms - a verdict status, say - and
    replace a built-in file of the same name (said on stderr)."""
    found = {ttl.stem: ttl for ttl in sorted(VOCAB.glob("*.ttl"))}
    folder = project()
    if folder is not None and (folder / "vocab").is_dir() and (folder / "vocab").resolve() != VOCAB.resolve():
        for ttl in sorted((folder / "vocab").glob("*.ttl")):
            if ttl.stem in found:
                warn_override(ttl, found[ttl.stem])
            found[ttl.stem] = ttl
    return list(found.values())


_warned: set[tuple[str, str]] = set()


def warn_override(user: Path, builtin_path: Path) -> None:
    """Says, once per pair, that a project file replaces a built-in one — unless they are the same
    bytes (a checkout that is also its own project folder, or a copy kept unchanged)."""
    key = (str(user), str(builtin_path))
    if key in _warned:
        return
    _warned.add(key)
    try:
        if user.read_bytes() == builtin_path.read_bytes():
            return
    except OSError:
        pass
    print(f"kg: warning: {user} overrides the built-in {builtin_path}", file=sys.stderr)


def find(kind: str, name: str) -> Path:
    """One file by its name inside a kind's folders: the project's copy when it has one (said on
    stderr when it replaces a built-in), else the built-in."""
    candidates = [folder / name for folder in folders(kind) if (folder / name).exists()]
    if not candidates:
        return builtin() / kind / name
    if len(candidates) > 1:
        warn_override(candidates[-1], candidates[0])
    return candidates[-1]
