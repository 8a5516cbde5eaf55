"""Positions after a copy-on-write update removes some: shared by ``ToolIndex.with_tools`` and
the pure-Python engine's own update, so both renumber the same way.

Example:
    >>> without(["a", "b", "c", "d"], [1, 2]), new_ids(4, [1, 2])
    (['a', 'd'], [0, -1, -1, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["new_ids", "without"]


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
