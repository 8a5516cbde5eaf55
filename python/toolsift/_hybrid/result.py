"""What a hybrid search returns: :class:`~toolsift.hybrid.HybridResult`, its
:class:`~toolsift.hybrid.HybridMatch` objects, and why each tool is there.

Example:
    >>> from toolsift import Tool
    >>> match = HybridMatch(Tool(name="get_weather"), 1.0, "hybrid", lexical=2.5, dense=0.8)
    >>> result = HybridResult([match], "hybrid")
    >>> [m.name for m in result], len(result)
    (['get_weather'], 1)
"""

# The dataclass fields keep ``Optional[...]`` as tools.py does: ``get_type_hints`` must evaluate
# them on Python 3.9.
# ruff: noqa: UP045

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, Optional

from ..tools import Tool

__all__ = ["HybridMatch", "HybridReason", "HybridResult"]

HybridReason = Literal["select", "exact_name", "bm25", "keyword", "dense", "hybrid"]


@dataclass(frozen=True)
class HybridMatch:
    """One ranked tool of a hybrid search.

    Attributes:
        tool: the tool.
        score: 0..1, the best fused tool has 1.0 (non-BM25 lexical matches too).
        reason: ``"select"`` / ``"exact_name"`` (kept from the lexical engine), ``"hybrid"`` (in
            both lists), ``"bm25"`` (lexical list only) or ``"dense"`` (dense list only).
        lexical: the lexical score (BM25+, or the engine's keyword points), ``None`` when the tool
            was not in the lexical list.
        dense: the cosine similarity, or ``None`` when it was not in the dense list.
    """

    tool: Tool
    score: float
    reason: HybridReason
    lexical: Optional[float] = None
    dense: Optional[float] = None

    @property
    def name(self) -> str:
        return self.tool.name


@dataclass(frozen=True)
class HybridResult:
    """Matches, best first, and how they were found.

    Attributes:
        matches: the ranked tools.
        mode: ``"hybrid"``, or ``"keyword"`` when no query embedding was available.
        note: why the search fell back to keywords (``None`` in hybrid mode).
        notices: remarks on the request, as :attr:`SearchResult.notices
            <toolsift.SearchResult.notices>`: ``"limit 100 clamped to 25"``, ``"query cut to 500
            characters"``.
        clamped: the requested limit was above ``max_limit`` and was lowered to it.
        truncated: the query was longer than ``max_query_length`` and was cut (before it was
            embedded and searched).
        missing: for a ``select:`` query, the asked names that match no tool (a ``select:``
            result holds the named tools only: it is never padded with ranked ones).
    """

    matches: list[HybridMatch]
    mode: Literal["hybrid", "keyword"]
    note: Optional[str] = None
    notices: tuple[str, ...] = ()
    clamped: bool = False
    truncated: bool = False
    missing: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[HybridMatch]:
        return iter(self.matches)

    def __len__(self) -> int:
        return len(self.matches)

    def __getitem__(self, i: int) -> HybridMatch:
        return self.matches[i]
