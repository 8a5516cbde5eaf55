"""Gateway replicas sharing their clients' state through Redis (``--storage redis://…``).

    python benches/bench_replicas.py [--calls 300] [--clients 100] [--seconds 10]

Needs ``redis-server`` on PATH (started here on a free port, no persistence) and the ``redis``
extra. Every gateway is a real ``toolsift serve --transport http`` process in front of one
FastMCP server over Streamable HTTP (a process too), driven by the MCP SDK's client:

- **per-call latency**: one client, ``--calls`` calls of an activated tool, one after another,
  through a gateway with ``memory://`` and with Redis (p50 / p99, and the difference: what the
  store adds to a call — one read of the client's state before the gate);
- **store work per request**: ``SharedClients.sync`` alone, in process (p50 / p99);
- **Redis memory per client**: ``INFO memory`` before and after 10,000 client states written
  through ``SharedStore`` (8 activations and 5 searches each, and a rate-limit bucket);
- **throughput**: ``--clients`` concurrent MCP sessions (handshake era, each kept on one replica
  as a sticky load balancer does), each searching once then calling in a loop for ``--seconds``,
  against one replica and against two (calls per second in all).

Prints a Markdown table. Timings are wall-clock on the machine it runs on.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from toolsift.gateway.storage import SharedStore, StoredClient  # noqa: E402

from tests._redis import RedisServer, free_port  # noqa: E402

ECHO = "mcp__web__echo"
SERVER = textwrap.dedent(
    """
    import sys
    from fastmcp import FastMCP

    mcp = FastMCP("web")

    @mcp.tool
    def echo(text: str) -> str:
        "Echo a text back."
        return text

    mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False)
    """
)


def _wait_port(port: int, proc: subprocess.Popen[bytes], path: str = "") -> None:
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"a server process exited with {proc.returncode}")
        try:
            if path:
                if httpx2.get(f"http://127.0.0.1:{port}{path}", timeout=2).status_code == 200:
                    return
            else:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return
        except (OSError, httpx2.HTTPError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"nothing answered on port {port}")
        time.sleep(0.1)


@contextlib.contextmanager
def _process(args: list[str], port: int, ready: str = "") -> Iterator[None]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        _wait_port(port, proc, ready)
        yield
    finally:
        proc.terminate()
        proc.wait(30)


@contextlib.contextmanager
def _gateways(config: Path, storage: str, count: int) -> Iterator[list[str]]:
    with contextlib.ExitStack() as stack:
        urls = []
        for i in range(count):
            port = free_port()
            args = [sys.executable, "-m", "toolsift", "serve", str(config), "--transport", "http"]
            args += ["--port", str(port), "--storage", storage, "--replica-id", f"r{i}"]
            stack.enter_context(_process(args, port, "/healthz"))
            urls.append(f"http://127.0.0.1:{port}/mcp")
        yield urls


@contextlib.asynccontextmanager
async def _session(url: str) -> AsyncIterator[ClientSession]:
    async with httpx2.AsyncClient(timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("search_tool_bm25", {"query": f"select:{ECHO}"})
                yield session


async def _latencies(url: str, calls: int) -> list[float]:
    async with _session(url) as session:
        for _ in range(20):  # warm up
            await session.call_tool(ECHO, {"text": "hi"})
        out = []
        for _ in range(calls):
            start = time.perf_counter()
            result = await session.call_tool(ECHO, {"text": "hi"})
            out.append(time.perf_counter() - start)
            assert not result.is_error, result
        return out


async def _throughput(urls: list[str], clients: int, seconds: float) -> float:
    """Calls per second of ``clients`` sessions calling flat out for ``seconds`` (the clock
    starts once every session is open and has searched)."""
    done = opened = 0
    stop = 0.0
    ready = asyncio.Event()

    async def client(i: int) -> None:
        nonlocal done, opened
        async with _session(urls[i % len(urls)]) as session:
            opened += 1
            await ready.wait()
            while time.monotonic() < stop:
                result = await session.call_tool(ECHO, {"text": "hi"})
                assert not result.is_error, result
                done += 1

    tasks = [asyncio.create_task(client(i)) for i in range(clients)]
    while opened < clients:
        failed = [t for t in tasks if t.done() and t.exception() is not None]
        if failed:
            raise failed[0].exception()  # type: ignore[misc]
        await asyncio.sleep(0.1)
    start = time.monotonic()
    stop = start + seconds
    ready.set()
    await asyncio.gather(*tasks)
    return done / (time.monotonic() - start)


async def _sync_times(redis: RedisServer, rounds: int) -> list[float]:
    """What the store adds to each request, alone: ``SharedClients.sync`` of a client with 8
    activations (one read of its state; the write that pushes its expiry back is at most once
    a minute), in process, ``rounds`` times."""
    from toolsift import Tool
    from toolsift.config import ToolSearchConfig
    from toolsift.gateway.replicas import SharedClients
    from toolsift.gateway.sessions import SessionRegistry

    settings = ToolSearchConfig(storage=redis.url(5))
    registry = SessionRegistry(settings)
    registry.set_server("s", [Tool(name=f"mcp__s__t{i}", server="s") for i in range(50)])
    store = SharedStore(settings.storage, replica="bench")
    shared = SharedClients(registry, store, lambda: settings)
    state = registry.state("session:bench")
    state.session.activate([f"mcp__s__t{i}" for i in range(8)])
    await shared.keep(state, searched=False)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        await shared.sync(state)
        times.append(time.perf_counter() - start)
    await store.close()
    return sorted(times)


def _used_memory(redis: RedisServer) -> int:
    reply = redis.command("INFO", "memory").decode()
    for line in reply.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":", 1)[1])
    raise RuntimeError("INFO memory has no used_memory")


async def _memory_per_client(redis: RedisServer, count: int) -> tuple[int, int]:
    from toolsift.config import RateLimit

    store = SharedStore(redis.url(3))
    await store.open()
    before = _used_memory(redis)
    names = [f"mcp__server{i % 7}__a_tool_name_{i}" for i in range(8)]
    search = {"at": time.time(), "query": "open a pull request", "kind": "keyword"}
    search |= {"activated": names[:2], "already_active": [], "missing": []}
    for start in range(0, count, 50):
        await asyncio.gather(
            *(
                store.save(
                    StoredClient(
                        f"user:client{i}~0123456789ab/session:{i:032x}",
                        tuple(names),
                        4,
                        [search] * 5,
                        replica="host-1:12345",
                    ),
                    1800,
                )
                for i in range(start, min(count, start + 50))
            ),
            *(
                store.take(f"user:client{i}~0123456789ab", RateLimit(30, 60.0))
                for i in range(start, min(count, start + 50))
            ),
        )
    after = _used_memory(redis)
    await store.close()
    return after - before, len(
        json.dumps(StoredClient("k", tuple(names), 4, [search] * 5).to_value())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--states", type=int, default=10_000)
    args = parser.parse_args()
    redis = RedisServer()
    rows: list[tuple[str, str]] = []
    try:
        grown, value = asyncio.run(_memory_per_client(redis, args.states))
        rows.append(
            (
                f"Redis memory per client state ({args.states:,} clients, INFO used_memory)",
                f"{grown / args.states:,.0f} B (state JSON {value:,} B + its bucket)",
            )
        )
        sync = asyncio.run(_sync_times(redis, 2000))
        rows.append(
            (
                "store work per request (SharedClients.sync, in process, 2,000 rounds)",
                f"p50 {statistics.median(sync) * 1e3:.3f} ms, "
                f"p99 {sync[int(len(sync) * 0.99) - 1] * 1e3:.3f} ms",
            )
        )
        with tempfile.TemporaryDirectory() as tmp:
            port = free_port()
            script = Path(tmp) / "web.py"
            script.write_text(SERVER)
            config = Path(tmp) / "mcp.json"
            web = {"web": {"url": f"http://127.0.0.1:{port}/mcp"}}
            config.write_text(json.dumps({"mcpServers": web}))
            with _process([sys.executable, str(script), str(port)], port):
                p50 = {}
                for storage in ("memory://", redis.url(1)):
                    kind = "memory" if storage == "memory://" else "redis"
                    with _gateways(config, storage, 1) as (url,):
                        times = sorted(asyncio.run(_latencies(url, args.calls)))
                    p50[kind] = statistics.median(times)
                    p99 = times[int(len(times) * 0.99) - 1]
                    rows.append(
                        (
                            f"per-call latency, {kind}:// ({args.calls} calls, one client)",
                            f"p50 {p50[kind] * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms",
                        )
                    )
                rows.append(
                    (
                        "what Redis adds to a call (p50)",
                        f"{(p50['redis'] - p50['memory']) * 1e3:+.2f} ms",
                    )
                )
                for count in (1, 2):
                    redis.command("FLUSHDB")
                    with _gateways(config, redis.url(2), count) as urls:
                        rate = asyncio.run(_throughput(urls, args.clients, args.seconds))
                    rows.append(
                        (
                            f"throughput, {args.clients} concurrent clients, {count} replica(s)",
                            f"{rate:,.0f} calls/s",
                        )
                    )
    finally:
        redis.stop()
    print("| measure | value |\n|---|---:|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
