"""What a tool contributes to the index: its fields, and how much each field weighs.

Example:
    >>> from toolsift import Tool
    >>> [f for f, _ in document(Tool(name="a", description="x"), FieldWeights().as_list())]
    [0, 1, 4, 7]
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .tools import Tool

__all__ = ["FieldWeights", "document"]


@dataclass(frozen=True)
class FieldWeights:
    """How much one token of each field adds to a tool's term frequency (seed 000's weights).

    A weight of 0 leaves the field out of the index. ``search_hint`` (seed 001's curated phrase)
    and ``description`` (whose first 200 characters are already the summary) are toolsift's own.

    Example:
        >>> FieldWeights(summary=3.0).summary
        3.0
    """

    name: float = 6.0
    label: float = 4.0
    server: float = 2.0
    mcp_tool_name: float = 4.0
    summary: float = 2.0
    schema_key: float = 1.0
    search_hint: float = 4.0
    description: float = 0.0
    title: float = 0.0

    def as_list(self) -> list[float]:
        return [float(getattr(self, f.name)) for f in dataclasses.fields(self)]


# Field ids: positions in FieldWeights, in the order the seed builds its document.
_NAME, _LABEL, _SERVER, _MCP, _SUMMARY, _KEY, _HINT, _DESCRIPTION, _TITLE = range(9)


def document(tool: Tool, weights: list[float]) -> list[tuple[int, str]]:
    """A tool's indexed fields as ``(field id, text)`` pairs; empty ones are left out.

    Example:
        >>> document(Tool(name="get_weather", description="Weather"), FieldWeights().as_list())
        [(0, 'get_weather'), (1, 'get_weather'), (4, 'Weather'), (7, 'Weather')]
    """
    fields: list[tuple[int, str]] = [(_NAME, tool.name), (_LABEL, tool.display_label)]
    if tool.server:
        fields.append((_SERVER, tool.server))
    if tool.server and tool.mcp_tool_name:
        fields.append((_MCP, tool.mcp_tool_name))
    fields.append((_SUMMARY, tool.display_summary))
    fields.extend((_KEY, key) for key in tool.schema_keys)
    if tool.search_hint:
        fields.append((_HINT, tool.search_hint))
    # The full description always goes in: at weight 0 it is not scored, but the engine keeps its
    # words as presence postings so that a required ``+term`` finds them.
    fields.append((_DESCRIPTION, tool.description))
    if tool.title and weights[_TITLE]:
        fields.append((_TITLE, tool.title))
    return [(f, text) for f, text in fields if text]
