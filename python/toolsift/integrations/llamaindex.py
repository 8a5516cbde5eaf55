"""LlamaIndex: an object retriever that gives an agent the tools its searches found.

LlamaIndex's workflow agents (``FunctionAgent``, ``ReActAgent``, ``CodeActAgent``) ask their
``tool_retriever`` (an ``ObjectRetriever``) for tools before every step, and refuse a call to a
tool it did not return. :class:`ToolsiftObjectRetriever` is one: it returns toolsift's search
tool, the ``always_available`` tools and every tool a search of the model activated, in the
session's order. The model, not the user's message, decides what to look for: the search tool
takes a natural-language or keyword query, ``select:name1,name2``, ``+required``, exact names.

The search tool's answer is ``search_tool_bm25``'s JSON, with ``missing`` for ``select:`` names
that match no tool and ``"no_match": true`` when the session says no tool fits. One retriever
is one discovery session: :meth:`ToolsiftObjectRetriever.new_session` gives another
conversation its own, over the same catalogue.

Install: ``pip install 'toolsift[llamaindex]'`` (llama-index-core).

Example:
    >>> from llama_index.core.tools import FunctionTool
    >>> def get_weather(city: str) -> str:
    ...     '''Current weather for a city.'''
    ...     return f"sunny in {city}"
    >>> retriever = ToolsiftObjectRetriever([FunctionTool.from_defaults(get_weather)])
    >>> [tool.metadata.name for tool in retriever.retrieve("anything")]
    ['search_tool_bm25']
    >>> _ = retriever.search_tool.call(query="weather")
    >>> [tool.metadata.name for tool in retriever.retrieve("anything")]
    ['search_tool_bm25', 'get_weather']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from ..tools import Tool
from ._agent_search import AgentToolSearch, schema_of

if TYPE_CHECKING:
    from llama_index.core.tools import BaseTool

__all__ = ["ToolsiftObjectRetriever"]


def _retriever_base() -> type:
    from llama_index.core.objects.base import ObjectRetriever

    return cast(type, ObjectRetriever)


class _Lazy:
    """The class is made on first use, so that importing this module needs no LlamaIndex."""

    cls: type | None = None


def ToolsiftObjectRetriever(  # noqa: N802 - a class to its users, made on first use
    tools: Iterable[BaseTool], *, always_available: Iterable[str] = (), **session_options: Any
) -> Any:
    """An ``ObjectRetriever[BaseTool]`` for ``FunctionAgent(tool_retriever=...)`` (or any
    workflow agent): the search tool plus the tools the model's searches activated.

    Arguments:
        tools: the agent's LlamaIndex tools (``FunctionTool`` and any other ``BaseTool``).
        always_available: names of tools returned from the start.
        session_options: further :meth:`toolsift.Catalog.session` arguments (``default_limit``,
            ``threshold``, ``config``, ...).

    The retriever's ``search_tool`` attribute is the search ``FunctionTool``, ``search`` the
    :class:`~toolsift.DiscoverySession` wrapper, and ``new_session()`` a retriever over the same
    catalogue with a session of its own.

    Raises:
        DuplicateToolError: two tools share a name.
    """
    if _Lazy.cls is None:
        _Lazy.cls = _make_class()
    search: AgentToolSearch[BaseTool] = AgentToolSearch(
        [(_definition(tool), tool) for tool in tools],
        always_available=always_available,
        **session_options,
    )
    return _Lazy.cls(search)


def _make_class() -> type:
    from llama_index.core.tools import FunctionTool

    base = _retriever_base()

    class _ToolsiftObjectRetriever(base):  # type: ignore[misc, valid-type]
        def __init__(self, search: AgentToolSearch[BaseTool]) -> None:
            super().__init__(retriever=cast(Any, None), object_node_mapping=cast(Any, None))
            self.search = search
            definition = search.meta_tool()

            def run(query: str, limit: int | None = None) -> str:
                return search.run(query, limit)

            self.search_tool = FunctionTool.from_defaults(
                fn=run, name=definition.name, description=definition.description
            )

        def new_session(self) -> Any:
            return type(self)(self.search.new_session())

        def retrieve(self, str_or_query_bundle: Any) -> list[BaseTool]:
            return [self.search_tool, *self.search.visible_objects()]

        async def aretrieve(self, str_or_query_bundle: Any) -> list[BaseTool]:
            return self.retrieve(str_or_query_bundle)

    _ToolsiftObjectRetriever.__name__ = "ToolsiftObjectRetriever"
    _ToolsiftObjectRetriever.__qualname__ = "ToolsiftObjectRetriever"
    return _ToolsiftObjectRetriever


def _definition(tool: Any) -> Tool:
    metadata = tool.metadata
    schema = metadata.get_parameters_dict() if metadata.fn_schema is not None else {}
    kept = {k: v for k, v in schema.items() if k in ("type", "properties", "required")}
    return Tool(
        name=metadata.get_name(),
        description=metadata.description or "",
        input_schema=schema_of(kept),
    )
