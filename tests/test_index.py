"""``ToolIndex``: the public search API over Tool objects, on both engines."""

from __future__ import annotations

import warnings

import pytest
import toolsift
from toolsift import DuplicateToolError, LimitError, QueryError, Tool, ToolIndex
from toolsift._engine import select as engines_module

TOOLS = [
    Tool(name="create_issue", description="Open a new issue in a GitHub repository"),
    Tool(name="send_message", description="Send a chat message to a Slack channel"),
    Tool(
        name="mcp__fs__read_file",
        description="Read a file from disk",
        server="fs",
        mcp_tool_name="read_file",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
    ),
]


def test_search_returns_matches_best_first(engine):
    index = ToolIndex(TOOLS, engine=engine)
    assert index.engine == engine
    matches = index.search("open an issue")
    assert [m.tool.name for m in matches] == ["create_issue"]
    assert matches[0].reason == "bm25" and matches[0].score > 0
    assert [m.name for m in index.search("read the file at this path")] == ["mcp__fs__read_file"]


def test_default_limit_is_eight_and_limit_is_validated(engine):
    tools = [Tool(name=f"tool_{i}", description="shared words here") for i in range(20)]
    index = ToolIndex(tools, engine=engine)
    assert len(index.search("shared words")) == 8
    assert len(index.search("shared words", limit=3)) == 3
    for bad in (0, -2, 1.5, True, "8"):
        with pytest.raises(LimitError):
            index.search("shared", limit=bad)


def test_query_errors(engine):
    index = ToolIndex(TOOLS, engine=engine)
    for q in ("", "   ", "\n\t"):
        with pytest.raises(QueryError, match="must not be empty"):
            index.search(q)
    with pytest.raises(QueryError, match="Query must contain at least one letter or number."):
        index.search("?? -- !!")
    with pytest.raises(QueryError):
        index.search(None)  # type: ignore[arg-type]


def test_empty_index_is_not_an_error(engine):
    assert ToolIndex([], engine=engine).search("anything") == []


def test_duplicate_names_are_rejected():
    with pytest.raises(DuplicateToolError, match="create_issue"):
        ToolIndex([TOOLS[0], TOOLS[0]], engine="python")


def test_exclude_leaves_out_names_before_the_cut(engine):
    tools = [Tool(name=f"t{i}", description="alpha") for i in range(5)]
    index = ToolIndex(tools, engine=engine)
    got = [m.name for m in index.search("alpha", limit=2, exclude=["t0", "t1", "unknown"])]
    assert got == ["t2", "t3"]


def test_field_weights_are_configurable(engine):
    tools = [
        Tool(name="a", description="weather", search_hint="forecast"),
        Tool(name="b", description="forecast weather report"),
    ]
    plain = ToolIndex(tools, engine=engine, field_weights=toolsift.FieldWeights(search_hint=0.0))
    assert [m.name for m in plain.search("forecast")] == ["b"]
    hinted = ToolIndex(tools, engine=engine)
    assert [m.name for m in hinted.search("forecast")][0] == "a"


def test_ranking_defaults_follow_the_profile(engine):
    english = ToolIndex(TOOLS, engine=engine)
    assert english.field_weights == toolsift.FieldWeights.for_profile("english")
    assert english.field_weights.description == 0.25
    assert english.field_weights.parameter_descriptions == 0.25
    assert english.params == (1.2, 0.75, 0.5)
    seed = ToolIndex(TOOLS, engine=engine, profile="omp")
    assert seed.field_weights == toolsift.FieldWeights() and seed.params == (1.2, 0.75, 1.0)
    # explicit values win over the profile's
    own = ToolIndex(TOOLS, engine=engine, delta=2.0, field_weights=toolsift.FieldWeights())
    assert own.field_weights == toolsift.FieldWeights() and own.params[2] == 2.0


def test_parameter_descriptions_are_a_field(engine):
    schema = {
        "type": "object",
        "properties": {
            "unit": {"type": "string", "description": "Temperature unit, celsius or fahrenheit"},
            "where": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "Town or municipality"}},
            },
            "days": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "hour": {"type": "integer", "description": "Hour of the forecast"}
                    },
                },
            },
        },
    }
    tools = [*TOOLS, Tool(name="get_weather", description="Weather report", input_schema=schema)]
    index = ToolIndex(tools, engine=engine)
    for word in ("celsius", "municipality", "forecast"):
        assert [m.name for m in index.search(word)] == ["get_weather"], word
    why = index.explain("municipality", "get_weather")
    assert dict(why.terms[0].fields) == {"parameter_descriptions": 0.25}
    # seed 000's weights leave the field out; required words still find the full description only
    seed = ToolIndex(tools, engine=engine, profile="omp")
    assert list(seed.search("municipality")) == []
    assert toolsift.FieldWeights().parameter_descriptions == 0.0


def test_auto_falls_back_to_python_with_one_warning(monkeypatch):
    monkeypatch.setattr(engines_module, "rust_index_class", lambda: None)
    monkeypatch.setattr(engines_module, "_warned_fallback", False)
    with pytest.warns(RuntimeWarning, match="pure-Python engine"):
        first = ToolIndex(TOOLS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = ToolIndex(TOOLS)
    assert first.engine == second.engine == "python"
    with pytest.raises(toolsift.EngineUnavailableError):
        ToolIndex(TOOLS, engine="rust")


def test_unknown_engine_is_an_error():
    with pytest.raises(ValueError, match="engine"):
        ToolIndex(TOOLS, engine="java")  # type: ignore[arg-type]


def test_building_leaves_the_garbage_collector_alone(engine, monkeypatch):
    import gc

    from toolsift._text import documents as _documents

    assert gc.isenabled()
    ToolIndex(TOOLS, engine=engine)
    assert gc.isenabled()
    gc.disable()
    try:
        ToolIndex(TOOLS, engine=engine).with_tools([Tool(name="extra", description="x")])
        assert not gc.isenabled()
    finally:
        gc.enable()

    def broken(schema, depth, out):
        raise RuntimeError("boom")

    # The english profile's weights read the parameters' descriptions of every tool: in the
    # twin's Python, or in the Rust engine's (which calls no Python function).
    monkeypatch.setattr(_documents, "_collect_descriptions", broken)
    if engine == "python":
        with pytest.raises(RuntimeError, match="boom"):
            ToolIndex(TOOLS, engine=engine, profile="english")
    else:
        assert len(ToolIndex(TOOLS, engine=engine, profile="english")) == len(TOOLS)
    assert gc.isenabled()
