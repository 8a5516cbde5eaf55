"""Per-client discovery state of the gateway: one :class:`~toolsift.DiscoverySession` per
connected MCP client session, made by ONE factory, :func:`new_session`.

Each client has its own activations (a search by one client never lists a tool for another),
its own search rate-limit bucket, and the last server session it used, through which the
gateway tells it ``notifications/tools/list_changed``.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import mcp_types

from ..config import ToolSearchConfig
from ..session import DiscoverySession
from ..tools import Tool
from .limits import TokenBucket

__all__ = ["ClientState", "SearchRecord", "SessionRegistry", "new_session"]

#: The state of clients that nothing tells apart (sessionless HTTP without authentication).
SHARED_CLIENT = "shared"
#: How many searches a client state remembers (the latest), for the dashboard.
RECENT_SEARCHES = 50


def new_session(
    catalog: Mapping[str, Sequence[Tool]], config: ToolSearchConfig
) -> DiscoverySession:
    """THE factory of a client's discovery session: every server's tools, set up by ``config``.

    The one place the gateway makes sessions, so that a shared-catalogue session view can
    replace it.
    """
    session = DiscoverySession(config=config)
    for server, tools in catalog.items():
        _connect(session, server, tools)
    return session


def _connect(session: DiscoverySession, server: str, tools: Sequence[Tool]) -> None:
    """``server``'s tools into ``session``; tools of no server (a catalogue file of plain
    function tools) are added as built-in tools."""
    if tools and all(t.server is None for t in tools):
        session.remove_tools([t.name for t in tools])  # a catalogue set again replaces them
        session.add_tools(list(tools))
    else:
        session.connect_server(server, list(tools))


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
    """The client states by client key, and the catalogue they are made from."""

    def __init__(self, config: ToolSearchConfig) -> None:
        self.config = config
        self._catalog: dict[str, tuple[Tool, ...]] = {}
        self._states: dict[str, ClientState] = {}
        self._lock = threading.Lock()
        #: A session holding the catalogue only (never searched): the meta-tool description
        #: and name resolution read it.
        self.template = new_session({}, config)

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
                    new_session(self._catalog, self.config),
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
        client a new, full bucket."""
        with self._lock:
            rate_changed = config.rate_limit != self.config.rate_limit
            self.config = config
            self.template = new_session(self._catalog, config)
            for state in self._states.values():
                session = new_session(self._catalog, config)
                session.activate(state.session.selected)
                state.session = session
                if rate_changed:
                    limit = config.rate_limit
                    state.bucket = TokenBucket(limit) if limit is not None else None

    def set_server(self, server: str, tools: Sequence[Tool]) -> None:
        """A server's (new) tool list, for every client (their activations are kept)."""
        with self._lock:
            self._catalog[server] = tuple(tools)
            states = list(self._states.values())
            template = self.template
        _connect(template, server, tools)
        for state in states:
            _connect(state.session, server, tools)

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
