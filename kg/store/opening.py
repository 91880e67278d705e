"""Opening the embedded store, and what goes wrong: a store in use, damaged, on a full or read-only
disk, or compacted by a writer under a reader (a race, retried, not damage); KG_WAIT."""
from __future__ import annotations

import errno
import os
import time
from pathlib import Path

import pyoxigraph as ox

from ..errors import UsageError


READ_ATTEMPTS = 5


def _compacted_away(err: Exception) -> bool:
    return getattr(err, "errno", None) == errno.ENOENT or "No such file or directory" in str(err)


def writer_pid(path: str) -> int | None:
    """The process holding the store's RocksDB lock (a kg load, say), from /proc/locks: the LOCK file
    is never opened here, since closing any descriptor of it would release a lock this process holds."""
    try:
        inode = os.stat(Path(path) / "LOCK").st_ino
        table = Path("/proc/locks").read_text()
    except OSError:
        return None
    for line in table.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[1] != "->" and parts[5].rsplit(":", 1)[-1] == str(inode):
            try:
                pid = int(parts[4])
            except ValueError:
                continue
            return pid if pid != os.getpid() else None
    return None


def changed_under_reader(path: str, err: Exception) -> str:
    """What a reader says when a writer's compaction took away, again and again, the files it read."""
    pid = writer_pid(path)
    who = f"a load running in process {pid}" if pid else "another kg process writing it"
    return (f"the store {path} changed while this command read it ({who} compacted its files: "
            f"{' '.join(str(err).split())}); nothing was answered from it — run the command again, or once "
            f"the load has finished")


def _open_read_only(path: str, attempts: int = 5) -> ox.Store:
    """A read-only view of the store. A writer at work may compact it while the view opens, deleting a
    file the view was about to read ("No such file or directory" under "Corruption"): that is a race,
    not damage, and another attempt a moment later finds the new files."""
    for attempt in range(attempts):
        try:
            return ox.Store.read_only(path)
        except (OSError, RuntimeError) as err:
            if "No such file or directory" not in str(err) or attempt == attempts - 1:
                raise
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


def wait_seconds() -> float:
    """KG_WAIT: how long a reader waits for a load in progress (600 s by default); a value that is not
    a number of seconds is refused, not ignored."""
    text = os.environ.get("KG_WAIT", "600")
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise UsageError(f"KG_WAIT={text!r} is not a number of seconds: set it to how long a command may wait "
                         f"for a load in progress (e.g. KG_WAIT=600), or unset it")
    return seconds


def disk_full(err: Exception) -> bool:
    return getattr(err, "errno", None) == errno.ENOSPC or "No space left on device" in str(err)


def cannot_write(path: str, err: Exception) -> str:
    """Why a write to the store failed, for a user: a full disk, a read-only one, or the engine's words."""
    text = " ".join(str(err).split())
    if disk_full(err):
        return (f"the disk under the store {path} is full ({text}): the write was not made and the store is as "
                f"it was; free space on that disk (or use another --store), then load again")
    if getattr(err, "errno", None) == errno.EROFS or "Read-only file system" in text:
        return f"the store {path} is on a read-only file system ({text}); use another --store"
    return f"the store {path} refused the write ({text}); the store is as it was before this file"


def _cannot_open(path: str, err: Exception) -> str:
    """What is wrong with a store folder Oxigraph would not open, and what to do about it."""
    text = " ".join(str(err).split())
    if disk_full(err):  # opening writes (a log, a compaction): a full disk is not a damaged store
        return (f"the store {path} cannot be opened: the disk under it is full ({text}); the store is not "
                f"damaged — free space on that disk, then run again")
    if "Permission denied" in text:
        return (f"the store {path} cannot be opened for writing: permission denied ({text}); give this user "
                f"write permission on the folder, or use another --store")
    if "Not a directory" in text or "not a directory" in text or isinstance(err, (FileExistsError, NotADirectoryError)):
        return (f"{path} is not a store folder: a file is in its place ({text}); point --store or KG_STORE "
                f"at a folder, or move the file away")
    return (f"the store {path} is damaged and cannot be opened ({text}); restore it from a backup, or move "
            f"it aside and load your files again into a new one")
