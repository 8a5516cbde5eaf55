"""toolsift as PydanticAI's tool-search strategy over 500 deferred tools: a real ``Agent`` run
driven by a scripted ``FunctionModel`` (no network, no key)."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from ._agent_tools import agent_registry

if sys.version_info < (3, 11):  # pragma: no cover - the framework's own floor
    pytest.skip("pydantic-ai-slim needs Python 3.11+", allow_module_level=True)

from pydantic_ai import Agent, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition
from toolsift.integrations.pydantic_ai import ToolsiftStrategy, toolsift_tool_search

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _tool(name: str, description: str, answer: str) -> Tool:
    return Tool.from_schema(lambda city: answer.format(city=city), name, description, SCHEMA)


@pytest.fixture(scope="module")
def tools() -> list[Tool]:
    return agent_registry(_tool)


class Script:
    """A FunctionModel function: the scripted parts, one response per step; records the
    tools offered at each step and the tool returns the model read."""

    def __init__(self, steps: list[Any]) -> None:
        self.steps = list(steps)
        self.offered: list[list[str]] = []
        self.returns: list[Any] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offered.append([t.name for t in info.function_tools])
        self.returns = [
            part.content
            for message in messages
            for part in getattr(message, "parts", ())
            if isinstance(part, ToolReturnPart)
        ]
        return ModelResponse(parts=[self.steps.pop(0)])


def _search(*queries: str) -> ToolCallPart:
    return ToolCallPart("search_tools", {"queries": list(queries)}, tool_call_id="s")


def test_search_activates_the_tool_the_model_calls_it_and_answers(tools) -> None:
    script = Script(
        [
            _search("weather forecast"),
            ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id="w"),
            TextPart("It is sunny in Paris."),
        ]
    )
    agent = Agent(FunctionModel(script), tools=tools, capabilities=[toolsift_tool_search(limit=2)])
    result = asyncio.run(agent.run("Weather in Paris?"))
    assert result.output == "It is sunny in Paris."
    assert script.offered[0] == ["search_tools"]
    assert "get_weather" in script.offered[1] and "book_flight" not in script.offered[1]
    assert len(script.offered[1]) <= 3
    assert script.returns[-1] == "sunny in Paris"


def test_a_tool_never_found_is_not_offered_and_its_call_is_refused(tools) -> None:
    script = Script(
        [ToolCallPart("book_flight", {"city": "Rome"}, tool_call_id="b"), TextPart("gave up")]
    )
    agent = Agent(FunctionModel(script), tools=tools, capabilities=[toolsift_tool_search()])
    assert asyncio.run(agent.run("Fly me to Rome")).output == "gave up"
    assert script.offered[0] == ["search_tools"] and script.offered[1] == ["search_tools"]
    assert "book_flight" in str(script.returns[-1]) and "booked" not in str(script.returns[-1])


def test_select_finds_exact_names_and_reports_missing_ones(tools) -> None:
    capability = toolsift_tool_search()
    script = Script([_search("select:book_flight,teleport"), TextPart("ok")])
    asyncio.run(Agent(FunctionModel(script), tools=tools, capabilities=[capability]).run("go"))
    assert sorted(script.offered[1]) == ["book_flight", "search_tools"]
    assert capability.strategy.last_results[0].missing == ("teleport",)


def test_nothing_found_is_said_to_the_model(tools) -> None:
    script = Script([_search("zzyzx qwerty"), TextPart("none")])
    agent = Agent(FunctionModel(script), tools=tools, capabilities=[toolsift_tool_search()])
    asyncio.run(agent.run("go"))
    assert script.offered[1] == ["search_tools"]
    assert "No matching tools" in str(script.returns[-1])


def test_an_abstaining_session_returns_no_name() -> None:
    definitions = [ToolDefinition(name="get_weather", description="Weather forecast")]
    strategy = ToolsiftStrategy()
    assert strategy(None, ["weather", "  "], definitions) == ["get_weather"]
    assert len(strategy.last_results) == 1
    catalog = strategy.catalog(definitions)
    assert strategy.catalog(definitions) is catalog  # cached while the tools are the same
    make_session = catalog.session

    def abstaining_session(**options: Any) -> Any:
        session = make_session(**options)
        search = session.search
        session.search = lambda *a, **k: _Abstained(search(*a, **k))  # type: ignore[method-assign]
        return session

    catalog.session = abstaining_session  # type: ignore[method-assign]
    assert strategy(None, ["weather"], definitions) == []
    assert strategy.last_results[0].abstained is True


class _Abstained:
    """A session result that says no tool fits (as a session with abstention reports it)."""

    def __init__(self, result: Any) -> None:
        self._result = result
        self.abstained = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._result, name)
