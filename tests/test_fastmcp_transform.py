"""ToolsiftSearchTransform on a FastMCP server of 2,000+ generated tools, through FastMCP's own
in-memory Client: FastMCP's interface and options, toolsift's ranking and query language, and an
index that is built once per catalogue."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP needs 3.11+
    pytest.skip("FastMCP needs Python 3.11+", allow_module_level=True)

from fastmcp import Client, FastMCP  # noqa: E402
from fastmcp.server.transforms.search import BM25SearchTransform  # noqa: E402
from fastmcp.server.transforms.search.base import BaseSearchTransform  # noqa: E402
from fastmcp.tools import Tool as FastMCPTool  # noqa: E402
from fastmcp.tools.base import ToolResult  # noqa: E402
from toolsift.integrations.fastmcp import ToolsiftSearchTransform  # noqa: E402

VERBS = ["create", "delete", "list", "update", "get", "archive", "export", "sync"]
NOUNS = ["invoice", "ticket", "user", "channel", "bucket", "report", "calendar", "branch"]
SERVICES = [f"svc{i}" for i in range(32)]


class _Echo(FastMCPTool):
    """A tool that answers with its name and the ``id`` it was given."""

    async def run(self, arguments: dict[str, Any]) -> ToolResult:  # type: ignore[override]
        return ToolResult(content=f"{self.name}:{arguments.get('id', '')}")


def _tool(name: str, description: str) -> FastMCPTool:
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    return _Echo(name=name, description=description, parameters=schema)


def big_server(n_services: int = 32) -> FastMCP:
    """2,048 tools: every verb x noun on 32 services, plus a few distinct ones."""
    mcp = FastMCP("big")
    for service in SERVICES[:n_services]:
        for verb in VERBS:
            for noun in NOUNS:
                name = f"{service}_{verb}_{noun}"
                mcp.add_tool(_tool(name, f"{verb.title()} a {noun} in {service}."))
    mcp.add_tool(_tool("send_email", "Send an email message to a recipient."))
    mcp.add_tool(_tool("ping", "Check that the server is alive."))
    return mcp


def _names(result) -> list[str]:
    assert not result.is_error, result
    return [t["name"] for t in result.structured_content["result"]]


def test_is_a_fastmcp_search_transform() -> None:
    transform = ToolsiftSearchTransform()
    assert isinstance(transform, BaseSearchTransform)


def test_one_line_on_a_2000_tool_server() -> None:
    mcp = big_server()
    transform = ToolsiftSearchTransform(always_visible=["ping"], max_results=3)
    mcp.add_transform(transform)

    async def scenario() -> None:
        async with Client(mcp) as client:
            listed = [t.name for t in await client.list_tools()]
            assert listed == ["ping", "search_tools", "call_tool"]
            search = [t for t in await client.list_tools() if t.name == "search_tools"][0]
            limit = search.input_schema["properties"]["limit"]
            assert limit["anyOf"][0]["maximum"] == 25
            found = await client.call_tool_mcp("search_tools", {"query": "email someone"})
            assert _names(found)[0] == "send_email"
            found = await client.call_tool_mcp("search_tools", {"query": "archive a svc7 ticket"})
            assert _names(found)[0] == "svc7_archive_ticket" and len(_names(found)) == 3
            # select: fetches exact names, +word requires a word, limit overrides max_results.
            found = await client.call_tool_mcp(
                "search_tools", {"query": "select:svc3_sync_bucket,svc9_get_user"}
            )
            assert _names(found) == ["svc3_sync_bucket", "svc9_get_user"]
            found = await client.call_tool_mcp(
                "search_tools", {"query": "+svc12 export", "limit": 8}
            )
            assert len(_names(found)) == 8
            assert all(n.startswith("svc12_") for n in _names(found))
            # The exact-name tier: a named tool comes first whatever BM25 thinks.
            found = await client.call_tool_mcp(
                "search_tools", {"query": "svc30_list_channel report invoice"}
            )
            assert _names(found)[0] == "svc30_list_channel"
            # Pinned tools are not search results; call_tool runs a found tool.
            found = await client.call_tool_mcp("search_tools", {"query": "ping alive"})
            assert "ping" not in _names(found)
            called = await client.call_tool_mcp(
                "call_tool", {"name": "svc7_archive_ticket", "arguments": {"id": "42"}}
            )
            assert called.content[0].text == "svc7_archive_ticket:42"
            bad = await client.call_tool_mcp("search_tools", {"query": "x", "limit": 26})
            assert bad.is_error

    asyncio.run(scenario())
    assert transform.builds == 1  # one index for all those searches


def test_the_index_is_rebuilt_only_when_the_catalogue_changes() -> None:
    mcp = big_server(n_services=4)
    transform = ToolsiftSearchTransform()
    mcp.add_transform(transform)

    async def scenario() -> None:
        async with Client(mcp) as client:
            await client.call_tool_mcp("search_tools", {"query": "invoice"})
            await client.call_tool_mcp("search_tools", {"query": "ticket"})
            assert transform.builds == 1
            mcp.add_tool(_tool("launch_rocket", "Launch a rocket into orbit."))
            found = await client.call_tool_mcp("search_tools", {"query": "rocket launch"})
            assert _names(found)[0] == "launch_rocket" and transform.builds == 2
            await client.call_tool_mcp("search_tools", {"query": "rocket"})
            assert transform.builds == 2

    asyncio.run(scenario())


def test_threshold_profile_and_serializer() -> None:
    mcp = big_server(n_services=2)
    seen: list[list[str]] = []

    def serializer(tools: Any) -> str:
        seen.append([t.name for t in tools])
        return ",".join(t.name for t in tools)

    transform = ToolsiftSearchTransform(
        threshold=1e9,  # nothing scores that high: only named tools pass
        profile="omp",
        search_result_serializer=serializer,
        search_tool_name="find",
        call_tool_name="run",
    )
    mcp.add_transform(transform)

    async def scenario() -> None:
        async with Client(mcp) as client:
            assert [t.name for t in await client.list_tools()] == ["find", "run"]
            found = await client.call_tool_mcp("find", {"query": "invoice"})
            assert found.content[0].text == ""
            found = await client.call_tool_mcp("find", {"query": "svc1_get_user"})
            assert found.content[0].text == "svc1_get_user"

    asyncio.run(scenario())
    assert seen == [[], ["svc1_get_user"]]


def test_same_options_as_bm25_transform() -> None:
    """The constructor takes every option of FastMCP's BM25 transform, by the same names."""
    import inspect

    ours = inspect.signature(ToolsiftSearchTransform).parameters
    theirs = inspect.signature(BM25SearchTransform).parameters
    assert set(theirs) <= set(ours)
