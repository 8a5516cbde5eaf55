"""The gateway's side of a shared state store (:mod:`toolsift.gateway.storage`): what a replica
does at each request so that any replica serves any client.

* :meth:`SharedClients.sync`, at the start of every request of a client with an identity:
  reads its stored state and makes the replica's view of it hold exactly the stored
  activations (:meth:`~toolsift.gateway.sessions.SessionRegistry.adopt`); writes the state
  back when this replica had not served it, or when it was last written long ago (its idle
  expiry then starts again); says whether the client's connection must be told
  ``notifications/tools/list_changed`` (another replica changed its activations);
* :meth:`SharedClients.keep`, after a search: merges the search's activations into the
  state read again from the store (a search of the same client on another replica meanwhile
  keeps its own) and writes it;
* :meth:`SharedClients.take`: one search token of the client's bucket, atomic across replicas.

Each raises :class:`~toolsift.errors.StoreError` when the store does not answer: the gateway
then refuses the request (fail closed), except a search's rate limit, which falls back to the
replica's own bucket (searches keep answering while the store is away).

Example:
    >>> touch_interval(1800.0), touch_interval(20.0)
    (60.0, 5.0)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Callable

from ..config import RateLimit, ToolSearchConfig
from ..errors import StoreError
from .identity import PROCESS
from .sessions import ClientState, SessionRegistry
from .storage import SharedStore, StoredClient, searches_value

__all__ = ["SharedClients", "rate_wait", "shares", "touch_interval"]

log = logging.getLogger("toolsift.gateway")


def touch_interval(ttl: float) -> float:
    """How old (seconds) a client's stored ``seen`` may get before a request writes it again:
    a quarter of ``client_ttl``, at most a minute (one write per client per minute at most,
    and never an expiry while the client is active)."""
    return min(60.0, ttl / 4)


def shares(state: ClientState) -> bool:
    """Whether ``state``'s client is kept in the shared store: every client with an identity
    over HTTP. A request without one keeps nothing; a stdio gateway's one client (the process)
    is that process's alone, so two stdio gateways on one store never share a state.

    Example:
        >>> from toolsift.gateway.sessions import SessionRegistry
        >>> from toolsift.config import ToolSearchConfig
        >>> registry = SessionRegistry(ToolSearchConfig())
        >>> shares(registry.state("session:abc")), shares(registry.state("process"))
        (True, False)
    """
    return not state.ephemeral and state.key != PROCESS.key


class SharedClients:
    """The client states of a replica, kept in a shared store.

    Arguments:
        registry: the replica's views of its clients.
        store: the shared store.
        settings: the current ``tool_search`` settings (``client_ttl``).
    """

    def __init__(
        self,
        registry: SessionRegistry,
        store: SharedStore,
        settings: Callable[[], ToolSearchConfig],
    ) -> None:
        self.registry = registry
        self.store = store
        self._settings = settings

    @property
    def ttl(self) -> float:
        return self._settings().client_ttl

    def _stamped(self, client: StoredClient) -> StoredClient:
        client.seen = time.time()
        client.replica = self.store.replica
        return client

    async def sync(self, state: ClientState) -> bool:
        """Make ``state``'s view the stored state of its client; ``True`` when the client's
        connection should be told its tool list changed (its activations moved on since this
        replica last told it).

        Raises:
            StoreError: the store did not answer (nothing is decided from a stale view).
        """
        stored = await self.store.load(state.key)
        self.registry.adopt(state, stored)
        now = time.time()
        if (
            stored is None
            or stored.replica != self.store.replica
            or now - stored.seen > touch_interval(self.ttl)
        ):
            fresh = stored or StoredClient(state.key, created=now)
            await self.store.save(self._stamped(fresh), self.ttl)
            state.stored = fresh
            if stored is None:
                state.adopted = (fresh.created, fresh.version)
        version = state.stored.version if state.stored is not None else 0
        tell = version != state.told and (state.told >= 0 or bool(state.session.selected))
        state.told = version
        return tell

    async def keep(
        self, state: ClientState, activated: Sequence[str] = (), searched: bool = True
    ) -> None:
        """Write ``state``'s activations, with ``activated`` (what the search just activated:
        kept even if a concurrent request of the client made its view again meanwhile) and
        its latest search, to the store, merged into the state stored now.

        Raises:
            StoreError: the store did not answer: the activations are not kept (the next
                request's view is made from the store again, without them).
        """
        try:
            latest = await self.store.load(state.key)
            base = latest or StoredClient(state.key, created=state.created)
            names = base.activated + tuple(
                dict.fromkeys(
                    n for n in (*state.session.selected, *activated) if n not in base.activated
                )
            )
            if names != base.activated:
                base.activated, base.version = names, base.version + 1
            if searched and state.searches:
                base.searches = [*base.searches, *searches_value([state.searches[-1]])]
            await self.store.save(self._stamped(base), self.ttl)
        except BaseException:
            state.adopted = (-1.0, -1)  # the view holds what the store does not: made again
            raise
        state.stored = base
        state.told = base.version  # the search's own response tells the client
        self.registry.adopt(state, base)

    async def take(self, state: ClientState, limit: RateLimit) -> float | None:
        """One search token of the client's bucket (its principal's, else its own): ``None``
        when taken, else the seconds until the next.

        Raises:
            StoreError: the store did not answer.
        """
        return await self.store.take(state.bucket_key or state.key, limit)

    async def forget(self, key: str) -> None:
        """Client ``key``'s MCP session ended: its stored state goes (its bucket stays);
        while the store does not answer, its idle expiry removes it."""
        try:
            await self.store.drop(key)
        except StoreError as exc:
            log.warning("a closed session's state stays until it expires: %s", exc)


async def rate_wait(
    shared: SharedClients | None, state: ClientState, limit: RateLimit | None
) -> tuple[RateLimit, float] | None:
    """Take one search token for ``state``'s client: ``None`` when taken (or no limit), else
    the limit and the seconds until the next token. With a shared store the bucket is the
    store's, atomic across replicas; while the store does not answer, the replica's own
    bucket limits the client (searches keep answering, each replica limiting alone)."""
    if shared is not None and limit is not None and shares(state):
        try:
            wait = await shared.take(state, limit)
        except StoreError as exc:
            log.warning("rate limit on this replica alone: %s", exc)
        else:
            return None if wait is None else (limit, wait)
    bucket = state.bucket
    if bucket is not None and not bucket.take():
        return bucket.limit, bucket.retry_after()
    return None
