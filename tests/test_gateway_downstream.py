"""One hostile downstream server cannot hurt the others, nor the gateway's clients: colliding
or invalid tools, JSON-RPC error answers, odd call arguments, slow and frozen servers, endless
lines and pagination, list-changed storms, a hang in ``initialize``; and the downstream
prompts and resources are proxied. Each test drives an in-process gateway (FastMCP's
in-memory client) in front of `tests/_attacker.py` servers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("the MCP SDK and FastMCP need Python 3.11+", allow_module_level=True)

from fastmcp import Client  # noqa: E402
from toolsift.config import load_gateway_config  # noqa: E402
from toolsift.gateway import catalog as gateway_catalog  # noqa: E402
from toolsift.gateway import downstream as ds  # noqa: E402
from toolsift.gateway import stdio as gateway_stdio  # noqa: E402
from toolsift.gateway.server import Gateway  # noqa: E402
from toolsift.tools import mcp_name  # noqa: E402

from ._mcp import PY, write_config  # noqa: E402

ATTACKER = str(Path(__file__).with_name("_attacker.py"))
OBJECT = {"type": "object"}


def attacker(label: str, **spec: Any) -> dict[str, Any]:
    return {"command": PY, "args": [ATTACKER, json.dumps({"label": label, **spec})]}


def tools(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "description": f"tool {n}", "inputSchema": OBJECT} for n in names]


@contextlib.asynccontextmanager
async def gateway(
    tmp_path: Path, servers: dict[str, Any], **tool_search: Any
) -> AsyncIterator[tuple[Gateway, Client[Any]]]:
    config = write_config(tmp_path / "mcp.json", servers, gate=False, **tool_search)
    gw = Gateway(load_gateway_config(config))
    async with Client(gw.mcp) as client:
        yield gw, client


async def until(predicate: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def connected(gw: Gateway, *names: str) -> Any:
    return lambda: all(gw.downstreams[n].state == "connected" for n in names)


def test_colliding_and_invalid_tools_are_refused_alone(tmp_path: Path, caplog: Any) -> None:
    """Server `a`'s `b__c` and server `a__b`'s `c` once shared a canonical name: the list
    showed one server's tool and the call ran the other's. `get.time`/`get_time` and two CJK
    names collided inside one server, and one bad tool took its whole server down in a
    respawn loop."""
    deep: dict[str, Any] = {"type": "object"}
    for _ in range(70):
        deep = {"type": "object", "properties": {"x": deep}}
    servers = {
        "a": attacker("A", tools=tools("b__c")),
        "a__b": attacker("AB", tools=tools("c")),
        "srv": attacker(
            "S",
            tools=[
                *tools("get.time", "get_time", "读取", "写入", "ok"),
                {"name": "deep", "inputSchema": deep},
            ],
            huge=1_000_001,
        ),
    }

    async def scenario() -> None:
        async with gateway(tmp_path, servers) as (gw, client):
            await until(lambda: len(gw.registry.catalog) == 3)
            names = {t.name for ts in gw.registry.catalog.values() for t in ts}
            assert len(names) == 7  # a, a__b, and five of srv's seven
            for server, raw, label in [
                ("a", "b__c", "A"),
                ("a__b", "c", "AB"),
                ("srv", "get.time", "S"),
                ("srv", "get_time", "S"),
                ("srv", "读取", "S"),
                ("srv", "写入", "S"),
            ]:
                name = mcp_name(server, raw)
                listed = await gw._provider._get_tool(name)
                assert listed is not None and listed.description == f"tool {raw}"
                result = await client.call_tool_mcp(name, {})
                assert _text(result) == f"{label}:{raw}", name
            assert len({mcp_name("srv", n) for n in ("读取", "写入")}) == 2
            await asyncio.sleep(0.6)  # a respawn loop would have reconnected by now
            state = gw.catalog.servers()["srv"]
            assert state["state"] == "connected" and state["connections"] == 1
            assert set(state["refused"]) == {"huge", "deep"}
            assert "description" in state["refused"]["huge"]

    with caplog.at_level(logging.WARNING, logger="toolsift.gateway"):
        asyncio.run(scenario())
    refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusals) == 2 and all(m.startswith("server 'srv': tool '") for m in refusals)


def test_errors_timeouts_and_bad_arguments_keep_the_connection(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A JSON-RPC error answer, a non-object `call_tool.arguments` and a call timeout each
    recycled the connection: every other client's in-flight call failed."""
    monkeypatch.setattr(ds, "PING_TIMEOUT", 0.5)
    servers = {"s": attacker("S", tools=tools("slow", "error", "echo", "freeze"))}

    async def scenario() -> None:
        async with gateway(tmp_path, servers, call_timeout=1.0) as (gw, client):
            await until(connected(gw, "s"))
            slow = asyncio.ensure_future(client.call_tool_mcp("mcp__s__slow", {}))
            await asyncio.sleep(0.1)
            error = await client.call_tool_mcp("mcp__s__error", {})
            assert error.is_error and "answered 'error' with an error: bad input" in _text(error)
            timed_out = await slow  # 1.5 s > call_timeout: cancelled, not the connection
            assert timed_out.is_error and "did not answer 'slow' within 1 s" in _text(timed_out)
            await asyncio.sleep(0.7)  # the ping after the timeout was answered
            echo = await client.call_tool_mcp("mcp__s__echo", {})
            assert _text(echo) == "S:echo"
            assert gw.downstreams["s"].connections == 1
            # A server that stops answering (not even a ping) is restarted.
            frozen = await client.call_tool_mcp("mcp__s__freeze", {})
            assert frozen.is_error
            await until(lambda: gw.downstreams["s"].connections == 2)
            assert "did not answer a ping" in (gw.catalog.servers()["s"]["error"] or "") or (
                gw.downstreams["s"].state == "connected"
            )

    asyncio.run(scenario())


def test_call_tool_refuses_non_object_arguments(tmp_path: Path) -> None:
    servers = {"s": attacker("S", tools=tools("echo"))}

    async def scenario() -> None:
        async with gateway(tmp_path, servers, style="search-and-call") as (gw, client):
            await until(connected(gw, "s"))
            for bad in ("oops", [1], 3):
                result = await client.call_tool_mcp(
                    "call_tool", {"name": "mcp__s__echo", "arguments": bad}
                )
                text = _text(result)
                assert result.is_error and "must be a JSON object" in text, text
                assert "pydantic" not in text and "validation error" not in text
            ok = await client.call_tool_mcp("call_tool", {"name": "mcp__s__echo"})
            assert _text(ok) == "S:echo"
            assert gw.downstreams["s"].connections == 1

    asyncio.run(scenario())


def test_an_endless_line_closes_only_its_server(tmp_path: Path, monkeypatch: Any) -> None:
    """A downstream writing one endless line was re-buffered quadratically on the event loop
    (other servers' calls slowed to seconds) and grew memory without bound."""
    monkeypatch.setattr(gateway_stdio, "MAX_MESSAGE_BYTES", 2 * 1024 * 1024)
    servers = {"bad": attacker("B", tools=tools("flood")), "good": attacker("G")}

    async def scenario() -> None:
        async with gateway(tmp_path, servers, call_timeout=20.0) as (gw, client):
            await until(connected(gw, "bad", "good"))
            flood = asyncio.ensure_future(client.call_tool_mcp("mcp__bad__flood", {}))
            slowest = 0.0
            while not flood.done():
                start = time.monotonic()
                assert _text(await client.call_tool_mcp("mcp__good__echo", {})) == "G:echo"
                slowest = max(slowest, time.monotonic() - start)
                await asyncio.sleep(0.02)
            result = flood.result()
            assert result.is_error
            await until(lambda: gw.downstreams["bad"].connections == 2)
            assert slowest < 1.0
            assert gw.downstreams["good"].connections == 1

    asyncio.run(scenario())
    assert gateway_stdio._lines(4)(b"ab\ncd") == [b"ab"]
    with pytest.raises(gateway_stdio.MessageTooLarge):
        gateway_stdio._lines(4)(b"abcdef")


def test_endless_pagination_is_bounded(tmp_path: Path, monkeypatch: Any, caplog: Any) -> None:
    """A server paginating forever grew the gateway to ~1 GB per connect window."""
    monkeypatch.setattr(ds, "MAX_LIST_PAGES", 20)
    servers = {"pages": attacker("P", pages=50), "good": attacker("G")}

    async def scenario() -> None:
        async with gateway(tmp_path, servers) as (gw, _client):
            await until(lambda: gw.downstreams["pages"].state == "failed")
            error = gw.catalog.servers()["pages"]["error"]
            assert "past 20 pages" in error
            assert gw.downstreams["good"].state == "connected"

    with caplog.at_level(logging.WARNING, logger="toolsift.gateway"):
        asyncio.run(scenario())
    lines = [r.getMessage() for r in caplog.records if "reconnecting in" in r.getMessage()]
    assert lines and all("': ;" not in line for line in lines)


def test_reconnect_log_lines_name_a_reason(monkeypatch: Any, caplog: Any) -> None:
    """A timeout logged `server 'x': ; reconnecting` (an exception with no text)."""
    down = ds.Downstream(ds.ServerConfig("x", command="unused"), on_tools=None)

    async def session() -> None:
        raise TimeoutError

    down._session = session  # type: ignore[method-assign]

    async def run() -> None:
        task = asyncio.get_running_loop().create_task(down._run())
        await until(lambda: down.last_error is not None, 5)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    with caplog.at_level(logging.WARNING, logger="toolsift.gateway"):
        asyncio.run(run())
    assert "server 'x': TimeoutError; reconnecting" in caplog.text


def test_list_changed_storm_is_one_relisting(tmp_path: Path) -> None:
    servers = {"s": attacker("S", tools=tools("storm"))}

    async def scenario() -> None:
        async with gateway(tmp_path, servers) as (gw, client):
            await until(connected(gw, "s"))
            before = gw.downstreams["s"].listings
            await client.call_tool_mcp("mcp__s__storm", {})  # 300 list_changed
            await asyncio.sleep(ds.DEBOUNCE * 3 + 0.3)
            assert 1 <= gw.downstreams["s"].listings - before <= 3

    asyncio.run(scenario())


def test_a_server_hanging_in_initialize_does_not_stall_the_gateway(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Startup waited 30 s for a server that hangs in `initialize`."""
    monkeypatch.setattr(gateway_catalog, "FIRST_WAIT", 1.0)
    servers = {"stuck": attacker("X", hang_initialize=True), "good": attacker("G")}

    async def scenario() -> None:
        start = time.monotonic()
        async with gateway(tmp_path, servers) as (gw, client):
            assert time.monotonic() - start < 5
            found = await client.call_tool_mcp("search_tool_bm25", {"query": "select:echo"})
            assert "mcp__good__echo" in _text(found)
            assert time.monotonic() - start < 5
            states = gw.catalog.servers()
            assert states["stuck"]["state"] == "connecting"
            assert states["good"]["state"] == "connected" and states["good"]["tools"] == 1

    asyncio.run(scenario())


def test_prompts_and_resources_are_proxied(tmp_path: Path) -> None:
    servers = {
        "p": attacker("P", prompts=True, resources=True),
        "q": attacker("Q", prompts=True),
    }

    async def scenario() -> None:
        async with gateway(tmp_path, servers) as (gw, client):
            await until(connected(gw, "p", "q"))
            await until(lambda: len(gw.catalog.extras.prompts()) == 2)
            prompts = sorted(p.name for p in await client.list_prompts())
            assert prompts == ["mcp__p__greet", "mcp__q__greet"]
            got = await client.get_prompt("mcp__q__greet", {})
            assert got.messages[0].content.text == "Q:hello"
            resources = [str(r.uri) for r in await client.list_resources()]
            assert resources == ["toolsift:///p/file:///readme.txt"]
            read = await client.read_resource(resources[0])
            assert read[0].text == "P:read:file:///readme.txt"
            templates = [t.uri_template for t in await client.list_resource_templates()]
            assert templates == ["toolsift:///p/notes://{name}"]
            note = await client.read_resource("toolsift:///p/notes://todo")
            assert note[0].text == "P:read:notes://todo"

    asyncio.run(scenario())
