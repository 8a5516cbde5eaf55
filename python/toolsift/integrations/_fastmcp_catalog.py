"""The catalogue a FastMCP search call ranks, kept between calls while nothing can change it.

FastMCP hands a search transform its catalogue by listing the whole server on every
``search_tools`` call: every provider, every transform, the per-session visibility rules,
every tool's ``auth`` check, version deduplication and the ``tools/list`` middleware (by
default ``DereferenceRefsMiddleware``, which walks every tool's schema); a proxy also lists its
remote server over MCP. At 11,578 tools that costs from hundreds of milliseconds (local tools)
to seconds (a proxy) a call, for a search that takes a fraction of one.

FastMCP sends no signal when a local provider's tools change, so :class:`CatalogCache` keeps
the listed catalogue only for a server whose listing is known to depend on nothing but what it
compares on each call:

* every provider is FastMCP's ``LocalProvider`` (``mcp.add_tool``/``remove_tool``), whose
  components it compares by identity (one pointer comparison per component, in C), a
  ``ProxyProvider`` (a proxy's remote server, see below), a mounted FastMCP server
  (``mcp.mount``) that meets these same rules, or such a provider wrapped in transforms;
* the server's and the providers' transforms, and the middleware, are the same objects
  (``mcp.enable``/``disable`` add a transform; ``add_middleware`` adds a middleware), and
  every transform is one of FastMCP's whose listing depends only on the tools (``Visibility``,
  ``Namespace``, ``ToolTransform``, ``VersionFilter``) or the search transform itself;
* every middleware leaves ``tools/list`` alone or is FastMCP's ``DereferenceRefsMiddleware``
  (which rewrites schemas, the same way every time, and filters nothing);
* no tool has an ``auth`` check (those depend on the caller's token), and the current
  session has no visibility rules of its own (``ctx.enable_components``/``disable_components``).

A remote server behind a ``ProxyProvider`` is watched (:mod:`._fastmcp_remote`): its catalogue
is listed again as soon as it sends ``notifications/tools/list_changed``, and in any case once
the transform's ``refresh_interval`` has passed since the last listing (a remote tells only the
sessions open when its tools change).

Anything else (a custom provider or transform, a filtering middleware, a tool with ``auth``)
lists the server on every call, as FastMCP does.

Example:
    >>> from fastmcp import FastMCP
    >>> cache = CatalogCache(pinned=set())
    >>> cache.listings, _state(FastMCP("plain"), owner=None) is not None
    (0, True)
"""

from __future__ import annotations

import math
import operator
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware
from fastmcp.server.middleware.dereference import DereferenceRefsMiddleware
from fastmcp.server.middleware.tool_injection import ToolInjectionMiddleware
from fastmcp.server.providers import LocalProvider
from fastmcp.server.providers.base import Provider
from fastmcp.server.providers.fastmcp_provider import FastMCPProvider
from fastmcp.server.providers.proxy import ProxyProvider
from fastmcp.server.providers.wrapped_provider import _WrappedProvider
from fastmcp.server.transforms import Namespace, ToolTransform, VersionFilter, Visibility
from fastmcp.server.transforms.visibility import get_visibility_rules
from fastmcp.tools.base import Tool as FastMCPTool

from ._fastmcp_remote import RemoteWatch, watch_for

__all__ = ["CatalogCache"]

ListAll = Callable[[Any], Awaitable[Sequence[Any]]]

# The hooks through which a middleware can see or change a `tools/list`.
_LIST_HOOKS = ("__call__", "_dispatch_handler", "on_message", "on_request", "on_list_tools")
_PROVIDER_HOOKS = ("list_tools", "_list_tools")
# FastMCP's transforms whose listing depends only on the tools and their own settings.
_PURE_TRANSFORMS = (Visibility, Namespace, ToolTransform, VersionFilter)
_SERVER_HOOKS = ("list_tools", "_list_tools", "_injected_tools", "_rewrite_prefab_uris")
#: The clock the refresh interval is measured with.
_now = time.monotonic


def _neutral_middleware(middleware: Any) -> bool:
    """A middleware that cannot change which tools are listed."""
    if type(middleware) is DereferenceRefsMiddleware:
        return True
    if isinstance(middleware, ToolInjectionMiddleware):
        return False
    cls = type(middleware)
    return all(getattr(cls, hook) is getattr(Middleware, hook) for hook in _LIST_HOOKS)


def _lists_as(provider: Any, kind: type[Provider]) -> bool:
    """``provider`` is a ``kind`` (or a subclass) listing its tools as ``kind`` does."""
    if not isinstance(provider, kind):
        return False
    cls = type(provider)
    return all(getattr(cls, h) is getattr(kind, h) for h in _PROVIDER_HOOKS) and (
        cls.list_tools is Provider.list_tools
    )


class _State:
    """What a server's listing depends on: the objects compared on each call, and the watches
    of the remote servers it lists."""

    __slots__ = ("key", "components", "watches")

    def __init__(
        self,
        key: tuple[Any, ...],
        components: tuple[tuple[Any, ...], ...],
        watches: tuple[RemoteWatch, ...],
    ) -> None:
        self.key = key
        self.components = components
        self.watches = watches

    def without_auth(self) -> bool:
        """No tool has an ``auth`` check (whose outcome depends on the caller)."""
        return not any(
            isinstance(c, FastMCPTool) and c.auth is not None
            for values in self.components
            for c in values
        )

    def remote(self) -> bool:
        """Some tools come from a remote server: the refresh interval applies."""
        return bool(self.watches)

    def same(self, other: _State) -> bool:
        if self.key != other.key or len(self.components) != len(other.components):
            return False
        for mine, theirs in zip(self.components, other.components):
            if len(mine) != len(theirs) or not all(map(operator.is_, mine, theirs)):
                return False
        return True


def _pure(transform: Any, owner: Any) -> bool:
    """A transform whose listing depends only on the tools (the caching one lists through)."""
    return transform is owner or type(transform) in _PURE_TRANSFORMS


class _Parts:
    """What a listing depends on, gathered over a server and the servers it mounts."""

    __slots__ = ("key", "components", "watches")

    def __init__(self) -> None:
        self.key: list[Any] = []
        self.components: list[tuple[Any, ...]] = []
        self.watches: list[RemoteWatch] = []


def _provider(provider: Any, owner: Any, parts: _Parts, depth: int) -> bool:
    """Add what ``provider``'s listing depends on to ``parts``; false when it may depend on
    anything else."""
    transforms = tuple(provider.transforms)
    if not all(_pure(t, owner) for t in transforms):
        return False
    parts.key.append((provider, transforms))
    if _lists_as(provider, LocalProvider):
        # Its storage, compared by identity.
        parts.components.append(tuple(provider._components.values()))
        return True
    if _lists_as(provider, ProxyProvider):
        watch = watch_for(provider)
        parts.key.append((provider.identity, watch, watch.generation))
        parts.watches.append(watch)
        return True
    if _lists_as(provider, FastMCPProvider):  # a mounted server
        return _server(provider.server, owner, parts, depth + 1)
    if _lists_as(provider, _WrappedProvider):  # a mounted server renaming its tools
        return _provider(provider._inner, owner, parts, depth + 1)
    return False


def _server(server: Any, owner: Any, parts: _Parts, depth: int = 0) -> bool:
    if depth > 16 or not isinstance(server, FastMCP):
        return False
    if any(getattr(type(server), hook) is not getattr(FastMCP, hook) for hook in _SERVER_HOOKS):
        return False
    middleware = tuple(server.middleware)
    if not all(_neutral_middleware(m) for m in middleware):
        return False
    transforms = tuple(server.transforms)
    if not all(_pure(t, owner) for t in transforms):
        return False
    parts.key.append((server, transforms, middleware))
    return all(_provider(p, owner, parts, depth) for p in server.providers)


def _state(server: Any, owner: Any) -> _State | None:
    """The state of ``server``'s listing, or ``None`` when it may depend on the request
    (``owner``: the transform asking, which passes the catalogue through when it lists)."""
    parts = _Parts()
    if not _server(server, owner, parts):
        return None
    return _State(tuple(parts.key), tuple(parts.components), tuple(parts.watches))


class CatalogCache:
    """The last catalogue a transform listed, and what it was listed from.

    Arguments:
        pinned: the names a search leaves out (the transform's ``always_visible``).
        refresh_interval: seconds a catalogue listed from a remote server that does not
            announce its tool changes stays valid (0: list on every call).

    Attributes:
        listings: how many times the whole server was listed (a search on an unchanged
            server lists nothing).
    """

    def __init__(self, pinned: set[str], refresh_interval: float = 30.0) -> None:
        self._pinned = pinned
        self._interval = refresh_interval
        self._state: _State | None = None
        self._catalog: tuple[Any, ...] = ()
        self._visible: tuple[Any, ...] = ()
        self._expires = math.inf
        self.listings = 0

    async def catalog(self, owner: Any, list_all: ListAll, ctx: Any) -> tuple[Any, ...]:
        """The tools ``ctx``'s caller may see through ``owner`` (``list_all(ctx)`` lists
        them when they must be listed)."""
        return (await self._get(owner, list_all, ctx))[0]

    async def visible(self, owner: Any, list_all: ListAll, ctx: Any) -> tuple[Any, ...]:
        """The tools ``ctx``'s caller may see through ``owner``, without the pinned ones."""
        return (await self._get(owner, list_all, ctx))[1]

    async def _get(
        self, owner: Any, list_all: ListAll, ctx: Any
    ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        server = ctx.fastmcp
        now = _state(server, owner)
        if now is not None and await get_visibility_rules(ctx):
            now = None  # this session enabled or disabled components of its own
        cached = self._state
        if now is not None and cached is not None and cached.same(now) and _now() < self._expires:
            return self._catalog, self._visible
        if now is not None:
            for watch in now.watches:
                await watch.ensure_probed()
        started = _now()
        listed = tuple(await list_all(ctx))
        self.listings += 1
        pinned = self._pinned
        shown = tuple(t for t in listed if t.name not in pinned)
        if now is not None:
            after = _state(server, owner)
            if after is not None and after.same(now) and now.without_auth():
                # A remote, even one that announces its changes, is listed again after the
                # interval: it tells only the sessions open at the time, and the proxy opens
                # one per request, so a change made between requests reaches no one.
                remote = after.remote()
                if not remote or self._interval > 0:
                    self._expires = started + self._interval if remote else math.inf
                    self._state, self._catalog, self._visible = now, listed, shown
        return listed, shown

    def clear(self) -> None:
        """Forget the catalogue: the next search lists the server again."""
        self._state, self._catalog, self._visible = None, (), ()
