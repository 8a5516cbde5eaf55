"""Two replicas of the gateway sharing their clients' state through a real Redis
(``tool_search.storage = "redis://…"``): two in-process gateways, each FastMCP's app under
uvicorn on its own free loopback port, in front of one downstream FastMCP server over
Streamable HTTP (in process too: no process to start per replica), with JWT principals (each
test its own subject, so the tests share nothing but the servers).

Any replica serves any client (search on A, list and call on B), a client that never searched
is refused by the gate on both, one rate limit holds across both, a replica that stops loses
nothing, and while Redis is down no call passes the gate; the gateway recovers by itself."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("the MCP SDK and FastMCP need Python 3.11+", allow_module_level=True)

import httpx2  # noqa: E402
import uvicorn  # noqa: E402
from fastmcp import Client, FastMCP  # noqa: E402
from fastmcp.server.auth.providers.jwt import JWTVerifier, RSAKeyPair  # noqa: E402
from toolsift.config import GatewayConfig, ServerConfig, parse_tool_search  # noqa: E402
from toolsift.dashboard.api import Guard, routes  # noqa: E402
from toolsift.dashboard.backend import Dashboard  # noqa: E402
from toolsift.gateway import Gateway  # noqa: E402

from ._cli import cli  # noqa: E402
from ._mcp import PY, write_config  # noqa: E402
from ._redis import RedisServer, free_port  # noqa: E402

GET_TIME = "mcp__time__get_current_time"
ISSUER, AUDIENCE = "https://issuer.test", "toolsift"
SEARCH = "search_tool_bm25"


def _downstream() -> FastMCP[Any]:
    clock: FastMCP[Any] = FastMCP("time")

    @clock.tool
    def get_current_time(timezone: str) -> dict[str, str]:
        """Get the current time in a timezone."""
        return {"timezone": timezone, "datetime": time.strftime("%Y-%m-%dT%H:%M:%S")}

    return clock


class Served:
    """An ASGI app under uvicorn on a free loopback port, in a thread that :meth:`stop` ends."""

    def __init__(self, app: Any) -> None:
        port = free_port()
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, access_log=False)
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "no start"
            time.sleep(0.02)
        self.base = f"http://127.0.0.1:{port}"
        self.mcp = f"{self.base}/mcp"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)

    def get(self, path: str) -> httpx2.Response:
        return httpx2.get(f"{self.base}{path}", timeout=10)


class Replica(Served):
    """One gateway over HTTP, with the dashboard's routes; :meth:`stop` ends it (its views
    of the clients go with it)."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        for route in routes(Dashboard.from_gateway(gateway), Guard()):
            gateway.mcp.custom_route(route.path, sorted(route.methods or ()))(route.endpoint)
        super().__init__(gateway.mcp.http_app(**gateway.http_options("127.0.0.1")))


@pytest.fixture(scope="module")
def downstream() -> Iterator[ServerConfig]:
    served = Served(_downstream().http_app())
    yield ServerConfig("time", url=served.mcp, transport="http")
    served.stop()


@pytest.fixture(scope="module")
def keys() -> RSAKeyPair:
    return RSAKeyPair.generate()


@pytest.fixture(scope="module")
def replicas(downstream: ServerConfig, keys: RSAKeyPair) -> Any:
    """``replicas(storage, *ids, **tool_search)``: gateways in front of the downstream."""

    def gateway(storage: str, replica: str, **tool_search: Any) -> Gateway:
        verifier = JWTVerifier(public_key=keys.public_key, issuer=ISSUER, audience=AUDIENCE)
        settings = parse_tool_search({"storage": storage, **tool_search})
        return Gateway(GatewayConfig((downstream,), settings), auth=verifier, replica=replica)

    @contextlib.contextmanager
    def start(storage: str, *names: str, **settings: Any) -> Iterator[list[Replica]]:
        started: list[Replica] = []
        try:
            for name in names:
                started.append(Replica(gateway(storage, name, **settings)))
            yield started
        finally:
            for replica in started:
                replica.stop()

    start.gateway = gateway  # type: ignore[attr-defined]
    return start


@pytest.fixture(scope="module")
def pair(redis_server: RedisServer, replicas: Any) -> Iterator[tuple[Replica, Replica]]:
    """Replicas A and B on database 1 of the session's Redis, 3 searches a minute per client."""
    with replicas(redis_server.url(1), "replica-a", "replica-b", rate_limit="3/min") as (a, b):
        yield a, b


def _token(keys: RSAKeyPair, subject: str) -> str:
    return keys.create_token(subject=subject, issuer=ISSUER, audience=AUDIENCE)


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def _names(client: Client) -> list[str]:
    return [t.name for t in await client.list_tools()]


def test_a_search_on_one_replica_lists_and_calls_on_the_other(pair, keys) -> None:
    a, b = pair
    token = _token(keys, "carol")

    async def scenario() -> None:
        async with Client(a.mcp, auth=token) as on_a, Client(b.mcp, auth=token) as on_b:
            assert await _names(on_b) == [SEARCH]
            found = await on_a.call_tool_mcp(SEARCH, {"query": f"select:{GET_TIME}"})
            assert json.loads(_text(found))["activated_tools"] == [GET_TIME]
            assert await _names(on_b) == [SEARCH, GET_TIME]
            called = await on_b.call_tool_mcp(GET_TIME, {"timezone": "UTC"})
            assert not called.is_error and json.loads(_text(called))["timezone"] == "UTC"

    asyncio.run(scenario())
    # The dashboard of either replica shows the client, served last by B.
    rows = {r["key"]: r for r in a.get("/api/sessions").json()["sessions"]}
    carol = [r for key, r in rows.items() if key.startswith("user:carol~")]
    assert len(carol) == 1 and carol[0]["replica"] == "replica-b"
    assert carol[0]["activated"] == [GET_TIME] and carol[0]["searches"][0]["kind"] == "select"


def test_a_client_that_never_searched_is_refused_on_every_replica(pair, keys) -> None:
    token = _token(keys, "mallory")

    async def scenario() -> None:
        for replica in pair:
            async with Client(replica.mcp, auth=token) as client:
                refused = await client.call_tool_mcp(GET_TIME, {"timezone": "UTC"})
                assert refused.is_error and "not active" in _text(refused)

    asyncio.run(scenario())


def test_one_rate_limit_holds_across_replicas(pair, keys) -> None:
    """3 searches a minute: two on A and one on B use them up; the 4th fails on either."""
    a, b = pair
    token = _token(keys, "dave")

    async def scenario() -> None:
        async with Client(a.mcp, auth=token) as on_a, Client(b.mcp, auth=token) as on_b:
            for client in (on_a, on_b, on_a):
                ok = await client.call_tool_mcp(SEARCH, {"query": "current time"})
                assert not ok.is_error, _text(ok)
            for client in (on_b, on_a):
                over = await client.call_tool_mcp(SEARCH, {"query": "current time"})
                assert over.is_error and "rate limit exceeded (3/min" in _text(over).lower()

    asyncio.run(scenario())


def test_concurrent_searches_on_both_replicas_take_exactly_the_limit(pair, keys) -> None:
    """The bucket is taken atomically in Redis: 8 searches at once over two replicas, of 3
    allowed, pass exactly 3 times."""
    a, b = pair
    token = _token(keys, "erin")

    async def scenario() -> list[bool]:
        async with Client(a.mcp, auth=token) as on_a, Client(b.mcp, auth=token) as on_b:
            calls = [
                (on_a if i % 2 else on_b).call_tool_mcp(SEARCH, {"query": "time"}) for i in range(8)
            ]
            return [not r.is_error for r in await asyncio.gather(*calls)]

    assert sum(asyncio.run(scenario())) == 3


def test_replicas_agree_on_tool_names(pair) -> None:
    a, b = pair
    names = [sorted(t.name for t in r.gateway.registry.catalog["time"]) for r in (a, b)]
    assert names[0] == names[1] and GET_TIME in names[0]


def test_healthz_reports_the_store_and_the_downstreams(pair) -> None:
    a, _ = pair
    answer = a.get("/healthz")
    body = answer.json()
    assert answer.status_code == 200 and body["status"] == "ok"
    assert body["store"] == {"kind": "shared", "reachable": True}
    assert body["downstreams"]["connected"] == 1 and body["replica"] == "replica-a"


def test_a_replica_that_stops_loses_nothing(pair, redis_server, replicas, keys) -> None:
    """A client activates on a third replica C, which then stops: on B it goes on with its
    tools (C's memory held nothing the store does not)."""
    _, b = pair
    token = _token(keys, "frank")
    with replicas(redis_server.url(1), "replica-c") as (c,):

        async def on_c() -> None:
            async with Client(c.mcp, auth=token) as client:
                found = await client.call_tool_mcp(SEARCH, {"query": f"select:{GET_TIME}"})
                assert not found.is_error

        asyncio.run(on_c())
    assert c.thread.is_alive() is False

    async def on_b() -> None:
        async with Client(b.mcp, auth=token) as client:
            assert GET_TIME in await _names(client)
            called = await client.call_tool_mcp(GET_TIME, {"timezone": "UTC"})
            assert not called.is_error, _text(called)

    asyncio.run(on_b())


def test_while_redis_is_down_no_call_passes_and_the_gateway_recovers(replicas, keys) -> None:
    """Redis stops mid-session: a call of an activated tool is refused (fail closed) with a
    tool error naming the store, password masked; an activating search fails the same way;
    the listing shows only the search tool; /healthz answers 503. Redis starts again (empty:
    it has no persistence here): the gateway serves again by itself."""
    redis = RedisServer()
    try:
        redis.command("CONFIG", "SET", "requirepass", "hunter2")
        url = redis.url(password="hunter2")
        token = _token(keys, "grace")
        with replicas(url, "replica-r") as (replica,):

            async def scenario() -> None:
                async with Client(replica.mcp, auth=token) as client:
                    found = await client.call_tool_mcp(SEARCH, {"query": f"select:{GET_TIME}"})
                    assert not found.is_error
                    redis.stop()
                    refused = await client.call_tool_mcp(GET_TIME, {"timezone": "UTC"})
                    text = _text(refused)
                    assert refused.is_error and "state store" in text
                    assert ":***@127.0.0.1" in text and "hunter2" not in text
                    search = await client.call_tool_mcp(SEARCH, {"query": "time"})
                    assert search.is_error and "state store" in _text(search)
                    assert await _names(client) == [SEARCH]
                    assert replica.get("/healthz").status_code == 503
                    down = replica.get("/api/sessions")  # the dashboard says why
                    assert down.status_code == 503 and "hunter2" not in down.text
                    redis.start()
                    redis.command("CONFIG", "SET", "requirepass", "hunter2")
                    assert replica.get("/healthz").status_code == 200
                    refused = await client.call_tool_mcp(GET_TIME, {"timezone": "UTC"})
                    assert refused.is_error and "not active" in _text(refused)  # Redis empty
                    found = await client.call_tool_mcp(SEARCH, {"query": f"select:{GET_TIME}"})
                    assert not found.is_error, _text(found)
                    called = await client.call_tool_mcp(GET_TIME, {"timezone": "UTC"})
                    assert not called.is_error, _text(called)

            asyncio.run(scenario())
    finally:
        redis.stop()


def test_serve_refuses_to_start_when_the_store_is_unreachable(tmp_path: Path, capsys) -> None:
    config = write_config(tmp_path / "mcp.json", {"time": {"command": PY, "args": ["-V"]}})
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    code, err, _ = cli(capsys, "serve", str(config), "--storage", url)
    assert code == 2 and f"redis://:***@127.0.0.1:{url.rsplit(':', 1)[1]}" in err
    assert "unreachable" in err and "hunter2" not in err


def test_memory_storage_keeps_no_store(replicas) -> None:
    gateway = replicas.gateway("memory://", "m")
    assert gateway.store is None and gateway.shared is None


def test_list_changed_reaches_the_client_from_the_replica_it_talks_to(pair, keys) -> None:
    """The client's activations change on A; its next request on B tells it (B finds a newer
    activation version in the store than it last told the client)."""
    a, b = pair
    token = _token(keys, "heidi")
    heard: list[Any] = []

    async def on_message(message: Any) -> None:
        if getattr(message, "method", "") == "notifications/tools/list_changed":
            heard.append(message)

    async def scenario() -> None:
        async with Client(b.mcp, auth=token, message_handler=on_message) as on_b:
            assert await _names(on_b) == [SEARCH]
            async with Client(a.mcp, auth=token) as on_a:
                found = await on_a.call_tool_mcp(SEARCH, {"query": f"select:{GET_TIME}"})
                assert not found.is_error
            assert heard == []
            assert await _names(on_b) == [SEARCH, GET_TIME]
            for _ in range(50):  # delivered with the response, or just after it
                if heard:
                    break
                await asyncio.sleep(0.02)
            assert len(heard) == 1
            await _names(on_b)  # told once: not again
            assert len(heard) == 1

    asyncio.run(scenario())


def test_a_burst_past_the_connection_pool_waits_instead_of_failing(redis_server) -> None:
    """More concurrent store requests than the pool has connections queue for one (a burst
    of clients on one replica is not refused as if the store were down)."""
    from toolsift.gateway.storage import MAX_CONNECTIONS, SharedStore

    async def burst() -> list[Any]:
        store = SharedStore(redis_server.url(4))
        try:
            return await asyncio.gather(*(store.load(f"k{i}") for i in range(MAX_CONNECTIONS * 3)))
        finally:
            await store.close()

    assert asyncio.run(burst()) == [None] * (MAX_CONNECTIONS * 3)


def test_a_search_keeps_its_activations_when_a_concurrent_request_remade_the_view(
    redis_server,
) -> None:
    """Two requests of one client on one replica: the second makes the client's view again
    from the store while the first's search is activating on the old view. The search's
    activations are still written (else the search would say "activated" and the gate refuse)."""
    from toolsift import Tool
    from toolsift.config import ToolSearchConfig
    from toolsift.gateway.replicas import SharedClients
    from toolsift.gateway.sessions import SessionRegistry
    from toolsift.gateway.storage import SharedStore

    settings = ToolSearchConfig(storage=redis_server.url(6))
    registry = SessionRegistry(settings)
    registry.set_server("s", [Tool(name=f"mcp__s__t{i}", server="s") for i in range(3)])

    async def scenario() -> tuple[str, ...]:
        store = SharedStore(settings.storage, replica="r")
        shared = SharedClients(registry, store, lambda: settings)
        try:
            state = registry.state("session:race")
            await shared.sync(state)
            searching = state.session  # the first request's search runs on this view
            state.adopted = (-1.0, -1)
            await shared.sync(state)  # the second request makes the view again
            activated = searching.activate(["mcp__s__t1"])
            await shared.keep(state, activated)
            stored = await store.load("session:race")
            assert stored is not None
            return stored.activated
        finally:
            await store.close()

    assert asyncio.run(scenario()) == ("mcp__s__t1",)


def test_a_closed_session_s_state_leaves_the_store(pair, keys) -> None:
    """A handshake-era MCP session (Mcp-Session-Id) closes with ``DELETE /mcp``: its state is
    removed from the store at once (not only at its idle expiry)."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    a, _ = pair
    token = _token(keys, "ivan")

    async def scenario() -> None:
        headers = {"authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with streamable_http_client(a.mcp, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await session.call_tool(SEARCH, {"query": f"select:{GET_TIME}"})
                    assert len(await _ivan(a)) == 1
        for _ in range(100):  # the session's end is handled as the connection closes
            if not await _ivan(a):
                return
            await asyncio.sleep(0.05)
        raise AssertionError("the closed session's state is still stored")

    async def _ivan(replica: Replica) -> list[Any]:
        # A store of its own: the gateway's Redis client belongs to the gateway's event loop.
        from toolsift.gateway.storage import SharedStore

        store = SharedStore(replica.gateway.settings.storage)
        try:
            clients = await store.clients()
        finally:
            await store.close()
        return [c for c in clients if c.key.startswith("user:ivan~") and "/session:" in c.key]

    asyncio.run(scenario())


def test_a_valkey_url_is_served_by_the_same_store(redis_server) -> None:
    """``valkey://`` speaks Redis's protocol: the same client (here against redis-server)."""
    from toolsift.gateway.storage import SharedStore, StoredClient

    async def scenario() -> Any:
        store = SharedStore(redis_server.url(7).replace("redis://", "valkey://"))
        try:
            await store.save(StoredClient("session:v", ("mcp__s__t",), 1), 60)
            return await store.load("session:v")
        finally:
            await store.close()

    loaded = asyncio.run(scenario())
    assert loaded is not None and loaded.activated == ("mcp__s__t",) and loaded.version == 1
