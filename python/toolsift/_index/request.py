"""The validated options of one search call: what ``ToolIndex.search``, ``search_many`` and
``explain`` check before any engine runs (each option's own check is in ``toolsift._options``).

Example:
    >>> _checked_limit(None, "keyword", 25, 500), _checked_limit(None, "bm25", 25, 500)
    (5, 8)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._options import DEFAULT_KEYWORD_LIMIT, DEFAULT_LIMIT, check_limit, check_query_length

__all__ = ["_Request", "_checked_limit"]


def _checked_limit(limit: int | None, ranker: str, max_limit: int, max_query_length: int) -> int:
    """The limit :meth:`ToolIndex.search` uses, after its call-level checks (in its order)."""
    if limit is None:
        limit = DEFAULT_KEYWORD_LIMIT if ranker == "keyword" else DEFAULT_LIMIT
    check_limit(limit)
    check_limit(max_limit)
    if ranker not in ("bm25", "keyword", "regex"):
        raise ValueError(f"ranker must be 'bm25', 'keyword' or 'regex', got {ranker!r}")
    check_query_length(max_query_length)
    return limit


@dataclass
class _Request:
    """The validated options of one :meth:`ToolIndex.search` or ``search_many`` call."""

    limit: int
    max_limit: int
    notices: tuple[str, ...]
    clamped: bool
    max_query_length: int
    allowed: frozenset[int] | None
    excluded: frozenset[int]
    #: ``excluded`` sorted, as the engines take it (None when empty: nothing to convert).
    excluded_sorted: tuple[int, ...] | None
    ranker: str
    exact_names: bool
    prefix: dict[str, Any]
    include: tuple[int, ...] | None
    threshold: float
    relative_floor: float
    coverage: bool
    normalize: bool
    #: A ranked result's fields but the query's own (``SearchResult._from_fields``), when no gate
    #: acts on the whole result (the BM25+ ranker, no relative floor, no normalization): the
    #: common search's result is then these fields and three more, not a ``_finish`` pass.
    plain_fields: dict[str, Any] | None = None
