"""``ToolIndex.explain``: the per-term, per-field parts of one tool's BM25+ score, over the
index's parts.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="read_file", description="Read a file")])
    >>> why = index.explain("read file", "read_file")
    >>> why.score == index.search("read file")[0].score
    True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .._engine.select import document_function
from .._options import DEFAULT_PREFIX_FRACTION, SearchOptions, check_query_length
from .._snapshot.tools_section import LazyTools
from .._text.documents import FieldWeights, scored_text
from ..explain import Explanation, TermContribution
from ..query import DEFAULT_MAX_QUERY_LENGTH, parse_query
from ..tools import Tool

if TYPE_CHECKING:
    from .._engine.protocol import EngineIndex

__all__ = ["explain"]

#: Field name by field id (``FieldWeights.as_list`` order).
_FIELD_NAMES = [f.name for f in dataclasses.fields(FieldWeights)]


def explain(
    tools: Sequence[Tool] | LazyTools,
    by_name: Mapping[str, int],
    index: EngineIndex,
    field_weights: FieldWeights,
    query: str,
    tool: str | Tool,
    prefix_fraction: float = DEFAULT_PREFIX_FRACTION,
    prefix_min_len: int = 3,
    max_expansions: int = 16,
    max_query_length: int = DEFAULT_MAX_QUERY_LENGTH,
) -> Explanation:
    """:meth:`toolsift.ToolIndex.explain` over the index's parts: its tools, tool id by name,
    engine index and field weights."""
    # The checks search() makes, with its messages (``toolsift._options``), before any work.
    checked = SearchOptions(
        None, None, None, prefix_fraction, prefix_min_len, max_expansions, 0.0, 0.0, False
    )
    max_query_length = check_query_length(max_query_length)
    name = tool.name if isinstance(tool, Tool) else tool
    if not isinstance(name, str):
        raise TypeError(f"tool must be a str or a toolsift.Tool, got {type(tool).__name__}")
    doc = by_name.get(name)
    if doc is None:
        raise KeyError(name)
    parsed = parse_query(query, max_length=max_query_length)
    target = tools[doc]
    if parsed.kind == "select":
        return Explanation(target, parsed.query, 0.0)
    weights = field_weights.as_list()
    # The engine reports each term's parts per field, from the tool's field texts and with its
    # own analysis: this module only names the fields.
    raw = index.explain(
        scored_text(parsed.text, field_weights),
        doc,
        document_function(index)(target, weights),
        prefix_fraction=checked.prefix_fraction,
        prefix_min_len=checked.prefix_min_len,
        max_expansions=checked.max_expansions,
    )
    terms = tuple(
        TermContribution(*row[:8], fields={_FIELD_NAMES[fid]: part for fid, part in row[8]})
        for row in raw
    )
    score = 0.0
    for term in terms:
        score += term.contribution
    return Explanation(target, parsed.text, score, terms)
