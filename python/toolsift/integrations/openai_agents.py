"""OpenAI Agents SDK: an ``Agent`` whose tools are found by search, through ``is_enabled``.

The SDK asks each ``FunctionTool``'s ``is_enabled`` before every model call. A
:class:`ToolsiftToolSearch` over the agent's function tools gives back the same tools with an
``is_enabled`` that holds only once a search activated the tool (and the tool's own
``is_enabled`` still holds), plus one search tool: ``Agent(tools=search.tools)``. The model
starts with the search tool alone (and the ``always_available`` tools); the tools a search finds
are offered from its next model call on, for the rest of the session.

The search tool's answer is ``search_tool_bm25``'s JSON, with ``missing`` for ``select:`` names
that match no tool and ``"no_match": true`` when the session says no tool fits. One
:class:`ToolsiftToolSearch` is one discovery session: make one per conversation
(:meth:`ToolsiftToolSearch.new_session` shares the catalogue, in microseconds).

Install: ``pip install 'toolsift[openai-agents]'``.

Example:
    >>> from agents import function_tool
    >>> @function_tool
    ... def get_weather(city: str) -> str:
    ...     '''Current weather for a city.'''
    ...     return "sunny"
    >>> search = ToolsiftToolSearch([get_weather])
    >>> [tool.name for tool in search.tools]
    ['search_tool_bm25', 'get_weather']
    >>> search.visible_names()
    []
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..tools import Tool
from ._agent_search import AgentToolSearch, schema_of

if TYPE_CHECKING:
    from agents import FunctionTool

__all__ = ["ToolsiftToolSearch"]


class ToolsiftToolSearch:
    """The function tools of an OpenAI Agents SDK ``Agent``, behind one search tool.

    Arguments:
        tools: the agent's ``FunctionTool`` objects (made with ``@function_tool`` or directly).
        always_available: names of tools offered from the start.
        session_options: further :meth:`toolsift.Catalog.session` arguments (``default_limit``,
            ``threshold``, ``config``, ...).

    Attributes:
        tools: the list to give ``Agent(tools=...)``: the search tool first, then each tool
            with its ``is_enabled`` gated on the session.
        search: the :class:`~toolsift.DiscoverySession` wrapper (its ``session`` attribute).

    Raises:
        TypeError: an item of ``tools`` is not a ``FunctionTool``.
        DuplicateToolError: two tools share a name.
    """

    def __init__(
        self,
        tools: Iterable[FunctionTool],
        *,
        always_available: Iterable[str] = (),
        **session_options: Any,
    ) -> None:
        from agents import FunctionTool

        self._originals: list[FunctionTool] = list(tools)
        for tool in self._originals:
            if not isinstance(tool, FunctionTool):
                raise TypeError(f"Expected agents.FunctionTool objects, got {type(tool).__name__}.")
        self.search: AgentToolSearch[FunctionTool] = AgentToolSearch(
            [(_definition(tool), tool) for tool in self._originals],
            always_available=always_available,
            **session_options,
        )
        self.tools: list[FunctionTool] = [self._search_tool(), *map(self._gated, self._originals)]

    def new_session(self) -> ToolsiftToolSearch:
        """The same tools in a new discovery session (for another conversation)."""
        fresh = ToolsiftToolSearch.__new__(ToolsiftToolSearch)
        fresh._originals = self._originals
        fresh.search = self.search.new_session()
        fresh.tools = [fresh._search_tool(), *map(fresh._gated, fresh._originals)]
        return fresh

    def visible_names(self) -> list[str]:
        """The names of the tools the model is offered now (the search tool aside)."""
        return [tool.name for tool in self.search.visible_objects()]

    def _search_tool(self) -> FunctionTool:
        import json

        from agents import FunctionTool

        definition = self.search.meta_tool()

        async def run(_context: Any, arguments: str) -> str:
            try:
                values = json.loads(arguments or "{}")
            except ValueError:
                values = {}
            if not isinstance(values, dict):
                values = {}
            return self.search.run(values.get("query"), values.get("limit"))

        return FunctionTool(
            name=definition.name,
            description=definition.description,
            params_json_schema=dict(definition.input_schema),
            on_invoke_tool=run,
            strict_json_schema=False,
        )

    def _gated(self, tool: FunctionTool) -> FunctionTool:
        own = tool.is_enabled
        search = self.search

        async def is_enabled(context: Any, agent: Any) -> bool:
            if not search.is_visible(tool.name):
                return False
            if callable(own):
                value = own(context, agent)
                return bool(await value) if inspect.isawaitable(value) else bool(value)
            return bool(own)

        return replace(tool, is_enabled=is_enabled)


def _definition(tool: Any) -> Tool:
    schema = tool.params_json_schema or {}
    kept = {k: v for k, v in schema.items() if k in ("type", "properties", "required")}
    return Tool(name=tool.name, description=tool.description or "", input_schema=schema_of(kept))
