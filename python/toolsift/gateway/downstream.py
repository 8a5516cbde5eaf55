"""Connections to the downstream MCP servers of a gateway, through FastMCP's ``Client``.

Each configured server gets one :class:`Downstream`: a task that connects (stdio process or
Streamable HTTP / SSE URL), lists the tools, relists them when the server sends
``notifications/tools/list_changed``, and reconnects with exponential backoff when the server
exits or stops answering. Calls go over the live connection with a timeout; a server that is
down or hangs fails that call with a :class:`DownstreamError` naming it, and the other servers
are not affected.

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
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, Callable

import mcp_types
from fastmcp import Client
from fastmcp.client.messages import MessageHandler
from fastmcp.client.transports import SSETransport, StdioTransport, StreamableHttpTransport

from ..config import ServerConfig

__all__ = ["Downstream", "DownstreamError", "connect_once"]

log = logging.getLogger("toolsift.gateway")

#: Backoff between reconnection attempts: first delay, factor, cap (seconds).
BACKOFF_FIRST, BACKOFF_FACTOR, BACKOFF_MAX = 0.5, 2.0, 30.0
#: How long connecting and listing the tools of a server may take (seconds).
CONNECT_TIMEOUT = 30.0

ToolsCallback = Callable[[str, "list[mcp_types.Tool] | None"], Awaitable[None]]


class DownstreamError(Exception):
    """A downstream server could not run a call: down, reconnecting, or too slow."""


def _transport(server: ServerConfig) -> Any:
    if server.transport == "stdio":
        env = {**os.environ, **server.env} if server.env else None
        return StdioTransport(
            server.command or "",
            list(server.args),
            env=env,
            cwd=server.cwd,
            keep_alive=False,
            log_file=_stderr(),
        )
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
    def __init__(self, changed: asyncio.Event) -> None:
        super().__init__()
        self._changed = changed

    async def on_tool_list_changed(self, message: Any) -> None:
        self._changed.set()


async def connect_once(server: ServerConfig, timeout: float = CONNECT_TIMEOUT) -> list[Any]:
    """Connect to ``server``, list its tools (every page) and disconnect.

    Raises:
        DownstreamError: the server cannot be started or reached, or does not answer in time.
    """
    try:
        async with asyncio.timeout(timeout):
            async with Client(_transport(server)) as client:
                return list(await client.list_tools())
    except Exception as exc:  # the transports raise many kinds
        raise DownstreamError(f"Server {server.name!r}: cannot list its tools: {exc}") from exc


class Downstream:
    """One downstream server: its connection, its tools, and the calls to it.

    Arguments:
        server: the server's configuration.
        on_tools: awaited with ``(name, tools)`` after every (re)listing, and with
            ``(name, None)`` when the connection is lost.
        call_timeout: seconds a call may take before it fails (and the connection is recycled).
    """

    def __init__(
        self, server: ServerConfig, on_tools: ToolsCallback | None, call_timeout: float = 30.0
    ) -> None:
        self.server = server
        self.name = server.name
        self.call_timeout = call_timeout
        self._on_tools = on_tools
        self._client: Client[Any] | None = None
        self._changed = asyncio.Event()
        self._recycle = asyncio.Event()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: How many times the server was (re)connected.
        self.connections = 0
        #: The last connection error, for error messages.
        self.last_error: str | None = None
        self._clock: Callable[[], float] = time.monotonic
        self._up_since = 0.0

    @property
    def connected(self) -> bool:
        client = self._client
        return client is not None and client.is_connected()

    def start(self) -> None:
        """Start the connection task (in the running event loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def wait_ready(self, timeout: float) -> bool:
        """Wait until the first listing is done (or ``timeout``); ``True`` if connected."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout)
        return self.connected

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

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
                self.last_error = str(exc) or type(exc).__name__
                log.warning("server %r: %s; reconnecting in %.1f s", self.name, exc, delay)
            finally:
                self._client = None
                self._ready.set()
            if self._on_tools is not None:
                await self._on_tools(self.name, None)
            await asyncio.sleep(delay)
            delay = min(delay * BACKOFF_FACTOR, BACKOFF_MAX)

    async def _session(self) -> None:
        self._changed.clear()
        self._recycle.clear()
        client = Client(_transport(self.server), message_handler=_Notifications(self._changed))
        async with asyncio.timeout(CONNECT_TIMEOUT):
            await client.__aenter__()
        try:
            self._client = client
            self.connections += 1
            self._up_since = self._clock()
            self.last_error = None
            await self._list(client)
            self._ready.set()
            while client.is_connected() and not self._recycle.is_set():
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), 0.25)
                if self._changed.is_set():
                    self._changed.clear()
                    await self._list(client)
            if not self._recycle.is_set():
                raise DownstreamError("the connection was closed")
            raise DownstreamError(self.last_error or "the connection was recycled")
        finally:
            self._client = None
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await client.__aexit__(None, None, None)

    async def _list(self, client: Client[Any]) -> None:
        async with asyncio.timeout(CONNECT_TIMEOUT):
            tools = list(await client.list_tools())
        if self._on_tools is not None:
            await self._on_tools(self.name, tools)

    async def call(self, tool: str, arguments: dict[str, Any] | None) -> mcp_types.CallToolResult:
        """Call ``tool`` (its raw MCP name) with ``arguments``, within :attr:`call_timeout`.

        Raises:
            DownstreamError: the server is not connected, the connection broke during the
                call, or the call took longer than :attr:`call_timeout` (the connection is
                then recycled, since the server may be stuck).
        """
        client = self._client
        if client is None or not client.is_connected():
            detail = f" ({self.last_error})" if self.last_error else ""
            raise DownstreamError(
                f"Server {self.name!r} is unavailable{detail}; the gateway is reconnecting to "
                "it, try again shortly."
            )
        try:
            async with asyncio.timeout(self.call_timeout):
                return await client.call_tool_mcp(tool, arguments or {})
        except TimeoutError:
            self.last_error = f"{tool!r} did not answer within {self.call_timeout:g} s"
            self._recycle.set()
            raise DownstreamError(
                f"Server {self.name!r} did not answer {tool!r} within {self.call_timeout:g} s; "
                "the gateway restarts its connection."
            ) from None
        except Exception as exc:
            self._recycle.set()
            raise DownstreamError(
                f"Server {self.name!r} failed during {tool!r}: {exc or type(exc).__name__}; "
                "the gateway is reconnecting to it."
            ) from exc
