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
import threading
from collections.abc import Iterable, Mapping
from typing import Any, cast

from ._session.generation import CatalogCore, Generation
from ._session.snapshot import _Ranked, _Snapshot
from ._session.state import (
    AUTO_MAX_TOKENS,
    AUTO_MAX_TOOLS,
    DEFAULT_ALWAYS_AVAILABLE,
    DiscoveryMode,
    ToolSource,
    _check_always,
    _check_budget,
    _check_flag,
    _check_mode,
    _check_names,
    _check_server_name,
    _check_summaries,
    _check_summary,
    _check_tools,
    _Entry,
)
from ._text.analysis import DEFAULT_PROFILE, ProfileName, check_profile
from ._text.documents import FieldWeights, check_field_weights
from .config import ToolSearchConfig
from .errors import DiscoveryError, ProfileError
from .index import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_LIMIT,
    DEFAULT_PREFIX_FRACTION,
    EngineName,
    ToolIndex,
)
from .query import DEFAULT_MAX_QUERY_LENGTH, parse_query
from .session import META_TOOL_NAME, DiscoverySession, _check_limits, _session_arguments
from .tools import Tool

__all__ = ["Catalog"]

_DEFAULT_ALWAYS = frozenset(DEFAULT_ALWAYS_AVAILABLE)
#: A view searches once for fresh and already-active matches together while it has at most this
#: many visible tools (``limit`` plus them, then split); above, two searches, one excluding them.
_SPLIT_AT_MOST = 32


class Catalog:
    """An immutable-by-generation tool catalogue shared by many :class:`DiscoverySession` views.

    Arguments:
        tools: initial tools; one with a ``server`` joins that MCP server.
        servers: initial MCP servers: server name to its tools (:class:`Tool` objects of that
            server, or the raw ``tools/list`` result or its list).
        summaries: one-line summaries of servers, by name, for the meta-tool description.
        engine, profile, field_weights: the index's (see :class:`~toolsift.ToolIndex`).

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
    ) -> None:
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
        config: ToolSearchConfig | None = None,
    ) -> DiscoverySession:
        """A new discovery session over this catalogue: a view with its own mode, options and
        activations, and no index of its own (unless ``rebuild_on_activation``).

        The arguments are :class:`DiscoverySession`'s (``config`` included: its settings apply
        unless the corresponding argument is given); the analysis profile is the catalogue's.
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
            mode, always_available, profile, default_limit, max_limit, threshold, meta_tool_name = (
                _session_arguments(config, given)
            )
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


_VIEW_MESSAGE = (
    "This session is a view of a shared toolsift.Catalog: change the catalogue instead "
    "(catalog.{method}(...)); every session of it sees the change at its next search."
)


class _SyncLock:
    """The view's state lock: a re-entrant lock that, when first taken, brings the view up to
    the catalogue's current generation, so that one locked section sees one generation."""

    __slots__ = ("_lock", "_depth", "_sync")

    def __init__(self, sync: Any) -> None:
        self._lock = threading.RLock()
        self._depth = 0
        self._sync = sync

    def __enter__(self) -> _SyncLock:
        self._lock.acquire()
        self._depth += 1
        if self._depth == 1:
            try:
                self._sync()
            except BaseException:
                self._depth -= 1
                self._lock.release()
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        self._lock.release()


class _CatalogSession(DiscoverySession):
    """A :class:`DiscoverySession` that is a view of a :class:`Catalog` (see the module)."""

    def __init__(  # noqa: PLR0913 - DiscoverySession's session options
        self,
        core: CatalogCore,
        *,
        mode: DiscoveryMode,
        mcp_discovery: bool,
        always_available: Iterable[str],
        auto_max_tools: int,
        auto_max_tokens: int,
        meta_tool_name: str,
        rebuild_on_activation: bool,
        limits: tuple[int, int, float],
    ) -> None:
        # Not DiscoverySession.__init__: a view checks its options and shares everything else.
        default_limit, max_limit, threshold = limits
        _check_limits(default_limit, max_limit, threshold)
        self.default_limit = default_limit
        self.max_limit = max_limit
        self.threshold = float(threshold)
        _check_mode(mode)
        if not isinstance(meta_tool_name, str):
            raise TypeError(f"meta_tool_name must be a str, got {type(meta_tool_name).__name__}.")
        if not meta_tool_name:
            raise ValueError("meta_tool_name must not be empty.")
        self._core = core
        self._mode: DiscoveryMode = mode
        self._mcp_discovery = _check_flag(mcp_discovery, "mcp_discovery")
        self._always = (
            _DEFAULT_ALWAYS
            if always_available is DEFAULT_ALWAYS_AVAILABLE
            else _check_always(always_available)
        )
        self._auto_max_tools = _check_budget(auto_max_tools, "auto_max_tools")
        self._auto_max_tokens = _check_budget(auto_max_tokens, "auto_max_tokens")
        self._rebuild_on_activation = _check_flag(rebuild_on_activation, "rebuild_on_activation")
        self.meta_tool_name = meta_tool_name
        self._selected: dict[str, None] = {}
        self._generation = 0
        self._catalog_generation = 0
        self._gen: Generation | None = None
        self._visible: tuple[int, frozenset[str]] | None = None  # (session generation, names)
        self._request: tuple[Any, ...] | None = None  # see _excluding
        self._snapshot: _Snapshot | None = None
        self._builds = 0
        self._provider_names: tuple[int, dict[str, str]] | None = None  # unused: see find_tool
        self._lock = _SyncLock(self._sync)  # type: ignore[assignment]
        self._build_lock = threading.Lock()
        with self._lock:  # adopts the current generation
            pass

    # --- the catalogue's generation ---------------------------------------------------------

    def _sync(self) -> None:
        """Adopt the catalogue's current generation if it moved (with the lock held)."""
        gen = self._core.current
        if gen is self._gen:
            return
        self._gen = gen
        self._entries = gen.entries  # type: ignore[assignment]  # shared, never written
        self._servers = gen.servers  # type: ignore[assignment]
        self._summaries = gen.summaries  # type: ignore[assignment]
        index = gen.index
        self._engine = cast(EngineName, index.engine)  # the resolved engine, "rust" or "python"
        self._profile, self._field_weights = index.profile, index.field_weights
        self._always_names, always_tokens = gen.always_names(self._always)
        self._auto_over = (
            len(gen.entries) - len(self._always_names) > self._auto_max_tools
            or gen.tokens - always_tokens > self._auto_max_tokens
        )
        self._changed(catalog=True)

    def _changed(self, *, catalog: bool) -> None:
        self._generation += 1
        if catalog:
            self._catalog_generation += 1
            if self._selected:
                self._forget_old_activations()

    def _hideable(self, entry: _Entry, mode: str | None = None) -> bool:
        mode = mode or self._effective_mode()
        if mode == "off" or (mode == "mcp-only" and entry.source != "mcp"):
            return False
        return entry.tool.name not in self._always_names

    @property
    def generation(self) -> int:
        """A counter bumped by every change of the hidden corpus (tools, mode, activation)."""
        with self._lock:
            return self._generation

    @property
    def catalog_generation(self) -> int:
        """A counter bumped by every change of the catalogue or mode, but not by activation."""
        with self._lock:
            return self._catalog_generation

    # --- search --------------------------------------------------------------------------------

    def _ready(self) -> bool:
        return not self._rebuild_on_activation or super()._ready()

    def _base_index(self, previous: _Snapshot | None) -> ToolIndex | None:
        # Exact scores: this session's index is the shared one less its visible tools.
        gen = self._gen
        return gen.index if gen is not None else None

    def _visible_names(self) -> frozenset[str]:
        """The tools of the generation the model sees now (with the lock held): left out of
        the search; cached until the session's generation moves."""
        cached = self._visible
        if cached is not None and cached[0] == self._generation:
            return cached[1]
        assert self._gen is not None
        mode = self._effective_mode()
        visible = self._always_names
        if mode == "mcp-only":
            visible = visible | self._gen.non_mcp_names()
        entries = self._entries
        visible = visible.union(n for n in self._selected if n in entries)
        self._visible = (self._generation, visible)
        return visible

    def _rank(self, query: str, limit: int, options: dict[str, Any]) -> _Ranked:
        if self._rebuild_on_activation:
            return super()._rank(query, limit, options)
        with self._lock:
            self._check_enabled()
            gen = self._gen
            visible = self._visible_names()
        assert gen is not None
        index = gen.index
        total = len(index) - len(visible)
        cap, ranker = options["max_limit"], options["ranker"]
        if ranker == "bm25" and "threshold" not in options and len(visible) <= _SPLIT_AT_MOST:
            # One search of `limit` more than the visible tools, nothing excluded, split: the
            # hidden ones are the top `limit` of the search that excludes the visible ones
            # (scores do not depend on exclusion), the visible ones in its top `limit` are
            # already active.
            wide = limit + len(visible)
            if wide <= DEFAULT_MAX_LIMIT:
                result, used = index.search(query, wide), DEFAULT_MAX_LIMIT  # the one-call path
            else:
                result, used = index.search(query, wide, max_limit=wide), wide
            if result.query_kind == "select":
                if used != cap:  # select: returns up to max_limit names: the session's
                    result = index.search(query, limit, max_limit=cap)
                fresh = [m for m in result if m.tool.name not in visible]
                return _Ranked(result, fresh, list(result), None, total)
            fresh = [m for m in result if m.tool.name not in visible][:limit]
            return _Ranked(result, fresh, list(result)[:limit], None, total)
        if ranker == "regex":
            result = index.search(query, limit, exclude=visible, **options)
        else:  # the visible tools' ids are resolved once per session state, not per search
            request = self._excluding(index, visible, limit, options)
            result = index._searcher.search_one(parse_query(query), request)  # noqa: SLF001
        ranked = list(result)
        if visible and result.query_kind == "keyword":
            ranked = list(index.search(query, limit, **options))
        return _Ranked(result, list(result), ranked, None, total)

    def _excluding(
        self, index: ToolIndex, visible: frozenset[str], limit: int, options: dict[str, Any]
    ) -> Any:
        """The validated search request that leaves ``visible`` out of ``index``: cached
        until the index, the visible set (a new object when the session's state moves) or the
        options change."""
        key = (limit, options["ranker"], options["max_limit"], options.get("threshold", 0.0))
        cached = self._request
        if cached is not None and cached[0] is index and cached[1] is visible and cached[2] == key:
            return cached[3]
        request = index._searcher.request(  # noqa: SLF001 - ToolIndex.search's own request
            limit, visible, None, key[1], True, DEFAULT_PREFIX_FRACTION, 3, 16, key[3], 0.0,
            False, False, key[2], DEFAULT_MAX_QUERY_LENGTH,
        )  # fmt: skip
        self._request = (index, visible, key, request)
        return request

    def find_tool(self, name: str) -> Tool | None:
        """The tool a call names (as :meth:`DiscoverySession.resolve` reads it), or ``None``:
        looked up in the generation's name table, shared by every session of the catalogue."""
        with self._lock:
            gen = self._gen
        assert gen is not None
        entry = gen.entries.get(name)
        if entry is not None:
            return entry.tool
        canonical = gen.provider_names().get(name)
        return gen.entries[canonical].tool if canonical is not None else None

    # --- the catalogue is changed through the Catalog ---------------------------------------

    def add_tools(self, tools: Iterable[Tool], *, source: ToolSource = "builtin") -> None:
        raise DiscoveryError(_VIEW_MESSAGE.format(method="add_tools"))

    def remove_tools(self, names: Iterable[str]) -> None:
        raise DiscoveryError(_VIEW_MESSAGE.format(method="remove_tools"))

    def connect_server(
        self, name: str, tools: Iterable[Tool] | Mapping[str, Any], *, summary: str | None = None
    ) -> None:
        raise DiscoveryError(_VIEW_MESSAGE.format(method="connect_server"))

    def disconnect_server(self, name: str) -> None:
        raise DiscoveryError(_VIEW_MESSAGE.format(method="disconnect_server"))
