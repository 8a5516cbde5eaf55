"""Connections to the downstream MCP servers of a gateway, through FastMCP's ``Client``.

Each configured server gets one :class:`Downstream`: a task that connects (stdio process or
Streamable HTTP / SSE URL), lists the tools (and prompts, resources), relists them when the
server sends a ``list_changed`` notification (a burst of them is one relisting), and reconnects
with exponential backoff when the server exits or stops answering. Calls go over the live
connection with a timeout. A server that is down, or a call that fails, fails that call with a
:class:`DownstreamError` naming the server, and the other servers are not affected:

* a JSON-RPC error answer (``-32602 Invalid params``, an unknown tool) is the call's error;
  the connection stays;
* a call past ``call_timeout`` is cancelled; the connection is restarted only when the
  server then does not answer a ``ping`` either (it is stuck, not slow);
* a broken connection (the process exited, a transport error) is restarted.

A stdio server is read with a cap on its message size (:mod:`toolsift.gateway.stdio`), and
its process group is ended with the gateway.

Example:
    >>> from toolsift.config import ServerConfig
    >>> Downstream(ServerConfig("time", command="python", args=("-m", "mcp_server_time")),
    ...            on_tools=None).name
    'time'
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any, Callable, Literal

import mcp_types
from fastmcp import Client
from fastmcp.client.messages import MessageHandler
from fastmcp.client.transports import ClientTransport, SSETransport, StreamableHttpTransport
from fastmcp.client.transports.base import TransportOptions
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from ..config import ServerConfig
from .stdio import bounded_stdio_client

__all__ = ["Downstream", "DownstreamError", "connect_once"]

log = logging.getLogger("toolsift.gateway")

#: Backoff between reconnection attempts: first delay, factor, cap (seconds).
BACKOFF_FIRST, BACKOFF_FACTOR, BACKOFF_MAX = 0.5, 2.0, 30.0
#: How long connecting and listing the tools of a server may take (seconds).
CONNECT_TIMEOUT = 30.0
#: A burst of ``list_changed`` notifications is one relisting: after the first, the gateway
#: waits until none came for this long (seconds)...
DEBOUNCE = 0.2
#: ...but relists at least this often during an endless burst (seconds).
DEBOUNCE_MAX = 2.0
#: The most pages, and items, one listing may take; a server paginating past them fails to
#: connect, with an error saying so.
MAX_LIST_PAGES, MAX_LIST_ITEMS = 1_000, 200_000
#: How long a server asked for a ``ping`` after a failed or timed-out call may take to answer
#: before its connection is restarted (seconds).
PING_TIMEOUT = 5.0

ToolsCallback = Callable[[str, "list[mcp_types.Tool] | None"], Awaitable[None]]
ExtrasCallback = Callable[[str, "dict[str, list[Any]] | None"], Awaitable[None]]


class DownstreamError(Exception):
    """A downstream server could not run a call: down, reconnecting, too slow, or it answered
    the call with an error."""


def _reason(exc: BaseException) -> str:
    """An exception as a log or error reason, never empty."""
    return str(exc) or type(exc).__name__


class _BoundedStdio(ClientTransport):
    """A stdio server through :func:`~toolsift.gateway.stdio.bounded_stdio_client`."""

    def __init__(self, server: ServerConfig, on_error: Callable[[str], None] | None) -> None:
        env = {**os.environ, **server.env} if server.env else None
        self.params = StdioServerParameters(
            command=server.command or "", args=list(server.args), env=env, cwd=server.cwd
        )
        self.on_error = on_error

    @contextlib.asynccontextmanager
    async def connect_session(
        self, *, transport_options: TransportOptions | None = None, **session_kwargs: Any
    ) -> AsyncIterator[Any]:
        options = transport_options or TransportOptions()
        with contextlib.ExitStack() as stack:
            errlog = _stderr()
            if isinstance(errlog, Path):
                errlog = stack.enter_context(errlog.open("a"))
            async with bounded_stdio_client(self.params, errlog, on_error=self.on_error) as (
                read,
                write,
            ):
                async with options.session_class(read, write, **session_kwargs) as session:
                    yield session

    def __repr__(self) -> str:
        return f"<stdio {self.params.command!r}>"


def _transport(server: ServerConfig, on_error: Callable[[str], None] | None = None) -> Any:
    if server.transport == "stdio":
        return _BoundedStdio(server, on_error)
    if server.transport == "sse":
        return SSETransport(server.url or "", headers=dict(server.headers) or None)
    return StreamableHttpTransport(server.url or "", headers=dict(server.headers) or None)


def _stderr() -> Any:
    """Where a stdio server's stderr goes: this process's real stderr (``sys.stderr`` may be
    replaced by an object without a file descriptor), else nowhere."""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.fileno()
                return stream
        except (AttributeError, OSError, ValueError):
            continue
    return Path(os.devnull)


class _Notifications(MessageHandler):
    def __init__(self, changed: asyncio.Event, extras: asyncio.Event) -> None:
        super().__init__()
        self._changed = changed
        self._extras = extras

    async def on_tool_list_changed(self, message: Any) -> None:
        self._changed.set()

    async def on_prompt_list_changed(self, message: Any) -> None:
        self._extras.set()

    async def on_resource_list_changed(self, message: Any) -> None:
        self._extras.set()


async def list_all(client: Client[Any], kind: str, name: str = "") -> list[Any]:
    """Every item of a paginated ``tools``/``prompts``/``resources``/``resourceTemplates``
    listing, at most :data:`MAX_LIST_PAGES` pages and :data:`MAX_LIST_ITEMS` items.

    Raises:
        DownstreamError: the server paginates past the caps, or repeats a cursor.
    """
    method, field = {
        "tools": ("list_tools_mcp", "tools"),
        "prompts": ("list_prompts_mcp", "prompts"),
        "resources": ("list_resources_mcp", "resources"),
        "resourceTemplates": ("list_resource_templates_mcp", "resource_templates"),
    }[kind]
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_LIST_PAGES):
        page = await getattr(client, method)(cursor=cursor)
        items.extend(getattr(page, field))
        if len(items) > MAX_LIST_ITEMS:
            raise DownstreamError(
                f"server {name!r} lists over {MAX_LIST_ITEMS:,} {kind}; the gateway takes at "
                "most that many from one server"
            )
        cursor = page.next_cursor
        if cursor is None:
            return items
        if cursor in seen:
            raise DownstreamError(f"server {name!r} repeated the {kind} cursor {cursor!r}")
        seen.add(cursor)
    raise DownstreamError(
        f"server {name!r} paginates its {kind} past {MAX_LIST_PAGES:,} pages; the gateway "
        "reads at most that many"
    )


async def connect_once(server: ServerConfig, timeout: float = CONNECT_TIMEOUT) -> list[Any]:
    """Connect to ``server``, list its tools (every page) and disconnect.

    Raises:
        DownstreamError: the server cannot be started or reached, or does not answer in time.
    """
    try:
        async with asyncio.timeout(timeout):
            async with Client(_transport(server)) as client:
                return await list_all(client, "tools", server.name)
    except Exception as exc:  # the transports raise many kinds
        raise DownstreamError(
            f"Server {server.name!r}: cannot list its tools: {_reason(exc)}"
        ) from exc


#: The states of a downstream server, as the dashboard shows them.
State = Literal["connecting", "connected", "failed"]


class Downstream:
    """One downstream server: its connection, its tools, and the calls to it.

    Arguments:
        server: the server's configuration.
        on_tools: awaited with ``(name, tools)`` after every (re)listing, and with
            ``(name, None)`` when the connection is lost.
        call_timeout: seconds a call may take before it is cancelled.
        on_extras: awaited with ``(name, {"prompts": [...], "resources": [...],
            "resourceTemplates": [...]})`` after every listing of what the server offers
            besides tools (``None`` when the connection is lost).
    """

    def __init__(
        self,
        server: ServerConfig,
        on_tools: ToolsCallback | None,
        call_timeout: float = 30.0,
        on_extras: ExtrasCallback | None = None,
    ) -> None:
        self.server = server
        self.name = server.name
        self.call_timeout = call_timeout
        self._on_tools = on_tools
        self._on_extras = on_extras
        self._client: Client[Any] | None = None
        self._changed = asyncio.Event()
        self._extras_changed = asyncio.Event()
        self._recycle = asyncio.Event()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._probe: asyncio.Task[None] | None = None
        #: How many times the server was (re)connected.
        self.connections = 0
        #: How many times its lists were read (tools, and the others).
        self.listings = 0
        #: The last connection error, for error messages.
        self.last_error: str | None = None
        self._clock: Callable[[], float] = time.monotonic
        self._up_since = 0.0

    @property
    def connected(self) -> bool:
        client = self._client
        return client is not None and client.is_connected()

    @property
    def state(self) -> State:
        """``connected``; ``failed`` (its last attempt failed: :attr:`last_error` says why,
        and it is retried with backoff); or ``connecting`` (the first attempt)."""
        if self.connected and self._ready.is_set():
            return "connected"
        return "failed" if self.last_error else "connecting"

    def start(self) -> None:
        """Start the connection task (in the running event loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def wait_ready(self, timeout: float) -> bool:
        """Wait until the first listing is done or failed (or ``timeout``); ``True`` if
        connected."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout)
        return self.connected

    async def stop(self) -> None:
        for task in (self._probe, self._task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._task = self._probe = None

    async def _run(self) -> None:
        delay = BACKOFF_FIRST
        while True:
            connections = self.connections
            try:
                await self._session()  # ends only by raising: the connection went away
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                # Up for longer than the wait: start the backoff again (a server that dies at
                # once after every start keeps backing off).
                if self.connections > connections and self._clock() - self._up_since >= delay:
                    delay = BACKOFF_FIRST
                self.last_error = _reason(exc)
                log.warning(
                    "server %r: %s; reconnecting in %.1f s", self.name, self.last_error, delay
                )
            finally:
                self._client = None
                self._ready.set()
            if self._on_tools is not None:
                await self._on_tools(self.name, None)
            if self._on_extras is not None:
                await self._on_extras(self.name, None)
            await asyncio.sleep(delay)
            delay = min(delay * BACKOFF_FACTOR, BACKOFF_MAX)

    def _fail(self, reason: str) -> None:
        """Restart the connection, for ``reason``."""
        self.last_error = reason
        self._recycle.set()

    async def _session(self) -> None:
        self._changed.clear()
        self._extras_changed.clear()
        self._recycle.clear()
        client = Client(
            _transport(self.server, self._fail),
            message_handler=_Notifications(self._changed, self._extras_changed),
        )
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                await client.__aenter__()
        except TimeoutError:
            raise DownstreamError(
                f"it did not finish connecting within {CONNECT_TIMEOUT:g} s"
            ) from None
        try:
            self.last_error = None
            async with asyncio.timeout(CONNECT_TIMEOUT):
                await self._list(client)
                await self._list_extras(client)
            self._client = client
            self.connections += 1
            self._up_since = self._clock()
            self._ready.set()
            while client.is_connected() and not self._recycle.is_set():
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake(), 0.25)
                if self._recycle.is_set():
                    break
                if self._changed.is_set() or self._extras_changed.is_set():
                    await self._debounced()
                    tools, extras = self._changed.is_set(), self._extras_changed.is_set()
                    self._changed.clear()
                    self._extras_changed.clear()
                    async with asyncio.timeout(CONNECT_TIMEOUT):
                        if tools:
                            await self._list(client)
                        if extras:
                            await self._list_extras(client)
            if not self._recycle.is_set():
                raise DownstreamError("the connection was closed")
            raise DownstreamError(self.last_error or "the connection was recycled")
        except TimeoutError:
            raise DownstreamError(
                f"it did not list its tools within {CONNECT_TIMEOUT:g} s"
            ) from None
        finally:
            self._client = None
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await client.__aexit__(None, None, None)

    async def _wake(self) -> None:
        """Return when a list changed or the connection is to be restarted."""
        waits = [
            asyncio.ensure_future(e.wait())
            for e in (self._changed, self._extras_changed, self._recycle)
        ]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()

    async def _debounced(self) -> None:
        """Wait out a burst of ``list_changed`` notifications: until none came for
        :data:`DEBOUNCE` seconds, at most :data:`DEBOUNCE_MAX`."""
        tools, extras = self._changed, self._extras_changed
        pending = [False, False]
        deadline = self._clock() + DEBOUNCE_MAX
        while True:
            pending[0] |= tools.is_set()
            pending[1] |= extras.is_set()
            tools.clear()
            extras.clear()
            left = deadline - self._clock()
            if left <= 0 or self._recycle.is_set():
                break
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake(), min(DEBOUNCE, left))
            if not (tools.is_set() or extras.is_set()):
                break
        if pending[0]:
            tools.set()
        if pending[1]:
            extras.set()

    async def _list(self, client: Client[Any]) -> None:
        tools = await list_all(client, "tools", self.name)
        self.listings += 1
        if self._on_tools is not None:
            await self._on_tools(self.name, tools)

    async def _list_extras(self, client: Client[Any]) -> None:
        """List the server's prompts and resources, if it offers them."""
        if self._on_extras is None:
            return
        capabilities = getattr(getattr(client, "initialize_result", None), "capabilities", None)
        extras: dict[str, list[Any]] = {"prompts": [], "resources": [], "resourceTemplates": []}
        if getattr(capabilities, "prompts", None) is not None:
            extras["prompts"] = await list_all(client, "prompts", self.name)
        if getattr(capabilities, "resources", None) is not None:
            extras["resources"] = await list_all(client, "resources", self.name)
            extras["resourceTemplates"] = await list_all(client, "resourceTemplates", self.name)
        await self._on_extras(self.name, extras)

    def _live(self) -> Client[Any]:
        client = self._client
        if client is None or not client.is_connected():
            detail = f" ({self.last_error})" if self.last_error else ""
            raise DownstreamError(
                f"Server {self.name!r} is unavailable{detail}; the gateway is reconnecting to "
                "it, try again shortly."
            )
        return client

    async def call(self, tool: str, arguments: dict[str, Any] | None) -> mcp_types.CallToolResult:
        """Call ``tool`` (its raw MCP name) with ``arguments``, within :attr:`call_timeout`.

        Raises:
            DownstreamError: the server is not connected, answered with a JSON-RPC error,
                the connection broke during the call, or the call took longer than
                :attr:`call_timeout` (it is cancelled; the connection is restarted only if the
                server does not answer a ``ping`` either).
        """
        if arguments is not None and not isinstance(arguments, dict):
            raise DownstreamError(f"The arguments of {tool!r} must be a JSON object.")
        client = self._live()
        return await self.request(client.call_tool_mcp(tool, arguments or {}), f"{tool!r}", client)

    async def request(self, awaitable: Awaitable[Any], what: str, client: Any = None) -> Any:
        """Await a request to the server (``what`` names it in errors) with the call rules:
        :attr:`call_timeout`, a JSON-RPC error answer is the request's error, and a failure
        that may be the connection's is checked with a ``ping``."""
        client = client if client is not None else self._live()
        try:
            async with asyncio.timeout(self.call_timeout):
                return await awaitable
        except TimeoutError:
            self._check(client, f"{what} did not answer within {self.call_timeout:g} s")
            raise DownstreamError(
                f"Server {self.name!r} did not answer {what} within {self.call_timeout:g} s; "
                "the call was cancelled."
            ) from None
        except MCPError as exc:
            if exc.code != mcp_types.CONNECTION_CLOSED:
                raise DownstreamError(
                    f"Server {self.name!r} answered {what} with an error: {_reason(exc)}"
                ) from None
            self._check(client, f"the connection closed during {what}")
            raise DownstreamError(
                f"Server {self.name!r} failed during {what}: {_reason(exc)}; the gateway is "
                "reconnecting to it."
            ) from None
        except Exception as exc:
            self._check(client, f"{what} failed: {_reason(exc)}")
            raise DownstreamError(
                f"Server {self.name!r} failed during {what}: {_reason(exc)}"
            ) from None

    def _check(self, client: Any, reason: str) -> None:
        """Ask the server for a ``ping`` in the background; restart the connection if it does
        not answer within :data:`PING_TIMEOUT` (one check at a time)."""
        if self._probe is not None and not self._probe.done():
            return
        live: Client[Any] | None = self._client
        if live is None or client is not live:
            return  # already replaced

        async def probe() -> None:
            assert live is not None
            try:
                async with asyncio.timeout(PING_TIMEOUT):
                    await live.ping()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if live is self._client:
                    log.warning(
                        "server %r: %s and a ping failed (%s); restarting its connection",
                        self.name,
                        reason,
                        _reason(exc),
                    )
                    self._fail(f"{reason}, and it did not answer a ping")

        self._probe = asyncio.get_running_loop().create_task(probe())
