"""``ToolSearch``'s keyword scorer in pure Python: the twin of ``toolsift._core.KeywordIndex``.

``rust/keyword.rs`` documents the scoring (name part 10/12, part substring 5/6, search hint +4,
description +2; score 0 dropped; score descending, then name). Scores are small integers, so the
two engines agree exactly. ``toolsift._text.name_parts`` splits names for both engines.

Example:
    >>> idx = KeywordIndex(["mcp__slack__send"], [["slack", "send"]], [True], [""], ["Send"])
    >>> idx.search("send", 5)
    [(0, 14.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .._options import check_limit, check_text
from .._text.tokenize import tokenize
from ..errors import NO_SEARCHABLE_TERMS, QueryError

__all__ = ["KeywordIndex"]

EXACT_PART, EXACT_PART_MCP = 10.0, 12.0
SUBSTRING_PART, SUBSTRING_PART_MCP = 5.0, 6.0
HINT, DESCRIPTION = 4.0, 2.0


def _postings(texts: Iterable[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for doc, text in enumerate(texts):
        for tok in dict.fromkeys(tokenize(text)):
            out.setdefault(tok, []).append(doc)
    return out


class KeywordIndex:
    """``ToolSearch``'s keyword scorer over tools as names, name parts, hints and descriptions.

    Arguments:
        names: one name per tool; breaks score ties (ascending).
        parts: per tool, its name parts (see :func:`keyword_name_parts`).
        mcp: per tool, whether it is an MCP tool (12/6 points instead of 10/5).
        hints: per tool, its search hint ("" for none).
        descriptions: per tool, its full description.
    """

    __slots__ = ("_names", "_mcp", "_parts", "_hints", "_descriptions")

    def __init__(
        self,
        names: Iterable[str],
        parts: Iterable[Sequence[str]],
        mcp: Sequence[bool],
        hints: Iterable[str],
        descriptions: Iterable[str],
    ) -> None:
        self._names = [check_text(n, "name") for n in names]
        parts = [[check_text(p, "name part") for p in ps] for ps in parts]
        hints = [check_text(h, "search hint") for h in hints]
        descriptions = [check_text(d, "description") for d in descriptions]
        n = len(self._names)
        if not (len(parts) == len(mcp) == len(hints) == len(descriptions) == n):
            raise ValueError(
                f"keyword index: got {n} names, {len(parts)} part lists, {len(mcp)} MCP flags, "
                f"{len(hints)} hints and {len(descriptions)} descriptions"
            )
        self._mcp = [bool(m) for m in mcp]
        self._parts: dict[str, list[int]] = {}
        for doc, doc_parts in enumerate(parts):
            for part in dict.fromkeys(p for p in doc_parts if p):
                self._parts.setdefault(part, []).append(doc)
        self._hints = _postings(hints)
        self._descriptions = _postings(descriptions)

    def __len__(self) -> int:
        return len(self._names)

    def _term_points(self, term: str) -> dict[int, float]:
        level = dict.fromkeys(self._parts.get(term, ()), 2)
        for part, docs in self._parts.items():
            if part != term and term in part:
                for doc in docs:
                    level.setdefault(doc, 1)
        points: dict[int, float] = {}
        for doc, lvl in level.items():
            mcp = self._mcp[doc]
            if lvl == 2:
                points[doc] = EXACT_PART_MCP if mcp else EXACT_PART
            else:
                points[doc] = SUBSTRING_PART_MCP if mcp else SUBSTRING_PART
        for doc in self._hints.get(term, ()):
            points[doc] = points.get(doc, 0.0) + HINT
        for doc in self._descriptions.get(term, ()):
            points[doc] = points.get(doc, 0.0) + DESCRIPTION
        return points

    def search(
        self,
        query: str,
        limit: int,
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
    ) -> list[tuple[int, float]]:
        """Top ``limit`` ``(doc id, points)`` pairs, points descending then name ascending."""
        tokens = tokenize(check_text(query, "query"))
        limit = check_limit(limit)
        excluded = set(exclude or ())
        included = set(include) if include is not None else None
        required = [check_text(t, "required term") for t in required or ()]
        if not tokens:
            raise QueryError(NO_SEARCHABLE_TERMS)
        scores: dict[int, float] = {}
        for term in dict.fromkeys(tokens):
            for doc, p in self._term_points(term).items():
                scores[doc] = scores.get(doc, 0.0) + p
        sets = [set(self._term_points(term)) for term in required]
        names = self._names
        hits = [
            (d, s)
            for d, s in scores.items()
            if s > 0.0
            and d not in excluded
            and (included is None or d in included)
            and all(d in docs for docs in sets)
        ]
        hits.sort(key=lambda h: (-h[1], names[h[0]], h[0]))
        return hits[:limit]
