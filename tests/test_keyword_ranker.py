"""``ranker="keyword"``: seed 001's name-part scorer, identical in both engines."""

from __future__ import annotations

import pytest
from toolsift import Tool, ToolIndex
from toolsift._text.name_parts import keyword_name_parts

TOOLS = [
    Tool(
        name="mcp__slack__send_message",
        description="Send a message to a Slack channel",
        server="slack",
        mcp_tool_name="send_message",
    ),
    Tool(name="FileEdit", description="Edit a file in place"),
    Tool(name="whatsapp.send", description="Send a WhatsApp message", search_hint="chat text"),
    Tool(name="NotebookEdit", description="Edit a Jupyter notebook cell"),
]


@pytest.fixture
def index(engine):
    return ToolIndex(TOOLS, engine=engine)


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("mcp__slack__send_message", ["slack", "send", "message"]),
        ("mcp___smithery-ai_slack__post", ["smithery-ai", "slack", "post"]),
        ("FileEdit", ["file", "edit"]),
        ("whatsapp.send", ["whatsapp", "send"]),
        ("get_HTTPStatus", ["get", "httpstatus"]),
    ],
)
def test_name_parts(name, parts):
    assert keyword_name_parts(name) == parts


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # exact MCP part 12 + description 2; exact part 10 + description 2
        ("send", [("mcp__slack__send_message", 14.0), ("whatsapp.send", 12.0)]),
        # a query naming the server matches the server part exactly (seed 001's example)
        ("slack", [("mcp__slack__send_message", 14.0)]),
        # part substring: 6 for MCP, 5 otherwise
        ("mess", [("mcp__slack__send_message", 6.0)]),
        ("edi", [("FileEdit", 5.0), ("NotebookEdit", 5.0)]),
        # search hint +4
        ("chat", [("whatsapp.send", 4.0)]),
        # description +2 only
        ("jupyter", [("NotebookEdit", 2.0)]),
        # exact part beats substring; ties sort by name
        ("edit", [("FileEdit", 12.0), ("NotebookEdit", 12.0)]),
        ("zzz", []),
    ],
)
def test_scores_follow_seed_001(index, query, expected):
    result = index.search(query, ranker="keyword")
    assert [(m.name, m.score) for m in result] == expected
    assert all(m.reason == "keyword" for m in result)


def test_required_terms_and_filters(index):
    got = index.search("+whatsapp send", ranker="keyword")
    assert [(m.name, m.score) for m in got] == [("whatsapp.send", 12.0)]
    got = index.search("send", ranker="keyword", exclude=["whatsapp.send"])
    assert got.names == ["mcp__slack__send_message"]
    got = index.search("send", ranker="keyword", servers=["slack"])
    assert got.names == ["mcp__slack__send_message"]


def test_default_limit_is_five_and_hard_cap_25(engine):
    tools = [Tool(name=f"edit_{i}", description="edit") for i in range(40)]
    index = ToolIndex(tools, engine=engine)
    assert len(index.search("edit", ranker="keyword")) == 5
    capped = index.search("edit", 100, ranker="keyword")
    assert len(capped) == 25 and capped.clamped


def test_unknown_ranker(index):
    with pytest.raises(ValueError, match="ranker"):
        index.search("send", ranker="vector")  # type: ignore[arg-type]
