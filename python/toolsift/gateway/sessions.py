"""Per-client discovery state of the gateway: one :class:`~toolsift.DiscoverySession` per
connected MCP client session, each a view of ONE shared :class:`~toolsift.Catalog` (no index
of its own: a few KiB per client), made by ONE factory, :func:`new_session`.

Each client has its own activations (a search by one client never lists a tool for another),
its own search rate-limit bucket, and the last server session it used, through which the
gateway tells it ``notifications/tools/list_changed``. A server's new tool list changes the
catalogue once; every client sees it at its next call.

Example:
    >>> from toolsift import Tool
    >>> from toolsift.config import ToolSearchConfig
    >>> registry = SessionRegistry(ToolSearchConfig())
    >>> registry.set_server("git", (Tool(name="git_status", server="git"),))
    >>> registry.state("client-1").session.hidden_tools[0].name
    'git_status'
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import mcp_types

from ..config import ToolSearchConfig
from ..session import DiscoverySession
from ..shared_catalog import Catalog
from ..tools import Tool
from .limits import TokenBucket

__all__ = ["ClientState", "SearchRecord", "SessionRegistry", "new_session"]

#: The state of clients that nothing tells apart (sessionless HTTP without authentication).
SHARED_CLIENT = "shared"
#: How many searches a client state remembers (the latest), for the dashboard.
RECENT_SEARCHES = 50


def new_session(catalog: Catalog, config: ToolSearchConfig) -> DiscoverySession:
    """THE factory of a client's discovery session: a view of ``catalog`` set up by ``config``.

    The one place the gateway makes sessions (clients, the template, the dashboard's trials).
    """
    return catalog.session(config=config)


@dataclass(frozen=True)
class SearchRecord:
    """One search a client made: when, what it asked and what it activated."""

    at: float
    query: str
    kind: str
    activated: tuple[str, ...]
    already_active: tuple[str, ...]
    missing: tuple[str, ...]


@dataclass
class ClientState:
    """What the gateway keeps for one client session."""

    key: str
    session: DiscoverySession
    bucket: TokenBucket | None
    #: The server session of the client's last request (to send it notifications).
    notify: Any = field(default=None, repr=False)
    #: When the state was made (``time.time()``).
    created: float = field(default_factory=time.time)
    #: The latest searches, oldest first (at most :data:`RECENT_SEARCHES`).
    searches: deque[SearchRecord] = field(
        default_factory=lambda: deque(maxlen=RECENT_SEARCHES), repr=False
    )

    def record(self, query: str, result: Any) -> None:
        """Remember a search of this client (its :class:`~toolsift.DiscoveryResult`)."""
        self.searches.append(
            SearchRecord(
                time.time(),
                query,
                result.query_kind,
                tuple(result.activated),
                tuple(result.already_active),
                tuple(result.missing),
            )
        )


class SessionRegistry:
    """The client states by client key, and the shared catalogue they are views of."""

    def __init__(self, config: ToolSearchConfig) -> None:
        self.config = config
        #: Every server's tools as the gateway set them (the dashboard lists them).
        self._catalog: dict[str, tuple[Tool, ...]] = {}
        #: The one catalogue and index every client session searches.
        self.shared = Catalog(
            profile=config.profile,  # type: ignore[arg-type]
            semantic=config.semantic,
        )
        self._states: dict[str, ClientState] = {}
        self._lock = threading.Lock()
        #: A session of the catalogue that is never searched: the meta-tool description reads it.
        self.template = new_session(self.shared, config)

    @property
    def catalog(self) -> dict[str, tuple[Tool, ...]]:
        with self._lock:
            return dict(self._catalog)

    def state(self, key: str) -> ClientState:
        """The state of client ``key``, made on its first request."""
        with self._lock:
            state = self._states.get(key)
            if state is None:
                limit = self.config.rate_limit
                state = ClientState(
                    key,
                    new_session(self.shared, self.config),
                    TokenBucket(limit) if limit is not None else None,
                )
                self._states[key] = state
            return state

    def states(self) -> list[ClientState]:
        """Every client state, in the order the clients came."""
        with self._lock:
            return list(self._states.values())

    def reconfigure(self, config: ToolSearchConfig) -> None:
        """New ``tool_search`` settings for every client, live: each session is made again by
        :func:`new_session` and keeps its activations; a changed ``rate_limit`` gives each
        client a new, full bucket. A new analysis ``profile`` or ``semantic`` switch indexes the
        catalogue again (once, for every client)."""
        with self._lock:
            rate_changed = config.rate_limit != self.config.rate_limit
            if (
                config.profile != self.shared.index.profile
                or config.semantic != self.config.semantic
            ):
                self.shared = _rebuilt(self.shared, config.profile, config.semantic)
            self.config = config
            self.template = new_session(self.shared, config)
            for state in self._states.values():
                session = new_session(self.shared, config)
                session.activate(state.session.selected)
                state.session = session
                if rate_changed:
                    limit = config.rate_limit
                    state.bucket = TokenBucket(limit) if limit is not None else None

    def set_server(self, server: str, tools: Sequence[Tool]) -> None:
        """A server's (new) tool list: one change of the shared catalogue, which every client
        sees at its next call (their activations are kept). Tools of no server (a catalogue
        file of plain function tools) are built-in tools that replace those set before."""
        tools = tuple(tools)
        with self._lock:
            shared = self.shared
            previous = self._catalog.get(server)
            if tools and all(t.server is None for t in tools):
                gone = {t.name for t in previous or ()} | {t.name for t in tools}
                shared.remove_tools(sorted(gone))
                shared.add_tools(list(tools))
            elif server in shared.servers:
                shared.replace_server(server, list(tools))
            else:
                shared.connect_server(server, list(tools))
            self._catalog[server] = tools

    def find(self, name: str) -> Tool | None:
        return self.template.find_tool(name)

    async def notify_all(self) -> None:
        """Send ``notifications/tools/list_changed`` to every client that can still get it."""
        with self._lock:
            sessions = [s.notify for s in self._states.values() if s.notify is not None]
        for server_session in sessions:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    await server_session.send_notification(mcp_types.ToolListChangedNotification())


def _rebuilt(catalog: Catalog, profile: str, semantic: Any = "auto") -> Catalog:
    """``catalog``'s tools and servers in a new catalogue indexed with ``profile`` and
    ``semantic``."""
    servers = catalog.servers
    in_server = {n for names in servers.values() for n in names}
    tools = catalog.tools
    by_name = {t.name: t for t in tools}
    return Catalog(
        [t for t in tools if t.name not in in_server],
        servers={s: [by_name[n] for n in names] for s, names in servers.items()},
        engine=catalog.index.engine,  # type: ignore[arg-type]
        profile=profile,  # type: ignore[arg-type]
        semantic=semantic,
    )
