"""The toolsift MCP gateway: one MCP server in front of the servers of an ``mcpServers`` config.

Clients connect over stdio or Streamable HTTP and see, in ``activate`` style, the search
meta-tool (``search_tool_bm25``, the ``content`` JSON of :func:`toolsift.metatool.call_meta_tool`)
plus the tools that *their* session made active: a search activates its matches for that client,
sends it ``notifications/tools/list_changed``, and ``tools/list`` then lists them under their
canonical ``mcp__server__tool`` names. In ``search-and-call`` style the client sees FastMCP's
search-transform surface: ``search_tools`` (the matches' definitions) and ``call_tool``.

Calls are routed to the downstream server by canonical name; the execution gate refuses a tool
the client never activated or selected (``gate = false`` turns it off), and a search over the
client's rate limit is refused. A downstream ``tools/list_changed`` updates the catalogue live;
a downstream server that is down or hangs fails the call with a tool error naming it while the
others keep serving.

Example:
    >>> from toolsift.config import GatewayConfig, ServerConfig, ToolSearchConfig
    >>> config = GatewayConfig((ServerConfig("time", command="mcp-server-time"),),
    ...                        ToolSearchConfig())
    >>> Gateway(config).mcp.name
    'toolsift'
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import mcp_types
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.context import Context
from fastmcp.server.dependencies import get_context
from fastmcp.server.middleware import Middleware
from fastmcp.server.providers import Provider
from fastmcp.tools.base import Tool as FastMCPTool
from fastmcp.tools.base import ToolResult
from pydantic import PrivateAttr

from ..config import GatewayConfig, ToolSearchConfig
from ..contract import dumps
from ..errors import ConfigError, ToolsiftError
from ..loaders import from_mcp
from ..metatool import call_meta_tool, meta_tool, regex_meta_tool
from ..tools import Tool
from .downstream import Downstream, DownstreamError
from .limits import gate_message, rate_limit_message
from .sessions import SHARED_CLIENT, ClientState, SessionRegistry

__all__ = ["Gateway", "SEARCH_TOOLS", "CALL_TOOL"]

#: The tool names of the ``search-and-call`` style (FastMCP's search transforms' names).
SEARCH_TOOLS, CALL_TOOL = "search_tools", "call_tool"
#: How long startup waits for the downstream servers' first tool lists (seconds).
STARTUP_WAIT = 30.0


class _GatewayTool(FastMCPTool):
    """A tool whose call the gateway handles (a downstream tool, or a synthetic one)."""

    _handler: Any = PrivateAttr(default=None)

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return await self._handler(self.name, arguments)


def _tool(name: str, description: str, schema: dict[str, Any], handler: Any, **extra: Any) -> Any:
    tool = _GatewayTool(name=name, description=description, parameters=schema, **extra)
    tool._handler = handler
    return tool


class _CatalogProvider(Provider):
    """The gateway's tools for FastMCP: ``tools/list`` gets the tools the current client may
    see (the search tools and its listed tools), a call looks any tool up by name in O(1)."""

    def __init__(self, gateway: Gateway) -> None:
        super().__init__()
        self.gateway = gateway
        self.tools: dict[str, Any] = {}
        self.synthetic: dict[str, Any] = {}

    async def _list_tools(self) -> list[Any]:
        gateway = self.gateway
        listed = gateway.listed(gateway.client())
        tools = self.tools
        return [*self.synthetic.values(), *(tools[n] for n in listed if n in tools)]

    async def _get_tool(self, name: str, version: Any = None) -> Any:
        found = self.synthetic.get(name) or self.tools.get(name)
        if found is None:  # another name of a tool: raw, server/tool, provider alias
            tool = self.gateway.registry.find(name)
            found = self.tools.get(tool.name) if tool is not None else None
        return found


def _client_key(ctx: Context | None) -> str:
    """Which client a request comes from: its MCP session (or, on the sessionless 2026-07-28
    protocol, the authenticated user or, on stdio, the process, which serves one client)."""
    if ctx is None:
        return SHARED_CLIENT
    scope = getattr(ctx, "_session_scope_key", None)
    try:
        key = scope() if callable(scope) else ctx.session_id
    except Exception:  # no session (outside a request)
        return SHARED_CLIENT
    # None: a sessionless HTTP request without authentication; nothing tells such clients
    # apart, so they share one state.
    return str(key) if key else SHARED_CLIENT


async def _search(state: ClientState, arguments: dict[str, Any], ranker: str = "bm25") -> Any:
    """The meta-tool call in a worker thread (the session is thread-safe): a first search that
    builds a large index does not hold up the other clients and the downstream connections."""
    try:
        return await asyncio.to_thread(
            call_meta_tool,
            state.session,
            arguments,
            ranker=ranker,  # type: ignore[arg-type]
        )
    except ToolsiftError as exc:
        raise ToolError(str(exc)) from None


def _text(text: str, *, error: bool = False) -> ToolResult:
    return ToolResult(content=[mcp_types.TextContent(type="text", text=text)], is_error=error)


class Gateway:
    """The gateway: downstream connections, the per-client sessions, and the FastMCP server.

    Arguments:
        config: the downstream servers and the ``tool_search`` settings.
        name: the server name the gateway reports to its clients.

    Attributes:
        mcp: the FastMCP server; run it with ``gateway.mcp.run(transport="stdio")`` (or
            ``"http"``), or :meth:`run`.
        registry: the per-client discovery sessions.
    """

    def __init__(self, config: GatewayConfig, *, name: str = "toolsift") -> None:
        self.config = config
        self.settings = config.tool_search
        self.registry = SessionRegistry(self.settings)
        self.downstreams = {
            s.name: Downstream(s, self._on_tools, self.settings.call_timeout)
            for s in config.servers
        }
        self._registered: dict[str, tuple[str, ...]] = {}
        self._changes = asyncio.Lock()
        self._provider = _CatalogProvider(self)
        self.mcp: FastMCP[Any] = FastMCP(name, lifespan=self._lifespan)
        self.mcp.add_provider(self._provider)
        self.mcp.add_middleware(_GatewayMiddleware(self))
        self._register_synthetic()

    # --- lifecycle -----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _lifespan(self, _server: Any) -> AsyncIterator[dict[str, Any]]:
        await self.start()
        try:
            yield {}
        finally:
            await self.stop()

    async def start(self, wait: float = STARTUP_WAIT) -> None:
        """Connect to every downstream server and wait (up to ``wait`` s) for their tools."""
        for downstream in self.downstreams.values():
            downstream.start()
        await asyncio.gather(*(d.wait_ready(wait) for d in self.downstreams.values()))

    async def stop(self) -> None:
        await asyncio.gather(*(d.stop() for d in self.downstreams.values()))

    def run(self, transport: str = "stdio", **options: Any) -> None:
        """Serve until interrupted: ``"stdio"``, or ``"http"`` with ``host`` and ``port``."""
        self.mcp.run(transport=transport, show_banner=False, **options)  # type: ignore[arg-type]

    # --- the catalogue -------------------------------------------------------------------------

    async def _on_tools(self, server: str, tools: list[Any] | None) -> None:
        """A downstream server listed its tools (``None``: it went away; its tools stay listed
        and their calls fail until it is back)."""
        if tools is None:
            return
        converted = from_mcp(tools, server)
        async with self._changes:
            if self.registry.catalog.get(server) == tuple(converted):
                return
            registry = self._provider.tools
            for old in self._registered.get(server, ()):
                registry.pop(old, None)
            for tool in converted:
                registry[tool.name] = _tool(
                    tool.name,
                    tool.description,
                    dict(tool.to_mcp()["inputSchema"]),
                    self._call_downstream,
                    title=tool.title,
                )
            self._registered[server] = tuple(t.name for t in converted)
            self.registry.set_server(server, converted)
            self._register_synthetic()  # the meta-tool description lists the servers
        await self.registry.notify_all()

    def _register_synthetic(self) -> None:
        settings = self.settings
        definition = meta_tool(self.registry.template)
        if settings.style == "activate":
            tools = [
                _tool(
                    definition.name,
                    definition.description,
                    dict(definition.to_mcp()["inputSchema"]),
                    self._search_activate,
                )
            ]
            if settings.regex_tool:
                regex = regex_meta_tool(self.registry.template)
                tools.append(
                    _tool(
                        regex.name,
                        regex.description,
                        dict(regex.to_mcp()["inputSchema"]),
                        self._search_activate_regex,
                    )
                )
        else:
            search_schema = dict(definition.to_mcp()["inputSchema"])
            tools = [
                _tool(
                    SEARCH_TOOLS,
                    "Search for tools by what they do. Returns the matching tool definitions "
                    "(name, description, inputSchema), best first; call one with call_tool. "
                    "`select:NAME` fetches a tool by exact name. When no tool fits the request, "
                    "it says so: rephrase, or go on without a tool.",
                    search_schema,
                    self._search_definitions,
                ),
                _tool(
                    CALL_TOOL,
                    "Call a tool found with search_tools, by its name, with its arguments.",
                    {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "description": "The tool's name."},
                            "arguments": {
                                "type": "object",
                                "description": "The tool's arguments.",
                            },
                        },
                        "required": ["name"],
                    },
                    self._call_proxy,
                ),
            ]
        self._provider.synthetic = {t.name: t for t in tools}

    @property
    def _synthetic(self) -> dict[str, Any]:
        return self._provider.synthetic

    async def apply_settings(self, settings: ToolSearchConfig) -> None:
        """Serve with new ``tool_search`` settings from now on (the dashboard's live settings).

        Every client's session is made again with them (activations are kept), and the
        clients are told their tool list may have changed. ``style`` and ``meta_tool_name``
        shape the tools clients already hold, so they change only with a restart.

        Raises:
            ConfigError: ``settings`` changes ``style`` or ``meta_tool_name``.
        """
        for key in ("style", "meta_tool_name"):
            if getattr(settings, key) != getattr(self.settings, key):
                raise ConfigError(
                    f"tool_search.{key} changes only when the gateway restarts", key=key
                )
        async with self._changes:
            self.settings = settings
            self.config = GatewayConfig(self.config.servers, settings, self.config.path)
            self.registry.reconfigure(settings)
            for downstream in self.downstreams.values():
                downstream.call_timeout = settings.call_timeout
            self._register_synthetic()
        await self.registry.notify_all()

    # --- requests ------------------------------------------------------------------------------

    def client(self, ctx: Context | None = None) -> ClientState:
        """The state of the client of the current request."""
        if ctx is None:
            with contextlib.suppress(RuntimeError):
                ctx = get_context()
        state = self.registry.state(_client_key(ctx))
        if ctx is not None:
            with contextlib.suppress(Exception):
                state.notify = ctx.session
        return state

    def listed(self, state: ClientState) -> list[str]:
        """The downstream tools ``tools/list`` shows this client, in catalogue order."""
        visible = [t.name for t in state.session.visible_tools]
        if self.settings.style == "search-and-call":
            selected = set(state.session.selected)
            visible = [n for n in visible if n not in selected]
        return visible

    def may_call(self, state: ClientState, name: str) -> bool:
        if not self.settings.gate or not state.session.enabled:
            return True
        return name in {t.name for t in state.session.visible_tools}

    def _check_rate(self, state: ClientState) -> None:
        bucket = state.bucket
        if bucket is not None and not bucket.take():
            raise ToolError(rate_limit_message(bucket.limit, bucket.retry_after()))

    async def _search_activate(
        self, _name: str, arguments: dict[str, Any], ranker: str = "bm25"
    ) -> ToolResult:
        ctx = get_context()
        state = self.client(ctx)
        self._check_rate(state)
        call = await _search(state, arguments, ranker)
        state.record(call.result.query, call.result)
        if call.result.activated:
            with contextlib.suppress(Exception):
                await ctx.send_notification(mcp_types.ToolListChangedNotification())
        return _text(call.content)

    async def _search_activate_regex(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """The regex meta-tool (``tool_search_tool_regex``): a pattern activates its matches."""
        return await self._search_activate(name, arguments, "regex")

    async def _search_definitions(self, _name: str, arguments: dict[str, Any]) -> ToolResult:
        state = self.client()
        self._check_rate(state)
        call = await _search(state, arguments)
        state.record(arguments["query"], call.result)
        result = call.result
        if result.abstained:  # nothing fits: say so rather than list weak matches
            return _text(result.message or "")
        # Found tools are never listed in this style: those activated by an earlier search are
        # found again (as are always-available ones that a select: names).
        selected = set(state.session.selected)
        select = result.query_kind == "select"
        again = [m for m in result.already_active_matches if select or m.tool.name in selected]
        matches = [*result.matches, *again]
        if not select:
            matches.sort(key=lambda m: -m.score)
        matches = matches[: result.limit]
        definitions = [{**m.tool.to_mcp(), "name": m.tool.name} for m in matches]
        return _text(dumps(definitions))

    async def _call_proxy(self, _name: str, arguments: dict[str, Any]) -> ToolResult:
        name = arguments.get("name")
        if not isinstance(name, str) or not name:
            raise ToolError("call_tool needs the name of a tool found with search_tools.")
        if name in self._synthetic:
            raise ToolError(f"{name!r} cannot be called through {CALL_TOOL}.")
        state = self.client()
        tool = state.session.find_tool(name)
        if tool is None:
            raise ToolError(f"Unknown tool: {name!r}. Find tools with {SEARCH_TOOLS}.")
        if not self.may_call(state, tool.name):
            raise ToolError(gate_message(tool.name, SEARCH_TOOLS))
        return await self._forward(tool, arguments.get("arguments") or {})

    async def _call_downstream(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        tool = self.registry.find(name)
        if tool is None:
            raise ToolError(f"Unknown tool: {name!r}.")
        return await self._forward(tool, arguments)

    async def _forward(self, tool: Tool, arguments: dict[str, Any]) -> ToolResult:
        downstream = self.downstreams.get(tool.server or "")
        if downstream is None:
            raise ToolError(f"Tool {tool.name!r} has no server.")
        try:
            result = await downstream.call(tool.mcp_tool_name or tool.name, arguments)
        except DownstreamError as exc:
            raise ToolError(str(exc)) from None
        structured = result.structured_content
        return ToolResult(
            content=list(result.content),
            structured_content=structured if isinstance(structured, dict) else None,
            is_error=bool(result.is_error),
        )


class _GatewayMiddleware(Middleware):
    """The execution gate on ``tools/call``."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        gateway = self.gateway
        name = context.message.name
        if name not in gateway._synthetic:
            state = gateway.client(context.fastmcp_context)
            tool = gateway.registry.find(name)
            if tool is not None and not gateway.may_call(state, tool.name):
                name = tool.name
                search = (
                    gateway.settings.meta_tool_name
                    if gateway.settings.style == "activate"
                    else SEARCH_TOOLS
                )
                raise ToolError(gate_message(name, search))
        return await call_next(context)
