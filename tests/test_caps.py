"""Caps and filters: default limit 8, hard cap 25, query length cap, exclusion, server filter."""

from __future__ import annotations

import pytest
from toolsift import LimitError, Tool, ToolIndex


def mcp(server, name):
    return Tool(
        name=f"mcp__{server}__{name}",
        description="shared words",
        server=server,
        mcp_tool_name=name,
    )


TOOLS = [mcp(f"s{i % 3}", f"tool_{i}") for i in range(40)]


@pytest.fixture
def index(engine):
    return ToolIndex(TOOLS, engine=engine)


def test_default_limit_and_hard_cap(index):
    result = index.search("shared words")
    assert len(result) == result.limit == 8 and not result.clamped and result.notices == ()
    result = index.search("shared words", 100)
    assert len(result) == result.limit == 25 and result.clamped
    assert result.notices == ("limit 100 clamped to 25",)
    result = index.search("shared words", 30, max_limit=30)
    assert len(result) == 30 and not result.clamped
    with pytest.raises(LimitError):
        index.search("shared words", max_limit=0)


def test_query_length_cap(index):
    long = "shared " + "x" * 600
    result = index.search(long)
    assert result.truncated and len(result.query) == 500
    assert result.notices == ("query cut to 500 characters",)
    assert len(result) == 8
    result = index.search("words " * 10, max_query_length=5)
    assert result.truncated and result.query == "words"
    assert not index.search("shared").truncated


def test_exclusion_fills_the_limit(index):
    first = index.search("shared words", 5)
    again = index.search("shared words", 5, exclude=first.names)
    assert len(again) == 5 and not set(again.names) & set(first.names)


def test_server_filter(index):
    result = index.search("shared words", 25, servers=["s1"])
    assert len(result) == 13 and {m.tool.server for m in result} == {"s1"}
    assert len(index.search("shared words", 25, servers=["s1", "s2"])) == 25
    assert index.search("shared words", servers="s0")[0].tool.server == "s0"
    assert index.search("shared words", servers=["nope"]) == []


def test_result_fields(index):
    result = index.search("  shared words  ")
    assert result.query == "shared words"
    assert result.query_kind == "keyword"
    assert result.total_tools == 40
    assert result.missing == () and dict(result.suggestions) == {}
