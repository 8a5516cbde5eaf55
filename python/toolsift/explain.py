"""Why a tool scores what it scores: per query term, per field (``ToolIndex.explain``).

BM25+ scores one merged, weighted document per tool (``rust/bm25.rs``). For each distinct query
term that matches the tool, an :class:`Explanation` reports the idf, the weighted term frequency
``tf``, the tool's length normalisation ``norm``, the term's contribution, and how much of ``tf``
each field brought (occurrences × field weight). Both engines report identical numbers, and the
contributions summed left to right from 0.0 give exactly the score that ``search`` reports.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="read_file", description="Read a file")], engine="python")
    >>> why = index.explain("read file", "read_file")
    >>> [t.display for t in why.terms]
    ['read', 'read (stem)', 'file', 'file (stem)']
    >>> dict(why.terms[0].fields)
    {'name': 6.0, 'label': 4.0, 'summary': 1.0, 'description': 0.25}
    >>> why.score == index.search("read file")[0].score
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .tools import Tool

__all__ = ["Explanation", "TermContribution"]


@dataclass(frozen=True)
class TermContribution:
    """One query term's part of a tool's BM25+ score.

    Attributes:
        term: the query term, as the index's analysis profile makes it (a stemmed copy of the
            ``"english"`` profile starts with ``§``: see :attr:`stemmed` and :attr:`display`).
        matched: the index term it matched: ``term`` itself, or its best prefix expansion.
        prefix: ``matched`` is a prefix expansion (scored at the prefix fraction).
        qtf: how often ``term`` occurs in the query.
        idf: ``ln(1 + (N - df + 0.5) / (df + 0.5))`` of ``matched``.
        tf: the weighted frequency of ``matched`` in the tool (as the index stores it, float32).
        norm: the tool's ``k1 · (1 - b + b · |d| / avgdl)``.
        contribution: ``qtf · idf · (tf·(k1+1) / (tf + norm) + δ)``, times the prefix fraction
            for a prefix match.
        fields: field name → the part of ``tf`` it brought (occurrences × field weight).
    """

    term: str
    matched: str
    prefix: bool
    qtf: float
    idf: float
    tf: float
    norm: float
    contribution: float
    fields: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))

    @property
    def stemmed(self) -> bool:
        """Whether the term is a stemmed copy (the ``"english"`` profile's half-weight stems).

        Example:
            >>> TermContribution("§issu", "§issu", False, 1, 1, 1, 1, 1).stemmed
            True
        """
        return self.term.startswith("\u00a7")

    @property
    def display(self) -> str:
        """The term for people: ``"issu (stem)"`` for a stemmed copy, else the term.

        Example:
            >>> TermContribution("§issu", "§issu", False, 1, 1, 1, 1, 1).display
            'issu (stem)'
        """
        return f"{self.term[1:]} (stem)" if self.stemmed else self.term


@dataclass(frozen=True)
class Explanation:
    """A tool's BM25+ score for a query, term by term.

    Attributes:
        tool: the explained tool.
        query: the ranking text that was scored (``+required`` words removed: they add nothing).
        score: the sum of the contributions, left to right from 0.0: exactly ``Match.score``.
        terms: the matching query terms, in query order (terms that match nothing are left out).
    """

    tool: Tool
    query: str
    score: float
    terms: tuple[TermContribution, ...] = ()
