"""``search_many``: the same answers as a loop of single searches, in both engines."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolsift import LimitError, QueryError, Tool, ToolIndex

from ._corpora import ENGINE_CLASSES, WEIGHTS, corpus, query


@pytest.mark.parametrize("engine_index", ENGINE_CLASSES)
@given(data=corpus(), queries=st.lists(query, max_size=12), limit=st.integers(1, 10))
def test_search_many_equals_single_searches(engine_index, data, queries, limit):
    names, docs = data
    idx = engine_index(names, docs, WEIGHTS)
    exclude = [0, 2]
    assert idx.search_many(queries, limit) == [idx.search(q, limit) for q in queries]
    assert idx.search_many(queries, limit, exclude) == [
        idx.search(q, limit, exclude) for q in queries
    ]


def test_search_many_accepts_any_iterable_and_keeps_order(engine_index):
    idx = engine_index(["a", "b"], [[(0, "read file")], [(0, "write file")]], WEIGHTS)
    queries = ["read", "write", "file"] * 50
    many = idx.search_many(iter(queries), 5)
    assert many == [idx.search(q, 5) for q in queries]
    assert idx.search_many([], 5) == []


def test_search_many_errors_match_a_loop(engine_index):
    idx = engine_index(["a"], [[(0, "read file")]], WEIGHTS)
    with pytest.raises(QueryError):
        idx.search_many(["read"] * 10 + ["!!!"] + ["read"] * 10, 5)
    with pytest.raises(LimitError):
        idx.search_many(["read", "!!!"], 0)
    with pytest.raises(TypeError):
        idx.search_many("read file", 5)
    with pytest.raises(TypeError):
        idx.search_many(["read", 3], 5)


def test_tool_index_search_many(engine):
    tools = [
        Tool(name="create_issue", description="Open a new issue in a repository"),
        Tool(name="send_message", description="Send a chat message to a channel"),
        Tool(name="read_file", description="Read a file from disk"),
    ]
    index = ToolIndex(tools, engine=engine)
    queries = ["open an issue", "  send a message ", "read file"] * 20
    many = index.search_many(queries, 2, exclude=["read_file"])
    assert many == [index.search(q, 2, exclude=["read_file"]) for q in queries]
    with pytest.raises(QueryError):
        index.search_many(["ok", "   "])
    with pytest.raises(LimitError):
        index.search_many(["ok"], limit=0)


def test_tool_index_search_many_matches_search_with_every_option(engine):
    tools = [
        Tool(
            name=f"mcp__{server}__{raw}",
            description=f"{raw.replace('_', ' ')} on {server}",
            server=server,
            mcp_tool_name=raw,
        )
        for server in ("github", "slack")
        for raw in ("create_issue", "send_message", "read_file", "list_users")
    ]
    index = ToolIndex(tools, engine=engine)
    queries = [
        "create an issue",
        "select:mcp__github__read_file,nope",
        "+send message",
        "x" * 40 + " read file",
        "list users",
    ]
    options = [
        {},
        {"limit": 2},
        {"limit": 99, "max_limit": 3},
        {"servers": ["slack"]},
        {"exclude": ["mcp__github__create_issue"], "max_query_length": 30},
    ]
    for kw in options:
        assert index.search_many(queries, **kw) == [index.search(q, **kw) for q in queries]
    with pytest.raises(QueryError):
        index.search_many(["ok", "select:"])
    with pytest.raises(TypeError):
        index.search_many("a single string")
