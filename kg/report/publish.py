"""Publishing a site: it is built into a fresh folder beside --out (marked as kg's), then --out, a
symlink, is pointed at it in one atomic rename, under a lock, so a cron job and a person running
`kg report` at once never see or leave half a site. kg replaces or removes only folders it made."""
from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import stat
import sys
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from ..errors import OutputUnwritable, UsageError
from .files import KEPT_DONE

DEFAULT_OUT = "build/report"
MARKER = ".kg-report"  # in every folder kg builds a site into; kg replaces or removes only folders carrying it
MARKER_TEXT = "kg report site, format 1\n"
# beside the marker: every file kg wrote into the build, one relative path a line; on the next run,
# anything else found in the published folder (a user's notes, a folder of their own) is carried into
# the new build, never removed with the old one
WRITTEN = ".kg-report-files"


class UnsafeOutput(UsageError):
    """--out names a place kg must not replace: it did not make it, or it holds something else."""


def _is_ours(folder: Path) -> bool:
    return folder.is_dir() and not folder.is_symlink() and (folder / MARKER).is_file()


def _encloses(outer: Path, inner: Path) -> bool:
    return inner == outer or outer in inner.parents


def check_out(out: Path, protected: dict[str, Path] | None = None) -> None:
    """Refuses (UnsafeOutput) an --out that kg could not replace without deleting what it did not
    write: a file, a folder or link kg did not make, the working folder or home or any folder
    enclosing them, and the store or a folder holding it. Nothing is touched either way."""
    out = out.absolute()
    how = "choose a new folder for the report (e.g. --out build/report), or one an earlier kg report made"
    real = _real(out)
    guarded = {"the working folder": Path.cwd().resolve(), "your home folder": Path.home().resolve(),
               "the root folder": Path("/")}
    for what, place in guarded.items():
        if _encloses(real, place):
            raise UnsafeOutput(f"--out {out} is {what} or a folder holding it; kg replaces the whole --out "
                               f"folder, so it refuses: {how}")
    for what, place in (protected or {}).items():
        place = Path(os.path.realpath(place))
        if _encloses(real, place) or _encloses(place, real):
            raise UnsafeOutput(f"--out {out} is {what} ({place}), inside it or a folder holding it: {how}")
    for _ in range(20):  # another run may be publishing this --out right now: look again until a look holds still
        refusal = _look_at_out(out, how)
        if refusal is not _MOVED:
            break
    else:
        refusal = f"--out {out} kept changing while kg looked at it (another program is writing there): {how}"
    if refusal:
        raise UnsafeOutput(refusal)


_MOVED = object()  # what _look_at_out says when --out changed while it looked


def _look_at_out(out: Path, how: str):
    """None if kg may replace `out`, else why not — judged on one state of it. `out` is read once
    (lstat, then readlink) and every later step checks that it still is what was read: three cron
    runs at once once saw 'not a link' and then, a run having just linked it, 'a folder', and refused
    kg's own site. Returns _MOVED when `out` changed under the look."""
    try:
        kind = os.lstat(out).st_mode
    except FileNotFoundError:
        return None  # nothing there to lose
    if stat.S_ISLNK(kind):
        try:
            pointed = os.readlink(out)
        except OSError:  # gone, or no longer a link
            return _MOVED
        target = _real(Path(out.parent, pointed))
        built_by_kg = target.parent == Path(os.path.realpath(out.parent)) and target.is_dir() and (
            _is_ours(target) or re.fullmatch(rf"\.{re.escape(out.name)}\.\d{{8}}T\d{{6}}-\d+-\d+", target.name))
        if built_by_kg:  # (a build of a kg before the marker is known by its name; it is replaced, never removed)
            return None
        if _still_points(out, pointed):  # not a run that replaced the link and removed the build meanwhile
            return f"--out {out} is a symbolic link kg did not make (to {pointed}): {how}"
        return _MOVED
    if stat.S_ISDIR(kind):
        try:
            if (out / MARKER).is_file() or not any(out.iterdir()):  # an empty folder holds nothing to lose
                return None
            entries = sorted(p.name for p in out.iterdir())
            if not stat.S_ISDIR(os.lstat(out).st_mode):
                return _MOVED  # a run replaced kg's marked folder by its link meanwhile
        except FileNotFoundError:
            return _MOVED
        held = f"it holds {len(entries)} entries: {', '.join(entries[:5])}{', …' if len(entries) > 5 else ''}"
        return (f"--out {out} is a folder kg did not make ({held}, and no {MARKER} marker); "
                f"kg replaces the whole --out folder, so it refuses: {how}, "
                f"or remove that folder yourself if it is an old report")
    return f"--out {out} is a file, not a folder: {how}"


def _real(path: Path) -> Path:
    """os.path.realpath, which raises when a link it is reading is removed under it (another run
    replacing its --out link): read again; the folder holding `path` does not move."""
    for _ in range(20):
        try:
            return Path(os.path.realpath(path))
        except OSError:
            continue
    return Path(os.path.realpath(path.parent)) / path.name


def _still_points(out: Path, pointed: str) -> bool:
    try:
        return os.readlink(out) == pointed
    except OSError:
        return False


@contextmanager
def locked(out: Path):
    """One writer at a time for an output folder; a second waits for the first."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def publish(out: Path, build, protected: dict[str, Path] | None = None) -> Path:
    """Builds into a fresh folder beside `out` (marked as kg's), then points `out` (a symlink) at
    it in one atomic rename. Readers see the old site or the new one, never a mix. Only folders
    carrying kg's marker are ever removed: the build the link pointed at before, and builds a
    crashed run left; `out` itself is checked first (check_out) and refused if it is not kg's."""
    out = out.absolute()
    check_out(out, protected)
    with locked(out):
        check_out(out, protected)  # again under the lock: another run may have changed it meanwhile
        stamp = f"{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
        fresh = out.parent / f".{out.name}.{stamp}"
        try:
            fresh.mkdir(parents=True)
            (fresh / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
            build(fresh)
        except OSError as err:  # a full or read-only disk: say so, publish nothing, leave nothing half made
            shutil.rmtree(fresh, ignore_errors=True)
            full = "the disk is full" if getattr(err, "errno", None) == errno.ENOSPC else "the disk refused"
            raise OutputUnwritable(f"cannot write the report into {out.parent}: {full} ({err.strerror or err}); "
                                   f"nothing was published and the previous report, if any, is as it was — "
                                   f"free space there, or give another --out") from None
        except BaseException:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
        try:
            _write_manifest(fresh)
            carried = _carry_over(_published(out), fresh)
        except BaseException:
            shutil.rmtree(fresh, ignore_errors=True)
            raise
        if out.is_dir() and not out.is_symlink():
            shutil.rmtree(out)  # a marked folder (check_out refused any other), emptied of what is not kg's
        link = out.parent / f".{out.name}.link-{stamp}"
        link.symlink_to(fresh.name)
        os.replace(link, out)
        for old in out.parent.glob(f".{out.name}.*"):
            if old == fresh:
                continue
            if old.is_symlink() and old.name.startswith(f".{out.name}.link-"):
                old.unlink()  # a link a crashed run made and never renamed: removing a link loses nothing
            elif _is_ours(old):
                shutil.rmtree(old, ignore_errors=True)
    if carried:
        print(f"kg: kept in {out} what kg did not write there: {_listed(carried)}", file=sys.stderr)
    return out


def _write_manifest(build: Path) -> None:
    files = sorted(str(p.relative_to(build)) for p in build.rglob("*")
                   if not p.is_dir() and p.name not in (MARKER, WRITTEN))
    (build / WRITTEN).write_text("".join(f"{name}\n" for name in files), encoding="utf-8")


def _published(out: Path) -> Path | None:
    """The build folder `out` shows now (check_out has made sure it is kg's), or None."""
    if out.is_symlink():
        target = _real(out)
        return target if target.is_dir() else None
    return out if _is_ours(out) else None


def _carry_over(old: Path | None, fresh: Path) -> list[str]:
    """Moves into `fresh` every entry of the published build `old` that kg did not write there (its
    manifest says what it wrote; a build of a kg before the manifest: anything the new build does not
    write), so that replacing the site loses nothing of the user's. An entry the new build writes too
    is refused, naming it, with nothing moved. Returns the entries carried."""
    if old is None:
        return []
    listed = old / WRITTEN
    ours = set(listed.read_text(encoding="utf-8").splitlines()) if listed.is_file() else {
        str(p.relative_to(fresh)) for p in fresh.rglob("*") if not p.is_dir()}
    ours |= {MARKER, WRITTEN, KEPT_DONE}
    holding = {str(parent) for name in ours for parent in Path(name).parents}  # folders holding kg's files
    moves: list[tuple[Path, Path]] = []

    def walk(folder: Path) -> None:
        for entry in sorted(folder.iterdir()):
            name = str(entry.relative_to(old))
            if entry.is_dir() and not entry.is_symlink() and name in holding:
                walk(entry)
            elif name not in ours:
                moves.append((entry, fresh / name))
    walk(old)
    clashes = [str(target.relative_to(fresh)) for _, target in moves if os.path.lexists(target)]
    if clashes:
        raise UnsafeOutput(f"{old} holds {_listed(clashes)}, which kg did not write there and would now write "
                           f"over; nothing was published and the previous report is as it was: move or rename "
                           f"{'it' if len(clashes) == 1 else 'them'} out of the report folder, then run kg report again")
    done = []
    try:
        for source, target in moves:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(source, target)
            done.append((source, target))
    except OSError:
        for source, target in reversed(done):  # put back what was moved: the published site stays whole
            os.rename(target, source)
        raise
    return [str(target.relative_to(fresh)) for _, target in moves]


def _listed(names: list[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


