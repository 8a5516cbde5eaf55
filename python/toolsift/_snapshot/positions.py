"""Positions after a copy-on-write update removes some: shared by ``ToolIndex.with_tools`` and
the pure-Python engine's own update, so both renumber the same way.

With the compiled extension, :func:`spliced` and :func:`new_id_array` (what a catalogue update
uses, at every update, over every tool of the catalogue) run in one compiled pass each, with no
Python object per position: at 100,000 tools their Python forms hold the GIL for ~5 ms each.

Example:
    >>> without(["a", "b", "c", "d"], [1, 2]), new_ids(4, [1, 2])
    (['a', 'd'], [0, -1, -1, 1])
    >>> spliced(("a", "b", "c", "d"), [1, 2], ("e",)), new_id_array(4, [1, 2]).tolist()
    (('a', 'd', 'e'), [0, -1, -1, 1])
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any, TypeVar

__all__ = ["SPLICE_CHUNK", "new_id_array", "new_ids", "spliced", "without"]

#: Items :func:`spliced` copies per hold of the GIL with the compiled extension, the GIL handed
#: to waiting threads between chunks (0: in one hold). 4,096 references take 0.1-0.3 ms: a
#: search that arrives during an update's splice waits that long, not the whole splice (~3.5 ms
#: at 100,000 tools).
SPLICE_CHUNK = 4096

_T = TypeVar("_T")

try:
    from .._core import _new_ids, _spliced
except ImportError:  # the pure-Python engine alone: the same results, a Python pass each
    _new_ids = _spliced = None  # type: ignore[assignment]


def without(items: Sequence[Any], drop: Sequence[int]) -> list[Any]:
    """``items`` without the positions ``drop`` (ascending), copied slice by slice (C-level
    copies: an update of a few items of a long sequence does no per-item Python work)."""
    out: list[Any] = []
    start = 0
    for d in drop:
        out += items[start:d]
        start = d + 1
    out += items[start:]
    return out


def new_ids(n: int, drop: Sequence[int]) -> list[int]:
    """For each of ``n`` positions, its position once ``drop`` (ascending) is removed, or -1 for
    a removed one (runs of kept positions are written as ranges)."""
    out = [-1] * n
    start = 0
    for shift, d in enumerate(drop):
        out[start:d] = range(start - shift, d - shift)
        start = d + 1
    out[start:] = range(start - len(drop), n - len(drop))
    return out


def spliced(items: tuple[_T, ...], drop: Sequence[int], add: tuple[_T, ...]) -> tuple[_T, ...]:
    """``items`` without the positions ``drop`` (strictly ascending), then ``add``: an updated
    index's tuple of tools. With the compiled extension it is made in one pass, in chunks of
    :data:`SPLICE_CHUNK` items between which the GIL is handed to waiting threads, and is not
    tracked by Python's cyclic garbage collector (``toolsift._core._spliced``; see
    ``toolsift._index.build.untracked_tuple`` for why); else a tracked tuple."""
    if _spliced is not None and type(items) is tuple and type(add) is tuple:
        return _spliced(items, list(drop), add, SPLICE_CHUNK)
    return (*without(items, drop), *add)


def new_id_array(n: int, drop: Sequence[int]) -> array[int]:
    """:func:`new_ids` as an ``array("q")``, made without a Python int per position when the
    compiled extension is built (``toolsift._core._new_ids``)."""
    if _new_ids is None:
        return array("q", new_ids(n, drop))
    out = array("q")
    out.frombytes(_new_ids(n, list(drop)))
    return out
