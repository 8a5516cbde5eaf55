"""The benches' one reading of a process's memory (Linux).

* :func:`rss`: the resident set size now.
* :func:`trimmed_rss`: the same after a full collection, with the allocator's free pages
  handed back to the system (glibc's ``malloc_trim``): memory a build freed but the allocator
  kept (a writer's arena, scratch buffers) no longer counts. Where the C library is not glibc,
  the pages stay and it is :func:`rss` after the collection.
"""

from __future__ import annotations

import gc
import os


def rss() -> int:
    """Resident set size in bytes (Linux)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def trimmed_rss() -> int:
    """:func:`rss` after ``gc.collect()`` and glibc's ``malloc_trim``, in bytes."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: RSS keeps the free pages
        pass
    return rss()
