"""LangGraph and LangChain: toolsift as ``langgraph-bigtool``'s tool retrieval, or as a retriever.

``langgraph_bigtool.create_agent(llm, tool_registry, retrieve_tools_function=...,
retrieve_tools_coroutine=...)`` gives the model one retrieval tool; the ids it returns join the
graph state's ``selected_tool_ids``, and the model is bound to those tools from its next step
on. :class:`ToolsiftToolRetrieval` ranks the registry with toolsift (natural language, keywords,
``select:name1,name2``, ``+required``, exact names): each call searches in a fresh view of one
shared :class:`~toolsift.Catalog` (microseconds), since the graph state, not toolsift, holds what
each conversation activated. A search the session answers with "nothing fits" returns no id.

:class:`ToolsiftRetriever` is a LangChain ``BaseRetriever`` over the same catalogue: one
``Document`` per match (the description as ``page_content``; ``metadata["tool_id"]``, the
score, and ``missing`` / ``abstained`` for the whole search).

Install: ``pip install 'toolsift[langgraph]'`` (langgraph-bigtool, langchain-core).

Example:
    >>> from langchain_core.tools import tool
    >>> @tool
    ... def get_weather(city: str) -> str:
    ...     '''Current weather for a city.'''
    ...     return "sunny"
    >>> retrieval = ToolsiftToolRetrieval({"get_weather": get_weather})
    >>> retrieval.retrieve_tools_function("weather in Paris")
    ['get_weather']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import ToolsiftError
from ..index import DEFAULT_LIMIT
from ..metatool import call_meta_tool, meta_tool
from ..session import DiscoverySession
from ..shared_catalog import Catalog
from ..tools import Tool
from ._agent_search import abstained, schema_of

if TYPE_CHECKING:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document

__all__ = ["ToolsiftToolRetrieval", "ToolsiftRetriever", "langchain_tool_definition"]


def langchain_tool_definition(tool_id: str, tool: Any) -> Tool:
    """The toolsift definition of one ``tool_registry`` entry: a LangChain ``BaseTool`` (its
    name, description and argument schema) or a plain function (its name and docstring); the
    registry's id is the toolsift name.

    Example:
        >>> def lookup(term: str) -> str:
        ...     '''Look a term up in the glossary.'''
        ...     return term
        >>> langchain_tool_definition("glossary", lookup).description
        'Look a term up in the glossary.'
    """
    from langchain_core.tools import BaseTool

    if isinstance(tool, BaseTool):
        schema: Any = tool.tool_call_schema  # a JSON Schema, or a pydantic (v1 or v2) model
        json_schema = schema if isinstance(schema, dict) else tool.get_input_jsonschema()
        return Tool(
            name=tool_id,
            description=tool.description or "",
            input_schema=schema_of(
                {k: v for k, v in json_schema.items() if k in ("type", "properties", "required")}
            ),
            label=tool.name if tool.name != tool_id else None,
        )
    if callable(tool):
        return Tool(name=tool_id, description=(tool.__doc__ or "").strip())
    raise TypeError(f"tool_registry[{tool_id!r}] is not a LangChain tool or a function.")


class ToolsiftToolRetrieval:
    """``langgraph-bigtool``'s retrieval functions, ranked by toolsift over ``tool_registry``.

    Arguments:
        tool_registry: the registry given to ``create_agent`` (id → ``BaseTool`` or function).
        limit: how many ids one search returns at most by default (the model may pass
            ``limit``, up to the session's ``max_limit``).
        session_options: further :meth:`toolsift.Catalog.session` arguments (``threshold``,
            ``max_limit``, ``config``, ...).

    Attributes:
        retrieve_tools_function: ``(query, limit=None) -> list[str]``, for
            ``create_agent(retrieve_tools_function=...)``; its docstring is the meta-tool's
            description (the catalogue's servers and counts).
        retrieve_tools_coroutine: the same as a coroutine function
            (``retrieve_tools_coroutine=...``).
        catalog: the :class:`~toolsift.Catalog` of the registry.
        last_result: the :class:`~toolsift.DiscoveryResult` of the latest search (its
            ``missing`` names, the session's abstention), or ``None``.
    """

    def __init__(
        self,
        tool_registry: Mapping[str, Any],
        *,
        limit: int = DEFAULT_LIMIT,
        **session_options: Any,
    ) -> None:
        definitions = [langchain_tool_definition(k, v) for k, v in tool_registry.items()]
        self.catalog = Catalog(definitions)
        self._descriptions = {d.name: d.description for d in definitions}
        self._options: dict[str, Any] = {"default_limit": limit, **session_options}
        self.last_result: Any = None
        session = self._session()  # checks the options at once
        description = meta_tool(session).description
        name = session.meta_tool_name

        def retrieve_tools(query: str, limit: int | None = None) -> list[str]:
            return self.retrieve(query, limit)

        async def aretrieve_tools(query: str, limit: int | None = None) -> list[str]:
            return self.retrieve(query, limit)

        for function in (retrieve_tools, aretrieve_tools):
            function.__name__ = name
            function.__doc__ = description
        self.retrieve_tools_function: Callable[..., list[str]] = retrieve_tools
        self.retrieve_tools_coroutine: Callable[..., Any] = aretrieve_tools

    def retrieve(self, query: str, limit: int | None = None) -> list[str]:
        """The tool ids for one search of the model, best first (none when nothing fits).

        Raises:
            QueryError: the query is empty or has no letter or number.
            LimitError: ``limit`` is not a positive integer.
        """
        arguments: dict[str, Any] = {"query": query}
        if limit is not None:
            arguments["limit"] = limit
        result = call_meta_tool(self._session(), arguments).result
        self.last_result = result
        if abstained(result):
            return []
        return list(result.activated)

    def _session(self) -> DiscoverySession:
        # A fresh view per search: the graph state holds each conversation's activations.
        return self.catalog.session(mode="all", always_available=(), **self._options)


def _retriever_class() -> type:
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from pydantic import ConfigDict, PrivateAttr

    class _ToolsiftRetriever(BaseRetriever):
        model_config = ConfigDict(arbitrary_types_allowed=True)
        _retrieval: ToolsiftToolRetrieval = PrivateAttr()

        def __init__(self, tool_registry: Mapping[str, Any], **options: Any) -> None:
            super().__init__()
            self._retrieval = ToolsiftToolRetrieval(tool_registry, **options)

        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun
        ) -> list[Document]:
            try:
                ids = self._retrieval.retrieve(query)
            except ToolsiftError:
                return []
            result = self._retrieval.last_result
            scores = {m.name: m.score for m in result.matches}
            return [
                Document(
                    page_content=self._retrieval._descriptions[tool_id],
                    metadata={
                        "tool_id": tool_id,
                        "score": scores.get(tool_id),
                        "missing": list(result.missing),
                        "abstained": abstained(result),
                    },
                )
                for tool_id in ids
            ]

    _ToolsiftRetriever.__name__ = _ToolsiftRetriever.__qualname__ = "ToolsiftRetriever"
    return _ToolsiftRetriever


def ToolsiftRetriever(tool_registry: Mapping[str, Any], **options: Any) -> Any:  # noqa: N802
    """A LangChain ``BaseRetriever`` over ``tool_registry``: ``invoke(query)`` returns one
    ``Document`` per match, best first (``metadata["tool_id"]``, ``score``, ``missing``,
    ``abstained``); a query toolsift refuses (empty) returns no document. ``options`` are
    :class:`ToolsiftToolRetrieval`'s.

    Example:
        >>> def send_email(to: str) -> str:
        ...     '''Send an email message.'''
        ...     return to
        >>> documents = ToolsiftRetriever({"email": send_email}).invoke("email")
        >>> [d.metadata["tool_id"] for d in documents]
        ['email']
    """
    return _retriever_class()(tool_registry, **options)
