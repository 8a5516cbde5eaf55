"""Client states of the gateway do not outlive their clients (idle expiry, a cap with LRU
eviction, a dropped session), a principal's rate limit survives all of that, a cancelled search
activates nothing, and the dashboard's sessions view never stalls the event loop."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from toolsift import DiscoverySession, Tool
from toolsift.config import RateLimit, ToolSearchConfig
from toolsift.gateway.sessions import SessionRegistry


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _registry(**settings: object) -> tuple[SessionRegistry, Clock]:
    clock = Clock()
    registry = SessionRegistry(ToolSearchConfig(**settings), clock=clock)  # type: ignore[arg-type]
    registry.set_server("s", [Tool(name=f"mcp__s__t{i}", server="s") for i in range(3)])
    return registry, clock


def test_idle_states_expire() -> None:
    registry, clock = _registry(client_ttl=60.0)
    registry.state("session:a").session.activate(["mcp__s__t0"])
    clock.now = 30.0
    registry.state("session:b")
    clock.now = 61.0  # a idle 61 s, b 31 s
    assert [s.key for s in registry.states()] == ["session:b"]
    again = registry.state("session:a")
    assert again.session.selected == ()  # a new state, not the expired one


def test_the_least_recently_used_state_goes_past_the_cap() -> None:
    registry, clock = _registry(max_clients=2)
    for key in ("session:a", "session:b"):
        registry.state(key)
    registry.state("session:a")  # a used again: b is now the oldest
    registry.state("session:c")
    assert [s.key for s in registry.states()] == ["session:a", "session:c"]


def test_a_dropped_state_is_gone_and_marked_ended() -> None:
    registry, _ = _registry()
    state = registry.state("session:a")
    registry.drop("session:a")
    assert state.ended and registry.states() == []


def test_a_principal_keeps_its_bucket_through_eviction_and_expiry() -> None:
    """An attacker opening sessions to evict a principal's state (or the principal opening new
    sessions) never refills the principal's bucket."""
    registry, clock = _registry(max_clients=2, client_ttl=10.0, rate_limit=RateLimit(2, 3600.0))
    first = registry.state("user:alice/session:1", "user:alice")
    assert first.bucket is not None and first.bucket.take() and first.bucket.take()
    for i in range(5):
        registry.state(f"session:flood{i}")
    assert "user:alice/session:1" not in [s.key for s in registry.states()]
    clock.now = 100.0  # every state expired
    again = registry.state("user:alice/session:2", "user:alice")
    assert again.bucket is first.bucket and not again.bucket.take()
    other = registry.state("session:x")  # a client without a principal: its own bucket
    assert other.bucket is not None and other.bucket is not first.bucket


def test_a_request_without_identity_gets_a_state_that_is_not_kept() -> None:
    registry, _ = _registry(rate_limit=RateLimit(1, 3600.0))
    state = registry.state(None)
    assert state.ephemeral and state.bucket is None
    assert registry.states() == []


def test_a_cancelled_search_activates_nothing() -> None:
    """The search thread cannot be stopped; when its task was cancelled, it must not activate
    its matches behind the client's back."""
    session = DiscoverySession.from_default_catalog()
    started, go = threading.Event(), threading.Event()
    rank = session._rank

    def slow_rank(*args: object, **kwargs: object) -> object:
        started.set()
        go.wait(10)
        return rank(*args, **kwargs)  # type: ignore[arg-type]

    session._rank = slow_rank  # type: ignore[method-assign]
    session._ready = lambda: False  # type: ignore[method-assign]  # take the thread path

    async def scenario() -> None:
        task = asyncio.create_task(session.asearch("create a calendar event", 1))
        await asyncio.to_thread(started.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        go.set()  # the search goes on in its thread; asyncio.run waits for it at the end

    asyncio.run(scenario())
    assert session.selected == ()
    assert session.search("create a calendar event", 1).activated  # a search that is awaited


def test_sessions_view_does_not_stall_the_event_loop() -> None:
    """Hundreds of clients over a few thousand tools: the page's poll of ``/api/sessions``
    must not hold up the loop that serves MCP traffic."""
    httpx = pytest.importorskip("httpx")
    from starlette.applications import Starlette
    from toolsift.dashboard.api import Guard, routes
    from toolsift.dashboard.backend import Dashboard

    tools = [
        Tool(name=f"mcp__s__tool_{i}", server="s", description=f"does thing number {i} well")
        for i in range(2000)
    ]
    board = Dashboard.for_tools(tools, ToolSearchConfig())
    for i in range(300):
        board.registry.state(f"session:{i}").session.activate([f"mcp__s__tool_{i}"])
    app = Starlette(routes=routes(board, Guard()))

    async def scenario() -> tuple[float, float, int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            gaps: list[float] = []
            done = asyncio.Event()

            async def ticker() -> None:
                last = time.perf_counter()
                while not done.is_set():
                    await asyncio.sleep(0.005)
                    now = time.perf_counter()
                    gaps.append(now - last)
                    last = now

            tick = asyncio.create_task(ticker())
            await asyncio.sleep(0.02)  # the ticker runs before the request starts
            started = time.perf_counter()
            response = await http.get("/api/sessions")
            took = time.perf_counter() - started
            done.set()
            await tick
            return max(gaps, default=0.0), took, len(response.json()["sessions"])

    worst, took, count = asyncio.run(scenario())
    assert count == 300
    assert worst > 0.0  # the ticker ran while the request was served
    assert worst < 0.2, f"the loop stalled {worst:.3f} s (the request took {took:.3f} s)"


def test_a_principal_never_gets_a_second_bucket() -> None:
    """Buckets are forgotten only when full and held by no live state: a principal's two
    sessions always share one (else each new session could get a fresh bucket)."""
    registry, clock = _registry(max_clients=3, rate_limit=RateLimit(2, 1.0))
    first = registry.state("user:alice/session:1", "user:alice")
    clock.now = 5.0  # every bucket is full again; alice's is held by her session 1
    for name in ("bob", "carol"):
        registry.state(f"user:{name}/session:1", f"user:{name}")
    registry.state("user:alice/session:1", "user:alice")  # bob's session is now the oldest
    registry.state("user:dave/session:1", "user:dave")  # buckets at the cap: some may go
    second = registry.state("user:alice/session:2", "user:alice")
    assert not first.ended and second.bucket is first.bucket
