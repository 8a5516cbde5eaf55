"""Per-client discovery state of the gateway: one :class:`~toolsift.DiscoverySession` per
connected MCP client session, each a view of ONE shared :class:`~toolsift.Catalog` (no index
of its own: a few KiB per client), made by ONE factory, :func:`new_session`.

Each client (see :mod:`toolsift.gateway.identity`) has its own activations (a search by one
client never lists a tool for another), its own search rate-limit bucket (an authenticated
principal's is kept across its sessions and apart from its states, so neither a new session nor
an evicted state refills it), and the last server session it used, through which the gateway
tells it ``notifications/tools/list_changed``. A server's new tool list changes the catalogue
once; every client sees it at its next call.

States do not outlive their clients: one is dropped when its MCP session ends (:meth:`drop`),
when it was idle ``client_ttl`` seconds, and, past ``max_clients`` states, the least recently
used goes first. A request without an identity gets a fresh state that is never kept.

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
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

import mcp_types

from ..config import ToolSearchConfig
from ..session import DiscoverySession
from ..shared_catalog import Catalog
from ..tools import Tool
from .limits import TokenBucket
from .storage import StoredClient

__all__ = ["ANONYMOUS", "ClientState", "SearchRecord", "SessionRegistry", "new_session"]

#: The key of the fresh, never-kept state of a request without an identity.
ANONYMOUS = "anonymous"
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
    #: The principal whose rate-limit bucket the client shares (``""``: its own bucket).
    bucket_key: str = ""
    #: Nothing keeps this state: the request has no identity (see :data:`ANONYMOUS`).
    ephemeral: bool = False
    #: When the client last made a request (``time.monotonic()``).
    seen: float = field(default_factory=time.monotonic)
    #: The client's session ended: the state is being dropped.
    ended: bool = False
    #: The gateway hooked the end of the client's MCP session (to drop the state then).
    hooked: bool = field(default=False, repr=False)
    #: The server session of the client's last request (to send it notifications).
    notify: Any = field(default=None, repr=False)
    #: When the state was made (``time.time()``).
    created: float = field(default_factory=time.time)
    #: The latest searches, oldest first (at most :data:`RECENT_SEARCHES`).
    searches: deque[SearchRecord] = field(
        default_factory=lambda: deque(maxlen=RECENT_SEARCHES), repr=False
    )
    #: With a shared store: the client's state as last read from (or written to) it.
    stored: StoredClient | None = field(default=None, repr=False)
    #: The stored state (its ``created`` and ``version``) that ``session`` holds.
    adopted: tuple[float, int] = (0.0, 0)
    #: The activation version the client's connection to this replica was last told about.
    told: int = -1

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

    def __init__(
        self, config: ToolSearchConfig, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.config = config
        self._clock = clock
        #: Every server's tools as the gateway set them (the dashboard lists them).
        self._catalog: dict[str, tuple[Tool, ...]] = {}
        #: The one catalogue and index every client session searches.
        self.shared = Catalog(
            profile=config.profile,  # type: ignore[arg-type]
            semantic=config.semantic,
        )
        #: Least recently used first.
        self._states: OrderedDict[str, ClientState] = OrderedDict()
        #: The rate-limit buckets of principals (kept apart from their states).
        self._buckets: dict[str, TokenBucket] = {}
        self._lock = threading.Lock()
        #: A session of the catalogue that is never searched: the meta-tool description reads it.
        self.template = new_session(self.shared, config)

    @property
    def catalog(self) -> dict[str, tuple[Tool, ...]]:
        with self._lock:
            return dict(self._catalog)

    def state(self, key: str | None, bucket_key: str | None = None) -> ClientState:
        """The state of client ``key``, made on its first request (``None``: a fresh state
        that is not kept, with no rate limit). ``bucket_key``: the principal whose rate-limit
        bucket the client shares (kept apart from the states); ``None``: a bucket of its own."""
        now = self._clock()
        with self._lock:
            self._expire(now)
            if key is None:
                return ClientState(
                    ANONYMOUS, new_session(self.shared, self.config), None, ephemeral=True
                )
            state = self._states.get(key)
            if state is None:
                state = ClientState(
                    key,
                    new_session(self.shared, self.config),
                    self._bucket(bucket_key),
                    bucket_key or "",
                )
                self._states[key] = state
                while len(self._states) > self.config.max_clients:
                    self._pop(next(iter(self._states)))
            else:
                self._states.move_to_end(key)
            state.seen = now
            return state

    def _bucket(self, bucket_key: str | None) -> TokenBucket | None:
        limit = self.config.rate_limit
        if limit is None:
            return None
        if not bucket_key:
            return TokenBucket(limit)
        bucket = self._buckets.get(bucket_key)
        if bucket is None:
            if len(self._buckets) >= self.config.max_clients:
                # Only a full bucket no live state holds can go: it equals a new one.
                held = {id(s.bucket) for s in self._states.values()}
                self._buckets = {
                    k: b for k, b in self._buckets.items() if id(b) in held or not b.full()
                }
            bucket = self._buckets[bucket_key] = TokenBucket(limit)
        return bucket

    def _expire(self, now: float) -> None:
        """Drop the states idle for longer than ``client_ttl`` (the oldest are first)."""
        deadline = now - self.config.client_ttl
        while self._states:
            oldest = next(iter(self._states.values()))
            if oldest.seen >= deadline:
                break
            self._pop(oldest.key)

    def _pop(self, key: str) -> None:
        state = self._states.pop(key, None)
        if state is not None:
            state.ended = True
            state.notify = None

    def adopt(self, state: ClientState, stored: StoredClient | None) -> None:
        """Make ``state``'s view hold exactly the activations of its ``stored`` state (read
        from the shared store at this request; ``None``: it has none). The view is made again
        only when the stored state is another one than the view holds."""
        state.stored = stored
        mark = (stored.created, stored.version) if stored is not None else (0.0, 0)
        if mark == state.adopted:
            return
        session = new_session(self.shared, self.config)
        if stored is not None and stored.activated:
            session.activate(stored.activated)  # names no longer in the catalogue are ignored
        state.session = session
        state.adopted = mark

    def drop(self, key: str) -> None:
        """Forget client ``key`` (its MCP session ended); its principal's bucket stays."""
        with self._lock:
            self._pop(key)

    def states(self) -> list[ClientState]:
        """Every live client state, least recently active first."""
        with self._lock:
            self._expire(self._clock())
            return [s for s in self._states.values() if not s.ended]

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
            if rate_changed:
                self._buckets.clear()
            for state in self._states.values():
                session = new_session(self.shared, config)
                session.activate(state.session.selected)
                state.session = session
                if rate_changed:
                    state.bucket = self._bucket(state.bucket_key)
            while len(self._states) > config.max_clients:
                self._pop(next(iter(self._states)))

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
