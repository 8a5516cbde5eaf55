"""Behaviours the seeds state that a review found missing: seed 001's ``select:`` lists every
requested tool the session has, and seed 000 trims the query as JavaScript does and checks it
before the limit."""

from __future__ import annotations

import pytest
from toolsift import DiscoverySession, LimitError, QueryError, Tool, ToolIndex
from toolsift.contract import tool_search_response
from toolsift.metatool import call_meta_tool

TOOLS = [
    Tool(name="Read", description="Read a file"),
    Tool(name="FileEdit", description="Edit a file"),
    Tool(name="Grep", description="Search file contents"),
]


@pytest.mark.parametrize("rebuild", [True, False])
def test_select_lists_already_active_tools_too(rebuild) -> None:
    """Seed 001: ``select:A,B`` fetches those tools' schemas; an always-available tool or one an
    earlier call activated is listed after the fresh ones, never dropped."""
    s = DiscoverySession(
        TOOLS, mode="all", always_available=["Read"], rebuild_on_activation=rebuild
    )
    first = tool_search_response(s.search("select:Read,Grep"))
    assert [m["name"] for m in first["matches"]] == ["Grep", "Read"]
    assert first["missing"] == []
    second = tool_search_response(s.search("select:Grep,FileEdit,Nope"))
    assert [m["name"] for m in second["matches"]] == ["FileEdit", "Grep"]
    assert second["missing"] == ["Nope"]
    assert all("score" not in m and "parameters" in m for m in second["matches"])
    result = s.search("select:Grep")
    assert result.matches == () and result.already_active == ("Grep",)
    assert [m.name for m in result.already_active_matches] == ["Grep"]


def test_a_keyword_response_lists_fresh_matches_only() -> None:
    s = DiscoverySession(TOOLS, mode="all", always_available=["Read"])
    result = s.search("read a file")
    response = tool_search_response(result)
    assert result.already_active == ("Read",)
    assert [m["name"] for m in response["matches"]] == [m.name for m in result.matches]
    assert "Read" not in [m["name"] for m in response["matches"]]


@pytest.mark.parametrize("engine", ["python", "auto"])
def test_a_byte_order_mark_is_trimmed_as_javascript_trims(engine) -> None:
    index = ToolIndex(TOOLS, engine=engine)
    assert index.search("\ufeffgrep \ufeff").query == "grep"
    assert [m.name for m in index.search("\ufeffgrep")] == ["Grep"]
    with pytest.raises(QueryError, match="must not be empty"):
        index.search("\ufeff \u3000")


def test_the_session_checks_the_query_before_the_limit() -> None:
    s = DiscoverySession(TOOLS)
    with pytest.raises(QueryError, match="must not be empty"):
        s.search("   ", 0)
    with pytest.raises(QueryError, match="at least one letter or number"):
        s.search("+", 0)
    with pytest.raises(LimitError):
        s.search("grep", 0)
    with pytest.raises(QueryError, match="must not be empty"):
        call_meta_tool(s, {"query": "\ufeff", "limit": 0})
