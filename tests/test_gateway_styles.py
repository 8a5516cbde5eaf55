"""`toolsift serve` beyond the default: the search-and-call style through FastMCP's `Client`,
Streamable HTTP, a downstream tool list that changes while serving, and `toolsift catalog`."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("the MCP SDK and FastMCP need Python 3.11+", allow_module_level=True)

from fastmcp import Client  # noqa: E402
from fastmcp.client.transports import StdioTransport  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from ._cli import cli  # noqa: E402
from ._mcp import PY, child_env, make_repo, serve, servers, write_config  # noqa: E402

GET_TIME = "mcp__time__get_current_time"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def test_search_and_call_style_with_fastmcp_client(tmp_path: Path, repo: Path) -> None:
    config = write_config(
        tmp_path / "mcp.json",
        {"time": servers(repo)["time"]},  # one downstream server is all the point needs
        style="search-and-call",
        always_available=["time/convert_time"],
    )

    async def scenario() -> None:
        transport = StdioTransport(
            PY, ["-m", "toolsift", "serve", str(config)], keep_alive=False, env=child_env()
        )
        async with Client(transport) as client:
            names = [t.name for t in await client.list_tools()]
            assert names == ["search_tools", "call_tool", "mcp__time__convert_time"]
            refused = await client.call_tool_mcp(
                "call_tool", {"name": GET_TIME, "arguments": {"timezone": "UTC"}}
            )
            assert refused.is_error and "select:" + GET_TIME in _text(refused)
            found = await client.call_tool_mcp(
                "search_tools", {"query": "current time", "limit": 1}
            )
            definitions = json.loads(_text(found))
            assert [d["name"] for d in definitions] == [GET_TIME]
            assert definitions[0]["inputSchema"]["required"] == ["timezone"]
            # Found tools are called through call_tool, and are not listed.
            assert [t.name for t in await client.list_tools()] == names
            result = await client.call_tool_mcp(
                "call_tool", {"name": GET_TIME, "arguments": {"timezone": "UTC"}}
            )
            assert not result.is_error and '"timezone": "UTC"' in _text(result)
            unknown = await client.call_tool_mcp("call_tool", {"name": "nope"})
            assert unknown.is_error and "Unknown tool: 'nope'" in _text(unknown)

    asyncio.run(scenario())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_transport(tmp_path: Path, repo: Path) -> None:
    config = write_config(tmp_path / "mcp.json", {"time": servers(repo)["time"]})
    port = _free_port()
    command = [PY, "-m", "toolsift", "serve", str(config), "--transport", "http"]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, "toolsift serve exited"
            assert time.monotonic() < deadline, "toolsift serve did not listen"
            time.sleep(0.2)
        assert process.stderr is not None  # the first line says where to connect
        url = f"http://127.0.0.1:{port}/mcp"
        assert process.stderr.readline().decode().strip() == f"toolsift gateway: {url}"

        async def scenario() -> None:
            # FastMCP's client is sessionless (2026-07-28): without a token nothing tells it
            # apart from any other client, so it cannot keep activations.
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                assert [t.name for t in await client.list_tools()] == ["search_tool_bm25"]
                result = await client.call_tool_mcp(
                    "search_tool_bm25", {"query": f"select:{GET_TIME}"}
                )
                assert result.is_error and "needs an MCP session or authentication" in _text(result)

        async def two_sessions() -> None:
            # The official SDK keeps an MCP session (Mcp-Session-Id): each has its own state.
            url = f"http://127.0.0.1:{port}/mcp"
            async with (
                streamable_http_client(url) as a_streams,
                streamable_http_client(url) as b_streams,
            ):
                async with (
                    ClientSession(a_streams[0], a_streams[1]) as a,
                    ClientSession(b_streams[0], b_streams[1]) as b,
                ):
                    await a.initialize()
                    await b.initialize()
                    await a.call_tool("search_tool_bm25", {"query": f"select:{GET_TIME}"})
                    a_names = [t.name for t in (await a.list_tools()).tools]
                    b_names = [t.name for t in (await b.list_tools()).tools]
                    assert a_names == ["search_tool_bm25", GET_TIME]
                    assert b_names == ["search_tool_bm25"]
                    called = await a.call_tool(GET_TIME, {"timezone": "UTC"})
                    assert not called.is_error and '"timezone": "UTC"' in _text(called)

        asyncio.run(scenario())
        asyncio.run(two_sessions())
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stderr is not None:
            process.stderr.close()


GROWING_SERVER = textwrap.dedent(
    """
    import mcp_types
    from fastmcp import Context, FastMCP

    mcp = FastMCP("growing")

    @mcp.tool
    async def grow(ctx: Context) -> str:
        "Add the tool plant_tree to this server."

        def plant_tree(species: str) -> str:
            "Plant a tree of the given species in the garden."
            return f"planted {species}"

        mcp.add_tool(plant_tree)
        await ctx.send_notification(mcp_types.ToolListChangedNotification())
        return "grown"

    mcp.run(show_banner=False)
    """
)


def test_a_downstream_tool_list_change_updates_the_catalogue_live(
    tmp_path: Path, repo: Path
) -> None:
    script = tmp_path / "growing.py"
    script.write_text(GROWING_SERVER)
    mcp_servers = {"time": servers(repo)["time"], "garden": {"command": PY, "args": [str(script)]}}
    config = write_config(tmp_path / "mcp.json", mcp_servers)

    async def scenario() -> None:
        async with serve(config) as s:
            error, text = await s.call("search_tool_bm25", {"query": "plant a tree"})
            assert "mcp__garden__plant_tree" not in json.loads(text)["activated_tools"]
            await s.call("search_tool_bm25", {"query": "select:mcp__garden__grow"})
            before = s.list_changed()
            error, text = await s.call("mcp__garden__grow", {})
            assert not error and text == "grown"

            async def relisted() -> None:
                while s.list_changed() == before:
                    await asyncio.sleep(0.1)

            await asyncio.wait_for(relisted(), 30)
            error, text = await s.call("search_tool_bm25", {"query": "plant a tree"})
            assert json.loads(text)["activated_tools"] == ["mcp__garden__plant_tree"]
            error, text = await s.call("mcp__garden__plant_tree", {"species": "oak"})
            assert not error and text == "planted oak"

    asyncio.run(scenario())


def test_catalog_command_writes_jsonl_to_search_offline(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, repo: Path
) -> None:
    config = write_config(tmp_path / "mcp.json", servers(repo))
    out = tmp_path / "tools.jsonl"
    code, err, _ = cli(capsys, "catalog", "--config", str(config), "-o", str(out))
    assert code == 0, err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["server"] for r in records} == {"time", "git", "fetch"}
    assert "mcp__git__git_log" in {r["name"] for r in records}
    code, err, text = cli(capsys, "search", "show the commit log", "--catalog", str(out))
    assert code == 0, err
    assert text.splitlines()[1].endswith("mcp__git__git_log")  # the best match


def test_catalog_command_names_a_server_that_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = write_config(
        tmp_path / "mcp.json", {"broken": {"command": PY, "args": ["-c", "import sys"]}}
    )
    code, err, _ = cli(capsys, "catalog", "--config", str(config), "-o", str(tmp_path / "x"))
    assert code == 2 and "Server 'broken': cannot list its tools" in err
    assert not (tmp_path / "x").exists()


def test_serve_rejects_a_bad_config(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "mcp.json"
    bad.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}}, "tool_search": {"x": 1}}))
    code, err, _ = cli(capsys, "serve", str(bad))
    assert code == 2 and f"{bad}: tool_search.x is not a known key" in err
