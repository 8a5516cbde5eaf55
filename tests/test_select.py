"""``select:A,B`` fetches tools by any of their names, in the order asked, with ``missing``."""

from __future__ import annotations

import pytest
from toolsift import QueryError, SearchResult, Tool, ToolIndex


def mcp(server, name, description=""):
    return Tool(
        name=f"mcp__{server}__{name}", description=description, server=server, mcp_tool_name=name
    )


TOOLS = [
    mcp("filesystem", "read_file", "Read the complete contents of a file from disk"),
    mcp("filesystem", "write_file", "Create a new file or overwrite a file"),
    mcp("desktop", "read_file", "Read a file on the desktop"),
    mcp("github", "create_issue", "Create a new issue in a GitHub repository"),
    mcp("time", "get_current_time", "Get the current time in a timezone"),
    Tool(name="FileEdit", description="Edit a file in place"),
    Tool(name="whatsapp.send", description="Send a WhatsApp message"),
]


@pytest.fixture
def index(engine):
    return ToolIndex(TOOLS, engine=engine)


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("select:mcp__github__create_issue", ["mcp__github__create_issue"]),
        ("select:create_issue", ["mcp__github__create_issue"]),
        ("select:github/create_issue", ["mcp__github__create_issue"]),
        ("select:github.create_issue", ["mcp__github__create_issue"]),
        ("select:getCurrentTime", ["mcp__time__get_current_time"]),
        ("select:get-current-time", ["mcp__time__get_current_time"]),
        ("select:FileEdit", ["FileEdit"]),
        ("select:fileedit", ["FileEdit"]),
        ("select:whatsapp.send", ["whatsapp.send"]),
        # The order asked, not the index order; duplicates once.
        (
            "select: FileEdit, create_issue, FileEdit",
            ["FileEdit", "mcp__github__create_issue"],
        ),
        # A raw name on several servers returns each of them; a qualified one only its own.
        ("select:read_file", ["mcp__filesystem__read_file", "mcp__desktop__read_file"]),
        ("select:desktop/read_file", ["mcp__desktop__read_file"]),
    ],
)
def test_select_finds_tools_by_any_name(index, query, names):
    result = index.search(query)
    assert isinstance(result, SearchResult)
    assert result.query_kind == "select"
    assert [m.name for m in result] == names
    assert all(m.reason == "select" and m.score == 0.0 for m in result)
    assert result.missing == ()


def test_missing_names_get_suggestions(index):
    result = index.search("select:create_issue,reed_file,zzzzzzzz")
    assert [m.name for m in result] == ["mcp__github__create_issue"]
    assert result.missing == ("reed_file", "zzzzzzzz")
    assert result.suggestions["reed_file"][0] == "read_file"
    assert len(result.suggestions["reed_file"]) <= 3
    assert result.suggestions["zzzzzzzz"] == ()


def test_suggestions_are_deterministic(engine):
    a = ToolIndex(TOOLS, engine=engine).search("select:write_fil,getCurentTime")
    b = ToolIndex(list(reversed(TOOLS)), engine=engine).search("select:write_fil,getCurentTime")
    assert a.suggestions == b.suggestions
    assert a.suggestions["write_fil"][0] == "write_file"
    assert a.suggestions["getCurentTime"][0] == "get_current_time"


def test_select_ignores_limit_but_not_the_hard_cap(engine):
    tools = [Tool(name=f"tool_{i}") for i in range(30)]
    index = ToolIndex(tools, engine=engine)
    names = ",".join(t.name for t in tools)
    assert len(index.search(f"select:{names[:60]}", limit=1)) > 1
    result = index.search(f"select:{names}")
    assert len(result) == 25
    assert any("select: 30 tools found" in n for n in result.notices)


def test_select_respects_the_server_filter(index):
    result = index.search("select:read_file,create_issue", servers=["filesystem"])
    assert [m.name for m in result] == ["mcp__filesystem__read_file"]
    assert result.missing == ("create_issue",)


def test_select_without_names_is_a_query_error(index):
    with pytest.raises(QueryError):
        index.search("select:")


def test_result_is_an_immutable_sequence(index):
    result = index.search("select:FileEdit,create_issue")
    assert len(result) == 2 and result[0].tool.name == "FileEdit"
    assert [m.name for m in result[:1]] == ["FileEdit"]
    assert result.names == ["FileEdit", "mcp__github__create_issue"]
    assert result.total_tools == len(TOOLS)
    with pytest.raises(AttributeError):
        result.limit = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        result.suggestions["x"] = ()  # type: ignore[index]
