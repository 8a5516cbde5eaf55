"""The gateway's ``/mcp`` over real HTTP (FastMCP's app under uvicorn on a free loopback port, in
front of mcp-server-time): Host and Origin checks, the bearer token and JWT principals, who owns
a client's state (activations, rate limit), and when that state goes away.

Each gateway starts once per module (about 2 s each: a real downstream server process)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
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
from fastmcp import Client  # noqa: E402
from fastmcp.server.auth.providers.jwt import JWTVerifier, RSAKeyPair  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from toolsift import __version__  # noqa: E402
from toolsift.config import GatewayConfig, ServerConfig, parse_tool_search  # noqa: E402
from toolsift.dashboard.api import Guard, routes  # noqa: E402
from toolsift.dashboard.backend import Dashboard  # noqa: E402
from toolsift.gateway import Gateway  # noqa: E402

from ._cli import cli  # noqa: E402
from ._mcp import PY, write_config  # noqa: E402

GET_TIME = "mcp__time__get_current_time"
TIME = ServerConfig("time", command=PY, args=("-m", "mcp_server_time", "--local-timezone", "UTC"))
ISSUER, AUDIENCE = "https://issuer.test", "toolsift"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def _serving(gateway: Gateway) -> Iterator[str]:
    """``gateway`` over HTTP on a free loopback port, with the protection ``run`` applies and
    the dashboard's routes beside ``/mcp`` (as ``serve --dashboard`` adds them)."""
    for route in routes(Dashboard.from_gateway(gateway), Guard()):
        gateway.mcp.custom_route(route.path, sorted(route.methods or ()))(route.endpoint)
    app = gateway.mcp.http_app(**gateway.http_options("127.0.0.1"))
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, access_log=False)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:  # the lifespan waited for the downstream's tool list
        assert thread.is_alive() and time.monotonic() < deadline, "the gateway did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def _gateway(auth: Any = None, **tool_search: Any) -> Gateway:
    return Gateway(GatewayConfig((TIME,), parse_tool_search(tool_search)), auth=auth)


@pytest.fixture(scope="module")
def keys() -> RSAKeyPair:
    return RSAKeyPair.generate()


@pytest.fixture(scope="module")
def open_gw() -> Iterator[tuple[Gateway, str]]:
    """No authentication, activate style, two searches an hour per client."""
    gateway = _gateway(rate_limit="2/hour")
    with _serving(gateway) as base:
        yield gateway, base


@pytest.fixture(scope="module")
def token_gw() -> Iterator[tuple[Gateway, str]]:
    gateway = _gateway(rate_limit="2/hour", token="s3cret")
    with _serving(gateway) as base:
        yield gateway, base


@pytest.fixture(scope="module")
def jwt_gw(keys: RSAKeyPair) -> Iterator[tuple[Gateway, str]]:
    verifier = JWTVerifier(public_key=keys.public_key, issuer=ISSUER, audience=AUDIENCE)
    gateway = _gateway(verifier, rate_limit="2/hour")
    with _serving(gateway) as base:
        yield gateway, base


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def _post(url: str, headers: dict[str, str]) -> httpx2.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"accept": "application/json, text/event-stream", **headers}
    return httpx2.post(url, json=body, headers=headers, timeout=10)


@contextlib.asynccontextmanager
async def _sdk_session(url: str, token: str | None = None) -> Any:
    """A handshake-era MCP session (Mcp-Session-Id) with the official SDK; closing it sends
    ``DELETE /mcp``."""
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


# --- Host and Origin ---------------------------------------------------------------------------


def test_foreign_host_is_misdirected_and_foreign_origin_forbidden(open_gw) -> None:
    """DNS rebinding: a page on attacker.example, rebound to 127.0.0.1, sends its own Host and
    Origin. Neither reaches an MCP session."""
    _, base = open_gw
    rebound = _post(f"{base}/mcp", {"host": "attacker.example:8765"})
    assert rebound.status_code == 421
    foreign = _post(f"{base}/mcp", {"origin": "http://attacker.example:8765"})
    assert foreign.status_code == 403
    # the same host under another scheme or port is another origin
    port = base.rsplit(":", 1)[1]
    for origin in (f"https://127.0.0.1:{port}", "http://127.0.0.1:1", "null"):
        assert _post(f"{base}/mcp", {"origin": origin}).status_code == 403, origin
    # past the guard (the SDK then answers this bare request with 400)
    assert _post(f"{base}/mcp", {"origin": base}).status_code == 400
    assert _post(f"{base}/mcp", {}).status_code == 400  # a non-browser client sends no Origin
    # one rule for the dashboard's routes on the same app
    assert httpx2.get(f"{base}/api/catalog", headers={"host": "evil.example"}).status_code == 421


def test_a_non_local_bind_without_a_token_refuses_to_start(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLSIFT_TOKEN", raising=False)
    config = write_config(tmp_path / "mcp.json", {"time": {"command": "true"}})
    code, err, _ = cli(capsys, "serve", str(config), "--transport", "http", "--host", "0.0.0.0")
    assert code == 2
    assert err.startswith("toolsift: error: the gateway on 0.0.0.0 (not a local address) needs")
    assert "--token" in err and "TOOLSIFT_TOKEN" in err


# --- authentication ----------------------------------------------------------------------------


def test_a_wrong_or_missing_token_is_unauthorized(token_gw) -> None:
    _, base = token_gw
    assert _post(f"{base}/mcp", {}).status_code == 401
    assert _post(f"{base}/mcp", {"authorization": "Bearer s3cre"}).status_code == 401
    assert _post(f"{base}/mcp", {"authorization": "Bearer s3cret"}).status_code == 400  # past


def test_server_info_names_toolsift_and_its_version(open_gw) -> None:
    _, base = open_gw

    async def scenario() -> None:
        async with Client(f"{base}/mcp") as client:
            info = client.server_info
            assert info is not None and (info.name, info.version) == ("toolsift", __version__)

    asyncio.run(scenario())


# --- identity and isolation --------------------------------------------------------------------


def test_sessionless_clients_without_a_token_share_nothing(open_gw) -> None:
    """Two FastMCP clients (sessionless protocol, no token): one cannot activate a tool for the
    other, and one's searches never use up the other's rate limit."""
    gateway, base = open_gw

    async def scenario() -> None:
        async with Client(f"{base}/mcp") as a, Client(f"{base}/mcp") as b:
            for _ in range(3):  # over the 2/hour limit, were it one shared bucket
                found = await a.call_tool_mcp("search_tool_bm25", {"query": f"select:{GET_TIME}"})
                assert found.is_error and "needs an MCP session or authentication" in _text(found)
            assert [t.name for t in await b.list_tools()] == ["search_tool_bm25"]
            called = await b.call_tool_mcp(GET_TIME, {"timezone": "UTC"})
            assert called.is_error and "not active" in _text(called)

    asyncio.run(scenario())
    assert all(not s.session.selected for s in gateway.registry.states())


def test_jwt_principals_are_separate_clients_across_sessions(jwt_gw, keys) -> None:
    """Each JWT subject is its own client: its activations are its own, and its rate limit
    follows it into new sessions (a new session is no fresh bucket)."""
    _, base = jwt_gw

    def token(subject: str) -> str:
        return keys.create_token(subject=subject, issuer=ISSUER, audience=AUDIENCE)

    async def scenario() -> None:
        alice, bob = token("alice"), token("bob")
        async with Client(f"{base}/mcp", auth=alice) as a, Client(f"{base}/mcp", auth=bob) as b:
            found = await a.call_tool_mcp("search_tool_bm25", {"query": f"select:{GET_TIME}"})
            assert json.loads(_text(found))["activated_tools"] == [GET_TIME]
            called = await a.call_tool_mcp(GET_TIME, {"timezone": "UTC"})
            assert not called.is_error, _text(called)
            assert GET_TIME not in [t.name for t in await b.list_tools()]
            refused = await b.call_tool_mcp(GET_TIME, {"timezone": "UTC"})
            assert refused.is_error and "not active" in _text(refused)
            await a.call_tool_mcp("search_tool_bm25", {"query": "time"})  # alice's 2nd search
        async with Client(f"{base}/mcp", auth=alice) as again:  # a new connection
            over = await again.call_tool_mcp("search_tool_bm25", {"query": "time"})
            assert over.is_error and "rate limit" in _text(over)
        # a handshake-era session of alice's: a new session, the same bucket
        async with _sdk_session(f"{base}/mcp", alice) as session:
            over = await session.call_tool("search_tool_bm25", {"query": "time"})
            assert over.is_error and "rate limit" in _text(over)
        async with Client(f"{base}/mcp", auth=bob) as b:  # bob still has his searches
            ok = await b.call_tool_mcp("search_tool_bm25", {"query": "time"})
            assert not ok.is_error

    asyncio.run(scenario())


def test_the_static_token_principal_keeps_its_rate_limit(token_gw) -> None:
    _, base = token_gw

    async def scenario() -> None:
        for _ in range(2):
            async with Client(f"{base}/mcp", auth="s3cret") as client:
                result = await client.call_tool_mcp("search_tool_bm25", {"query": "time"})
                assert not result.is_error
        async with _sdk_session(f"{base}/mcp", "s3cret") as session:
            over = await session.call_tool("search_tool_bm25", {"query": "time"})
            assert over.is_error and "rate limit" in _text(over)

    asyncio.run(scenario())


def test_a_session_state_is_dropped_when_the_session_ends(open_gw) -> None:
    """``DELETE /mcp`` (the SDK sends it on close) drops the client's state: it is no longer
    kept nor listed by the dashboard."""
    gateway, base = open_gw

    async def scenario() -> str:
        async with _sdk_session(f"{base}/mcp") as session:
            await session.call_tool("search_tool_bm25", {"query": f"select:{GET_TIME}"})
            keys = [s.key for s in gateway.registry.states() if GET_TIME in s.session.selected]
            assert len(keys) == 1 and keys[0].startswith("session:")
            listed = httpx2.get(f"{base}/api/sessions").json()["sessions"]
            assert keys[0] in [s["key"] for s in listed]
            return keys[0]

    key = asyncio.run(scenario())
    deadline = time.monotonic() + 5
    while key in [s.key for s in gateway.registry.states()]:
        assert time.monotonic() < deadline, "the state outlived its session"
        time.sleep(0.02)
    assert key not in [s["key"] for s in httpx2.get(f"{base}/api/sessions").json()["sessions"]]


def test_search_and_call_without_identity_is_stateless(tmp_path: Path) -> None:
    """Sessionless, no token, search-and-call style: a search returns definitions and
    ``call_tool`` runs the found tool by name; nothing is kept for anyone."""
    gateway = _gateway(style="search-and-call")

    async def scenario(base: str) -> None:
        async with Client(f"{base}/mcp") as client:
            found = await client.call_tool_mcp("search_tools", {"query": "current time"})
            assert GET_TIME in [d["name"] for d in json.loads(_text(found))]
            args = {"name": GET_TIME, "arguments": {"timezone": "UTC"}}
            called = await client.call_tool_mcp("call_tool", args)
            assert not called.is_error and '"timezone": "UTC"' in _text(called)

    with _serving(gateway) as base:
        asyncio.run(scenario(base))
    assert gateway.registry.states() == []


def test_the_token_comes_from_the_flag_then_the_environment_then_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolsift.gateway.commands import _gateway_config

    monkeypatch.delenv("TOOLSIFT_TOKEN", raising=False)
    config = write_config(tmp_path / "mcp.json", {"time": {"command": "true"}}, token="in-file")
    args = argparse.Namespace(settings=None, call_timeout=None, token=None)
    assert _gateway_config(args, str(config)).tool_search.token == "in-file"
    monkeypatch.setenv("TOOLSIFT_TOKEN", "in-env")
    assert _gateway_config(args, str(config)).tool_search.token == "in-env"
    args.token = "on-flag"
    gateway = Gateway(_gateway_config(args, str(config)))
    assert gateway.auth is not None and gateway.mcp.auth is gateway.auth
    assert "on-flag" not in repr(gateway.settings)  # a secret stays out of reprs and logs
