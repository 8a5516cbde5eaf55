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

import contextlib
import logging
import sys
from collections.abc import AsyncIterator, Iterable
from typing import Any

import mcp_types
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.context import Context
from fastmcp.server.dependencies import get_context
from fastmcp.server.middleware import Middleware
from fastmcp.tools.base import ToolResult
from starlette.middleware import Middleware as ASGIMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse

from .. import __version__
from ..config import GatewayConfig, ToolSearchConfig
from ..contract import dumps
from ..errors import ConfigError, StoreError, ToolsiftError
from ..metatool import call_meta_tool
from ..session import in_thread
from ..tools import Tool
from .auth import StaticToken
from .catalog import CALL_TOOL, SEARCH_TOOLS, GatewayCatalog, synthetic_tools
from .downstream import DownstreamError
from .http import HostOriginGuard, check_bind, health, is_local
from .identity import identify
from .limits import gate_message, rate_limit_message
from .replicas import SharedClients, rate_wait, shares
from .sessions import ClientState, SessionRegistry
from .storage import open_store, replica_id

__all__ = ["Gateway", "SEARCH_TOOLS", "CALL_TOOL"]

log = logging.getLogger("toolsift.gateway")


#: The tool error of an activating search from a client the gateway cannot tell apart.
NO_IDENTITY = (
    "Activating tools needs an MCP session or authentication, and this request has neither "
    "(a sessionless HTTP client without a token): nothing it activates could be kept for it. "
    "Connect with a client that opens a session, send the gateway's token "
    "(Authorization: Bearer), or use the search-and-call style."
)


async def _search(state: ClientState, arguments: dict[str, Any], ranker: str = "bm25") -> Any:
    """The meta-tool call in a worker thread (the session is thread-safe): a first search that
    builds a large index does not hold up the other clients and the downstream connections.
    A search whose request is cancelled meanwhile activates nothing."""
    try:
        return await in_thread(
            call_meta_tool,
            state.session,
            arguments,
            ranker=ranker,
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
        auth: a FastMCP auth provider for ``/mcp`` (e.g. a ``JWTVerifier``: each subject is
            then its own client); default: the static ``tool_search.token``, if set.
        replica: this replica's id, shown by the dashboard beside the clients it served last
            (default ``HOST:PID``).

    Attributes:
        mcp: the FastMCP server; run it with ``gateway.mcp.run(transport="stdio")`` (or
            ``"http"``), or :meth:`run`.
        registry: the per-client discovery sessions.
        store: the shared state store of ``tool_search.storage`` (``None``: ``memory://``).

    Raises:
        ConfigError: the storage URL needs the ``redis`` extra, which is not installed.
    """

    def __init__(
        self,
        config: GatewayConfig,
        *,
        name: str = "toolsift",
        auth: Any = None,
        replica: str | None = None,
    ) -> None:
        self.config = config
        self.settings = config.tool_search
        self.registry = SessionRegistry(self.settings)
        self.replica = replica or replica_id()
        self.store = open_store(self.settings.storage, replica=self.replica)
        #: With a shared store: each request's view made from it (None: memory://).
        self.shared = (
            SharedClients(self.registry, self.store, lambda: self.settings)
            if self.store is not None
            else None
        )
        #: The downstream servers and their catalogue (:mod:`toolsift.gateway.catalog`).
        self.catalog = GatewayCatalog(self)
        self.downstreams = self.catalog.downstreams
        self._changes = self.catalog.changes
        self._provider = self.catalog.provider
        token = config.tool_search.token
        #: What authenticates ``/mcp`` requests (``None``: nothing, on a local bind only).
        self.auth = auth if auth is not None else (StaticToken(token) if token else None)
        self.mcp: FastMCP[Any] = FastMCP(
            name, version=__version__, lifespan=self._lifespan, auth=self.auth
        )
        self.mcp.add_provider(self._provider)
        self.mcp.add_middleware(_GatewayMiddleware(self))
        self.mcp.custom_route("/healthz", methods=["GET"])(self._healthz)
        self._register_synthetic()

    # --- lifecycle -----------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _lifespan(self, _server: Any) -> AsyncIterator[dict[str, Any]]:
        await self.start()
        try:
            yield {}
        finally:
            await self.stop()

    async def start(self) -> None:
        """Start connecting to every downstream server; serve at once (servers join as they
        connect)."""
        await self.catalog.start()
        if self.store is not None:
            try:
                await self.store.open()
            except StoreError as exc:  # serve anyway: what needs the store is refused
                log.error("%s", exc)

    async def stop(self) -> None:
        await self.catalog.stop()
        if self.store is not None:
            await self.store.close()

    async def _healthz(self, _request: Request) -> JSONResponse:
        """``GET /healthz``: 200 when this replica can serve, else 503 (:func:`health`)."""
        reachable = self.store is None or await self.store.reachable()
        states = [s["state"] for s in self.catalog.servers().values()]
        healthy, body = health(states, reachable, shared=self.store is not None)
        return JSONResponse({**body, "replica": self.replica}, status_code=200 if healthy else 503)

    def run(self, transport: str = "stdio", **options: Any) -> None:
        """Serve until interrupted: ``"stdio"``, or ``"http"`` with ``host`` and ``port``.

        Over HTTP, ``/mcp`` checks ``Host`` and ``Origin`` (:mod:`toolsift.gateway.http`;
        ``allowed_origins`` adds trusted browser origins to ``tool_search.allowed_origins``),
        the full URL is printed to stderr, and a non-local ``host`` needs authentication.

        Raises:
            ConfigError: ``host`` is not local and there is no token nor auth provider.
        """
        if transport == "stdio":
            self.mcp.run(transport="stdio", show_banner=False, **options)
            return
        host = str(options.pop("host", "127.0.0.1"))
        port = int(options.pop("port", 8765))
        protection = self.http_options(host, options.pop("allowed_origins", None) or ())
        protection["middleware"] += options.pop("middleware", None) or []
        shown = f"[{host}]" if ":" in host else host
        print(f"toolsift gateway: http://{shown}:{port}/mcp", file=sys.stderr, flush=True)
        self.mcp.run(
            transport=transport,  # type: ignore[arg-type]
            show_banner=False,
            host=host,
            port=port,
            **protection,
            **options,
        )

    def http_options(self, host: str, allowed_origins: Iterable[str] = ()) -> dict[str, Any]:
        """The options of FastMCP's HTTP app (``mcp.http_app(**options)``) that protect
        ``/mcp`` on ``host``: the Host/Origin guard of :mod:`toolsift.gateway.http` (it
        replaces FastMCP's own), with ``allowed_origins`` besides the configured ones.

        Raises:
            ConfigError: ``host`` is not local and there is no token nor auth provider.
        """
        check_bind(host, self.auth is not None)
        guard = ASGIMiddleware(
            HostOriginGuard,
            local=is_local(host),
            allowed_origins=(*self.settings.allowed_origins, *allowed_origins),
        )
        return {"host_origin_protection": False, "middleware": [guard]}

    # --- the catalogue -------------------------------------------------------------------------

    def _register_synthetic(self) -> None:
        self._provider.synthetic = {t.name: t for t in synthetic_tools(self)}

    @property
    def _synthetic(self) -> dict[str, Any]:
        return self._provider.synthetic

    async def apply_settings(self, settings: ToolSearchConfig) -> None:
        """Serve with new ``tool_search`` settings from now on (the dashboard's live settings).

        Every client's session is made again with them (activations are kept), and the
        clients are told their tool list may have changed. ``style`` and ``meta_tool_name``
        shape the tools clients already hold, and ``allowed_origins`` the HTTP app, so they
        change only with a restart.

        Raises:
            ConfigError: ``settings`` changes ``style`` or ``meta_tool_name``.
        """
        for key in ("style", "meta_tool_name", "allowed_origins", "storage"):
            if getattr(settings, key) != getattr(self.settings, key):
                raise ConfigError(
                    f"tool_search.{key} changes only when the gateway restarts", key=key
                )
        async with self._changes:
            self.settings = settings
            self.config = GatewayConfig(self.config.servers, settings, self.config.path)
            self.registry.reconfigure(settings)
            self.catalog.set_call_timeout(settings.call_timeout)
            self._register_synthetic()
        await self.registry.notify_all()

    # --- requests ------------------------------------------------------------------------------

    def client(self, ctx: Context | None = None) -> ClientState:
        """The state of the client of the current request (:func:`~toolsift.gateway.identity.
        identify` says whose); a fresh, unkept one for a request without an identity."""
        if ctx is None:
            with contextlib.suppress(RuntimeError):
                ctx = get_context()
        identity = identify(ctx)
        state = self.registry.state(identity.key, identity.bucket_key)
        if ctx is not None and (identity.session or identity.process):
            # A sessionless request's server session ends with the request: nothing to notify.
            with contextlib.suppress(Exception):
                state.notify = ctx.session
            if identity.session and not state.hooked:
                self._drop_at_end(ctx, state.key)
                state.hooked = True
        return state

    async def synced(self, ctx: Context | None = None) -> ClientState:
        """:meth:`client`, with a shared store: its view made from the stored state now (a
        replica serves any client; the execution gate reads the store, never a stale copy).

        Raises:
            ToolError: the store did not answer (nothing that needs it is allowed).
        """
        if ctx is None:
            with contextlib.suppress(RuntimeError):
                ctx = get_context()
        state = self.client(ctx)
        if self.shared is None or not shares(state):
            return state
        try:
            tell = await self.shared.sync(state)
        except StoreError as exc:
            raise ToolError(str(exc)) from None
        if tell and ctx is not None:
            with contextlib.suppress(Exception):
                await ctx.send_notification(mcp_types.ToolListChangedNotification())
        return state

    def _drop_at_end(self, ctx: Context, key: str) -> None:
        """Drop client ``key``'s state when its MCP session ends (``DELETE /mcp``, the SDK's
        idle expiry, a closed connection); without the hook, ``client_ttl`` drops it."""
        with contextlib.suppress(Exception):
            connection = getattr(ctx.session, "_connection", None)
            if connection is not None:
                connection.exit_stack.callback(self.registry.drop, key)
                if self.shared is not None:
                    connection.exit_stack.push_async_callback(self.shared.forget, key)

    def listed(self, state: ClientState) -> list[str]:
        """The downstream tools ``tools/list`` shows this client, in catalogue order."""
        visible = [t.name for t in state.session.visible_tools]
        if self.settings.style == "search-and-call":
            selected = set(state.session.selected)
            visible = [n for n in visible if n not in selected]
        return visible

    def may_call(self, state: ClientState, name: str) -> bool:
        """Whether the execution gate lets ``state``'s client call tool ``name``. A client
        without an identity keeps nothing: in search-and-call style it calls what it found."""
        if not self.settings.gate or not state.session.enabled:
            return True
        if state.ephemeral:
            return self.settings.style == "search-and-call"
        return name in {t.name for t in state.session.visible_tools}

    async def _check_rate(self, state: ClientState) -> None:
        wait = await rate_wait(self.shared, state, self.settings.rate_limit)
        if wait is not None:
            raise ToolError(rate_limit_message(*wait))

    async def _search_activate(
        self, _name: str, arguments: dict[str, Any], ranker: str = "bm25"
    ) -> ToolResult:
        ctx = get_context()
        state = await self.synced(ctx)
        if state.ephemeral:
            raise ToolError(NO_IDENTITY)
        await self._check_rate(state)
        await self.catalog.settle()
        call = await _search(state, arguments, ranker)
        state.record(call.result.query, call.result)
        if self.shared is not None and shares(state):
            try:
                await self.shared.keep(state, call.result.activated)
            except StoreError as exc:  # the activations are not kept: say so
                raise ToolError(str(exc)) from None
        if call.result.activated:
            with contextlib.suppress(Exception):
                await ctx.send_notification(mcp_types.ToolListChangedNotification())
        return _text(call.content)

    async def _search_activate_regex(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """The regex meta-tool (``tool_search_tool_regex``): a pattern activates its matches."""
        return await self._search_activate(name, arguments, "regex")

    async def _search_definitions(self, _name: str, arguments: dict[str, Any]) -> ToolResult:
        """``search_tools``: the found definitions as a JSON list (text block one), then, when a
        ``select:`` name matched nothing or the query was cut, ``{"missing", "suggestions",
        "notices"}`` (each key only when it has something to say) in a second text block."""
        state = await self._searcher()
        await self._check_rate(state)
        await self.catalog.settle()
        call = await _search(state, arguments)
        state.record(arguments["query"], call.result)
        if self.shared is not None and shares(state):  # best effort: the search answers
            with contextlib.suppress(StoreError):
                await self.shared.keep(state, call.result.activated)
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
        # The definitions stay the first block; what the search could not do as asked (missing
        # select: names with suggestions, a cut query) follows in a second one, only then.
        notes = {
            k: call.details[k] for k in ("missing", "suggestions", "notices") if k in call.details
        }
        content = [mcp_types.TextContent(type="text", text=dumps(definitions))]
        if notes:
            content.append(mcp_types.TextContent(type="text", text=dumps(notes)))
        return ToolResult(content=content)

    async def _call_proxy(self, _name: str, arguments: dict[str, Any]) -> ToolResult:
        name = arguments.get("name")
        if not isinstance(name, str) or not name:
            raise ToolError("call_tool needs the name of a tool found with search_tools.")
        if name in self._synthetic:
            raise ToolError(f"{name!r} cannot be called through {CALL_TOOL}.")
        state = await self._gated()
        tool = state.session.find_tool(name)
        if tool is None:
            raise ToolError(f"Unknown tool: {name!r}. Find tools with {SEARCH_TOOLS}.")
        self.check_gate(state, tool)
        given = arguments.get("arguments")
        if given is not None and not isinstance(given, dict):
            raise ToolError(
                f"The arguments of {name!r} must be a JSON object, got {type(given).__name__}."
            )
        return await self._forward(tool, given or {})

    async def _call_downstream(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        tool = self.registry.find(name)
        if tool is None:
            raise ToolError(f"Unknown tool: {name!r}.")
        # The gate again where the call is forwarded: the middleware's check may have run
        # while the tool was briefly out of the catalogue (its server relisting). With a
        # shared store, from the stored state again (no view outlives a request unread).
        self.check_gate(await self._gated(), tool)
        return await self._forward(tool, arguments)

    async def _gated(self, ctx: Context | None = None) -> ClientState:
        """The client's state for the execution gate: read from the shared store when the
        gate is on (a store that does not answer refuses the call: fail closed)."""
        if not self.settings.gate:
            return self.client(ctx)
        return await self.synced(ctx)

    async def _searcher(self) -> ClientState:
        """The state of a ``search_tools`` client: read from the shared store, or, while the
        store does not answer, this replica's view: the search still answers (what it found
        is kept only if the store answers, so the gate refuses its calls until then)."""
        try:
            return await self.synced()
        except ToolError:
            return self.client()

    def check_gate(self, state: ClientState, tool: Tool) -> None:
        """Refuse (``ToolError``) a call to ``tool`` that ``state``'s client may not make."""
        if not self.may_call(state, tool.name):
            search = (
                self.settings.meta_tool_name if self.settings.style == "activate" else SEARCH_TOOLS
            )
            raise ToolError(gate_message(tool.name, search))

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
            state = await gateway._gated(context.fastmcp_context)
            tool = gateway.registry.find(name)
            if tool is None:  # a server still making its first connection may hold it
                await gateway.catalog.settle()
                tool = gateway.registry.find(name)
            if tool is not None:
                gateway.check_gate(state, tool)
        return await call_next(context)
