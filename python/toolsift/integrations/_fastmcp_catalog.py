"""The catalogue a FastMCP search call ranks, kept between calls while nothing can change it.

FastMCP hands a search transform its catalogue by listing the whole server on every
``search_tools`` call: every provider, every transform, the per-session visibility rules,
every tool's ``auth`` check, version deduplication and the ``tools/list`` middleware (by
default ``DereferenceRefsMiddleware``, which walks every tool's schema). At 11,578 tools that
costs hundreds of milliseconds a call, for a search that takes a fraction of one.

FastMCP sends no signal when a provider's tools change, so :class:`CatalogCache` keeps the
listed catalogue only for a server whose listing is known to depend on nothing but what it
compares on each call:

* every provider is FastMCP's ``LocalProvider`` (``mcp.add_tool``/``remove_tool``), whose
  components it compares by identity (one pointer comparison per component, in C);
* the server's and the providers' transforms, and the middleware, are the same objects
  (``mcp.enable``/``disable`` add a transform; ``add_middleware`` adds a middleware), and
  every transform is one of FastMCP's whose listing depends only on the tools (``Visibility``,
  ``Namespace``, ``ToolTransform``, ``VersionFilter``) or the search transform itself;
* every middleware leaves ``tools/list`` alone or is FastMCP's ``DereferenceRefsMiddleware``
  (which rewrites schemas, the same way every time, and filters nothing);
* no tool has an ``auth`` check (those depend on the caller's token), and the current
  session has no visibility rules of its own (``ctx.enable_components``/``disable_components``).

Anything else (a mounted server, a proxy, a custom provider, a filtering middleware, a tool
with ``auth``) lists the server on every call, as FastMCP does.

Example:
    >>> from fastmcp import FastMCP
    >>> cache = CatalogCache(pinned=set())
    >>> cache.listings, _state(FastMCP("plain"), owner=None) is not None
    (0, True)
"""

from __future__ import annotations

import operator
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.middleware import Middleware
from fastmcp.server.middleware.dereference import DereferenceRefsMiddleware
from fastmcp.server.middleware.tool_injection import ToolInjectionMiddleware
from fastmcp.server.providers import LocalProvider
from fastmcp.server.providers.base import Provider
from fastmcp.server.transforms import Namespace, ToolTransform, VersionFilter, Visibility
from fastmcp.server.transforms.visibility import get_visibility_rules
from fastmcp.tools.base import Tool as FastMCPTool

__all__ = ["CatalogCache"]

ListAll = Callable[[Any], Awaitable[Sequence[Any]]]

# The hooks through which a middleware can see or change a `tools/list`.
_LIST_HOOKS = ("__call__", "_dispatch_handler", "on_message", "on_request", "on_list_tools")
_PROVIDER_HOOKS = ("list_tools", "_list_tools")
# FastMCP's transforms whose listing depends only on the tools and their own settings.
_PURE_TRANSFORMS = (Visibility, Namespace, ToolTransform, VersionFilter)
_SERVER_HOOKS = ("list_tools", "_list_tools", "_injected_tools", "_rewrite_prefab_uris")


def _neutral_middleware(middleware: Any) -> bool:
    """A middleware that cannot change which tools are listed."""
    if type(middleware) is DereferenceRefsMiddleware:
        return True
    if isinstance(middleware, ToolInjectionMiddleware):
        return False
    cls = type(middleware)
    return all(getattr(cls, hook) is getattr(Middleware, hook) for hook in _LIST_HOOKS)


def _plain_local(provider: Any) -> bool:
    """FastMCP's own local provider, listing its components as stored."""
    if not isinstance(provider, LocalProvider):
        return False
    cls = type(provider)
    return all(getattr(cls, h) is getattr(LocalProvider, h) for h in _PROVIDER_HOOKS) and (
        cls.list_tools is Provider.list_tools
    )


class _State:
    """What a server's listing depends on: the objects compared on each call."""

    __slots__ = ("key", "components")

    def __init__(self, key: tuple[Any, ...], components: tuple[tuple[Any, ...], ...]) -> None:
        self.key = key
        self.components = components

    def without_auth(self) -> bool:
        """No tool has an ``auth`` check (whose outcome depends on the caller)."""
        return not any(
            isinstance(c, FastMCPTool) and c.auth is not None
            for values in self.components
            for c in values
        )

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


def _state(server: Any, owner: Any) -> _State | None:
    """The state of ``server``'s listing, or ``None`` when it may depend on the request
    (``owner``: the transform asking, which passes the catalogue through when it lists)."""
    if not isinstance(server, FastMCP) or any(
        getattr(type(server), hook) is not getattr(FastMCP, hook) for hook in _SERVER_HOOKS
    ):
        return None
    providers, middleware = server.providers, server.middleware
    if not all(_neutral_middleware(m) for m in middleware):
        return None
    if not all(_plain_local(p) for p in providers):
        return None
    transforms = tuple(server.transforms)
    provider_transforms = tuple((p, tuple(p.transforms)) for p in providers)
    if not all(_pure(t, owner) for t in transforms) or not all(
        _pure(t, owner) for _, ts in provider_transforms for t in ts
    ):
        return None
    # Every provider is a LocalProvider (checked above): its storage, compared by identity.
    components = tuple(tuple(p._components.values()) for p in providers)  # type: ignore[attr-defined]
    key = (
        server,
        transforms,
        tuple(middleware),
        provider_transforms,
    )
    return _State(key, components)


class CatalogCache:
    """The last catalogue a transform listed, and what it was listed from.

    Arguments:
        pinned: the names a search leaves out (the transform's ``always_visible``).

    Attributes:
        listings: how many times the whole server was listed (a search on an unchanged
            server lists nothing).
    """

    def __init__(self, pinned: set[str]) -> None:
        self._pinned = pinned
        self._state: _State | None = None
        self._catalog: tuple[Any, ...] = ()
        self._visible: tuple[Any, ...] = ()
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
        if now is not None and cached is not None and cached.same(now):
            return self._catalog, self._visible
        listed = tuple(await list_all(ctx))
        self.listings += 1
        pinned = self._pinned
        shown = tuple(t for t in listed if t.name not in pinned)
        if now is not None:
            after = _state(server, owner)
            if after is not None and after.same(now) and now.without_auth():
                self._state, self._catalog, self._visible = now, listed, shown
        return listed, shown

    def clear(self) -> None:
        """Forget the catalogue: the next search lists the server again."""
        self._state, self._catalog, self._visible = None, (), ()
