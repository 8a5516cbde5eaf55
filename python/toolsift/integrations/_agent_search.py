"""What the agent-framework adapters share: a framework's tools behind one search meta-tool.

Each adapter (:mod:`~toolsift.integrations.langgraph`, :mod:`~toolsift.integrations.openai_agents`,
:mod:`~toolsift.integrations.pydantic_ai`, :mod:`~toolsift.integrations.llamaindex`) turns its
framework's tool objects into :class:`~toolsift.Tool` definitions (name, description, JSON
Schema) and hands them here with the objects. :class:`AgentToolSearch` indexes them in one
:class:`~toolsift.Catalog`, runs the model's searches in a :class:`~toolsift.DiscoverySession`
(``select:``, ``+required``, exact names, and whatever ranking the session is configured with),
and gives back the framework objects the model may call now, in the session's order.

The model-visible answer of a search is ``search_tool_bm25``'s JSON, which adds ``missing`` (the
``select:`` names that match no tool) with ``suggestions`` and, when the session says no tool
fits the request, ``"no_match": true`` with a message telling the model to rephrase or go on
without a tool.

Example:
    >>> from toolsift import Tool
    >>> search = AgentToolSearch([(Tool(name="send_email", description="Send an email"), "obj")])
    >>> search.visible_objects()
    []
    >>> search.run("select:send_email,fax")
    '{"query":"select:send_email,fax","activated_tools":["send_email"],"match_count":1,\
"total_tools":1,"missing":["fax"],"suggestions":{"fax":[]}}'
    >>> search.visible_objects()
    ['obj']
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Generic, TypeVar

from ..contract import search_tool_bm25_content
from ..errors import DiscoveryError, ToolsiftError
from ..metatool import call_meta_tool, meta_tool
from ..session import DiscoveryResult, DiscoverySession
from ..shared_catalog import Catalog
from ..tools import Tool

__all__ = ["AgentToolSearch", "DEFAULT_SEARCH_DESCRIPTION"]

T = TypeVar("T")

#: The short description of the search tool where a framework needs one before any tool exists.
DEFAULT_SEARCH_DESCRIPTION = (
    "Search the hidden tools and activate the best matches: they can be called from the next "
    "step on. Use a natural-language or keyword query, or 'select:name1,name2' for exact names."
)


class AgentToolSearch(Generic[T]):
    """A framework's tools (``(definition, object)`` pairs) behind one discovery session.

    Arguments:
        tools: each tool's toolsift definition with the framework object it stands for; the
            names must be unique.
        always_available: names of tools the model sees from the start (never hidden).
        session: ``None`` (default): a new session over a :class:`~toolsift.Catalog` of
            ``tools``; or a ready :class:`~toolsift.DiscoverySession` (for example one made with
            semantic ranking) whose catalogue holds these tools' names.
        session_options: further :meth:`toolsift.Catalog.session` arguments (``default_limit``,
            ``max_limit``, ``threshold``, ``config``...), when ``session`` is not given.

    Raises:
        DuplicateToolError: two tools share a name.
    """

    def __init__(
        self,
        tools: Iterable[tuple[Tool, T]],
        *,
        always_available: Iterable[str] = (),
        session: DiscoverySession | None = None,
        **session_options: Any,
    ) -> None:
        pairs = list(tools)
        self._objects: dict[str, T] = {definition.name: obj for definition, obj in pairs}
        self._always_available = tuple(always_available)
        self._session_options = session_options
        if session is None:
            self.catalog: Catalog | None = Catalog([definition for definition, _ in pairs])
            session = self._new_session(self.catalog)
        else:
            self.catalog = None
        self.session = session
        self._visible: tuple[int, frozenset[str]] | None = None

    def _new_session(self, catalog: Catalog) -> DiscoverySession:
        return catalog.session(
            mode="all", always_available=self._always_available, **self._session_options
        )

    def new_session(self) -> AgentToolSearch[T]:
        """The same tools in a new discovery session over the same catalogue (another
        conversation): nothing activated yet, no index built.

        Raises:
            DiscoveryError: this search was given its ``session`` (no catalogue of its own).
        """
        if self.catalog is None:
            raise DiscoveryError("A search made over a given session has no catalogue to share.")
        fresh: AgentToolSearch[T] = AgentToolSearch.__new__(AgentToolSearch)
        fresh._objects = self._objects
        fresh._always_available = self._always_available
        fresh._session_options = self._session_options
        fresh.catalog = self.catalog
        fresh.session = self._new_session(self.catalog)
        fresh._visible = None
        return fresh

    @property
    def meta_tool_name(self) -> str:
        """The search tool's name (the session's, ``search_tool_bm25`` by default)."""
        return self.session.meta_tool_name

    def meta_tool(self) -> Tool:
        """The search tool's definition, its description listing the catalogue
        (:func:`toolsift.meta_tool`)."""
        return meta_tool(self.session)

    def objects(self, names: Iterable[str]) -> list[T]:
        """The framework objects of ``names`` (session names), skipping unknown ones."""
        found = (self._objects.get(name) for name in names)
        return [obj for obj in found if obj is not None]

    def visible_objects(self) -> list[T]:
        """The objects the model may call now: always-available and activated, in order."""
        return self.objects(t.name for t in self.session.visible_tools)

    def is_visible(self, name: str) -> bool:
        """Whether the model may call the tool ``name`` now."""
        generation = self.session.generation
        if self._visible is None or self._visible[0] != generation:
            # Every activation bumps the generation: one view of the session per state.
            names = frozenset(t.name for t in self.session.visible_tools)
            self._visible = (generation, names)
        if name in self._visible[1]:
            return True
        tool = self.session.find_tool(name)
        return tool is not None and tool.name in self._visible[1]

    def search(self, query: Any, limit: Any = None) -> DiscoveryResult:
        """Run one search of the model and activate its matches (raises on a bad query)."""
        arguments: dict[str, Any] = {"query": query}
        if limit is not None:
            arguments["limit"] = limit
        return call_meta_tool(self.session, arguments).result

    def run(self, query: Any, limit: Any = None) -> str:
        """Run one search of the model and return the answer it reads (JSON text).

        A query the session refuses (empty, no letter, a bad limit) comes back as
        ``{"error": "..."}`` so that the model can correct itself.
        """
        try:
            result = self.search(query, limit)
        except ToolsiftError as error:
            return json.dumps({"error": str(error)})
        return answer(result)


def answer(result: DiscoveryResult) -> str:
    """The model-visible JSON of one search: ``search_tool_bm25``'s content, which reports the
    ``select:`` names that match no tool (``missing``, with ``suggestions``) and, when the
    session says no tool fits, ``"no_match": true`` with its ``confidence`` and ``message``."""
    return search_tool_bm25_content(result)


def abstained(result: DiscoveryResult) -> bool:
    """Whether the session said that no tool fits the search."""
    return bool(getattr(result, "abstained", False))


def schema_of(value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A tool's JSON Schema as a plain object schema (``{"type": "object"}`` when absent)."""
    return dict(value) if value else {"type": "object", "properties": {}}
