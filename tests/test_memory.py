"""kg.memory.give_back: memory a library freed with the C library's malloc goes back to the system
(glibc keeps it for reuse otherwise, which made a long load's peak the sum of its steps')."""
import ctypes
import ctypes.util
import sys

import pytest

from kg.memory import give_back


def _rss_kib() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


@pytest.mark.skipif(not sys.platform.startswith("linux") or not give_back(), reason="glibc on Linux only")
def test_memory_freed_by_the_c_library_goes_back_to_the_system():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    # 1 KiB blocks, as an engine's hash tables allocate: below glibc's mmap threshold, so kept in the heap
    blocks = [libc.malloc(1024) for _ in range(200_000)]
    for b in blocks:
        ctypes.memset(b, 1, 1024)  # touched: resident
    held = _rss_kib()
    for b in blocks[1:]:
        libc.free(b)  # the first stays, so the heap's top cannot simply shrink past it
    after_free = _rss_kib()
    assert give_back()
    after_give_back = _rss_kib()
    libc.free(blocks[0])
    assert held - after_free < 50_000, "glibc gave the blocks back by itself: nothing left to show"
    assert after_free - after_give_back > 150_000, (held, after_free, after_give_back)
