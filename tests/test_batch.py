"""``search_many``: the same answers as a loop of single searches, in both engines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import LimitError, QueryError, Tool, ToolIndex

from ._corpora import ENGINE_CLASSES, WEIGHTS, corpus, prefix_query, query, search_options
from .conftest import costly


@pytest.mark.parametrize("engine_index", ENGINE_CLASSES)
@settings(max_examples=costly())
@given(data=corpus(), queries=st.lists(query, max_size=12), limit=st.integers(1, 10))
def test_search_many_equals_single_searches(engine_index, data, queries, limit):
    names, docs = data
    idx = engine_index(names, docs, WEIGHTS)
    exclude = [0, 2]
    assert idx.search_many(queries, limit) == [idx.search(q, limit) for q in queries]
    assert idx.search_many(queries, limit, exclude) == [
        idx.search(q, limit, exclude) for q in queries
    ]


@pytest.mark.parametrize("engine_index", ENGINE_CLASSES)
@settings(max_examples=costly())
@given(
    data=corpus(),
    queries=st.lists(prefix_query, max_size=12),
    limit=st.integers(1, 10),
    exclude=st.none() | st.lists(st.integers(0, 30), max_size=5),
    options=search_options(),
)
def test_search_many_applies_every_option_as_single_searches_do(
    engine_index, data, queries, limit, exclude, options
):
    """required (presence postings too), include, prefix expansion, coverage and the gates."""
    names, docs = data
    idx = engine_index(names, docs, WEIGHTS)
    assert idx.search_many(queries, limit, exclude, **options) == [
        idx.search(q, limit, exclude, **options) for q in queries
    ]


@pytest.mark.skipif(ENGINE_CLASSES[0].values[0] is None, reason="toolsift._core is not built")
@settings(max_examples=costly())
@given(
    data=corpus(),
    queries=st.lists(prefix_query, max_size=8),
    limit=st.integers(1, 10),
    options=search_options(),
)
def test_search_many_is_the_same_in_both_engines(data, queries, limit, options):
    """Same ids, same order, bit-identical scores (both engines do the same f64 operations)."""
    from toolsift._core import Index as RustIndex
    from toolsift._pyengine.index import Index as PyIndex

    names, docs = data
    rust = RustIndex(names, docs, WEIGHTS).search_many(queries, limit, **options)
    assert rust == PyIndex(names, docs, WEIGHTS).search_many(queries, limit, **options)


def test_search_many_options_change_the_results(engine_index):
    """Each option reaches the batch (a batch that ignored one would fail here)."""
    docs = [
        [(0, "read file"), (3, "slack")],
        [(0, "read message"), (1, "file")],
        [(0, "reader"), (2, "the data of user")],
    ]
    idx = engine_index(["a", "b", "c"], docs, WEIGHTS)
    queries = ["read", "read file", "reade", "read message data user"] * 3
    cases = [
        ({}, [[0, 1], [0, 1], [], [2, 1, 0]]),
        ({"required": ["slack"]}, [[0], [0], [], [0]]),  # a weight-0 field: presence postings
        ({"include": [1, 2]}, [[1], [1], [], [2, 1]]),
        ({"prefix_fraction": 0.5}, [[0, 1], [0, 1], [2], [2, 1, 0]]),
        ({"coverage": True}, [[0, 1], [0, 1], [], [2, 1]]),
        ({"relative_floor": 1.0}, [[0], [0], [], [2]]),
    ]
    for options, want in cases:
        got = idx.search_many(queries, 5, **options)
        assert got == [idx.search(q, 5, **options) for q in queries], options
        assert [[d for d, _ in hits] for hits in got[:4]] == want, options
    with pytest.raises(ValueError):
        idx.search_many(["read"], 5, relative_floor=2.0)
    with pytest.raises(ValueError):
        idx.search_many(["read"], 5, threshold=-1.0)


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


TOOLS = [
    Tool(name="create_issue", description="Open a new issue in a repository"),
    Tool(name="send_message", description="Send a chat message to a channel"),
    Tool(name="read_file", description="Read a file from disk"),
    Tool(
        name="mcp__github__create_issue",
        description="Create a GitHub issue in a repository",
        server="github",
        mcp_tool_name="create_issue",
    ),
    Tool(
        name="mcp__github__list_issues",
        description="List the issues of a repository",
        server="github",
        mcp_tool_name="list_issues",
    ),
    Tool(
        name="mcp__slack__send_message",
        description="Post a message to a Slack channel",
        server="slack",
        mcp_tool_name="send_message",
    ),
]

#: Plain queries, +required words (some only in descriptions, which are not scored), prefixes,
#: exact tool names (the exact-name tier), select:, and queries with nothing to find.
TOOL_QUERIES = [
    "open an issue",
    "  send a message ",
    "read file",
    "+repository issue",
    "+slack message",
    "+disk file",
    "iss mess",
    "create_issue in github",
    "send_message to a channel",
    "readfile",
    "select:read_file,nope",
    "list the issues of a repository please now",
    "+nowhere issue",
    "zzz",
]

TOOL_OPTIONS = [
    {},
    {"exclude": ["read_file"]},
    {"servers": ["github"]},
    {"servers": "slack", "exclude": ["mcp__slack__send_message"]},
    {"prefix_fraction": 0.0},
    {"prefix_fraction": 1.0, "prefix_min_len": 2, "max_expansions": 1},
    {"coverage": True},
    {"threshold": 3.0},
    {"relative_floor": 0.5, "normalize": True},
    {"exact_names": False},
    {"ranker": "keyword"},
    {"ranker": "keyword", "threshold": 10.0, "servers": ["github"]},
    {"max_limit": 2},
]


@pytest.mark.parametrize("options", TOOL_OPTIONS, ids=repr)
def test_tool_index_search_many_equals_search(engine, options):
    index = ToolIndex(TOOLS, engine=engine)
    queries = TOOL_QUERIES * 3
    for limit in (None, 1, 3):
        many = index.search_many(queries, limit, **options)
        assert many == [index.search(q, limit, **options) for q in queries]


def test_tool_index_search_many_errors_match_a_loop(engine):
    index = ToolIndex(TOOLS, engine=engine)
    queries = ["open an issue", "  send a message ", "read file"] * 20
    many = index.search_many(queries, 2, exclude=["read_file"])
    assert many == [index.search(q, 2, exclude=["read_file"]) for q in queries]
    assert index.search_many(iter(queries), 2, exclude=iter(["read_file"])) == many
    with pytest.raises(QueryError):
        index.search_many(["ok", "   "])
    with pytest.raises(QueryError):
        index.search_many(["ok", "select:"])
    with pytest.raises(LimitError):
        index.search_many(["ok"], limit=0)
    with pytest.raises(ValueError, match="relative floor"):
        index.search_many(["ok", "   "], relative_floor=2.0)
    with pytest.raises(ValueError, match="ranker"):
        index.search_many(["ok"], ranker="nope")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        index.search_many("ok")
    assert index.search_many([], limit=0) == []


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


def test_tool_index_search_many_takes_exactly_searchs_options(engine):
    """search_many's keyword options are search's (one signature): each is accepted, the
    defaults are search's, and a name search does not take is a TypeError naming it."""
    import inspect

    from toolsift._index.calls import SearchOptions

    params = inspect.signature(ToolIndex.search).parameters
    keywords = {n for n, p in params.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert set(SearchOptions.__annotations__) == keywords
    index = ToolIndex(TOOLS, engine=engine)
    defaults = {n: params[n].default for n in keywords}
    assert index.search_many(TOOL_QUERIES, 3, **defaults) == index.search_many(TOOL_QUERIES, 3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'limits'"):
        index.search_many(TOOL_QUERIES, limits=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="abstain must be a bool"):
        index.search_many(TOOL_QUERIES, abstain=1)  # type: ignore[arg-type]
