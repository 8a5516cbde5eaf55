"""PydanticAI: toolsift as the search strategy of PydanticAI's deferred tools.

PydanticAI hides deferred tools (``Tool(..., defer_loading=True)``, or every tool with the
``ToolSearch(tools="all")`` capability) behind its ``search_tools`` tool, and shows the model
each tool a search discovered from the next step on (the run's messages record the
discoveries). Its ``ToolSearch(strategy=...)`` takes the search function:
:class:`ToolsiftStrategy` is one, ranked by toolsift (natural language, keywords,
``select:name1,name2``, ``+required``, exact names). :func:`toolsift_tool_search` builds the
capability. When toolsift finds nothing, or the session says no tool fits, the strategy returns
no name and PydanticAI tells the model "No matching tools found".

The strategy indexes the deferred tools PydanticAI hands it (one :class:`~toolsift.Catalog`,
rebuilt only when those tools change) and searches each query in a fresh view of it, since the
run's messages, not toolsift, hold what was discovered.

Install: ``pip install 'toolsift[pydantic-ai]'`` (pydantic-ai-slim).

Example:
    >>> from pydantic_ai import Agent
    >>> from pydantic_ai.models.test import TestModel
    >>> def get_weather(city: str) -> str:
    ...     '''Current weather for a city.'''
    ...     return f"sunny in {city}"
    >>> agent = Agent(TestModel(call_tools=[]), tools=[get_weather],
    ...               capabilities=[toolsift_tool_search()])
    >>> import asyncio
    >>> asyncio.run(agent.run("hi")).output
    'success (no tool calls)'
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from ..index import DEFAULT_LIMIT
from ..metatool import call_meta_tool
from ..session import DiscoveryResult
from ..shared_catalog import Catalog
from ..tools import Tool
from ._agent_search import abstained, schema_of

__all__ = ["ToolsiftStrategy", "toolsift_tool_search"]


class ToolsiftStrategy:
    """A PydanticAI ``ToolSearchFunc``: ``(ctx, queries, tools) -> names``, best first.

    Arguments:
        limit: how many tools one query finds at most.
        session_options: further :meth:`toolsift.Catalog.session` arguments (``threshold``,
            ``max_limit``, ``config``, ...).

    Attributes:
        last_results: the :class:`~toolsift.DiscoveryResult` of each query of the latest
            search (``missing`` names, the session's abstention).

    Example:
        >>> from pydantic_ai.tools import ToolDefinition
        >>> tools = [ToolDefinition(name="send_email", description="Send an email"),
        ...          ToolDefinition(name="get_weather", description="Weather for a city")]
        >>> ToolsiftStrategy()(None, ["email my boss"], tools)
        ['send_email']
    """

    def __init__(self, *, limit: int = DEFAULT_LIMIT, **session_options: Any) -> None:
        self._options: dict[str, Any] = {"default_limit": limit, **session_options}
        self._lock = threading.Lock()
        self._catalog: tuple[tuple[Any, ...], Catalog] | None = None
        self.last_results: list[DiscoveryResult] = []

    def catalog(self, tools: Sequence[Any]) -> Catalog:
        """The catalogue of PydanticAI's deferred ``ToolDefinition`` objects (cached)."""
        key = tuple((t.name, t.description, repr(t.parameters_json_schema)) for t in tools)
        with self._lock:
            if self._catalog is None or self._catalog[0] != key:
                self._catalog = (key, Catalog([_definition(t) for t in tools]))
            return self._catalog[1]

    def __call__(self, ctx: Any, queries: Sequence[str], tools: Sequence[Any]) -> list[str]:
        catalog = self.catalog(tools)
        names: list[str] = []
        results: list[DiscoveryResult] = []
        for query in queries:
            if not query.strip():
                continue
            session = catalog.session(mode="all", always_available=(), **self._options)
            result = call_meta_tool(session, {"query": query}).result
            results.append(result)
            if not abstained(result):
                names.extend(name for name in result.activated if name not in names)
        self.last_results = results
        return names


def toolsift_tool_search(
    *, tools: Any = "all", limit: int = DEFAULT_LIMIT, **session_options: Any
) -> Any:
    """PydanticAI's ``ToolSearch`` capability with toolsift as its strategy:
    ``Agent(..., capabilities=[toolsift_tool_search()])``.

    Arguments:
        tools: which tools to defer (``ToolSearch``'s ``tools``): ``"all"`` (default), a list of
            names, a metadata dict or a callable; tools marked ``defer_loading=True`` are
            deferred in any case.
        limit: how many tools one search finds at most (also ``ToolSearch.max_results``).
        session_options: :class:`ToolsiftStrategy`'s.
    """
    from pydantic_ai.capabilities import ToolSearch

    return ToolSearch(
        strategy=ToolsiftStrategy(limit=limit, **session_options),
        max_results=limit,
        tools=tools,
    )


def _definition(tool: Any) -> Tool:
    schema = tool.parameters_json_schema or {}
    kept = {k: v for k, v in schema.items() if k in ("type", "properties", "required")}
    return Tool(name=tool.name, description=tool.description or "", input_schema=schema_of(kept))
