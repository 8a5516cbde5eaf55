"""ToolsiftSearchTransform on a FastMCP proxy keeps the remote server's catalogue until the remote
sends ``notifications/tools/list_changed`` (or, for a remote that does not announce changes,
until the refresh interval has passed): real proxies over real remote servers, in process
(FastMCPTransport) and over stdio, the remote's listings counted by a middleware on it."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP needs 3.11+
    pytest.skip("FastMCP needs Python 3.11+", allow_module_level=True)

import mcp_types  # noqa: E402
from fastmcp import Client, Context, FastMCP  # noqa: E402
from fastmcp.client.transports import StdioTransport  # noqa: E402
from fastmcp.server import create_proxy  # noqa: E402
from fastmcp.server.middleware import Middleware  # noqa: E402
from mcp.server.lowlevel import NotificationOptions  # noqa: E402
from toolsift.integrations import _fastmcp_catalog  # noqa: E402
from toolsift.integrations.fastmcp import ToolsiftSearchTransform  # noqa: E402

VERBS = ["create", "delete", "list", "update", "archive"]
NOUNS = ["invoice", "ticket", "user", "channel", "report"]


class _CountListings(Middleware):
    """Counts the remote server's ``tools/list`` requests."""

    def __init__(self) -> None:
        self.count = 0

    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        self.count += 1
        return await call_next(context)


def _remote(announces: bool = True) -> tuple[FastMCP, _CountListings]:
    remote = FastMCP("remote")
    counter = _CountListings()
    remote.add_middleware(counter)
    for verb in VERBS:
        for noun in NOUNS:
            remote.tool(lambda: "ok", name=f"{verb}_{noun}", description=f"{verb} a {noun}.")
    remote.tool(lambda: "sent", name="send_email", description="Send an email to a recipient.")

    @remote.tool
    async def add_rocket(ctx: Context) -> str:
        """Add the rocket tool and announce it."""
        remote.tool(lambda: "launched", name="launch_rocket", description="Launch a rocket.")
        await ctx.send_notification(mcp_types.ToolListChangedNotification())
        return "added"

    @remote.tool
    async def drop_email(ctx: Context) -> str:
        """Remove the email tool and announce it."""
        remote.local_provider.remove_tool("send_email")
        await ctx.send_notification(mcp_types.ToolListChangedNotification())
        return "dropped"

    if not announces:  # its capabilities say tools.listChanged false
        remote._mcp_server.notification_options = NotificationOptions(tools_changed=False)
    return remote, counter


async def _found(client: Client, query: str) -> list[str]:
    result = await client.call_tool_mcp("search_tools", {"query": query, "limit": 5})
    assert not result.is_error, result
    return [t["name"] for t in result.structured_content["result"]]


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    fake = _Clock()
    monkeypatch.setattr(_fastmcp_catalog, "_now", fake)
    return fake


def test_a_proxy_lists_its_remote_once_until_the_remote_announces_a_change(clock: _Clock) -> None:
    remote, counter = _remote()
    transform = ToolsiftSearchTransform(refresh_interval=5)
    proxy = create_proxy(remote)
    proxy.add_transform(transform)

    async def scenario() -> None:
        # A handshake-era session: the remote's capabilities say tools.listChanged true.
        async with Client(proxy, mode="legacy") as client:
            assert (await _found(client, "email someone"))[0] == "send_email"
            before = counter.count
            for query in ["archive a ticket", "list users", "create an invoice"] * 3:
                await _found(client, query)
            called = await client.call_tool_mcp("call_tool", {"name": "send_email"})
            assert called.content[0].text == "sent"
            clock.now += 4  # within the interval: nothing announced, nothing listed
            await _found(client, "email someone")
            assert counter.count == before and transform.listings == 1
            # A tool the remote adds and announces is found on the next search.
            assert "launch_rocket" not in await _found(client, "launch a rocket")
            await client.call_tool_mcp("call_tool", {"name": "add_rocket"})
            assert (await _found(client, "launch a rocket"))[0] == "launch_rocket"
            assert transform.listings == 2
            # A tool the remote removes and announces is neither found nor callable.
            await client.call_tool_mcp("call_tool", {"name": "drop_email"})
            assert "send_email" not in await _found(client, "send an email")
            refused = await client.call_tool_mcp("call_tool", {"name": "send_email"})
            assert refused.is_error and "Unknown tool" in refused.content[0].text
            await _found(client, "list users")
            assert transform.listings == 3

    asyncio.run(scenario())


def test_a_change_the_remote_announces_to_no_one_is_seen_after_the_interval(clock: _Clock) -> None:
    """An announcing remote tells only the sessions open when its tools change; the proxy opens
    one per request, so a change made between requests (an operator's, a plugin's) reaches no
    one. The refresh interval bounds how long such a change stays unseen."""
    remote, _ = _remote()
    transform = ToolsiftSearchTransform(refresh_interval=5)
    proxy = create_proxy(remote)
    proxy.add_transform(transform)

    async def scenario() -> None:
        async with Client(proxy, mode="legacy") as client:
            assert "launch_rocket" not in await _found(client, "launch a rocket")
            remote.tool(lambda: "launched", name="launch_rocket", description="Launch a rocket.")
            clock.now += 6
            assert (await _found(client, "launch a rocket"))[0] == "launch_rocket"
            assert transform.listings == 2

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("mode", "announces"),
    [("legacy", False), ("auto", True)],
    ids=["capability-false", "sessionless-era"],
)
def test_a_remote_without_list_changed_is_listed_again_after_the_interval(
    clock: _Clock, mode: str, announces: bool
) -> None:
    """A remote whose capabilities say tools.listChanged false: a handshake-era server that
    does not announce, or any server on a 2026-07-28 (sessionless) connection."""
    remote, counter = _remote(announces=announces)
    transform = ToolsiftSearchTransform(refresh_interval=30)
    proxy = create_proxy(remote)
    proxy.add_transform(transform)

    async def scenario() -> None:
        async with Client(proxy, mode=mode) as client:
            await _found(client, "email someone")
            before = counter.count
            remote.tool(lambda: "sent", name="send_fax", description="Send a fax to a number.")
            clock.now += 10
            assert "send_fax" not in await _found(client, "send a fax")
            # A change announced in a call's response is heard within the interval too.
            await client.call_tool_mcp("call_tool", {"name": "add_rocket"})
            assert (await _found(client, "send a fax"))[0] == "send_fax"
            assert transform.listings == 2
            before = counter.count
            remote.tool(lambda: "booked", name="book_flight", description="Book a flight.")
            remote.local_provider.remove_tool("send_email")
            clock.now += 29
            assert "book_flight" not in await _found(client, "book a flight")
            assert counter.count == before and transform.listings == 2
            # Still listed here, but the remote no longer has it: the call is refused there.
            refused = await client.call_tool_mcp("call_tool", {"name": "send_email"})
            assert refused.is_error
            clock.now += 2  # past the interval: listed again
            assert (await _found(client, "book a flight"))[0] == "book_flight"
            assert "send_email" not in await _found(client, "send an email")
            refused = await client.call_tool_mcp("call_tool", {"name": "send_email"})
            assert refused.is_error and "Unknown tool" in refused.content[0].text
            assert transform.listings == 3

    asyncio.run(scenario())


def test_a_zero_interval_lists_a_silent_remote_on_every_call() -> None:
    remote, _ = _remote(announces=False)
    transform = ToolsiftSearchTransform(refresh_interval=0)
    proxy = create_proxy(remote)
    proxy.add_transform(transform)

    async def scenario() -> None:
        async with Client(proxy) as client:
            for query in ["email someone", "list users", "archive a ticket"]:
                await _found(client, query)

    asyncio.run(scenario())
    assert transform.listings == 3


def test_a_mounted_proxy_beside_local_tools(clock: _Clock) -> None:
    remote, counter = _remote()
    front = FastMCP("front")
    front.tool(lambda: "local", name="local_weather", description="Weather forecast for a city.")
    front.mount(create_proxy(remote), namespace="crm")
    transform = ToolsiftSearchTransform()
    front.add_transform(transform)

    async def scenario() -> None:
        async with Client(front, mode="legacy") as client:
            assert (await _found(client, "weather forecast"))[0] == "local_weather"
            assert (await _found(client, "email someone"))[0] == "crm_send_email"
            before = counter.count
            await _found(client, "list users")
            assert counter.count == before and transform.listings == 1
            await client.call_tool_mcp("call_tool", {"name": "crm_add_rocket"})
            assert (await _found(client, "launch a rocket"))[0] == "crm_launch_rocket"
            # A local tool removed is seen too.
            front.local_provider.remove_tool("local_weather")
            assert "local_weather" not in await _found(client, "weather forecast")
            assert transform.listings == 3

    asyncio.run(scenario())


def test_a_shared_backend_session_is_trusted_only_for_the_interval(clock: _Clock) -> None:
    """A proxy over one already-connected client: its notifications go to that client's own
    handler, which the transform cannot hear, so it relies on the refresh interval."""
    remote, _ = _remote()
    transform = ToolsiftSearchTransform(refresh_interval=10)

    async def scenario() -> None:
        async with Client(remote) as backend:
            proxy = create_proxy(backend)
            proxy.add_transform(transform)
            async with Client(proxy) as client:
                await _found(client, "email someone")
                remote.tool(lambda: "x", name="launch_rocket", description="Launch a rocket.")
                await _found(client, "list users")
                assert transform.listings == 1
                clock.now += 11
                assert (await _found(client, "launch a rocket"))[0] == "launch_rocket"
                assert transform.listings == 2

    asyncio.run(scenario())


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf")])
def test_a_bad_refresh_interval_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="refresh_interval"):
        ToolsiftSearchTransform(refresh_interval=bad)
    with pytest.raises(TypeError, match="refresh_interval"):
        ToolsiftSearchTransform(refresh_interval="30")  # type: ignore[arg-type]


def test_a_stdio_remote_is_trusted_only_for_the_interval() -> None:
    """stdio keeps one process and session for every client of a transport, and that session's
    messages go to the client that opened it: the transform cannot be sure to hear the remote."""
    from toolsift.integrations._fastmcp_remote import watch_for

    for keep_alive, listening in ((True, False), (False, True)):
        transport = StdioTransport(command=sys.executable, args=["-c", ""], keep_alive=keep_alive)
        proxy = create_proxy(transport)
        provider = next(p for p in proxy.providers if type(p).__name__ == "ProxyProvider")
        watch = watch_for(provider)
        provider.client_factory()  # a client, not connected
        assert watch.listening is listening


@pytest.fixture(scope="module")
def http_remote() -> Any:
    """The remote served over Streamable HTTP on a loopback port, in a thread."""
    import socket
    import threading

    import uvicorn

    remote, counter = _remote()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(remote.http_app(), log_level="error", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(500):
        if server.started:
            break
        threading.Event().wait(0.01)
    yield f"http://127.0.0.1:{port}/mcp", remote, counter
    server.should_exit = True
    thread.join(timeout=5)
    sock.close()


def test_a_proxy_over_http(http_remote: Any, clock: _Clock) -> None:
    url, remote, counter = http_remote
    proxy = create_proxy(url)
    transform = ToolsiftSearchTransform()
    proxy.add_transform(transform)

    async def scenario() -> None:
        async with Client(proxy, mode="legacy") as client:
            assert (await _found(client, "email someone"))[0] == "send_email"
            before = counter.count
            for query in ["delete a user", "update an invoice", "list tickets"]:
                await _found(client, query)
            clock.now += 20  # within the default interval: nothing announced, nothing listed
            await _found(client, "email someone")
            assert counter.count == before and transform.listings == 1
            await client.call_tool_mcp("call_tool", {"name": "add_rocket"})
            assert (await _found(client, "launch a rocket"))[0] == "launch_rocket"
            assert counter.count == before + 1 and transform.listings == 2

    asyncio.run(scenario())
