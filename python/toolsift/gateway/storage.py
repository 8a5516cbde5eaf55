"""The gateway's shared client-state store: what lets several replicas of ``toolsift serve``
behind one load balancer serve any client (``tool_search.storage``, ``--storage URL``).

With ``memory://`` (the default) each process keeps its clients' state itself
(:class:`~toolsift.gateway.sessions.SessionRegistry`) and there is no store. With a
``redis://``, ``rediss://``, ``valkey://`` or ``valkeys://`` URL, every piece of per-client
state lives in the store, keyed by the client's identity (:mod:`toolsift.gateway.identity`),
through FastMCP's own storage layer, py-key-value's ``RedisStore`` (collection
``toolsift-clients``, expiring ``client_ttl`` seconds after the client's last request):

* its activations (the names, in order) and a version that grows when they change;
* its latest searches (for the dashboard), when it was created and last seen, and the replica
  (``--replica-id``, default ``HOST:PID``) that served it last;
* its principal's (or its own) search rate limit: a token bucket in a Redis hash updated by one
  Lua script (:data:`TAKE_SCRIPT`), so that replicas never race on it. py-key-value has no
  atomic increment: a read-modify-write through it would let two replicas both take the last
  token, so the bucket uses the store's own Redis client.

Each replica keeps only a view per client (its :class:`~toolsift.DiscoverySession` over the
shared catalogue), made again from the store at each of the client's requests
(:meth:`SharedStore.load`): a call is checked by the execution gate against the stored
activations, never a cached copy, and when the store cannot be read the call is refused
(:class:`~toolsift.errors.StoreError`). A replica that dies loses nothing; a client's
``notifications/tools/list_changed`` is sent by the replica it is connected to, when its next
request finds a newer activation version than the replica last told it.

Valkey speaks Redis's protocol: ``valkey://`` URLs are served by the same store and client
(redis-py), which the atomic rate limit needs.

Example:
    >>> store = open_store("redis://:pw@cache.internal:6379/0", replica="gw-1")
    >>> store.url, store.replica
    ('redis://:***@cache.internal:6379/0', 'gw-1')
    >>> open_store("memory://") is None
    True
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .._config_storage import MEMORY, check_storage_url, mask_url
from ..config import RateLimit
from ..errors import StoreError

__all__ = [
    "COLLECTION",
    "StoredClient",
    "SharedStore",
    "TAKE_SCRIPT",
    "check_store",
    "open_store",
    "replica_id",
]

log = logging.getLogger("toolsift.gateway")

#: The py-key-value collection of the client states.
COLLECTION = "toolsift-clients"
#: The prefix of the rate-limit buckets' Redis keys.
BUCKET_PREFIX = "toolsift:rate:"
#: Seconds a store request may take before it fails (the gateway then refuses, fail closed).
STORE_TIMEOUT = 2.0
#: The most connections a replica opens to the store (more concurrent requests wait for one).
MAX_CONNECTIONS = 64
#: How many searches of a client the store keeps (the latest).
STORED_SEARCHES = 50

#: One token taken from a bucket of ARGV[1] tokens refilled evenly over ARGV[2] seconds, on
#: Redis's clock (the replicas' clocks never matter). Returns {1, "0"} when a token was taken,
#: else {0, seconds until the next token}. The bucket expires once it would be full again.
TAKE_SCRIPT = """
local capacity = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local rate = capacity / period
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(held[1]) or capacity
local at = tonumber(held[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(period * 1000))
local wait = 0
if taken == 0 then wait = (1 - tokens) / rate end
return {taken, tostring(wait)}
"""


def replica_id() -> str:
    """This process's default replica id: ``HOST:PID``."""
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass
class StoredClient:
    """The state of one client as the store holds it.

    Attributes:
        key: the client's identity key.
        activated: its activated tool names, in activation order.
        version: grows by one each time ``activated`` changes.
        searches: its latest searches (plain dicts: ``at``, ``query``, ``kind``,
            ``activated``, ``already_active``, ``missing``), oldest first.
        created, seen: when it was made and last served (``time.time()``).
        replica: the replica that served it last.
    """

    key: str
    activated: tuple[str, ...] = ()
    version: int = 0
    searches: list[dict[str, Any]] = field(default_factory=list)
    created: float = field(default_factory=time.time)
    seen: float = field(default_factory=time.time)
    replica: str = ""

    def to_value(self) -> dict[str, Any]:
        return {
            "activated": list(self.activated),
            "version": self.version,
            "searches": self.searches[-STORED_SEARCHES:],
            "created": self.created,
            "seen": self.seen,
            "replica": self.replica,
        }

    @classmethod
    def from_value(cls, key: str, value: Any) -> StoredClient | None:
        """The client of a stored value, ``None`` when the value is not one (a foreign or
        corrupted entry is treated as absent: the client starts again, it gains nothing)."""
        if not isinstance(value, dict):
            return None
        activated = value.get("activated")
        searches = value.get("searches", [])
        if not isinstance(activated, list) or not all(isinstance(n, str) for n in activated):
            return None
        if not isinstance(searches, list):
            searches = []
        try:
            return cls(
                key,
                tuple(activated),
                int(value.get("version", 0)),
                [s for s in searches if isinstance(s, dict)],
                float(value.get("created", 0.0)),
                float(value.get("seen", 0.0)),
                str(value.get("replica", "")),
            )
        except (TypeError, ValueError):
            return None


def _client_url(url: str) -> str:
    """The redis-py URL of a storage URL (Valkey speaks Redis's protocol)."""
    scheme, rest = url.split("://", 1)
    scheme = {"valkey": "redis", "valkeys": "rediss"}.get(scheme.lower(), scheme.lower())
    return f"{scheme}://{rest}"


def _redis_errors() -> tuple[type[BaseException], ...]:
    from key_value.aio.errors import BaseKeyValueError
    from redis.exceptions import RedisError

    return (RedisError, BaseKeyValueError, OSError, asyncio.TimeoutError)


class SharedStore:
    """The client states and rate-limit buckets of every replica, in Redis or Valkey.

    The Redis client is made on first use, in the event loop that serves (:meth:`open`).

    Arguments:
        url: the storage URL (``redis://…``, ``rediss://…``, ``valkey://…``, ``valkeys://…``).
        replica: this replica's id (default :func:`replica_id`).
        timeout: seconds a store request may take.

    Raises:
        ConfigError: the redis client is not installed (``pip install 'toolsift[redis]'``).
    """

    def __init__(self, url: str, *, replica: str | None = None, timeout: float = STORE_TIMEOUT):
        self._url = check_storage_url(url)
        self.url = mask_url(url)
        self.replica = replica or replica_id()
        self.timeout = timeout
        self._redis: Any = None
        self._kv: Any = None
        self._take: Any = None
        try:
            import redis.asyncio  # noqa: F401
            from key_value.aio.stores.redis import RedisStore  # noqa: F401
        except ImportError:
            from ..errors import ConfigError

            raise ConfigError(
                f"tool_search.storage {self.url} needs the Redis client: "
                "pip install 'toolsift[redis]'",
                key="storage",
            ) from None

    def _client(self) -> Any:
        if self._redis is None:
            from key_value.aio.stores.redis import RedisStore
            from redis.asyncio import BlockingConnectionPool, Redis
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff

            # A bounded pool that waits (``timeout``) for a free connection: a burst of
            # requests past its size queues instead of failing. One retry: a pooled
            # connection that died with a restarted server is replaced at once; a server
            # that is down fails within ``timeout``.
            pool = BlockingConnectionPool.from_url(
                _client_url(self._url),
                max_connections=MAX_CONNECTIONS,
                timeout=self.timeout,
                decode_responses=True,
                socket_timeout=self.timeout,
                socket_connect_timeout=self.timeout,
                retry=Retry(NoBackoff(), 1),
            )
            self._redis = Redis(connection_pool=pool)
            self._kv = RedisStore(client=self._redis, default_collection=COLLECTION)
            self._take = self._redis.register_script(TAKE_SCRIPT)
        return self._redis

    def _failed(self, exc: BaseException, doing: str) -> StoreError:
        problem = str(exc) or type(exc).__name__
        problem = problem.replace(self._url, self.url)
        return StoreError(
            f"the gateway's state store {self.url} is unreachable ({doing}: {problem}); "
            "nothing that needs it is allowed until it answers again",
            url=self.url,
        )

    async def _run(self, doing: str, work: Any) -> Any:
        self._client()
        try:
            async with asyncio.timeout(self.timeout * 2):
                return await work()
        except _redis_errors() as exc:
            raise self._failed(exc, doing) from None

    async def open(self) -> None:
        """Connect and check that the store answers.

        Raises:
            StoreError: it does not.
        """

        async def ping() -> None:
            await self._client().ping()

        await self._run("ping", ping)

    async def close(self) -> None:
        redis, self._redis = self._redis, None
        if redis is not None:
            try:
                await redis.aclose()
                await redis.connection_pool.disconnect()
            except Exception:  # closing a client whose server is gone
                log.debug("state store client closed with an error", exc_info=True)

    async def reachable(self) -> bool:
        """Whether the store answers a ping now."""
        try:
            await self.open()
        except StoreError:
            return False
        return True

    async def load(self, key: str) -> StoredClient | None:
        """Client ``key``'s stored state, ``None`` when it has none (never searched, expired).

        Raises:
            StoreError: the store did not answer.
        """
        value = await self._run("read", lambda: self._kv.get(key))
        return None if value is None else StoredClient.from_value(key, value)

    async def save(self, client: StoredClient, ttl: float) -> None:
        """Write ``client``'s state, to expire ``ttl`` seconds from now.

        Raises:
            StoreError: the store did not answer (the state is not kept).
        """
        value = client.to_value()
        await self._run("write", lambda: self._kv.put(client.key, value, ttl=max(1.0, ttl)))

    async def drop(self, key: str) -> None:
        """Forget client ``key`` (its MCP session ended)."""
        await self._run("delete", lambda: self._kv.delete(key))

    async def take(self, bucket: str, limit: RateLimit) -> float | None:
        """Take one search token from ``bucket`` atomically across every replica: ``None``
        when there was one, else the seconds until the next.

        Raises:
            StoreError: the store did not answer.
        """

        async def take() -> Any:
            return await self._take(
                keys=[BUCKET_PREFIX + bucket], args=[limit.count, limit.per_seconds]
            )

        taken, wait = await self._run("rate limit", take)
        return None if int(taken) == 1 else float(wait)

    async def clients(self, limit: int = 10_000) -> list[StoredClient]:
        """Every stored client (at most ``limit``), the latest seen first."""

        async def read() -> list[Any]:
            keys = await self._kv.keys(COLLECTION, limit=limit)
            values = await self._kv.get_many(keys) if keys else []
            return list(zip(keys, values))

        found = [StoredClient.from_value(k, v) for k, v in await self._run("list", read)]
        return sorted((c for c in found if c is not None), key=lambda c: -c.seen)


def open_store(url: str, *, replica: str | None = None) -> SharedStore | None:
    """The store of storage URL ``url``; ``None`` for ``memory://`` (each process keeps its
    own clients).

    Raises:
        ConfigError: the URL needs the ``redis`` extra, which is not installed.
    """
    if url.lower() == MEMORY:
        return None
    return SharedStore(url, replica=replica)


async def check_store(url: str) -> None:
    """Check that the store of ``url`` answers (``serve`` does before it starts).

    Raises:
        StoreError: it does not; the message names it, password masked.
    """
    store = open_store(url)
    if store is None:
        return
    try:
        await store.open()
    finally:
        await store.close()


def searches_value(searches: Iterable[Any]) -> list[dict[str, Any]]:
    """:class:`~toolsift.gateway.sessions.SearchRecord` objects as the store keeps them."""
    return [
        {
            "at": r.at,
            "query": r.query,
            "kind": r.kind,
            "activated": list(r.activated),
            "already_active": list(r.already_active),
            "missing": list(r.missing),
        }
        for r in searches
    ]
