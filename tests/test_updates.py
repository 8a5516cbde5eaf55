"""Live updates (copy-on-write ``updated`` / ``with_tools`` / ``replace_server``) rank exactly
like a full rebuild over the same documents, in both engines."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolsift import DuplicateToolError, Tool, ToolIndex
from toolsift._pyengine.index import Index as PyIndex

from ._corpora import (
    ENGINE_CLASSES,
    ENGINE_NAMES,
    QUERY_LANGUAGE,
    VOCAB,
    WEIGHTS,
    corpus,
    document,
)
from .conftest import HAVE_RUST, costly

QUERIES = ["read file", "the a of", "issue pull request", "send message user channel", "data"]
#: Prefixes of indexed words (prefix expansion reads the sorted term list).
PREFIX_QUERIES = ["rea fil", "mess chan us", "iss creat"]


def assert_same_index(a, b):
    assert len(a) == len(b)
    assert a.names == b.names
    assert a.average_length == b.average_length
    assert a.vocabulary_size == b.vocabulary_size
    for term in {t.lower() for t in VOCAB} | {"create", "repo"}:
        assert a.document_frequency(term) == b.document_frequency(term)
    for q in QUERIES:
        for limit in (1, 3, 50):
            assert a.search(q, limit) == b.search(q, limit), q
    # The query language: required terms (presence postings of the weight-0 field 3 too),
    # prefix expansion, the coverage rule and the gates.
    for q in QUERIES + PREFIX_QUERIES:
        for options in QUERY_LANGUAGE:
            assert a.search(q, 10, **options) == b.search(q, 10, **options), (q, options)


@st.composite
def update_steps(draw):
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        n_add = draw(st.integers(0, 5))
        adds = [(f"n{draw(st.integers(0, 9))}", draw(document)) for _ in range(n_add)]
        remove_fraction = draw(st.sampled_from([0.0, 0.2, 0.5, 1.0]))
        seed = draw(st.integers(0, 2**16))
        steps.append((adds, remove_fraction, seed))
    return steps


@pytest.mark.parametrize("engine_index", ENGINE_CLASSES)
@settings(max_examples=costly())
@given(data=corpus(), steps=update_steps(), profile=st.sampled_from(["omp", "english"]))
def test_updates_equal_rebuild(engine_index, data, steps, profile):
    names, docs = data
    idx = engine_index(names, docs, WEIGHTS, profile=profile)
    current = list(zip(names, docs))
    for adds, fraction, seed in steps:
        remove = [d for d in range(len(current)) if (d * 2654435761 + seed) % 100 < fraction * 100]
        idx = idx.updated([n for n, _ in adds], [f for _, f in adds], remove=remove)
        current = [c for d, c in enumerate(current) if d not in set(remove)] + adds
        rebuilt = engine_index(
            [n for n, _ in current], [f for _, f in current], WEIGHTS, profile=profile
        )
        assert idx.profile == profile
        assert_same_index(idx, rebuilt)


@pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")
@settings(max_examples=costly())
@given(data=corpus(), steps=update_steps(), profile=st.sampled_from(["omp", "english"]))
def test_updated_snapshots_are_identical_across_engines(data, steps, profile):
    from toolsift._core import Index as RustIndex

    names, docs = data
    r = RustIndex(names, docs, WEIGHTS, profile=profile)
    p = PyIndex(names, docs, WEIGHTS, profile=profile)
    for adds, fraction, seed in steps:
        n = len(r)
        remove = [d for d in range(n) if (d * 40503 + seed) % 100 < fraction * 100]
        args = ([n for n, _ in adds], [f for _, f in adds])
        r, p = r.updated(*args, remove=remove), p.updated(*args, remove=remove)
        assert r.to_bytes() == p.to_bytes()


def test_updated_leaves_the_original_untouched(engine_index):
    idx = engine_index(["a", "b"], [[(0, "read file")], [(0, "write file")]], WEIGHTS)
    before = idx.search("file", 5)
    new = idx.updated(["c"], [[(0, "file file")]], remove=[0])
    assert idx.search("file", 5) == before
    assert len(idx) == 2 and len(new) == 2
    assert new.names == ["b", "c"]


def test_update_errors(engine_index):
    idx = engine_index(["a"], [[(0, "read")]], WEIGHTS)
    with pytest.raises(ValueError, match="cannot remove document 1"):
        idx.updated(remove=[1])
    with pytest.raises(ValueError):
        idx.updated(["x"], [])
    with pytest.raises(ValueError, match="field"):
        idx.updated(["x"], [[(9, "text")]])
    with pytest.raises(OverflowError):
        idx.updated(remove=[-1])
    assert len(idx.updated(remove=[0, 0])) == 0


def tool(name, server=None, text="", keys=()):
    schema = {"type": "object", "properties": {k: {"type": "string"} for k in keys}}
    return Tool(
        name=f"mcp__{server}__{name}" if server else name,
        description=text,
        input_schema=schema,
        server=server,
        mcp_tool_name=name if server else None,
    )


@st.composite
def tool_lists(draw):
    out = {}
    for _ in range(draw(st.integers(0, 12))):
        server = draw(st.sampled_from(["github", "slack", None]))
        name = draw(st.sampled_from(["read_file", "send", "list_issues", "create", "get_user"]))
        words = draw(st.lists(st.sampled_from(VOCAB), max_size=8))
        keys = draw(st.lists(st.sampled_from(["owner", "repo", "query"]), max_size=2, unique=True))
        t = tool(name, server, " ".join(words), keys)
        out[t.name] = t
    return list(out.values())


#: ToolIndex queries in the query language: +required words (descriptions are weight 0, so
#: their words are presence postings), prefixes, exact tool names, and select:.
TOOL_QUERIES = QUERIES + [
    "+data read",
    "+github file",
    "+owner issue list",
    "rea fil",
    "mess +slack",
    "read_file",
    "get_user the",
    "select:read_file,send",
]


def assert_same_tool_search(a, b):
    for q in TOOL_QUERIES:
        assert a.search(q, 50) == b.search(q, 50), q
        assert a.search(q, 5, coverage=True, relative_floor=0.3) == b.search(
            q, 5, coverage=True, relative_floor=0.3
        ), q
        assert a.search(q, 5, ranker="keyword") == b.search(q, 5, ranker="keyword"), q


@pytest.mark.parametrize("engine", ENGINE_NAMES)
@settings(max_examples=costly(200))  # each example builds 5 ToolIndexes
@given(
    base=tool_lists(),
    new=tool_lists(),
    server=st.sampled_from(["github", "slack"]),
    profile=st.sampled_from(["omp", "english"]),
)
def test_tool_index_updates_equal_rebuild(engine, base, new, server, profile):
    index = ToolIndex(base, engine=engine, profile=profile)
    # with_tools: drop every other tool, add (and replace) the new ones.
    remove = [t.name for t in base[::2] if t.name not in {n.name for n in new}]
    updated = index.with_tools(add=new, remove=remove)
    gone = set(remove) | {t.name for t in new}
    expected = [t for t in base if t.name not in gone] + new
    assert list(updated.tools) == expected
    rebuilt = ToolIndex(expected, engine=engine, profile=profile)
    assert updated.profile == profile
    assert_same_tool_search(updated, rebuilt)
    # replace_server: the server's tools become exactly `mine`.
    mine = [t for t in new if t.server == server]
    replaced = index.replace_server(server, mine)
    expected = [t for t in base if t.server != server] + mine
    assert [t.name for t in replaced.tools] == [t.name for t in expected]
    rebuilt = ToolIndex(expected, engine=engine, profile=profile)
    assert_same_tool_search(replaced, rebuilt)


def test_with_tools_errors(engine):
    index = ToolIndex([tool("a", text="alpha")], engine=engine)
    with pytest.raises(KeyError):
        index.with_tools(remove=["nope"])
    with pytest.raises(DuplicateToolError):
        index.with_tools(add=[tool("b"), tool("b")])
    with pytest.raises(ValueError):
        index.replace_server("github", [tool("x", server="slack")])
    assert len(index) == 1


def test_with_tools_carries_the_name_table_over_exactly():
    from toolsift import Tool, ToolIndex
    from toolsift._names.table import NameTable

    tools = [
        Tool(
            name=f"mcp__s{i % 3}__read_file_{i % 4}",
            server=f"s{i % 3}",
            mcp_tool_name=f"read_file_{i % 4}",
            description="read a file",
        )
        for i in range(12)
    ] + [Tool(name="getCurrentTime", description="time"), Tool(name="plain", description="x")]
    index = ToolIndex(tools, engine="python")
    assert index.names is not None  # build it, so with_tools remaps it
    added = [
        Tool(name="mcp__s9__read_file_1", server="s9", mcp_tool_name="read_file_1"),
        Tool(name="getCurrentTime", description="replaced"),
    ]
    updated = index.with_tools(add=added, remove=["mcp__s1__read_file_1", "plain"])
    assert_same_names(updated.names, NameTable(updated.tools))
    for query in ("read_file_1", "s9/read_file_1", "getCurrentTime", "plain"):
        assert updated.names.lookup(query) == NameTable(updated.tools).lookup(query)


#: Texts for the name table's lookups: tool names in their forms, squashed, quoted, and none.
NAME_TEXTS = [
    "read_file",
    "readfile please",
    "use `send` to post",
    'call "list_issues" now',
    "github/read_file and slack.send",
    "mcp__github__create",
    "getuser with the github token for this repository and more words",
    "send the data to the user in the channel and read the file now",
    "create",
]


def assert_same_names(table, fresh):
    """``table`` (carried over by updates) answers every lookup as ``fresh`` (built anew)."""
    keys = set(fresh._plain) | set(fresh._qualified) | set(table._plain) | set(table._qualified)
    for key in keys | {"mcp" + k for k in keys}:
        assert table.lookup_key(key) == fresh.lookup_key(key), key
    for text in NAME_TEXTS:
        assert table.finder.find_names(text) == fresh.finder.find_names_slow(text), text
        assert table.finder.find_names_slow(text) == fresh.finder.find_names_slow(text), text
        assert table.lookup(text) == fresh.lookup(text), text
        assert table.suggest(text, range(len(fresh._tools))) == fresh.suggest(
            text, range(len(fresh._tools))
        )


@pytest.mark.parametrize("engine", ENGINE_NAMES)
@pytest.mark.parametrize("stale_at_least", [0, 64])
@settings(
    max_examples=costly(100),
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # the same value throughout
)
@given(
    base=tool_lists(),
    steps=st.lists(st.tuples(tool_lists(), st.integers(0, 2**16)), min_size=1, max_size=6),
)
def test_name_tables_carried_over_many_updates_answer_as_rebuilt(
    monkeypatch, engine, stale_at_least, base, steps
):
    """A sequence of updates, each on an index whose name table is built (so it is carried
    over, ids translated and stale keys kept until the table is rebuilt), answers every name
    lookup and search as a fresh index over the same tools."""
    import random

    import toolsift._names.table as names_module
    from toolsift._names.table import NameTable

    monkeypatch.setattr(names_module, "_STALE_AT_LEAST", stale_at_least)
    index = ToolIndex(base, engine=engine)
    for new, seed in steps:
        assert index.names is not None  # built: the update carries it over
        rng = random.Random(seed)
        names = [t.name for t in index.tools]
        remove = [n for n in names if rng.random() < 0.4 and n not in {t.name for t in new}]
        before, index = index, index.with_tools(add=new, remove=remove)
        fresh = ToolIndex(list(index.tools), engine=engine)
        assert_same_names(index.names, NameTable(index.tools))
        assert_same_tool_search(index, fresh)
        # Copy-on-write: the index updated from answers as before.
        assert_same_names(before.names, NameTable(before.tools))


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_an_updated_index_tuple_of_tools_is_not_walked_by_the_collector(engine):
    """The update's tuple of tools (a young container as large as the index) is not tracked by
    the cyclic collector with the compiled extension, so no young-generation pass walks it;
    it holds the tools as before, and is freed with the index."""
    import gc
    import sys

    tools = [Tool(name=f"t{i}", description=f"tool number {i}") for i in range(50)]
    index = ToolIndex(tools, engine=engine)
    new = Tool(name="new", description="a new tool")
    updated = index.with_tools(add=[new], remove=["t3"])
    held = updated._tools
    assert type(held) is tuple
    assert gc.is_tracked(held) is not HAVE_RUST
    assert [t.name for t in held] == [t.name for t in tools if t.name != "t3"] + ["new"]
    assert updated.search("new tool")[0].name == "new"
    count = sys.getrefcount(new)
    del updated, held
    gc.collect()
    assert sys.getrefcount(new) < count  # the untracked tuple still releases its tools
