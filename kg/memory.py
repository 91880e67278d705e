"""Memory the engine freed, given back to the operating system.

Oxigraph allocates a query's joins, groups and sorts with the C library's malloc, and glibc keeps
what they free inside the process, for reuse: after the SHACL checks of a 1.7M-assertion EARL file
(a group of every assertion, 1.9 GB at its peak) the loading process still held 1.69 GB while it
derived the verdicts, of which `malloc_trim(0)` gave back 1.2 GB at once (measured by calling it
in the running process: 1,691,956 -> 487,300 kB). So a step's peak was that of every earlier step
added up, not its own. kg calls `give_back()` after each step of a large write whose working set
is the engine's (each SHACL check of a streamed file, each chunk of keys derived in bulk), so that
a long load's peak is its largest step's. Elsewhere than glibc it does nothing."""
from __future__ import annotations

import ctypes
import ctypes.util
import functools


@functools.cache
def _malloc_trim():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows): nothing to call
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def give_back() -> bool:
    """Returns the heap's free memory to the system; True when there was a malloc_trim to call."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
