"""Fusing ranked lists: reciprocal rank fusion and weighted min-max fusion (public as
``toolsift.hybrid.rrf_fuse`` and ``minmax_fuse``).

Example:
    >>> rrf_fuse([[1, 2], [2, 3]], k=1.0)
    {1: 0.5, 2: 0.8333333333333333, 3: 0.3333333333333333}
"""

# ruff: noqa: UP045

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence


def rrf_fuse(
    rankings: Sequence[Sequence[int]], weights: Sequence[float] | None = None, k: float = 60.0
) -> dict[int, float]:
    """Reciprocal rank fusion: ``Σ_i weights[i] / (k + rank_i(d))``, ranks from 1.

    Example:
        >>> rrf_fuse([[7, 8], [8]], k=60) == {7: 1 / 61, 8: 1 / 62 + 1 / 61}
        True
    """
    k = _check_real(k, "k", low=0.0)
    weights = _check_weights(weights, len(rankings))
    fused: dict[int, float] = {}
    for ranking, w in zip(rankings, weights):
        for rank, doc in enumerate(ranking, 1):
            fused[doc] = fused.get(doc, 0.0) + w / (k + rank)
    return fused


def _check_real(
    value: object, what: str, *, low: float = -math.inf, high: float = math.inf
) -> float:
    """``value`` as a float: a real number (not a bool), finite, within ``low..high``.

    Raises:
        TypeError: ``value`` is not a real number.
        ValueError: it is not finite or out of range (the message names ``what``).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a number, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    if not low <= number <= high:
        bounds = f"between {low:g} and {high:g}" if high < math.inf else f">= {low:g}"
        raise ValueError(f"{what} must be {bounds}, got {value!r}")
    return number


def _check_weights(weights: Sequence[float] | None, n: int) -> list[float]:
    """The fusion weights: one finite number per list (``None``: 1.0 each)."""
    if weights is None:
        return [1.0] * n
    checked = [_check_real(w, f"weights[{i}]") for i, w in enumerate(weights)]
    if len(checked) != n:
        raise ValueError(f"weights must hold one weight per list ({n}), got {len(checked)}")
    return checked


def _minmax(scored: Sequence[tuple[int, float]]) -> dict[int, float]:
    if not scored:
        return {}
    values = [s for _, s in scored]
    lo, hi = min(values), max(values)
    if hi <= lo:
        return {d: 1.0 for d, _ in scored}
    return {d: (s - lo) / (hi - lo) for d, s in scored}


def minmax_fuse(
    lists: Sequence[Sequence[tuple[int, float]]], weights: Sequence[float]
) -> dict[int, float]:
    """Weighted sum of min-max normalised scores; a document missing from a list scores 0 there.

    Each list is normalised over its own entries to 0..1 (one entry, or all equal, gives 1.0).

    Example:
        >>> minmax_fuse([[(1, 9.0), (2, 3.0)], [(2, 0.8), (3, 0.4)]], [0.5, 0.5])
        {1: 0.5, 2: 0.5, 3: 0.0}
    """
    weights = _check_weights(weights, len(lists))
    fused: dict[int, float] = {}
    for scored, w in zip(lists, weights):
        for doc, s in _minmax(scored).items():
            fused[doc] = fused.get(doc, 0.0) + w * s
        for doc, _ in scored:
            fused.setdefault(doc, 0.0)
    return fused
