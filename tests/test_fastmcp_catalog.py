"""ToolsiftSearchTransform keeps the catalogue it listed between searches, and only while
nothing can change it: real FastMCP servers whose tools, visibility, middleware, session rules
and ``auth`` checks change between calls, through FastMCP's in-memory Client."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP needs 3.11+
    pytest.skip("FastMCP needs Python 3.11+", allow_module_level=True)

from fastmcp import Client, Context, FastMCP  # noqa: E402
from fastmcp.server.middleware import Middleware  # noqa: E402
from fastmcp.server.transforms import Transform  # noqa: E402
from fastmcp.tools import Tool as FastMCPTool  # noqa: E402
from fastmcp.tools.base import ToolResult  # noqa: E402
from toolsift.integrations.fastmcp import ToolsiftSearchTransform  # noqa: E402

VERBS = ["create", "delete", "list", "update", "get", "archive"]
NOUNS = ["invoice", "ticket", "user", "channel", "bucket", "report"]


class _Echo(FastMCPTool):
    async def run(self, arguments: dict[str, Any]) -> ToolResult:  # type: ignore[override]
        return ToolResult(content=self.name)


def _tool(name: str, description: str, **extra: Any) -> FastMCPTool:
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    return _Echo(name=name, description=description, parameters=schema, **extra)


def _server(transform: ToolsiftSearchTransform) -> FastMCP:
    mcp = FastMCP("cached")
    for verb in VERBS:
        for noun in NOUNS:
            mcp.add_tool(_tool(f"{verb}_{noun}", f"{verb.title()} a {noun}."))
    mcp.add_tool(_tool("send_email", "Send an email message to a recipient."))
    mcp.add_transform(transform)
    return mcp


async def _found(client: Client, query: str, limit: int = 5) -> list[str]:
    result = await client.call_tool_mcp("search_tools", {"query": query, "limit": limit})
    assert not result.is_error, result
    return [t["name"] for t in result.structured_content["result"]]


def test_an_unchanged_server_is_listed_once() -> None:
    transform = ToolsiftSearchTransform()
    mcp = _server(transform)

    async def scenario() -> None:
        async with Client(mcp) as client:
            for query in ["email someone", "archive a ticket", "list users", "email"]:
                await _found(client, query)
            assert (await _found(client, "email someone"))[0] == "send_email"
            called = await client.call_tool_mcp("call_tool", {"name": "send_email"})
            assert called.content[0].text == "send_email"

    asyncio.run(scenario())
    assert transform.listings == 1 and transform.builds == 1


def test_added_removed_and_replaced_tools_are_seen() -> None:
    transform = ToolsiftSearchTransform()
    mcp = _server(transform)

    async def scenario() -> None:
        async with Client(mcp) as client:
            assert "launch_rocket" not in await _found(client, "launch a rocket")
            mcp.add_tool(_tool("launch_rocket", "Launch a rocket into orbit."))
            assert (await _found(client, "launch a rocket"))[0] == "launch_rocket"
            mcp.local_provider.remove_tool("launch_rocket")
            assert "launch_rocket" not in await _found(client, "launch a rocket")
            # Same name, new definition: the search ranks the new description.
            mcp.local_provider.remove_tool("send_email")
            mcp.add_tool(_tool("send_email", "Post a letter by courier."))
            assert (await _found(client, "courier letter"))[0] == "send_email"
            found = await client.call_tool_mcp("search_tools", {"query": "select:send_email"})
            assert found.structured_content["result"][0]["description"] == (
                "Post a letter by courier."
            )
            # call_tool reaches only what is listed now.
            mcp.local_provider.remove_tool("send_email")
            refused = await client.call_tool_mcp("call_tool", {"name": "send_email"})
            assert refused.is_error

    asyncio.run(scenario())
    assert transform.listings >= 5


def test_enabled_and_disabled_tools_are_seen() -> None:
    transform = ToolsiftSearchTransform()
    mcp = _server(transform)

    async def scenario() -> None:
        async with Client(mcp) as client:
            assert (await _found(client, "email someone"))[0] == "send_email"
            mcp.disable(names={"send_email"})
            assert "send_email" not in await _found(client, "email someone")
            mcp.enable(names={"send_email"})
            assert (await _found(client, "email someone"))[0] == "send_email"

    asyncio.run(scenario())


def test_session_visibility_rules_are_seen() -> None:
    transform = ToolsiftSearchTransform(always_visible=["hide_email", "show_email"])
    mcp = _server(transform)

    @mcp.tool
    async def hide_email(ctx: Context) -> str:
        """Hide the email tool from this session."""
        await ctx.disable_components(names={"send_email"})
        return "hidden"

    @mcp.tool
    async def show_email(ctx: Context) -> str:
        """Show the email tool to this session again."""
        await ctx.enable_components(names={"send_email"})
        return "shown"

    async def scenario() -> None:
        async with Client(mcp) as client:
            assert (await _found(client, "email someone"))[0] == "send_email"
            await _found(client, "list users")
            assert transform.listings == 1
            assert (await client.call_tool_mcp("hide_email", {})).content[0].text == "hidden"
            assert "send_email" not in await _found(client, "email someone")
            assert "send_email" not in await _found(client, "send an email message")
            refused = await client.call_tool_mcp("call_tool", {"name": "send_email"})
            assert refused.is_error
            assert (await client.call_tool_mcp("show_email", {})).content[0].text == "shown"
            assert (await _found(client, "email someone"))[0] == "send_email"

    asyncio.run(scenario())


def test_tools_with_auth_checks_are_checked_on_every_search() -> None:
    transform = ToolsiftSearchTransform()
    mcp = _server(transform)
    allowed = {"now": False}
    mcp.add_tool(
        _tool("launch_rocket", "Launch a rocket into orbit.", auth=lambda _ctx: allowed["now"])
    )

    async def scenario() -> None:
        async with Client(mcp) as client:
            assert "launch_rocket" not in await _found(client, "launch a rocket")
            allowed["now"] = True
            assert (await _found(client, "launch a rocket"))[0] == "launch_rocket"
            allowed["now"] = False
            assert "launch_rocket" not in await _found(client, "launch a rocket")

    asyncio.run(scenario())
    assert transform.listings == 3


class _HideEmail(Middleware):
    """A ``tools/list`` middleware that hides ``send_email`` while ``hiding`` is set."""

    def __init__(self) -> None:
        self.hiding = True

    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        tools = await call_next(context)
        return [t for t in tools if not (self.hiding and t.name == "send_email")]


def test_a_filtering_middleware_applies_to_every_search() -> None:
    transform = ToolsiftSearchTransform()
    mcp = _server(transform)
    middleware = _HideEmail()
    mcp.add_middleware(middleware)

    async def scenario() -> None:
        async with Client(mcp) as client:
            assert "send_email" not in await _found(client, "email someone")
            middleware.hiding = False
            assert (await _found(client, "email someone"))[0] == "send_email"
            middleware.hiding = True
            assert "send_email" not in await _found(client, "email someone")
            refused = await client.call_tool_mcp("call_tool", {"name": "send_email"})
            assert refused.is_error

    asyncio.run(scenario())
    assert transform.listings >= 3


class _HideRocket(Transform):
    """A transform of the user's own, hiding ``launch_rocket`` while ``hiding`` is set."""

    def __init__(self) -> None:
        self.hiding = True

    async def list_tools(self, tools: Any) -> Any:
        return [t for t in tools if not (self.hiding and t.name == "launch_rocket")]


def test_a_transform_of_the_users_own_applies_to_every_search() -> None:
    transform = ToolsiftSearchTransform()
    hide = _HideRocket()
    mcp = FastMCP("custom")
    mcp.add_tool(_tool("launch_rocket", "Launch a rocket into orbit."))
    mcp.add_tool(_tool("send_email", "Send an email message to a recipient."))
    mcp.add_transform(hide)
    mcp.add_transform(transform)

    async def scenario() -> None:
        async with Client(mcp) as client:
            assert "launch_rocket" not in await _found(client, "launch a rocket")
            hide.hiding = False
            assert (await _found(client, "launch a rocket"))[0] == "launch_rocket"

    asyncio.run(scenario())
    assert transform.listings == 2


def test_a_mounted_server_is_listed_on_every_search() -> None:
    transform = ToolsiftSearchTransform()
    mcp = _server(transform)
    child = FastMCP("child")
    mcp.mount(child, namespace="child")

    async def scenario() -> None:
        async with Client(mcp) as client:
            assert not any("rocket" in n for n in await _found(client, "launch a rocket"))
            child.add_tool(_tool("launch_rocket", "Launch a rocket into orbit."))
            assert (await _found(client, "launch a rocket"))[0] == "child_launch_rocket"
            child.local_provider.remove_tool("launch_rocket")
            assert not any("rocket" in n for n in await _found(client, "launch a rocket"))

    asyncio.run(scenario())
    assert transform.listings == 3
