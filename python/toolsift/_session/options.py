"""A discovery session's options: the meta-tool's default name and the checks of the search
limits and threshold (shared by :class:`~toolsift.DiscoverySession` and the views of a
:class:`~toolsift.Catalog`).

Example:
    >>> _check_limits(8, 25, 0.0)
    >>> _check_limits(30, 25, 0.0)
    Traceback (most recent call last):
    ...
    toolsift.errors.LimitError: default_limit 30 is above max_limit 25.
"""

from __future__ import annotations

from typing import Any

from .._index.semantic import check_min_confidence
from .._options import check_limit, check_threshold
from ..errors import LimitError
from ..semantic.model import Semantic, check_semantic

__all__ = [
    "META_TOOL_NAME", "_check_limits", "_check_min_confidence",
    "_check_semantic", "checked_search_options",
]  # fmt: skip

# The checks of ``semantic`` and ``min_confidence`` are the index's, so every surface says the
# same (re-exported for the sessions, the catalogue views and the FastMCP transform).
_check_semantic = check_semantic
_check_min_confidence = check_min_confidence

META_TOOL_NAME = "search_tool_bm25"


def _check_limits(default_limit: Any, max_limit: Any, threshold: Any) -> None:
    check_limit(max_limit)
    check_limit(default_limit)
    if default_limit > max_limit:
        raise LimitError(f"default_limit {default_limit} is above max_limit {max_limit}.")
    check_threshold(threshold)


def checked_search_options(
    default_limit: Any, max_limit: Any, threshold: Any, semantic: Any, min_confidence: Any
) -> tuple[int, int, float, Semantic, float]:
    """A session's search options ``(default_limit, max_limit, threshold, semantic,
    min_confidence)`` checked, as a session holds them (the one place for the
    session's and a catalogue view's constructors): the threshold as a float, the minimum
    confidence resolved to its default when ``None``.

    Example:
        >>> checked_search_options(8, 25, 0, False, 0.5)
        (8, 25, 0.0, False, 0.5)
    """
    _check_limits(default_limit, max_limit, threshold)
    semantic = _check_semantic(semantic)
    min_confidence = _check_min_confidence(min_confidence)
    return default_limit, max_limit, float(threshold), semantic, min_confidence
