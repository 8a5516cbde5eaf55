"""The catalogue state of a :class:`~toolsift.DiscoverySession`: which tools it holds, by source,
and which of them its discovery mode hides.

A tool is hidden when the mode in force makes it hideable (``"all"``: every tool; ``"mcp-only"``:
MCP tools; ``"off"``: none), it is not always available, and discovery has not activated it.
``"auto"`` resolves to ``"all"`` while the hideable tools exceed its budgets (``AUTO_MAX_TOOLS``
tools or ``AUTO_MAX_TOKENS`` schema tokens), else to ``"off"``; it is decided once per catalogue
change. Every change of state happens under the session's lock and bumps its generation.

Example:
    >>> from toolsift import DiscoverySession, Tool
    >>> session = DiscoverySession([Tool(name="read"), Tool(name="deploy")], mode="auto")
    >>> session.effective_mode, [t.name for t in session.hidden_tools]
    ('off', [])
    >>> session.set_mode("all")
    >>> [t.name for t in session.visible_tools], [t.name for t in session.hidden_tools]
    (['read'], ['deploy'])
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from ..errors import DuplicateToolError
from ..tokens import tool_tokens
from ..tools import Tool
from .checks import (
    _as_tools,
    _check_always,
    _check_budget,
    _check_flag,
    _check_mode,
    _check_names,
    _check_server_name,
    _check_summaries,
    _check_summary,
    _check_tools,
)

DiscoveryMode = Literal["off", "all", "mcp-only", "auto"]
ToolSource = Literal["builtin", "mcp", "extension", "custom"]

#: ``search_tool_bm25``'s essential built-ins: never hidden unless ``always_available``
#: says otherwise.
DEFAULT_ALWAYS_AVAILABLE = ("read", "bash", "edit")
#: Auto mode's default thresholds: discovery turns on above 40 tools or 16,000 schema tokens.
AUTO_MAX_TOOLS = 40
AUTO_MAX_TOKENS = 16_000
#: How many activations of tools the session no longer has are remembered (at least; the
#: catalogue's size if larger), so that they survive a reconnect; older ones are forgotten.
KEEP_GONE_ACTIVATIONS = 10_000

_SOURCES = ("builtin", "mcp", "extension", "custom")


class _Entry:
    """A tool as a session or catalogue holds it: where it came from, whether it is always
    available (never hidden), and its schema tokens, counted on first use. Counting serialises
    the tool's JSON (about 35 µs a tool); only auto mode's token threshold (read when the
    hideable tools are within its tool threshold) and ``schema_tokens()`` need it."""

    __slots__ = ("tool", "source", "always", "_tokens")

    def __init__(self, tool: Tool, source: ToolSource, always: bool) -> None:
        self.tool = tool
        self.source: ToolSource = source
        self.always = always
        self._tokens: int | None = None

    @property
    def tokens(self) -> int:
        """The heuristic schema tokens of the tool (:func:`toolsift.tokens.tool_tokens`)."""
        tokens = self._tokens
        if tokens is None:  # benign race: two threads store the same count
            tokens = self._tokens = tool_tokens(self.tool)
        return tokens


class _SessionState:
    """The catalogue, mode and activations of a session; :class:`~toolsift.DiscoverySession`
    adds configuration and search on top.

    The arguments are :class:`~toolsift.DiscoverySession`'s (which checks ``mode``); every one
    is checked before the session changes.
    """

    def __init__(
        self,
        tools: Iterable[Tool],
        *,
        mode: DiscoveryMode,
        mcp_discovery: bool,
        always_available: Iterable[str],
        summaries: Mapping[str, str] | None,
        auto_max_tools: int,
        auto_max_tokens: int,
    ) -> None:
        tools = _check_tools(tools, "tools")
        self._lock = threading.RLock()  # guards every field of the session
        self._mode: DiscoveryMode = mode
        self._mcp_discovery = _check_flag(mcp_discovery, "mcp_discovery")
        self._always = _check_always(always_available)
        self._auto_max_tools = _check_budget(auto_max_tools, "auto_max_tools")
        self._auto_max_tokens = _check_budget(auto_max_tokens, "auto_max_tokens")
        self._entries: dict[str, _Entry] = {}
        self._servers: dict[str, tuple[str, ...]] = {}
        self._summaries: dict[str, str] = _check_summaries(summaries)
        self._selected: dict[str, None] = {}  # every name discovery activated, in order
        self._generation = 0
        self._catalog_generation = 0
        self._auto_over = False  # more hideable tools or schema tokens than auto mode allows
        by_server: dict[str, list[Tool]] = {}
        builtins: list[Tool] = []
        for tool in tools:
            if tool.server is None:
                builtins.append(tool)
            else:
                by_server.setdefault(tool.server, []).append(tool)
        self.add_tools(builtins)
        for server, server_tools in by_server.items():
            self.connect_server(server, server_tools)

    # --- configuration -------------------------------------------------------------------------

    @property
    def mode(self) -> DiscoveryMode:
        """The configured mode (see :attr:`effective_mode` for what is in force)."""
        return self._mode

    def set_mode(self, mode: DiscoveryMode, *, mcp_discovery: bool | None = None) -> None:
        """Change the discovery mode (and the legacy MCP flag) while the session runs.

        Activations are kept. Example: ``session.set_mode("mcp-only")``.

        Raises:
            ValueError: an unknown mode.
            TypeError: ``mcp_discovery`` is not ``True``, ``False`` or ``None`` (keep it).
        """
        _check_mode(mode)
        if mcp_discovery is not None:
            _check_flag(mcp_discovery, "mcp_discovery")
        with self._lock:
            self._mode = mode
            if mcp_discovery is not None:
                self._mcp_discovery = mcp_discovery
            self._changed(catalog=True)

    @property
    def effective_mode(self) -> Literal["off", "all", "mcp-only"]:
        """The mode in force: ``"auto"`` and the legacy flag resolved."""
        with self._lock:
            return self._effective_mode()

    @property
    def enabled(self) -> bool:
        """Whether discovery is on, i.e. the meta-tool is offered and searching works."""
        return self.effective_mode != "off"

    @property
    def generation(self) -> int:
        """A counter bumped by every change of the hidden corpus (tools, mode, activation)."""
        return self._generation

    @property
    def catalog_generation(self) -> int:
        """A counter bumped by every change of the catalogue or mode, but not by activation."""
        return self._catalog_generation

    # --- sources -------------------------------------------------------------------------------

    def add_tools(self, tools: Iterable[Tool], *, source: ToolSource = "builtin") -> None:
        """Add built-in, extension or custom tools.

        Raises:
            DuplicateToolError: a tool name is already in the session.
            TypeError: ``tools`` is not a list of :class:`Tool` objects.
            ValueError: ``source`` is ``"mcp"``, or a tool has a ``server`` (MCP tools join
                through :meth:`connect_server`).

        Example: ``session.add_tools([Tool(name="deploy")], source="extension")``.
        """
        if source not in _SOURCES or source == "mcp":
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
        entries = [self._entry(t, source) for t in checked]
        if not entries:
            return
        with self._lock:
            self._check_new([e.tool for e in entries], replacing=())
            for entry in entries:
                self._entries[entry.tool.name] = entry
            self._changed(catalog=True)

    def remove_tools(self, names: Iterable[str]) -> None:
        """Remove non-MCP tools by canonical name; unknown names are ignored.

        Raises:
            TypeError: ``names`` is not a name or a list of names.
        """
        checked = _check_names(names, "remove_tools() names")
        with self._lock:
            removed = False
            for name in checked:
                entry = self._entries.get(name)
                if entry is not None and entry.source != "mcp":
                    del self._entries[name]
                    removed = True
            if removed:
                self._changed(catalog=True)

    def connect_server(
        self, name: str, tools: Iterable[Tool] | Mapping[str, Any], *, summary: str | None = None
    ) -> None:
        """Add an MCP server, or replace its tools when it sends a changed tool list.

        Arguments:
            name: the server name as configured.
            tools: its tools: :class:`Tool` objects of this server, or the raw ``tools/list``
                result (``{"tools": [...]}``) or its list, converted with
                :func:`toolsift.loaders.from_mcp`; the MCP SDK's ``ListToolsResult`` and
                ``Tool`` objects and FastMCP tools are taken as they are.
            summary: a one-line summary for the meta-tool description; kept if omitted.

        Activations are kept by name: a tool that disappears and comes back is active again.

        Raises:
            DuplicateToolError: a tool's canonical name belongs to another source.
            ToolDefinitionError: a raw tool definition is invalid.
            TypeError: ``name`` or ``summary`` is not a string, or ``tools`` is neither.
            ValueError: ``name`` is empty, or a :class:`Tool` belongs to another server.

        Example: ``session.connect_server("github", {"tools": [...]}, summary="GitHub")``.
        """
        _check_server_name(name, "connect_server")
        if summary is not None:
            _check_summary(summary, "connect_server() summary")
        server_tools = _as_tools(tools, name)
        entries = [self._entry(t, "mcp") for t in server_tools]
        with self._lock:
            old = self._servers.get(name, ())
            self._check_new(server_tools, replacing=old)
            for tool_name in old:
                del self._entries[tool_name]
            for entry in entries:
                self._entries[entry.tool.name] = entry
            self._servers[name] = tuple(t.name for t in server_tools)
            if summary is not None:
                self._summaries[name] = summary
            self._changed(catalog=True)

    def disconnect_server(self, name: str) -> None:
        """Remove an MCP server and its tools; an unknown server is ignored.

        Raises:
            TypeError: ``name`` is not a string.
            ValueError: ``name`` is empty.
        """
        _check_server_name(name, "disconnect_server")
        with self._lock:
            names = self._servers.pop(name, None)
            if names is None:
                return
            for tool_name in names:
                del self._entries[tool_name]
            self._changed(catalog=True)

    # --- views ---------------------------------------------------------------------------------

    @property
    def tools(self) -> tuple[Tool, ...]:
        """Every tool of the session, hidden or not, in the order they joined."""
        with self._lock:
            return tuple(e.tool for e in self._entries.values())

    @property
    def visible_tools(self) -> tuple[Tool, ...]:
        """The tools to send to the model now: always-available, not hideable, or activated."""
        with self._lock:
            hidden = self._hidden_names()
            return tuple(e.tool for n, e in self._entries.items() if n not in hidden)

    @property
    def hidden_tools(self) -> tuple[Tool, ...]:
        """The tools discovery hides now: the corpus the meta-tool searches."""
        with self._lock:
            hidden = self._hidden_names()
            return tuple(e.tool for n, e in self._entries.items() if n in hidden)

    @property
    def selected(self) -> tuple[str, ...]:
        """Names activated by discovery and loaded now, in activation order."""
        with self._lock:
            return tuple(n for n in self._selected if n in self._entries)

    def discoverable_tools(self) -> tuple[Tool, ...]:
        """The tools the mode makes discoverable, active or not: the catalogue that the
        meta-tool description lists. It changes with the catalogue and mode, never with
        activation, so the description stays byte-identical for the prompt cache."""
        with self._lock:
            return tuple(e.tool for e in self._entries.values() if self._hideable(e))

    def server_summaries(self) -> dict[str, str]:
        """The known one-line summaries of servers, by server name."""
        with self._lock:
            return dict(self._summaries)

    def _description_state(self) -> tuple[tuple[Tool, ...], dict[str, str]]:
        """:meth:`discoverable_tools` and :meth:`server_summaries` of one state, for the
        meta-tool description: a server that reconnects between the two reads would otherwise
        pair its old tools with its new summary."""
        with self._lock:
            return self.discoverable_tools(), self.server_summaries()

    def schema_tokens(self, tools: Iterable[Tool] | None = None) -> int:
        """Heuristic tokens (:mod:`toolsift.tokens`) of the schemas of ``tools`` (default: all).

        Raises:
            TypeError: ``tools`` is not ``None`` or a list of :class:`Tool` objects.
        """
        if tools is not None:
            tools = _check_tools(tools, "schema_tokens() tools")
        with self._lock:
            if tools is None:
                return sum(e.tokens for e in self._entries.values())
            return sum(
                e.tokens if (e := self._entries.get(t.name)) is not None else tool_tokens(t)
                for t in tools
            )

    # --- activation ----------------------------------------------------------------------------

    def activate(self, names: Iterable[str]) -> tuple[str, ...]:
        """Activate tools by canonical name for the rest of the session; idempotent.

        Names that are unknown, or already visible, are ignored.

        Returns:
            The names this call activated, in the order given.

        Raises:
            TypeError: ``names`` is not a name or a list of names.

        Example: ``session.activate(["mcp__github__create_issue"])``.
        """
        checked = _check_names(names, "activate() names")
        with self._lock:
            hidden = self._hidden_names()
            new = tuple(dict.fromkeys(n for n in checked if n in hidden))
            for name in new:
                self._selected[name] = None
            if new:
                self._changed(catalog=False)
            return new

    # --- internals (call with the lock held) ---------------------------------------------------

    def _check_new(self, tools: list[Tool], replacing: Iterable[str]) -> None:
        replaced = set(replacing)
        seen: set[str] = set()
        for tool in tools:
            if not isinstance(tool, Tool):
                raise TypeError(f"expected a toolsift.Tool, got {type(tool).__name__}")
            name = tool.name
            if name in seen or (name in self._entries and name not in replaced):
                raise DuplicateToolError(
                    f"Duplicate tool name {name!r}: a session holds each canonical name once.",
                    tool=name,
                    field="name",
                )
            seen.add(name)

    def _changed(self, *, catalog: bool) -> None:
        self._generation += 1
        if catalog:
            self._catalog_generation += 1
            self._forget_old_activations()
            # What "auto" resolves to depends on the catalogue only: decide it once per change.
            candidates = [e for e in self._entries.values() if not e.always]
            self._auto_over = len(candidates) > self._auto_max_tools or (
                sum(e.tokens for e in candidates) > self._auto_max_tokens
            )

    def _forget_old_activations(self) -> None:
        """Drop the oldest activations of tools the session no longer has, past
        ``max(KEEP_GONE_ACTIVATIONS, catalogue size)`` of them.

        Activation lasts across reconnects, so the names of gone tools are kept; but a server
        that comes back with new tool names every time would grow the list without end, and
        every search reads it (320k names: 39 ms a search). Called on catalogue changes only,
        with the lock held: the snapshots' count of activations (``_activated_since``) is then
        void anyway.
        """
        selected, entries = self._selected, self._entries
        gone = len(selected) - sum(1 for name in selected if name in entries)
        extra = gone - max(KEEP_GONE_ACTIVATIONS, len(entries))
        if extra <= 0:
            return
        for name in [n for n in selected if n not in entries][:extra]:
            del selected[name]

    def _entry(self, tool: Tool, source: ToolSource) -> _Entry:
        always = self._always
        is_always = bool(always) and (
            (tool.server is not None and tool.server in always)
            or any(alias in always for alias in tool.aliases())
        )
        return _Entry(tool, source, is_always)

    def _effective_mode(self) -> Literal["off", "all", "mcp-only"]:
        mode = self._mode
        if mode == "auto":
            mode = "all" if self._auto_over else "off"
        if mode == "off":
            return "mcp-only" if self._mcp_discovery else "off"
        return mode

    def _hideable(self, entry: _Entry, mode: str | None = None) -> bool:
        mode = mode or self._effective_mode()
        if mode == "off" or (mode == "mcp-only" and entry.source != "mcp"):
            return False
        return not entry.always

    def _is_active(self, name: str, mode: str) -> bool:
        """Whether the tool ``name`` (present in the session) is visible to the model."""
        return name in self._selected or not self._hideable(self._entries[name], mode)

    def _hidden_names(self) -> frozenset[str]:
        mode = self._effective_mode()
        if mode == "off":
            return frozenset()
        selected = self._selected
        return frozenset(
            n for n, e in self._entries.items() if n not in selected and self._hideable(e, mode)
        )
