"""Which store a command uses: the one resolution of --store, --endpoint, KG_ENDPOINT, KG_STORE,
kg.toml and a .kg/store found upward, for the CLI and `kg.open()` alike."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError

DEFAULT_STORE = ".kg/store"


@dataclass(frozen=True)
class Where:
    """Which store a command or `kg.open()` uses, and what chose it (for messages and df.attrs)."""

    path: str | None  # an embedded store's folder, or ":memory:"
    endpoint: str | None  # a SPARQL 1.1 server's base URL
    chosen_by: str  # "--store", "--endpoint", "KG_ENDPOINT", "KG_STORE", "kg.toml", "found", "default"

    def __str__(self) -> str:
        return self.endpoint or self.path or ""

    def exists(self) -> bool:
        return bool(self.endpoint) or self.path == ":memory:" or Path(self.path).exists()

    def missing(self) -> str:
        """Why there is no store here and how to get one."""
        if self.chosen_by in ("default", "found"):
            how = (f"no --store, KG_ENDPOINT, KG_STORE or kg.toml store was given, and no {DEFAULT_STORE} "
                   f"was found in {Path.cwd()} or a folder above it")
        else:
            how = f"{self.chosen_by} names it"
        return (f"there is no store at {self.path} ({how}): load something first (kg load PATH), "
                f"or point --store / KG_STORE at an existing store")


def locate(store: str | os.PathLike | None = None, endpoint: str | None = None, *,
           endpoints: bool = True) -> Where:
    """The one store resolution, for the CLI and `kg.open()` alike: `store` (--store), `endpoint`
    (--endpoint), KG_ENDPOINT, KG_STORE, the project's kg.toml `store`, then .kg/store found from the
    working directory upward (as git finds .git). None found: .kg/store beside kg.toml, else in the
    working directory — created only by a command that writes."""
    from .. import paths
    if store and endpoint:
        raise UsageError("give --store or --endpoint, not both")
    if store:
        return Where(str(store), None, "--store")
    if endpoint:
        return Where(None, endpoint, "--endpoint")
    if endpoints and os.environ.get("KG_ENDPOINT"):
        return Where(None, os.environ["KG_ENDPOINT"], "KG_ENDPOINT")
    if os.environ.get("KG_STORE"):
        return Where(os.environ["KG_STORE"], None, "KG_STORE")
    setting = paths.config().get("store")
    if setting:
        project = paths.project()
        return Where(str((project / setting) if project else Path(setting)), None, "kg.toml")
    found = paths.find_upward(DEFAULT_STORE)
    if found is not None:
        return Where(str(found), None, "found")
    return Where(str((paths.project() or Path.cwd()) / DEFAULT_STORE), None, "default")


def resolve_store_path(path: str | os.PathLike | None = None) -> str:
    """The embedded store's folder as `locate` finds it, endpoints aside; ':memory:' for one in memory."""
    return locate(path, endpoints=False).path
