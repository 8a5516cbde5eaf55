"""MCP SDK and FastMCP objects go straight into the loaders and the session; raw tools/list files
from the command line; limits capped in every entry point; aliases for provider-invalid names."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from toolsift import DiscoverySession, Tool, load_tools
from toolsift.contract import anthropic_deferred_tools, anthropic_tool_result
from toolsift.loaders import from_mcp
from toolsift.metatool import call_meta_tool
from toolsift.tools import provider_name

from ._cli import cli

if sys.version_info < (3, 11):  # pragma: no cover - the MCP SDK needs 3.11+
    pytest.skip("the MCP SDK needs Python 3.11+", allow_module_level=True)

import mcp_types  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402


def _time_server_tools() -> mcp_types.ListToolsResult:
    """``await client.list_tools()`` of the real mcp-server-time, with the official SDK."""

    async def fetch() -> mcp_types.ListToolsResult:
        params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_server_time"])
        async with stdio_client(params) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                return await session.list_tools()

    return asyncio.run(fetch())


@pytest.fixture(scope="module")
def listed() -> mcp_types.ListToolsResult:
    return _time_server_tools()


def test_sdk_objects_everywhere(listed: mcp_types.ListToolsResult) -> None:
    expected = ["mcp__time__get_current_time", "mcp__time__convert_time"]
    assert [t.name for t in from_mcp(listed, "time")] == expected
    assert [t.name for t in from_mcp(listed.tools, "time")] == expected
    assert [t.name for t in from_mcp(tuple(listed.tools), "time")] == expected
    assert [t.name for t in load_tools(listed, server="time")] == expected
    assert [t.name for t in load_tools(listed.tools[0], server="time")] == expected[:1]
    assert from_mcp(listed, "time") == from_mcp(listed.model_dump(by_alias=True), "time")
    session = DiscoverySession(mode="all")
    session.connect_server("time", listed)
    session.connect_server("time", listed.tools)
    assert [t.name for t in session.hidden_tools] == expected
    assert session.search("convert between timezones", 1).activated == (expected[1],)


def test_fastmcp_tool_objects() -> None:
    from fastmcp.tools import Tool as FastMCPTool

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    tool = FastMCPTool.from_function(add)
    (converted,) = from_mcp([tool], "calc")
    assert converted.name == "mcp__calc__add" and converted.description == "Add two numbers."
    assert converted.schema_keys == ("a", "b")
    session = DiscoverySession(mode="all")
    session.connect_server("calc", [tool])
    assert session.resolve("mcp__calc__add") == ("calc", "add")


def test_import_toolsift_does_not_import_mcp() -> None:
    code = (
        "import sys, toolsift, toolsift.config, toolsift.gateway, toolsift.integrations\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('mcp', 'fastmcp', 'mcp_types')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cli_searches_a_raw_tools_list_file(capsys, tmp_path: Path, listed) -> None:
    path = tmp_path / "time.json"
    path.write_text(json.dumps(listed.model_dump(mode="json", by_alias=True, exclude_none=True)))
    code, err, _ = cli(capsys, "search", "timezone", "--catalog", str(path))
    assert code == 2 and "(a raw tools/list file needs --server NAME)" in err
    code, err, out = cli(
        capsys, "search", "convert timezone", "--catalog", str(path), "--server", "time"
    )
    assert code == 0, err
    assert out.splitlines()[1].endswith("mcp__time__convert_time")
    code, err, _ = cli(capsys, "search", "x", "--server", "time")
    assert code == 2 and "--server names the server of a --catalog file" in err


@pytest.mark.parametrize(("text", "message"), [("", "holds no tools"), ("[]", "holds no tools")])
def test_cli_refuses_an_empty_catalogue(capsys, tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "tools.json"
    path.write_text(text)
    for extra in ([], ["--server", "s"]):
        code, err, _ = cli(capsys, "search", "x", "--catalog", str(path), *extra)
        assert code == 2 and err.startswith(f"toolsift: error: {path}") and message in err


def test_cli_refuses_a_non_json_catalogue(capsys, tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text("not json at all")
    code, err, _ = cli(capsys, "search", "x", "--catalog", str(path))
    assert code == 2 and str(path) in err


def _many(n: int = 40) -> list[Tool]:
    return [
        Tool(name=f"mcp__s__t{i}", server="s", mcp_tool_name=f"t{i}", description="shared words")
        for i in range(n)
    ]


def test_the_limit_is_capped_in_every_entry_point(capsys, tmp_path: Path) -> None:
    assert len(DiscoverySession(_many(), mode="all").search("shared", 100).activated) == 25
    call = call_meta_tool(DiscoverySession(_many(), mode="all"), {"query": "shared", "limit": 99})
    assert call.details["limit"] == 25 and len(call.result.activated) == 25
    small = DiscoverySession(_many(), mode="all", max_limit=4, default_limit=2)
    assert len(small.search("shared").activated) == 2
    assert len(small.search("shared", 10).activated) == 4
    path = tmp_path / "tools.jsonl"
    path.write_text("\n".join(json.dumps(t.to_dict()) for t in _many()))
    code, err, out = cli(
        capsys, "search", "shared", "--catalog", str(path), "--limit", "90", "--format", "details"
    )
    assert code == 0 and json.loads(out)["limit"] == 25
    with pytest.raises(ValueError, match="default_limit 9 is above max_limit 4"):
        DiscoverySession(max_limit=4, default_limit=9)


def test_threshold_in_the_session() -> None:
    session = DiscoverySession(_many(3) + [Tool(name="other", description="unrelated")])
    assert session.search("shared", threshold=1e9).activated == ()
    assert len(session.search("shared").activated) == 3
    with pytest.raises(ValueError, match="Invalid threshold: must be a finite number >= 0, got -1"):
        session.search("shared", threshold=-1)


LONG = "mcp__some-long-server-name__" + "create_or_update_the_very_long_named_resource_entry"


def test_long_names_get_stable_aliases_that_resolve() -> None:
    assert provider_name("mcp__git__git_status") == "mcp__git__git_status"
    alias = provider_name(LONG)
    assert len(LONG) > 64 and len(alias) <= 64 and alias == provider_name(LONG)
    assert alias.startswith("mcp__some-long-server-name__create_or_update")
    assert provider_name("mcp__a.b__c") != "mcp__a.b__c"  # a dot is not allowed either
    tool = Tool(name=LONG, server="some-long-server-name", mcp_tool_name="create_it")
    assert tool.to_openai_chat()["function"]["name"] == alias
    assert tool.to_openai_responses()["name"] == alias
    assert tool.to_anthropic()["name"] == alias
    assert anthropic_deferred_tools([tool])[0]["name"] == alias
    assert tool.to_mcp()["name"] == "create_it"  # MCP keeps the raw name
    session = DiscoverySession([tool], mode="all")
    assert session.resolve(alias) == ("some-long-server-name", "create_it")
    assert session.resolve(LONG) == session.resolve(alias)
    result = session.search(f"select:{LONG}")
    assert anthropic_tool_result(result, "toolu_1")["content"][0]["tool_name"] == alias
    with pytest.raises(KeyError):
        session.resolve("nope")


def test_distinct_long_names_get_distinct_aliases() -> None:
    names = [LONG + str(i) for i in range(200)]
    assert len({provider_name(n) for n in names}) == 200
