"""Bad input through the public API: one typed error with the same message from both engines, and
input that only looks bad (a lone surrogate, a huge limit, one name for ``exclude``) searched as
it should be."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolsift import (
    FieldWeights,
    Tool,
    ToolDefinitionError,
    ToolIndex,
    available_engines,
    default_tools,
)

ENGINES = [
    pytest.param(
        e,
        marks=pytest.mark.skipif(e not in available_engines(), reason="toolsift._core not built"),
    )
    for e in ("rust", "python")
]
BOTH = "rust" in available_engines()
TOOLS = default_tools()


@pytest.fixture(scope="module")
def indexes() -> dict[str, ToolIndex]:
    return {e: ToolIndex(TOOLS, engine=e) for e in available_engines()}


def ranked(result) -> list[tuple[str, float, str]]:
    return [(m.name, m.score, m.reason) for m in result]


# --- lone surrogates in a query -------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    ["read file \ud800", "read_file\udc00", "+read \ud83d file", "open a pull request \ud83d"],
)
def test_a_lone_surrogate_in_a_query_is_a_separator(indexes, query) -> None:
    """Half an emoji (a broken JSON escape, a non-UTF-8 byte in argv) is searched like U+FFFD,
    a separator, on the one-call path, the general path and the batch path alike."""
    clean = (
        query.replace("\ud800", "\ufffd").replace("\udc00", "\ufffd").replace("\ud83d", "\ufffd")
    )
    results = {}
    for engine, index in indexes.items():
        result = index.search(query)
        assert ranked(result) == ranked(index.search(clean))
        assert [ranked(r) for r in index.search_many([query, clean])] == [ranked(result)] * 2
        assert ranked(index.search(query, exact_names=False)) == ranked(
            index.search(clean, exact_names=False)
        )
        results[engine] = ranked(result)
    if BOTH:
        assert results["rust"] == results["python"]


@given(st.lists(st.sampled_from(["read", "file", " ", "_", "\ud800", "\udfff", "é", "+"])))
def test_surrogate_queries_never_crash_and_both_engines_agree(parts) -> None:
    query = "read " + "".join(parts)
    out = []
    for engine in available_engines():
        index = _shared_index(engine)
        out.append(ranked(index.search(query)))
    assert all(o == out[0] for o in out)


_SHARED: dict[str, ToolIndex] = {}


def _shared_index(engine: str) -> ToolIndex:
    if engine not in _SHARED:
        _SHARED[engine] = ToolIndex(TOOLS, engine=engine)
    return _SHARED[engine]


# --- search options: one check, one message, for both engines --------------------------------


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"threshold": "1"}, TypeError, "threshold must be a number, got str"),
        ({"relative_floor": b"0"}, TypeError, "relative_floor must be a number, got bytes"),
        ({"prefix_fraction": None}, TypeError, "prefix_fraction must be a number, got NoneType"),
        ({"coverage": "yes"}, TypeError, "coverage must be a bool, got str"),
        ({"coverage": 1}, TypeError, "coverage must be a bool, got int"),
        ({"prefix_min_len": -1}, ValueError, "prefix_min_len must be >= 0, got -1"),
        ({"prefix_min_len": 1.5}, TypeError, "prefix_min_len must be an int, got float"),
        ({"max_expansions": -1}, ValueError, "max_expansions must be >= 0, got -1"),
        ({"max_expansions": "16"}, TypeError, "max_expansions must be an int, got str"),
        ({"max_query_length": 0}, ValueError, "max_query_length must be a positive int, got 0"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_bad_search_options_raise_the_same_error_in_each_engine(
    indexes, engine, options, error, message
) -> None:
    index = indexes[engine]
    with pytest.raises(error, match=f"^{message}$"):
        index.search("read a file", **options)
    with pytest.raises(error, match=f"^{message}$"):
        index.search_many(["read a file"], **options)
    assert index.search("read a file")  # still searches


@pytest.mark.parametrize("engine", ENGINES)
def test_sizes_past_the_machine_word_mean_every_match(indexes, engine) -> None:
    """A limit, cap, expansion count or query length past 2**63 acts as a large one (the Rust
    engine takes sizes as usize): the same results as the pure-Python engine, no OverflowError."""
    index = indexes[engine]
    huge = 10**30
    everything = index.search("file", huge, max_limit=huge)
    assert len(everything) == len(index.search("file", 1000, max_limit=1000)) > 8
    assert everything.limit == huge and not everything.clamped
    [batch] = index.search_many(["file"], huge, max_limit=huge, max_query_length=huge)
    assert ranked(batch) == ranked(everything)
    assert ranked(index.search("fil", max_expansions=huge, prefix_min_len=huge)) == ranked(
        index.search("fil", prefix_fraction=0.0)
    )
    assert ranked(index.search("fil", max_expansions=huge)) == ranked(
        index.search("fil", max_expansions=10_000)
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_exclude_takes_one_name_as_a_str(indexes, engine) -> None:
    """``exclude="name"`` leaves that tool out, as ``servers="slack"`` is one server (it was read
    letter by letter, which excluded nothing)."""
    index = indexes[engine]
    name = index.search("read a file", 1)[0].name
    as_str = index.search("read a file", exclude=name)
    assert name not in [m.name for m in as_str]
    assert ranked(as_str) == ranked(index.search("read a file", exclude=[name]))
    [batch] = index.search_many(["read a file"], exclude=name)
    assert ranked(batch) == ranked(as_str)


# --- index parameters and field weights ------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"k1": "1.2"}, TypeError, "k1 must be a number, got str"),
        ({"b": None}, TypeError, "b must be a number, got NoneType"),
        ({"delta": float("nan")}, ValueError, "Invalid delta: must be between 0 and 1000"),
    ],
)
def test_bad_bm25_parameters_raise_the_same_error_in_each_engine(
    engine, kwargs, error, message
) -> None:
    with pytest.raises(error, match=f"^{message}"):
        ToolIndex(TOOLS[:3], engine=engine, **kwargs)


@pytest.mark.parametrize(
    ("weights", "error", "message"),
    [
        ({"name": "6"}, TypeError, r"^FieldWeights\.name must be a number, got str$"),
        (
            {"summary": 1e39},
            ValueError,
            r"^FieldWeights\.summary must be 0 or a number between 1e-6 and 1e30",
        ),
        (
            {"word_pairs": float("nan")},
            ValueError,
            r"^FieldWeights\.word_pairs must be 0 or a number between",
        ),
        (
            {"label": -1},
            ValueError,
            r"^FieldWeights\.label must be 0 or a number between 1e-6 and 1e30",
        ),
    ],
)
def test_field_weights_are_checked_when_made(weights, error, message) -> None:
    with pytest.raises(error, match=message):
        FieldWeights(**weights)
    assert FieldWeights(name=1e30).name == 1e30  # the largest weight: no float32 overflow


@pytest.mark.parametrize("engine", ENGINES)
def test_the_engines_refuse_a_weight_that_overflows_float32(engine) -> None:
    """Term frequencies are float32 sums of weights: a weight of 1e39 once scored NaN."""
    if engine == "rust":
        from toolsift._core import Index
    else:
        from toolsift._pyengine.index import Index
    with pytest.raises(ValueError, match="between 1e-6 and 1e30"):
        Index(["a"], [[(0, "send message")]], [1e39])
    index = Index(["a"], [[(0, "send message")] * 3], [1e30])
    [(doc, score)] = index.search("send", 1)
    assert doc == 0 and score == score and score > 0  # finite, not NaN


# --- tools holding lone surrogates ------------------------------------------------------------


def test_a_lone_surrogate_in_a_tools_text_becomes_u_fffd() -> None:
    tool = Tool(name="x", description="half \ud83d emoji", summary="s\udc00", title="t\ud800")
    assert (tool.description, tool.summary, tool.title) == (
        "half \ufffd emoji",
        "s\ufffd",
        "t\ufffd",
    )
    for engine in available_engines():
        index = ToolIndex([tool], engine=engine)
        assert index.search("emoji")[0].name == "x"
        restored = ToolIndex.from_bytes(index.to_bytes())  # savable: it is valid text now
        assert restored.get("x") == tool
        assert pickle.loads(pickle.dumps(index)).get("x") == tool


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"name": "read\ud800"}, "name"),
        ({"name": "read", "server": "fs\udc00", "mcp_tool_name": "read"}, "server"),
        ({"name": "read", "server": "fs", "mcp_tool_name": "re\ud83dad"}, "mcp_tool_name"),
        ({"name": "read", "input_schema": {"properties": {"pa\ud800th": {}}}}, "input_schema"),
    ],
)
def test_a_lone_surrogate_in_a_name_is_a_tool_definition_error(kwargs, field) -> None:
    with pytest.raises(ToolDefinitionError, match=f"field '{field}.*lone surrogate"):
        Tool(**kwargs)


def test_a_schema_too_deep_to_serialise_is_a_tool_definition_error() -> None:
    """A hostile server's schema nested 2,000 levels deep: the session names the tool and the
    field instead of raising a bare RecursionError, and nothing joins."""
    from toolsift import DiscoverySession

    schema: dict = {"type": "string"}
    for _ in range(2000):
        schema = {"type": "object", "properties": {"a": schema}}
    session = DiscoverySession(TOOLS)
    with pytest.raises(ToolDefinitionError, match="mcp__evil__deep.*input_schema.*too deep"):
        # refused when made (toolsift.limits.MAX_SCHEMA_DEPTH), before the session sees it
        deep = Tool(
            name="mcp__evil__deep", server="evil", mcp_tool_name="deep", input_schema=schema
        )
        session.connect_server("evil", [deep])
    assert "mcp__evil__deep" not in {t.name for t in session.tools}
    assert session.search("read a file").matches  # still searches


@pytest.mark.parametrize("engine", ENGINES)
def test_server_filters_are_remembered_per_list_without_mixing_them(engine) -> None:
    """The ids of a ``servers`` list are cached on the index: a list asked again gets the same
    answer, another list its own, and a name that is not a str is a TypeError."""
    index = ToolIndex(TOOLS, engine=engine)
    fresh = ToolIndex(TOOLS, engine=engine)
    for servers in (["github"], ["filesystem", "github"], "github", ("github",), ["github"]):
        assert ranked(index.search("read a file", servers=servers)) == ranked(
            fresh.search("read a file", servers=list(servers) if servers != "github" else "github")
        )
        fresh = ToolIndex(TOOLS, engine=engine)  # never cached
    with pytest.raises(TypeError, match="servers must hold str names, got list"):
        index.search("read a file", servers=[["github"]])
    assert {m.tool.server for m in index.search("file", servers=["github"])} == {"github"}
