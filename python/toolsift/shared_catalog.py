"""``Catalog``: one tool catalogue shared by many discovery sessions, as a gateway needs.

A gateway serves thousands of agent conversations over one catalogue. A :class:`Catalog` holds
the tools and ONE index over them; :meth:`Catalog.session` makes a
:class:`~toolsift.DiscoverySession` that is a view of it: its own mode, options and activations,
no index of its own, so it is created in microseconds and costs a few KiB. A session's active and
always-available tools are left out inside the engine, before the cut, so a search after an
activation costs what any search costs.

Changes (:meth:`~Catalog.connect_server`, :meth:`~Catalog.replace_server` for an MCP
``notifications/tools/list_changed``, :meth:`~Catalog.disconnect_server`,
:meth:`~Catalog.add_tools`, :meth:`~Catalog.remove_tools`) go to the catalogue, never to a
session: each builds one new generation (a copy-on-write update of the index, not a rebuild per
session), checked whole before it is published in one step. Every session sees it at its next
call; a search in flight finishes on the generation it started with; a refused update (say a
malformed tool, :class:`~toolsift.ToolDefinitionError`) leaves the catalogue as it was.

Scores: a view searches the index of every tool of the catalogue, so BM25's corpus statistics
(document count, IDF, average length) include the tools that are active in the session. The
exact scores of an index over the hidden tools only (OMP ``search_tool_bm25``'s corpus) are
``catalog.session(rebuild_on_activation=True)``: that session then keeps its own index, derived
from the shared one and updated after each activation (tens of ms at 11,578 tools).

Example:
    >>> from toolsift import Catalog, Tool
    >>> catalog = Catalog(servers={"mail": [
    ...     Tool(name="mcp__mail__send", server="mail", description="Send an email message"),
    ...     Tool(name="mcp__mail__search", server="mail", description="Search the inbox"),
    ... ]})
    >>> session = catalog.session(mode="all")
    >>> session.search("email someone").activated
    ('mcp__mail__send',)
    >>> catalog.disconnect_server("mail")
    >>> session.hidden_tools
    ()
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from ._catalog_view import _CatalogSession
from ._session.checks import (
    _check_names,
    _check_server_name,
    _check_summaries,
    _check_summary,
    _check_tools,
)
from ._session.generation import CatalogCore
from ._session.options import META_TOOL_NAME
from ._session.state import (
    AUTO_MAX_TOKENS,
    AUTO_MAX_TOOLS,
    DEFAULT_ALWAYS_AVAILABLE,
    DiscoveryMode,
    ToolSource,
)
from ._text.analysis import DEFAULT_PROFILE, ProfileName, check_profile
from ._text.documents import FieldWeights, check_field_weights
from .config import ToolSearchConfig
from .errors import ProfileError
from .index import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_LIMIT,
    EngineName,
    ToolIndex,
)
from .semantic.model import Semantic, check_semantic
from .session import DiscoverySession, _session_arguments
from .tools import Tool

__all__ = ["Catalog"]


class Catalog:
    """An immutable-by-generation tool catalogue shared by many :class:`DiscoverySession` views.

    Arguments:
        tools: initial tools; one with a ``server`` joins that MCP server.
        servers: initial MCP servers: server name to its tools (:class:`Tool` objects of that
            server, or the raw ``tools/list`` result or its list).
        summaries: one-line summaries of servers, by name, for the meta-tool description.
        engine, profile, field_weights, semantic: the index's (see
            :class:`~toolsift.ToolIndex`). With semantic search on, an update embeds only the
            tools it adds (a reconnecting server: its own tools).

    Raises:
        DuplicateToolError: two tools share a canonical name.
        ToolDefinitionError: a raw MCP tool definition is invalid (names the tool and field).
        TypeError, ValueError: as :meth:`connect_server` and :class:`~toolsift.ToolIndex`.

    Example:
        >>> from toolsift import Catalog, default_tools
        >>> catalog = Catalog(default_tools())
        >>> catalog.session().search("open a pull request", limit=1).activated
        ('mcp__github__create_pull_request',)
    """

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        servers: Mapping[str, Any] | None = None,
        summaries: Mapping[str, str] | None = None,
        engine: EngineName = "auto",
        profile: ProfileName = DEFAULT_PROFILE,
        field_weights: FieldWeights | None = None,
        semantic: Semantic = "auto",
    ) -> None:
        semantic = check_semantic(semantic)
        if servers is None:
            servers = {}
        if not isinstance(servers, Mapping):
            raise TypeError(
                "servers must be a mapping of server name to its tools, "
                f"got {type(servers).__name__}."
            )
        for name in servers:
            _check_server_name(name, "Catalog")
        self._core = CatalogCore(
            tools,
            servers,
            _check_summaries(summaries),
            engine,
            check_profile(profile),
            check_field_weights(field_weights),
            semantic,
        )

    # --- views -----------------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        """0 for the catalogue as built, +1 per published change."""
        return self._core.current.number

    @property
    def tools(self) -> tuple[Tool, ...]:
        """Every tool of the current generation, in the order they joined."""
        return tuple(e.tool for e in self._core.current.entries.values())

    @property
    def index(self) -> ToolIndex:
        """The current generation's index over every tool (what sessions search)."""
        return self._core.current.index

    @property
    def servers(self) -> dict[str, tuple[str, ...]]:
        """The canonical tool names of each connected MCP server."""
        return dict(self._core.current.servers)

    def __len__(self) -> int:
        return len(self._core.current.entries)

    def __repr__(self) -> str:
        gen = self._core.current
        return (
            f"Catalog(tools={len(gen.entries)}, servers={len(gen.servers)}, "
            f"generation={gen.number}, engine={gen.index.engine!r})"
        )

    def session(
        self,
        *,
        mode: DiscoveryMode = "all",
        mcp_discovery: bool = False,
        always_available: Iterable[str] = DEFAULT_ALWAYS_AVAILABLE,
        auto_max_tools: int = AUTO_MAX_TOOLS,
        auto_max_tokens: int = AUTO_MAX_TOKENS,
        meta_tool_name: str = META_TOOL_NAME,
        rebuild_on_activation: bool = False,
        default_limit: int = DEFAULT_LIMIT,
        max_limit: int = DEFAULT_MAX_LIMIT,
        threshold: float = 0.0,
        semantic: bool | Literal["auto"] = "auto",
        min_confidence: float | None = None,
        config: ToolSearchConfig | None = None,
    ) -> DiscoverySession:
        """A new discovery session over this catalogue: a view with its own mode, options and
        activations, and no index of its own (unless ``rebuild_on_activation``).

        The arguments are :class:`DiscoverySession`'s (``config`` included: its settings apply
        unless the corresponding argument is given); the analysis profile is the catalogue's,
        and so are the tool vectors: the session ranks semantically when the catalogue does
        (``Catalog(semantic=...)``), unless it says ``semantic=False``.
        The session's tools are the catalogue's: its ``connect_server``, ``disconnect_server``,
        ``add_tools`` and ``remove_tools`` raise :class:`~toolsift.DiscoveryError` (change the
        catalogue instead).

        Raises:
            ProfileError: ``config`` asks for another analysis profile than the catalogue's.

        Example:
            >>> from toolsift import Catalog, default_tools
            >>> session = Catalog(default_tools()).session(mode="mcp-only", always_available=())
            >>> len(session.hidden_tools) == len(default_tools())
            True
        """
        if config is not None:
            given = {**locals(), "profile": DEFAULT_PROFILE}
            (
                mode, always_available, profile, default_limit, max_limit, threshold,
                meta_tool_name, semantic, min_confidence,
            ) = _session_arguments(config, given)  # fmt: skip
            if profile != self.index.profile:
                raise ProfileError(
                    f"The config's profile {profile!r} is not this catalogue's "
                    f"({self.index.profile!r}): make the Catalog with profile={profile!r}."
                )
        return _CatalogSession(
            self._core,
            mode=mode,
            mcp_discovery=mcp_discovery,
            always_available=always_available,
            auto_max_tools=auto_max_tools,
            auto_max_tokens=auto_max_tokens,
            meta_tool_name=meta_tool_name,
            rebuild_on_activation=rebuild_on_activation,
            limits=(default_limit, max_limit, threshold),
            semantic=semantic,
            min_confidence=min_confidence,
        )

    # --- changes: each publishes one generation, or nothing -------------------------------------

    def connect_server(
        self, name: str, tools: Iterable[Tool] | Mapping[str, Any], *, summary: str | None = None
    ) -> None:
        """Add an MCP server, or replace its tools (as :meth:`DiscoverySession.connect_server`).

        Raises:
            DuplicateToolError: a tool's canonical name belongs to another source.
            ToolDefinitionError: a raw tool definition is invalid; nothing changes.
            TypeError, ValueError: a bad name, summary or tool list.

        Example: ``catalog.connect_server("github", {"tools": [...]}, summary="GitHub")``.
        """
        _check_server_name(name, "connect_server")
        if summary is not None:
            _check_summary(summary, "connect_server() summary")
        self._core.connect_server(name, tools, summary)

    def replace_server(
        self, name: str, tools: Iterable[Tool] | Mapping[str, Any], *, summary: str | None = None
    ) -> None:
        """Replace the tools of a connected server (its ``tools/list_changed`` notification).

        Raises:
            ValueError: the server is not connected (use :meth:`connect_server`).
            (and :meth:`connect_server`'s errors)

        Example: ``catalog.replace_server("github", new_tools_list)``.
        """
        _check_server_name(name, "replace_server")
        if name not in self._core.current.servers:
            raise ValueError(
                f"Server {name!r} is not connected: add it with connect_server({name!r}, tools)."
            )
        self.connect_server(name, tools, summary=summary)

    def disconnect_server(self, name: str) -> None:
        """Remove an MCP server and its tools; an unknown server is ignored.

        Example: ``catalog.disconnect_server("github")``.
        """
        _check_server_name(name, "disconnect_server")
        self._core.disconnect_server(name)

    def add_tools(self, tools: Iterable[Tool], *, source: ToolSource = "builtin") -> None:
        """Add built-in, extension or custom tools (as :meth:`DiscoverySession.add_tools`).

        Example: ``catalog.add_tools([Tool(name="deploy")], source="extension")``.
        """
        if source not in ("builtin", "extension", "custom"):
            raise ValueError(
                f"source must be 'builtin', 'extension' or 'custom', got {source!r} "
                "(MCP tools join through connect_server)"
            )
        checked = _check_tools(tools, "add_tools() tools")
        for tool in checked:
            if tool.server is not None:
                raise ValueError(
                    f"Tool {tool.name!r} is a tool of MCP server {tool.server!r}: MCP tools join "
                    f"through connect_server({tool.server!r}, tools), not add_tools."
                )
        if checked:
            self._core.add_tools(checked, source)

    def remove_tools(self, names: Iterable[str]) -> None:
        """Remove non-MCP tools by canonical name; unknown names are ignored.

        Example: ``catalog.remove_tools(["deploy"])``.
        """
        self._core.remove_tools(_check_names(names, "remove_tools() names"))

    # --- the same on a worker thread, for asyncio gateways ---------------------------------------

    async def aconnect_server(
        self, name: str, tools: Iterable[Tool] | Mapping[str, Any], *, summary: str | None = None
    ) -> None:
        """:meth:`connect_server` on a worker thread: the event loop never waits for the index
        update (the Rust engine builds without the GIL)."""
        await asyncio.to_thread(self.connect_server, name, tools, summary=summary)

    async def areplace_server(
        self, name: str, tools: Iterable[Tool] | Mapping[str, Any], *, summary: str | None = None
    ) -> None:
        """:meth:`replace_server` on a worker thread."""
        await asyncio.to_thread(self.replace_server, name, tools, summary=summary)

    async def adisconnect_server(self, name: str) -> None:
        """:meth:`disconnect_server` on a worker thread."""
        await asyncio.to_thread(self.disconnect_server, name)

    async def aadd_tools(self, tools: Iterable[Tool], *, source: ToolSource = "builtin") -> None:
        """:meth:`add_tools` on a worker thread."""
        await asyncio.to_thread(self.add_tools, tools, source=source)

    async def aremove_tools(self, names: Iterable[str]) -> None:
        """:meth:`remove_tools` on a worker thread."""
        await asyncio.to_thread(self.remove_tools, names)
