"""The meta-tool: definitions per provider, a description stable for prompt caches, calls."""

from __future__ import annotations

import json
import random

import pytest
from toolsift import DiscoveryError, DiscoverySession, QueryError, Tool, meta_tool
from toolsift.catalog import default_server_summaries, default_tools
from toolsift.contract import dumps
from toolsift.errors import LimitError
from toolsift.metatool import call_meta_tool, meta_tool_description

DISABLED = (
    "Tool discovery is disabled. Enable tools.discoveryMode or mcp.discoveryMode to use "
    "search_tool_bm25."
)


@pytest.fixture
def session() -> DiscoverySession:
    return DiscoverySession.from_default_catalog(engine="python")


def test_definitions_for_every_provider(session, golden):
    tool = meta_tool(session)
    assert tool.name == "search_tool_bm25"
    assert tool.input_schema["properties"]["limit"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 25,
        "description": "Maximum number of tools to activate (default 8, at most 25).",
    }
    assert tool.input_schema["required"] == ["query"]
    definitions = {
        "mcp": tool.to_mcp(),
        "openai_chat": tool.to_openai_chat(),
        "openai_responses": tool.to_openai_responses(),
        "anthropic": tool.to_anthropic(),
    }
    assert definitions["openai_chat"]["function"]["parameters"] == tool.to_mcp()["inputSchema"]
    golden("meta_tool.definitions.json", dumps(definitions))


def test_description_lists_servers_with_counts_and_summaries(session):
    text = meta_tool(session).description
    assert "Discoverable tools: 221 on 23 servers." in text
    summaries = default_server_summaries()
    assert f"- github (28 tools): {summaries['github']}" in text
    server_lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert [line.split(" ")[1] for line in server_lines] == sorted(summaries)
    assert "before your next model call in this same turn" in text


def test_description_is_byte_identical_while_the_catalogue_is_unchanged(session):
    before = meta_tool(session).description
    session.search("open a pull request")
    session.search("send an email")
    session.activate(["mcp__slack__send_message"])
    assert meta_tool(session).description == before  # activation never changes it
    shuffled = default_tools()
    random.Random(3).shuffle(shuffled)
    summaries = dict(reversed(list(default_server_summaries().items())))
    other = DiscoverySession(shuffled, summaries=summaries)
    assert meta_tool(other).description == before  # no dependence on order
    session.disconnect_server("weather")
    assert meta_tool(session).description != before
    assert "weather" not in meta_tool(session).description


def test_description_without_summaries_and_with_builtins():
    tools = [Tool(name=n, server="s") for n in "abcdefghij"] + [Tool(name="web_fetch")]
    text = meta_tool_description(tools)
    assert "Discoverable tools: 11 on 1 server and 1 built-in." in text
    assert "- s (10 tools): a, b, c, d, e, f, g, h, ..." in text
    assert text.endswith("- built-in (1 tool): web_fetch")


def test_custom_name(session):
    assert meta_tool(session, name="tool_search").name == "tool_search"


def test_call_runs_a_search(session):
    call = call_meta_tool(session, {"query": "  weather forecast  ", "limit": 2.0})
    assert json.loads(call.content)["query"] == "weather forecast"
    assert call.details["limit"] == 2
    assert call.result.activated == tuple(call.details["activated_tools"])
    assert call_meta_tool(session, {"query": "weather"}).details["limit"] == 8


def test_call_errors_carry_the_seed_messages(session):
    with pytest.raises(DiscoveryError, match="^Tool discovery is unavailable in this session.$"):
        call_meta_tool(None, {"query": "x"})
    off = DiscoverySession(default_tools(), mode="off")
    with pytest.raises(DiscoveryError) as info:
        call_meta_tool(off, {"query": "x"})
    assert str(info.value) == DISABLED
    for arguments in ({}, {"query": "  "}, {"query": None}):
        with pytest.raises(QueryError, match="Query must not be empty."):
            call_meta_tool(session, arguments)
    with pytest.raises(QueryError, match="Query must be a string, got int."):
        call_meta_tool(session, {"query": 5})
    with pytest.raises(QueryError, match="Query must contain at least one letter or number."):
        call_meta_tool(session, {"query": "?!"})
    for limit in (0, -3, 1.5, "2", True):
        with pytest.raises(LimitError, match="Limit must be a positive integer"):
            call_meta_tool(session, {"query": "weather", "limit": limit})


def test_description_lists_at_most_max_servers():
    tools = [
        Tool(name=f"t{i}_{j}", server=f"server{i:02d}") for i in range(60) for j in range(i % 4 + 1)
    ]
    text = meta_tool_description(tools, {"server03": "x" * 300}, max_servers=10)
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(lines) == 11
    assert lines[-1] == "- and 50 more servers with 110 tools: search to find them."
    listed = [line.split(" ")[1] for line in lines[:-1]]
    assert listed == sorted(listed)
    assert all(line.split("(")[1].startswith("4 tools") for line in lines[:-1])
    assert "- server03 (4 tools): " + "x" * 157 + "..." in text
    assert meta_tool_description(list(reversed(tools)), max_servers=10) == meta_tool_description(
        tools, max_servers=10
    )


def test_meta_tool_passes_max_servers_to_its_description(session):
    full = meta_tool(session).description
    two = meta_tool(session, max_servers=2).description
    assert two != full
    assert len(two) < len(full)
    assert two == meta_tool_description(*session._description_state(), max_servers=2)
