"""``ToolIndex.explain``: the per-term, per-field parts of one tool's BM25+ score (a base class
of :class:`toolsift.ToolIndex`, over its state).

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="read_file", description="Read a file")])
    >>> why = index.explain("read file", "read_file")
    >>> why.score == index.search("read file")[0].score
    True
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .._snapshot.tools_section import LazyTools
from .._text.analysis import STEM_WEIGHT, ProfileName, stem_copy
from .._text.analysis import terms as analysed_terms
from .._text.documents import FieldWeights, scored_text
from .._text.documents import document as _document
from ..explain import Explanation, TermContribution
from ..query import DEFAULT_MAX_QUERY_LENGTH, parse_query
from ..tools import Tool
from .lookups import DEFAULT_PREFIX_FRACTION

if TYPE_CHECKING:
    from .._engine.protocol import EngineIndex

__all__ = ["Explaining"]


class Explaining:
    """:meth:`explain` of :class:`toolsift.ToolIndex`, over its state."""

    _tools: tuple[Tool, ...] | LazyTools
    _by_name: dict[str, int]
    _index: EngineIndex
    field_weights: FieldWeights

    def explain(
        self,
        query: str,
        tool: str | Tool,
        *,
        prefix_fraction: float = DEFAULT_PREFIX_FRACTION,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
        max_query_length: int = DEFAULT_MAX_QUERY_LENGTH,
    ) -> Explanation:
        """The per-term, per-field parts of ``tool``'s BM25+ score for ``query``.

        Arguments:
            query: a keyword query, parsed as :meth:`search` parses it (``+required`` words are
                left out: they add nothing to the score). A ``select:`` query scores nothing.
            tool: the tool or its canonical name.
            prefix_fraction, prefix_min_len, max_expansions: as in :meth:`search`.

        Returns:
            An :class:`~toolsift.explain.Explanation` whose ``score`` equals the ``score`` that
            :meth:`search` gives the tool with the same options.

        Raises:
            KeyError: no tool has this name.
            QueryError: the query is empty or has no letter or number.
        """
        name = tool.name if isinstance(tool, Tool) else tool
        doc = self._by_name.get(name)
        if doc is None:
            raise KeyError(name)
        parsed = parse_query(query, max_length=max(1, max_query_length))
        target = self._tools[doc]
        if parsed.kind == "select":
            return Explanation(target, parsed.query, 0.0)
        raw = self._index.explain(
            scored_text(parsed.text, self.field_weights),
            doc,
            prefix_fraction=prefix_fraction,
            prefix_min_len=prefix_min_len,
            max_expansions=max_expansions,
        )
        weights = self.field_weights.as_list()
        field_names = [f.name for f in dataclasses.fields(FieldWeights)]
        counts: dict[str, dict[str, float]] = {}
        profile: ProfileName = self._index.profile  # type: ignore[assignment]
        for fid, text in _document(target, weights):
            if weights[fid] == 0.0:
                continue
            field = field_names[fid]
            for tok in analysed_terms(profile, text):
                per_field = counts.setdefault(tok, {})
                per_field[field] = per_field.get(field, 0.0) + weights[fid]
                if profile == "english":  # the stemmed copy, at a fraction of the field's weight
                    per_field = counts.setdefault(stem_copy(tok), {})
                    per_field[field] = per_field.get(field, 0.0) + weights[fid] * STEM_WEIGHT
        terms = tuple(
            TermContribution(*row, fields=counts.get(row[1], {}))  # type: ignore[misc]
            for row in raw
        )
        score = 0.0
        for term in terms:
            score += term.contribution
        return Explanation(target, parsed.text, score, terms)
