"""The exact-name tier (seed 004): a tool the query names exactly comes before BM25-only matches."""

from __future__ import annotations

import pytest
from toolsift import Tool, ToolIndex, load_catalog


def mcp(server, name, description=""):
    return Tool(
        name=f"mcp__{server}__{name}", description=description, server=server, mcp_tool_name=name
    )


FILLER = [
    mcp(f"srv{i}", f"graph_tool_{i}", "search the code graph, trace paths, query the graph")
    for i in range(30)
]
TOOLS = [
    mcp("codebase", "search_graph", "Find nodes"),
    mcp("time", "get_current_time", "Current time in a timezone"),
    mcp("filesystem", "read_file", "Read a file"),
    mcp("filesystem", "write_file", "Write a file"),
    mcp("desktop", "read_file", "Read a file on the desktop"),
    mcp("desktop", "write_file", "Write a file on the desktop"),
    mcp("other", "read_file", "Read"),
    Tool(name="FileEdit", description="Edit a file"),
    *FILLER,
]


@pytest.fixture
def index(engine):
    return ToolIndex(TOOLS, engine=engine)


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("search_graph", "mcp__codebase__search_graph"),
        ("please use search_graph to find it", "mcp__codebase__search_graph"),
        ("`search_graph` graph graph graph", "mcp__codebase__search_graph"),
        ('"search_graph" trace', "mcp__codebase__search_graph"),
        ("searchGraph", "mcp__codebase__search_graph"),
        ("SEARCH-GRAPH query the graph", "mcp__codebase__search_graph"),
        ("codebase/search_graph", "mcp__codebase__search_graph"),
        ("codebase.search_graph", "mcp__codebase__search_graph"),
        ("mcp__codebase__search_graph", "mcp__codebase__search_graph"),
        ("getCurrentTime", "mcp__time__get_current_time"),
        ("get current time", "mcp__time__get_current_time"),
        ("searchgraph", "mcp__codebase__search_graph"),
        ("FileEdit", "FileEdit"),
        ("fileedit", "FileEdit"),
    ],
)
def test_named_tools_come_first(index, query, first):
    result = index.search(query)
    assert result[0].name == first
    assert result[0].reason == "exact_name"
    assert all(m.reason == "bm25" for m in result[1:] if m.name != first)


def test_ordinary_words_are_not_names(index):
    # "graph" is a word of many tools, not the name of one: no exact-name tier.
    assert all(m.reason == "bm25" for m in index.search("graph tool search"))


def test_names_come_in_query_order_before_the_cut(index):
    result = index.search("trace graph paths then get_current_time and search_graph", limit=3)
    assert [m.name for m in result][:2] == [
        "mcp__time__get_current_time",
        "mcp__codebase__search_graph",
    ]
    assert [m.reason for m in result] == ["exact_name", "exact_name", "bm25"]


def test_shared_names_take_turns_and_follow_the_rest_of_the_query(index):
    result = index.search("filesystem read_file write_file")
    names = [m.name for m in result]
    assert names[:2] == ["mcp__filesystem__read_file", "mcp__filesystem__write_file"]
    # Every name got its best tool before any got a second one: read_file's second tool (desktop's
    # or other's, whichever BM25+ puts first), then write_file's second (only desktop has one).
    assert names[2] in ("mcp__desktop__read_file", "mcp__other__read_file")
    assert names[3] == "mcp__desktop__write_file"
    assert {m.reason for m in result[:4]} == {"exact_name"}
    desktop = [m.name for m in index.search("desktop read_file")]
    assert desktop[0] == "mcp__desktop__read_file"


def test_exclude_and_servers_apply_to_named_tools(index):
    result = index.search("read_file", exclude=["mcp__filesystem__read_file"])
    assert "mcp__filesystem__read_file" not in result.names
    assert result[0].reason == "exact_name"
    on_desktop = index.search("read_file", servers=["desktop"])
    assert on_desktop.names[0] == "mcp__desktop__read_file"
    assert {m.tool.server for m in on_desktop} == {"desktop"}


def test_exact_names_can_be_turned_off(index):
    assert all(m.reason == "bm25" for m in index.search("search_graph", exact_names=False))


def test_seed_004_regression(engine, shared_data):
    """Seed 004's query over codebase-memory-mcp among all 11,578 mcp_mixed tools."""
    tools = load_catalog(shared_data / "mcp_mixed.tools.jsonl")
    ours = load_catalog(shared_data / "codebase_memory_mcp.tools.jsonl")
    names = {t.name for t in tools}
    assert all(t.name in names for t in ours)  # mcp_mixed already holds them: no duplicates
    index = ToolIndex(tools, engine=engine)
    query = (
        "search_graph trace_path get_code_snippet query_graph search_code index_repository "
        "codebase-memory-mcp"
    )
    result = index.search(query)
    assert result.limit == 8 and len(result) == 8
    wanted = [
        f"mcp__codebase-memory-mcp__{n}"
        for n in (
            "search_graph",
            "trace_path",
            "get_code_snippet",
            "query_graph",
            "search_code",
            "index_repository",
        )
    ]
    # All six named tools, in query order, first.
    assert result.names[:6] == wanted
    assert all(m.reason == "exact_name" for m in result[:6])
    # One query word alone still finds its tool.
    assert index.search("search_graph")[0].name == wanted[0]


def test_lazy_tables_are_built_once_under_threads(engine):
    from concurrent.futures import ThreadPoolExecutor

    index = ToolIndex(TOOLS, engine=engine)
    queries = ["search_graph", "select:read_file", "edit file", "getCurrentTime"] * 20

    def run(i):
        return index.search(queries[i], ranker="keyword" if i % 3 == 0 else "bm25").names

    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(run, range(len(queries))))
    fresh = ToolIndex(TOOLS, engine=engine)
    want = [
        fresh.search(q, ranker="keyword" if i % 3 == 0 else "bm25").names
        for i, q in enumerate(queries)
    ]
    assert got == want


def test_squashed_names_inside_a_longer_query(engine):
    tools = [*TOOLS, Tool(name="weather", description="Weather for a city"), Tool(name="_health")]
    index = ToolIndex(tools, engine=engine)
    result = index.search("please run searchgraph and then getcurrenttime for me now")
    assert result.names[:2] == ["mcp__codebase__search_graph", "mcp__time__get_current_time"]
    assert {m.reason for m in result[:2]} == {"exact_name"}
    # A plain word names only tools whose own name has separators or case humps.
    long_query = "what is the weather in paris today and how is my health please"
    assert all(m.reason == "bm25" for m in index.search(long_query))


@pytest.mark.parametrize(
    "query",
    [
        'use "fetch" to download the page',
        "use \u201cfetch\u201d to download the page",
        "use `fetch` to download the page",
    ],
)
def test_a_quoted_or_backticked_plain_word_is_a_name(engine, query):
    tools = [
        mcp("web", "fetch", "Fetch a URL"),
        *[mcp(f"dl{i}", f"download_page_{i}", "download the page and use it") for i in range(10)],
    ]
    result = ToolIndex(tools, engine=engine).search(query, limit=3)
    assert result[0].name == "mcp__web__fetch"
    assert result[0].reason == "exact_name"
    # Unquoted, the same word is only a word: BM25 decides.
    plain = ToolIndex(tools, engine=engine).search("use fetch to download the page", limit=3)
    assert all(m.reason == "bm25" for m in plain)
