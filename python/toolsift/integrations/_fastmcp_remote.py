"""When a proxied remote server's tool list may have changed: ``notifications/tools/list_changed``
heard from it, or, for a remote that does not send them, a refresh interval.

A FastMCP proxy (``fastmcp.server.create_proxy``, ``FastMCPProxy``, a ``ProxyProvider`` added or
a proxy mounted on a server) lists its remote server over MCP on every ``tools/list``: at 11,578
tools that is seconds a call. The remote tells its clients when its tools change, with
``notifications/tools/list_changed``, if its capabilities say ``tools.listChanged``; FastMCP's
proxy opens a fresh client session for each request (a listing, a tool call), so that is where
the remote sends it (a tool that adds tools, for instance, announces it in the session that
called it).

:class:`RemoteWatch` is what a search transform knows about one proxy provider's remote:

* the provider's client factory is wrapped (:func:`watch_for`): every client it makes passes
  the remote's notifications to the watch first, then to the handler it had (FastMCP's proxy
  forwards them to its own clients, which keeps working); each ``tools/list_changed`` advances
  :attr:`RemoteWatch.generation`, which the catalogue cache compares on every search;
* the remote's ``tools.listChanged`` capability is read once, from a session of its own
  (:meth:`RemoteWatch.ensure_probed`);
* a remote that does not announce changes (capability false or absent; every remote on a
  2026-07-28 sessionless connection), or whose sessions the watch cannot listen on (a factory
  that hands out one already-connected client, a stdio transport that keeps one session for
  every client), is trusted only for the transform's refresh interval
  (:attr:`RemoteWatch.announces` is false). A change announced in a response the watch hears
  (a tool that adds tools says so in its own call) is taken at once in every case.

Example:
    >>> from fastmcp import FastMCP
    >>> from fastmcp.server import create_proxy
    >>> from fastmcp.server.providers.proxy import ProxyProvider
    >>> proxy = create_proxy(FastMCP("remote"))
    >>> provider = next(p for p in proxy.providers if isinstance(p, ProxyProvider))
    >>> watch = watch_for(provider)
    >>> watch.generation, watch.announces, watch_for(provider) is watch
    (0, False, True)
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types
from fastmcp.client.transports import (
    FastMCPTransport,
    SSETransport,
    StdioTransport,
    StreamableHttpTransport,
)

__all__ = ["RemoteWatch", "watch_for"]


class RemoteWatch:
    """What is known about one proxied remote server's tool list.

    Attributes:
        generation: how many ``tools/list_changed`` notifications the remote sent (through
            any client of the watched provider).
        list_changed: the remote's ``tools.listChanged`` capability (``None`` until probed).
        listening: every client made since the watch began carried its listener.
    """

    __slots__ = ("generation", "list_changed", "listening", "_factory", "_probed")

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.generation = 0
        self.list_changed: bool | None = None
        self.listening = True
        self._factory = factory
        self._probed = False

    @property
    def announces(self) -> bool:
        """The remote announces its tool changes and the watch hears them: a listed catalogue
        stays valid until it does."""
        return bool(self.list_changed) and self.listening

    def changed(self) -> None:
        """The remote said its tool list changed."""
        self.generation += 1

    async def ensure_probed(self) -> None:
        """Read the remote's ``tools.listChanged`` capability (once; a failure to connect is
        left to the listing, which reports it, and the capability stays unknown)."""
        if self._probed:
            return
        self._probed = True
        try:
            client = await _made(self._factory)
            if client.is_connected():  # one shared session: read what it negotiated
                caps = client.server_capabilities
            else:
                async with client:
                    caps = client.server_capabilities
        except Exception:  # noqa: BLE001 - unknown capability: the refresh interval applies
            self.list_changed = None
            return
        tools = getattr(caps, "tools", None)
        self.list_changed = bool(getattr(tools, "list_changed", False))


async def _made(factory: Callable[[], Any]) -> Any:
    client = factory()
    if inspect.isawaitable(client):
        client = await client
    return client


class _ListeningFactory:
    """A proxy provider's client factory whose clients tell a :class:`RemoteWatch` about
    ``tools/list_changed`` (then pass every message on as before)."""

    __slots__ = ("inner", "watch")

    def __init__(self, inner: Callable[[], Any]) -> None:
        self.inner = inner
        self.watch = RemoteWatch(inner)

    def __call__(self) -> Any:
        client = self.inner()
        if inspect.isawaitable(client):
            return self._later(client)
        return self._listening(client)

    async def _later(self, pending: Awaitable[Any]) -> Any:
        return self._listening(await pending)

    def _listening(self, client: Any) -> Any:
        kwargs = getattr(client, "_session_kwargs", None)
        if (
            not isinstance(kwargs, dict)
            or client.is_connected()
            or not _own_session(getattr(client, "transport", None))
        ):
            # A session already open, or one a transport may hand to several clients (stdio
            # keeps its process and session alive between clients): its messages go to the
            # handler of the client that opened it; only the refresh interval can be trusted.
            self.watch.listening = False
            return client
        kwargs["message_handler"] = _listener(self.watch, kwargs.get("message_handler"))
        return client


def _own_session(transport: Any) -> bool:
    """The transport opens a session of its own for each client (in process, over HTTP, or a
    stdio process started for each client)."""
    if isinstance(transport, StdioTransport):
        return transport.keep_alive is False
    return isinstance(transport, (FastMCPTransport, StreamableHttpTransport, SSETransport))


def _listener(watch: RemoteWatch, then: Callable[[Any], Awaitable[None]] | None) -> Any:
    async def handle(message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            watch.changed()
        if then is not None:
            await then(message)

    return handle


def watch_for(provider: Any) -> RemoteWatch:
    """The watch of a ``ProxyProvider``'s remote, listening from now on (one per provider,
    shared by every transform that asks)."""
    factory = provider.client_factory
    if not isinstance(factory, _ListeningFactory):
        factory = _ListeningFactory(factory)
        provider.client_factory = factory
    return factory.watch
