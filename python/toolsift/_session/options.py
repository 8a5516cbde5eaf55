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
from ..semantic.model import check_semantic

__all__ = ["META_TOOL_NAME", "_check_limits", "_check_min_confidence", "_check_semantic"]

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
