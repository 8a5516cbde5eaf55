"""``+term``: required terms filter (any field, the full description too) and never score."""

from __future__ import annotations

import pytest
from toolsift import FieldWeights, Tool, ToolIndex

LONG = "x " * 150  # pushes the end of the description past the 200-character summary

TOOLS = [
    Tool(
        name="mcp__slack__post_message",
        description="Post a message to a channel",
        server="slack",
        mcp_tool_name="post_message",
    ),
    Tool(
        name="mcp__discord__send_message",
        description="Send a message to a Discord channel",
        server="discord",
        mcp_tool_name="send_message",
    ),
    Tool(name="send_email", description=f"Send an email. {LONG} Works with gmail accounts."),
    Tool(name="notify", description="Send a notification", search_hint="slack alert"),
    Tool(
        name="post_tweet",
        description="Post a message",
        input_schema={"type": "object", "properties": {"slack_channel": {"type": "string"}}},
    ),
]


@pytest.fixture
def index(engine):
    return ToolIndex(TOOLS, engine=engine)


@pytest.mark.parametrize(
    ("query", "names"),
    [
        # server field
        ("+slack message", ["mcp__slack__post_message", "post_tweet"]),
        # name part
        ("+discord send", ["mcp__discord__send_message"]),
        # the full description, beyond the 200-character summary (weight 0: presence only)
        ("+gmail send", ["send_email"]),
        # search hint
        ("+alert send", ["notify"]),
        # schema key
        ("+channel post", ["mcp__slack__post_message", "post_tweet"]),
        # a required term that no tool holds: nothing
        ("+teams message", []),
        # two required terms: both must be present
        ("+slack +alert send", ["notify"]),
    ],
)
def test_required_terms_filter(index, query, names):
    got = [m.name for m in index.search(query)]
    assert sorted(got) == sorted(names)


def test_required_terms_add_nothing_to_the_score(index):
    plain = {m.name: m.score for m in index.search("message")}
    filtered = {m.name: m.score for m in index.search("+slack message")}
    assert filtered == {name: plain[name] for name in ("mcp__slack__post_message", "post_tweet")}


def test_a_query_of_only_required_terms_ranks_by_them(index):
    only = index.search("+slack")
    assert {m.name for m in only} == {"mcp__slack__post_message", "notify", "post_tweet"}
    assert only[0].name == "mcp__slack__post_message"  # server, label and name fields


def test_required_terms_are_found_in_zero_weight_fields(engine):
    tools = [Tool(name="a", description="alpha beta"), Tool(name="b", description="alpha")]
    index = ToolIndex(tools, engine=engine, field_weights=FieldWeights(summary=0.0, name=1.0))
    assert [m.name for m in index.search("+beta a")] == ["a"]
