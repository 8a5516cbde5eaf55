"""The public API used the way a user would; pyright checks this file in CI (see ci.yml).

It also runs under pytest, so every line here is real, executed code.
"""

from __future__ import annotations

import toolsift
from toolsift import FieldWeights, Match, Tool, ToolIndex
from toolsift._engine.protocol import (
    EngineIndex,
    EngineIndexClass,
    EngineKeywordIndex,
    EngineKeywordIndexClass,
)
from toolsift._pyengine.index import Index as PythonIndex
from toolsift._pyengine.keyword import KeywordIndex as PythonKeywordIndex


def _engine_types_satisfy_the_protocol() -> list[EngineIndexClass]:
    classes: list[EngineIndexClass] = [PythonIndex]
    try:
        from toolsift._core import Index as RustIndex
    except ImportError:
        return classes
    classes.append(RustIndex)
    return classes


def test_public_api_types() -> None:
    tools: list[Tool] = toolsift.default_tools()
    index: ToolIndex = ToolIndex(tools, engine="auto", field_weights=FieldWeights(summary=2.0))
    matches = index.search("create a calendar event", limit=3)
    first: Match = matches[0]
    name: str = first.tool.name
    score: float = first.score
    assert name and score > 0
    built: ToolIndex = ToolIndex.from_records([t.to_dict() for t in tools], profile="omp")
    assert built.search("create a calendar event", limit=1)[0].tool.name
    tokens: list[str] = toolsift.tokenize("getCurrentTime")
    assert tokens == ["get", "current", "time"]
    for cls in _engine_types_satisfy_the_protocol():
        engine: EngineIndex = cls(["a"], [[(0, "alpha")]], [1.0])
        assert engine.search("alpha", 1)[0][0] == 0


def test_keyword_engines_satisfy_the_protocol() -> None:
    classes: list[EngineKeywordIndexClass] = [PythonKeywordIndex]
    try:
        from toolsift._core import KeywordIndex as RustKeywordIndex
    except ImportError:
        pass
    else:
        classes.append(RustKeywordIndex)
    for cls in classes:
        engine: EngineKeywordIndex = cls(["FileEdit"], [["file", "edit"]], [False], [""], [""])
        assert engine.search("edit", 1) == [(0, 10.0)]


def test_search_result_types() -> None:
    index = ToolIndex(toolsift.default_tools())
    result: toolsift.SearchResult = index.search("select:create_issue,nope")
    kind: str = result.query_kind
    missing: tuple[str, ...] = result.missing
    assert kind == "select" and missing == ("nope",)


def test_session_api_types() -> None:
    from toolsift.contract import dumps, search_tool_bm25_content, tool_search_response
    from toolsift.metatool import MetaToolCall, call_meta_tool

    session = toolsift.DiscoverySession.from_default_catalog(mode="all", engine="auto")
    definition: Tool = toolsift.meta_tool(session)
    anthropic: dict[str, object] = definition.to_anthropic()
    result: toolsift.DiscoveryResult = session.search("create a calendar event", limit=2)
    activated: tuple[str, ...] = result.activated
    content: str = search_tool_bm25_content(result)
    call: MetaToolCall = call_meta_tool(session, {"query": "send an email"})
    assert anthropic["name"] == "search_tool_bm25" and activated and content
    assert dumps(tool_search_response(result)).startswith('{"query":')
    assert call.details["query"] == "send an email"
