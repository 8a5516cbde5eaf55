"""The public API used the way a user would; pyright checks this file in CI (see ci.yml).

It also runs under pytest, so every line here is real, executed code.
"""

from __future__ import annotations

import toolsift
from toolsift import FieldWeights, Match, Tool, ToolIndex
from toolsift._engine import EngineIndex
from toolsift._fallback import Index as PythonIndex


def _engine_types_satisfy_the_protocol() -> list[type[EngineIndex]]:
    classes: list[type[EngineIndex]] = [PythonIndex]
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
    tokens: list[str] = toolsift.tokenize("getCurrentTime")
    assert tokens == ["get", "current", "time"]
    for cls in _engine_types_satisfy_the_protocol():
        engine: EngineIndex = cls(["a"], [[(0, "alpha")]], [1.0])
        assert engine.search("alpha", 1)[0][0] == 0
