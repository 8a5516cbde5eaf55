"""`toolsift serve CONFIG --dashboard` with the gateway on stdio: the MCP messages keep stdout to
themselves while the dashboard answers on --host/--port from the same process."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import urllib.request
from pathlib import Path

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("the MCP SDK and FastMCP need Python 3.11+", allow_module_level=True)

from fastmcp import Client  # noqa: E402
from fastmcp.client.transports import StdioTransport  # noqa: E402

from ._mcp import PY, child_env, write_config  # noqa: E402

GET_TIME = "mcp__time__get_current_time"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, token: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_stdio_gateway_with_dashboard(tmp_path: Path) -> None:
    time_server = {"command": PY, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}
    config = write_config(tmp_path / "mcp.json", {"time": time_server})
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    argv = ["-m", "toolsift", "serve", str(config), "--dashboard", "--port", str(port)]
    argv += ["--dashboard-token", "tok"]

    async def scenario() -> None:
        transport = StdioTransport(PY, argv, keep_alive=False, env=child_env())
        async with Client(transport) as client:
            result = await client.call_tool_mcp("search_tool_bm25", {"query": "current time"})
            assert not result.is_error
            assert GET_TIME in [t.name for t in await client.list_tools()]
            loop = asyncio.get_running_loop()
            status, _ = await loop.run_in_executor(None, _get, f"{base}/api/sessions")
            assert status == 401  # the token is checked even on a local bind
            status, body = await loop.run_in_executor(None, _get, f"{base}/api/sessions", "tok")
            assert status == 200
            # stdio serves one client: its state is the process's.
            (session,) = body["sessions"]
            assert session["key"] == "process"
            assert GET_TIME in session["activated"]
            assert session["searches"][0]["query"] == "current time"
            status, catalog = await loop.run_in_executor(None, _get, f"{base}/api/catalog", "tok")
            assert [(s["name"], s["state"]) for s in catalog["servers"]] == [("time", "connected")]

    asyncio.run(scenario())
