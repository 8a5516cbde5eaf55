"""Every answer tells the model what it asked for and did not get: ``select:`` names that match no
tool come back as ``missing`` with the closest tool names as ``suggestions`` (the meta-tool's
content and details, the regex meta-tool, Claude Code's ``ToolSearch`` response, the gateway's
``search_tools`` and the FastMCP transform's ``search_tools``), and a ``select:`` cut at the
query length cap says so instead of reporting a fragment of a name as missing."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import Any

import pytest
from toolsift import DiscoverySession, Tool
from toolsift.config import GatewayConfig, ToolSearchConfig
from toolsift.contract import search_notes, tool_search_response
from toolsift.errors import QueryError
from toolsift.metatool import call_meta_tool

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("FastMCP needs Python 3.11+", allow_module_level=True)

import mcp.types as mcp_types  # noqa: E402
from fastmcp import Client, FastMCP  # noqa: E402
from fastmcp.tools import Tool as FastMCPTool  # noqa: E402
from fastmcp.tools.base import ToolResult  # noqa: E402
from toolsift.gateway.server import Gateway  # noqa: E402
from toolsift.integrations.fastmcp import ToolsiftSearchTransform  # noqa: E402
from toolsift.limits import MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, MAX_SCHEMA_DEPTH  # noqa: E402

TOOLS = [
    Tool(name="read_file", description="Read a file from disk", server="fs"),
    Tool(name="write_file", description="Write a file to disk", server="fs"),
    Tool(name="git_status", description="Show the working tree status", server="git"),
]


def _session() -> DiscoverySession:
    return DiscoverySession(TOOLS)


# --- the activate style: the meta-tool's content and details ----------------------------------


def test_meta_tool_content_names_the_missing_and_suggests() -> None:
    call = call_meta_tool(_session(), {"query": "select:raed_file,git_status,zzqx"})
    content = json.loads(call.content)
    assert content["activated_tools"] == ["git_status"]
    assert content["missing"] == ["raed_file", "zzqx"]
    assert content["suggestions"]["raed_file"][0] == "read_file"
    assert content["suggestions"]["zzqx"] == []
    # Added after the original fields, which keep their order.
    assert list(content)[:4] == ["query", "activated_tools", "match_count", "total_tools"]
    assert call.details["missing"] == content["missing"]
    assert call.details["suggestions"] == content["suggestions"]


def test_an_answer_with_nothing_missing_keeps_the_original_bytes() -> None:
    session = _session()
    content = call_meta_tool(session, {"query": "select:read_file"}).content
    assert content == (
        '{"query":"select:read_file","activated_tools":["read_file"],'
        '"match_count":1,"total_tools":3}'
    )
    assert search_notes(session.search("read a file")) == {}


def test_regex_meta_tool_reports_a_select_miss_too() -> None:
    call = call_meta_tool(_session(), {"query": "select:git_stats"}, ranker="regex")
    content = json.loads(call.content)
    assert content["missing"] == ["git_stats"]
    assert content["suggestions"]["git_stats"][0] == "git_status"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"pattern": 3}, "Pattern must be a string, got int."),
        ({"pattern": "  "}, "Pattern must not be empty."),
        ({}, "Pattern must not be empty."),
        ({"query": " "}, "Query must not be empty."),  # the pattern given as `query`
    ],
)
def test_regex_meta_tool_errors_name_its_argument(arguments: dict, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        call_meta_tool(_session(), arguments, ranker="regex")


def test_tool_search_response_carries_suggestions() -> None:
    response = tool_search_response(_session().search("select:write_fil"))
    assert response["missing"] == ["write_fil"]
    assert response["suggestions"]["write_fil"][0] == "write_file"


# --- a select: longer than the query cap --------------------------------------------------------


def test_a_long_select_is_cut_after_a_whole_name_and_says_so() -> None:
    names = [f"tool_number_{i:04d}_with_a_longer_name" for i in range(60)]  # 12 fit in 500
    session = DiscoverySession([Tool(name=n, description=f"Tool {n}") for n in names])
    call = call_meta_tool(session, {"query": "select:" + ",".join(names), "limit": 25})
    content = json.loads(call.content)
    assert "missing" not in content  # no fragment of a name is reported as missing
    kept = len(content["activated_tools"])
    assert 0 < kept < len(names)
    assert content["activated_tools"] == [names[i] for i in range(kept)]
    (notice,) = content["notices"]
    assert f"{kept} names" in notice and f"{len(names) - kept} more" in notice


def test_a_select_name_longer_than_any_tool_name_is_refused() -> None:
    with pytest.raises(QueryError, match="longer than any tool name"):
        _session().search("select:" + "x" * (4 * MAX_NAME_LENGTH))


# --- the search-and-call style: the gateway's search_tools -------------------------------------


def _gateway() -> Gateway:
    settings = ToolSearchConfig(style="search-and-call")
    gateway = Gateway(GatewayConfig(servers=(), tool_search=settings))
    listed = [
        mcp_types.Tool(name=t.name, description=t.description, inputSchema={"type": "object"})
        for t in TOOLS
    ]
    asyncio.run(gateway.catalog.on_tools("fs", listed))
    return gateway


def test_gateway_search_tools_adds_a_block_for_missing_names() -> None:
    gateway = _gateway()

    async def scenario() -> tuple[Any, Any]:
        async with Client(gateway.mcp) as client:
            miss = await client.call_tool_mcp("search_tools", {"query": "select:raed_file"})
            hit = await client.call_tool_mcp("search_tools", {"query": "select:read_file"})
            return miss, hit

    miss, hit = asyncio.run(scenario())
    assert not miss.is_error and len(miss.content) == 2
    assert json.loads(miss.content[0].text) == []
    notes = json.loads(miss.content[1].text)
    assert notes["missing"] == ["raed_file"]
    assert notes["suggestions"]["raed_file"][0] == "read_file"
    # Nothing missing: one block, the definitions, as before.
    assert len(hit.content) == 1
    assert [d["name"] for d in json.loads(hit.content[0].text)] == ["mcp__fs__read_file"]


# --- the FastMCP transform ----------------------------------------------------------------------


class _Echo(FastMCPTool):
    async def run(self, arguments: dict[str, Any]) -> ToolResult:  # type: ignore[override]
        return ToolResult(content=f"{self.name} ran")


def _deep_schema(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    node = schema
    for _ in range(depth):
        child: dict[str, Any] = {"type": "object"}
        node["properties"] = {"a": child}
        node = child
    return schema


def _server(*extra: FastMCPTool) -> FastMCP:
    mcp = FastMCP("answers")
    for tool in TOOLS:
        mcp.add_tool(_Echo(name=tool.name, description=tool.description, parameters={}))
    for tool in extra:
        mcp.add_tool(tool)
    mcp.add_transform(ToolsiftSearchTransform())
    return mcp


def test_transform_search_tools_reports_missing_after_the_definitions() -> None:
    async def scenario() -> tuple[Any, Any]:
        async with Client(_server()) as client:
            miss = await client.call_tool("search_tools", {"query": "select:git_stat,read_file"})
            hit = await client.call_tool("search_tools", {"query": "select:read_file"})
            return miss, hit

    miss, hit = asyncio.run(scenario())
    # The structured result and the first block are FastMCP's, unchanged.
    assert [t["name"] for t in miss.structured_content["result"]] == ["read_file"]
    assert [t["name"] for t in json.loads(miss.content[0].text)] == ["read_file"]
    notes = json.loads(miss.content[1].text)
    assert list(notes) == ["missing", "suggestions"]
    assert notes["missing"] == ["git_stat"] and notes["suggestions"]["git_stat"][0] == "git_status"
    assert len(hit.content) == 1


def test_transform_leaves_out_oversize_tools_and_keeps_them_callable(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One tool over each input cap used to make every search_tools call of the server fail."""
    oversize = [
        _Echo(name="huge_doc", description="d" * (MAX_DESCRIPTION_LENGTH + 1), parameters={}),
        _Echo(name="n" * (MAX_NAME_LENGTH + 1), description="Long name", parameters={}),
        _Echo(name="deep_schema", description="Deep", parameters=_deep_schema(MAX_SCHEMA_DEPTH)),
    ]
    mcp = _server(*oversize)

    async def scenario() -> tuple[list[str], list[str], str]:
        async with Client(mcp) as client:
            first = await client.call_tool("search_tools", {"query": "read a file"})
            again = await client.call_tool("search_tools", {"query": "git status"})
            called = await client.call_tool("call_tool", {"name": "huge_doc", "arguments": {}})
            return (
                [t["name"] for t in first.structured_content["result"]],
                [t["name"] for t in again.structured_content["result"]],
                called.content[0].text,
            )

    # A logging configuration made by another test of the same worker (``dictConfig`` disables
    # the loggers that exist) must not hide this logger's records (seen once under xdist in CI).
    logging.getLogger("toolsift.integrations.fastmcp").disabled = False
    with caplog.at_level(logging.WARNING, logger="toolsift.integrations.fastmcp"):
        first, again, called = asyncio.run(scenario())
    assert first[0] == "read_file" and again[0] == "git_status"
    assert called == "huge_doc ran"
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("toolsift")]
    assert len(warnings) == 3, warnings  # once per tool, not once per search
    assert any("huge_doc" in w and "1,000,000" in w for w in warnings)
    assert any("deep_schema" in w and "64 levels" in w for w in warnings)
    assert any("'name'" in w and "1,024" in w for w in warnings)
