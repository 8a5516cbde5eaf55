"""`toolsift serve` in front of a downstream MCP server over Streamable HTTP (a `url` entry of
the `mcpServers` config): a real FastMCP server on a free local port, started by the test, and
a real stdio server beside it, driven by the official MCP client SDK."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ._mcp import kill, serve, servers, write_config

ECHO = "mcp__web__echo"
GET_TIME = "mcp__time__get_current_time"

SERVER = textwrap.dedent(
    """
    import sys
    from fastmcp import FastMCP

    mcp = FastMCP("web")

    @mcp.tool
    def echo(text: str) -> str:
        "Echo a text back, prefixed with the name of the web server."
        return "web says " + text

    mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False)
    """
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """A FastMCP server over Streamable HTTP; yields its MCP endpoint's URL."""
    script = tmp_path / "web_server.py"
    script.write_text(SERVER)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(script), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # wait until it accepts connections
            if proc.poll() is not None:
                pytest.fail(f"the HTTP test server exited with {proc.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("the HTTP test server did not start within 60 s")
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        if proc.poll() is None:
            kill(proc.pid)
        proc.wait()


def test_an_http_downstream_is_searched_gated_and_called(tmp_path: Path, http_server: str) -> None:
    mcp_servers = {"web": {"url": http_server}, "time": servers(tmp_path)["time"]}
    config = write_config(tmp_path / "mcp.json", mcp_servers, max_results=1)

    async def scenario() -> None:
        async with serve(config) as s:
            meta = (await s.session.list_tools()).tools[0]
            assert "- web (" in meta.description and "- time (" in meta.description
            error, text = await s.call(ECHO, {"text": "hi"})
            assert error and f"select:{ECHO}" in text  # the gate, for an HTTP tool too
            error, text = await s.call("search_tool_bm25", {"query": "echo a text back"})
            assert not error and json.loads(text)["activated_tools"] == [ECHO]
            assert ECHO in await s.names()
            error, text = await s.call(ECHO, {"text": "hi"})
            assert not error and "web says hi" in text  # routed to the HTTP server
            error, text = await s.call("search_tool_bm25", {"query": f"select:{GET_TIME}"})
            error, text = await s.call(GET_TIME, {"timezone": "UTC"})
            assert not error and json.loads(text)["timezone"] == "UTC"  # the stdio one still

    asyncio.run(scenario())


def test_an_http_downstream_that_stops_fails_its_call_and_the_others_answer(
    tmp_path: Path, http_server: str
) -> None:
    mcp_servers = {"web": {"url": http_server}, "time": servers(tmp_path)["time"]}
    config = write_config(tmp_path / "mcp.json", mcp_servers, gate=False)

    async def scenario() -> None:
        async with serve(config, "--call-timeout", "10") as s:
            error, text = await s.call(ECHO, {"text": "one"})
            assert not error and "web says one" in text
            port = int(http_server.rsplit(":", 1)[1].split("/")[0])
            for proc in _listeners(port):
                kill(proc)
            error, text = await s.call(ECHO, {"text": "two"})
            # A clear tool error naming the server (not a hang, not a protocol error).
            assert error and text.startswith("Server 'web' failed during 'echo'")
            error, text = await s.call(GET_TIME, {"timezone": "UTC"})
            assert not error and json.loads(text)["timezone"] == "UTC"

    asyncio.run(scenario())


def _listeners(port: int) -> list[int]:
    """The processes listening on local TCP ``port``."""
    import psutil

    return sorted(
        {
            c.pid
            for c in psutil.net_connections(kind="tcp")
            if c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN and c.pid
        }
    )
