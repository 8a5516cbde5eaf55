"""The exact-name tier (seed 004) under ``ranker="keyword"`` (seed 001's scorer): named tools come
first, scored in keyword points, then the keyword matches, and only then the cut."""

from __future__ import annotations

import pytest
import toolsift
from toolsift import Tool, ToolIndex

from .conftest import require_shared


def mcp(server, name, description="", hint=None):
    return Tool(
        name=f"mcp__{server}__{name}",
        description=description,
        server=server,
        mcp_tool_name=name,
        search_hint=hint,
    )


CODEBASE = "codebase-memory-mcp"
FILLER = [
    mcp(f"srv{i}", f"graph_tool_{i}", "search the code graph, trace paths, query the graph")
    for i in range(20)
]
TOOLS = [
    mcp(CODEBASE, "search_graph", "Search the code graph for nodes", hint="search code graph"),
    mcp(CODEBASE, "trace_path", "Trace call paths between functions"),
    mcp(CODEBASE, "get_code_snippet", "Get a code snippet: search code graph snippet"),
    mcp(CODEBASE, "search_code", "Search code text in the graph snippet"),
    mcp("time", "get_current_time", "Current time in a timezone"),
    mcp("filesystem", "read_file", "Read a file"),
    mcp("desktop", "read_file", "Read a file on the desktop"),
    mcp("other", "read_file", "Read"),
    mcp("spare", "read_file", "Read a spare file"),
    Tool(name="FileEdit", description="Edit a file"),
    *FILLER,
]

QUERIES = [
    "trace_path search code graph snippet",
    "search_graph trace_path get_code_snippet query_graph search_code codebase-memory-mcp",
    "trace graph paths then get_current_time and search_graph",
    "filesystem read_file and FileEdit",
    "read_file",
    "searchgraph",
    "+graph trace_path search",
    "search code graph snippet",  # no name: the keyword ranker alone
]

ENGINES = [
    pytest.param(
        "rust",
        marks=pytest.mark.skipif(
            "rust" not in toolsift.available_engines(), reason="compiled extension not available"
        ),
    ),
    "python",
]


@pytest.fixture(params=ENGINES)
def index(request):
    return ToolIndex(TOOLS, engine=request.param)


def listed(result):
    return [(m.name, m.score, m.reason) for m in result]


def test_reproducer_named_tool_within_limit_one(index):
    query = "trace_path search code graph snippet"
    assert index.search(query, 1, ranker="bm25")[0].name == f"mcp__{CODEBASE}__trace_path"
    result = index.search(query, 1, ranker="keyword", exact_names=True)
    assert [(m.name, m.reason) for m in result] == [(f"mcp__{CODEBASE}__trace_path", "exact_name")]
    # The default is exact_names=True.
    assert listed(index.search(query, 1, ranker="keyword")) == listed(result)


def test_named_tools_first_then_keyword_matches_without_them(index):
    query = "trace_path search code graph snippet"
    result = index.search(query, 5, ranker="keyword")
    assert result[0].name == f"mcp__{CODEBASE}__trace_path"
    assert [m.reason for m in result] == ["exact_name"] + ["keyword"] * 4
    names = [m.name for m in result]
    assert len(set(names)) == len(names)
    # The ranked rest is the keyword list without the named tool, in its order.
    plain = index.search(query, 25, ranker="keyword", exact_names=False)
    rest = [(m.name, m.score) for m in plain if m.name != f"mcp__{CODEBASE}__trace_path"]
    assert [(m.name, m.score) for m in result[1:]] == rest[:4]


def test_exact_name_score_is_the_tools_keyword_points(index):
    for query in QUERIES:
        plain = {
            m.name: m.score for m in index.search(query, 25, ranker="keyword", exact_names=False)
        }
        for m in index.search(query, 25, ranker="keyword"):
            # Keyword points (small integers), not a BM25+ score; 0.0 when none of them match.
            assert m.score == plain.get(m.name, 0.0), (query, m.name)
            assert m.score == int(m.score)


def test_named_tool_without_points_scores_zero(index):
    # "searchgraph" names search_graph, but matches none of its name parts, hint or description.
    result = index.search("searchgraph", ranker="keyword")
    assert listed(result) == [(f"mcp__{CODEBASE}__search_graph", 0.0, "exact_name")]


def test_names_in_query_order_before_the_cut(index):
    query = "trace graph paths then get_current_time and search_graph"
    result = index.search(query, 3, ranker="keyword")
    assert [m.name for m in result][:2] == [
        "mcp__time__get_current_time",
        f"mcp__{CODEBASE}__search_graph",
    ]
    assert [m.reason for m in result] == ["exact_name", "exact_name", "keyword"]
    one = index.search(query, 1, ranker="keyword")
    assert [(m.name, m.reason) for m in one] == [("mcp__time__get_current_time", "exact_name")]


def test_same_tier_as_bm25(index):
    for query in QUERIES:
        for limit in (1, 3, 8):
            bm25 = [m.name for m in index.search(query, limit) if m.reason == "exact_name"]
            keyword = index.search(query, limit, ranker="keyword")
            named = [m.name for m in keyword if m.reason == "exact_name"]
            assert named == bm25, (query, limit)
            assert [m.reason for m in keyword][: len(named)] == ["exact_name"] * len(named)


def test_a_name_brings_at_most_three_tools(index):
    result = index.search("read_file", 8, ranker="keyword")
    named = [m for m in result if m.reason == "exact_name"]
    assert len(named) == 3
    assert all(m.name.endswith("__read_file") for m in named)
    # The fourth read_file may still rank as a keyword match.
    assert {m.name for m in result} >= {m.name for m in named}


def test_exclude_and_servers_are_respected(index):
    query = "trace_path search_graph code graph snippet"
    result = index.search(query, 5, ranker="keyword", exclude=[f"mcp__{CODEBASE}__trace_path"])
    assert f"mcp__{CODEBASE}__trace_path" not in [m.name for m in result]
    assert [(m.name, m.reason) for m in result][0] == (
        f"mcp__{CODEBASE}__search_graph",
        "exact_name",
    )
    assert [m.reason for m in result].count("exact_name") == 1

    result = index.search("read_file get_current_time", 5, ranker="keyword", servers=["desktop"])
    assert [(m.name, m.reason) for m in result] == [("mcp__desktop__read_file", "exact_name")]

    result = index.search("get_current_time read_file", 5, ranker="keyword", servers="filesystem")
    assert [(m.name, m.reason) for m in result] == [("mcp__filesystem__read_file", "exact_name")]


def test_exact_names_false_restores_the_keyword_list(index):
    query = "trace_path search code graph snippet"
    result = index.search(query, 1, ranker="keyword", exact_names=False)
    assert [(m.name, m.reason) for m in result] == [(f"mcp__{CODEBASE}__search_graph", "keyword")]
    engine = index._lookups.keyword_index()
    for query in QUERIES:
        if query.startswith("+"):
            continue  # +required: checked by test_keyword_ranker
        expected = [(index.tools[d].name, s) for d, s in engine.search(query, 5)]
        got = index.search(query, 5, ranker="keyword", exact_names=False)
        assert [(m.name, m.score) for m in got] == expected
        assert all(m.reason == "keyword" for m in got)


def test_gates_never_drop_named_tools(index):
    result = index.search("searchgraph trace", 5, ranker="keyword", threshold=100.0)
    assert listed(result) == [(f"mcp__{CODEBASE}__search_graph", 0.0, "exact_name")]
    result = index.search("searchgraph trace", 5, ranker="keyword", relative_floor=0.9)
    assert result[0].reason == "exact_name"
    assert all(
        m.reason == "exact_name" or m.score >= 0.9 * max(x.score for x in result) for m in result
    )


@pytest.mark.skipif("rust" not in toolsift.available_engines(), reason="no compiled extension")
@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("limit", [1, 2, 5, 25])
def test_engines_agree(query, limit):
    rust = ToolIndex(TOOLS, engine="rust")
    python = ToolIndex(TOOLS, engine="python")
    for options in (
        {},
        {"exact_names": False},
        {"exclude": [f"mcp__{CODEBASE}__trace_path"]},
        {"servers": [CODEBASE, "time", "filesystem"]},
        {"threshold": 10.0, "normalize": True},
    ):
        a = rust.search(query, limit, ranker="keyword", **options)
        b = python.search(query, limit, ranker="keyword", **options)
        assert listed(a) == listed(b), options
        assert [m.normalized_score for m in a] == [m.normalized_score for m in b]


def test_search_many_equals_search(index):
    for options in (
        {},
        {"exact_names": False},
        {"exclude": [f"mcp__{CODEBASE}__search_graph"]},
        {"servers": [CODEBASE, "desktop"]},
        {"threshold": 12.0},
    ):
        for limit in (1, 3, None):
            many = index.search_many(QUERIES, limit, ranker="keyword", **options)
            one = [index.search(q, limit, ranker="keyword", **options) for q in QUERIES]
            assert [listed(r) for r in many] == [listed(r) for r in one], (options, limit)


def test_real_catalogue_reproducer():
    data = require_shared()
    cm = toolsift.load_catalog(str(data / "codebase_memory_mcp.tools.jsonl"))
    names = {t.name for t in cm}
    mixed = toolsift.load_catalog(str(data / "mcp_mixed.tools.jsonl"))
    tools = cm + [t for t in mixed if t.name not in names]
    query = "trace_path search code graph snippet"
    results = {}
    for engine in toolsift.available_engines():
        idx = ToolIndex(tools, engine=engine)
        result = idx.search(query, 1, ranker="keyword", exact_names=True)
        assert [(m.name, m.reason) for m in result] == [
            (f"mcp__{CODEBASE}__trace_path", "exact_name")
        ]
        results[engine] = [listed(idx.search(query, 8, ranker="keyword"))]
        results[engine].append(
            [listed(r) for r in idx.search_many([query, "search_graph"], 8, ranker="keyword")]
        )
    assert len({repr(v) for v in results.values()}) == 1
