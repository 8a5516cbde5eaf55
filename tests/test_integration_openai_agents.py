"""toolsift behind an OpenAI Agents SDK ``Agent`` over 500 function tools: a real ``Runner``
loop driven by a scripted ``Model`` (no network, no key), as the SDK's own tests do."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from ._agent_tools import agent_registry

if sys.version_info < (3, 10):  # pragma: no cover - the framework's own floor
    pytest.skip("openai-agents needs Python 3.10+", allow_module_level=True)

from agents import (
    Agent,
    FunctionTool,
    ModelResponse,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from agents.exceptions import ModelBehaviorError
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from toolsift.integrations.openai_agents import ToolsiftToolSearch

set_tracing_disabled(True)  # no trace export: no network, no key


def _call(name: str, arguments: dict[str, Any], call_id: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call", name=name, arguments=json.dumps(arguments), call_id=call_id
    )


def _text(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


class ScriptedModel(Model):
    """Answers each call with the next scripted output, recording the tools it was offered and
    the input it was sent."""

    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.offered: list[list[str]] = []
        self.inputs: list[Any] = []

    async def get_response(self, system_instructions, input, model_settings, tools, *a, **k):
        self.offered.append([tool.name for tool in tools])
        self.inputs.append(input)
        return ModelResponse(output=[self.script.pop(0)], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


def _tool(name: str, description: str, answer: str) -> FunctionTool:
    async def run(_context: Any, arguments: str) -> str:
        return answer.format(**json.loads(arguments))

    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    return FunctionTool(
        name=name, description=description, params_json_schema=schema, on_invoke_tool=run
    )


@pytest.fixture(scope="module")
def tools() -> list[FunctionTool]:
    return agent_registry(_tool)


def _outputs(model: ScriptedModel) -> list[str]:
    items = model.inputs[-1]
    return [item["output"] for item in items if item.get("type") == "function_call_output"]


def test_search_activates_the_tool_the_model_calls_it_and_answers(tools) -> None:
    search = ToolsiftToolSearch(tools, default_limit=2)
    model = ScriptedModel(
        [
            _call("search_tool_bm25", {"query": "weather forecast"}, "c1"),
            _call("get_weather", {"city": "Paris"}, "c2"),
            _text("It is sunny in Paris."),
        ]
    )
    agent = Agent(name="assistant", model=model, tools=search.tools)
    result = asyncio.run(Runner.run(agent, "Weather in Paris?"))
    assert result.final_output == "It is sunny in Paris."
    assert model.offered[0] == ["search_tool_bm25"]
    assert model.offered[1] == ["search_tool_bm25", "get_weather"]
    found, called = _outputs(model)
    assert json.loads(found)["activated_tools"][0] == "get_weather"
    assert called == "sunny in Paris"


def test_a_tool_never_found_is_not_offered_and_cannot_be_called(tools) -> None:
    search = ToolsiftToolSearch(tools)
    model = ScriptedModel([_call("book_flight", {"city": "Rome"}, "c1")])
    agent = Agent(name="assistant", model=model, tools=search.tools)
    with pytest.raises(ModelBehaviorError, match="book_flight"):
        asyncio.run(Runner.run(agent, "Fly me to Rome"))
    assert model.offered == [["search_tool_bm25"]]


def test_select_reports_missing_names_and_sessions_are_separate(tools) -> None:
    search = ToolsiftToolSearch(tools, always_available=["filler_0"])
    model = ScriptedModel(
        [_call("search_tool_bm25", {"query": "select:book_flight,teleport"}, "c1"), _text("ok")]
    )
    asyncio.run(Runner.run(Agent(name="a", model=model, tools=search.tools), "go"))
    (found,) = _outputs(model)
    assert json.loads(found)["missing"] == ["teleport"]
    assert model.offered[1] == ["search_tool_bm25", "filler_0", "book_flight"]
    assert search.new_session().visible_names() == ["filler_0"]
    assert search.visible_names() == ["filler_0", "book_flight"]


def test_a_bad_query_is_answered_with_an_error_the_model_can_read(tools) -> None:
    search = ToolsiftToolSearch(tools)
    model = ScriptedModel([_call("search_tool_bm25", {"query": "  "}, "c1"), _text("ok")])
    asyncio.run(Runner.run(Agent(name="a", model=model, tools=search.tools), "go"))
    (found,) = _outputs(model)
    assert "error" in json.loads(found)


def test_the_tools_own_is_enabled_still_applies(tools) -> None:
    @function_tool(is_enabled=False)
    def secret_weather(city: str) -> str:
        """Weather forecast from the secret station."""
        return city

    search = ToolsiftToolSearch([*tools, secret_weather])
    search.search.run("select:secret_weather")
    model = ScriptedModel([_text("ok")])
    asyncio.run(Runner.run(Agent(name="a", model=model, tools=search.tools), "go"))
    assert model.offered == [["search_tool_bm25"]]


def test_only_function_tools_are_accepted() -> None:
    with pytest.raises(TypeError, match="FunctionTool"):
        ToolsiftToolSearch([lambda: None])  # type: ignore[list-item]


def test_a_search_over_a_given_session_shares_no_catalogue() -> None:
    from toolsift import DiscoverySession, Tool
    from toolsift.errors import DiscoveryError
    from toolsift.integrations._agent_search import AgentToolSearch

    session = DiscoverySession([Tool(name="get_weather", description="Weather")], mode="all")
    search = AgentToolSearch([(Tool(name="get_weather"), "obj")], session=session)
    assert search.run("weather") and search.visible_objects() == ["obj"]
    with pytest.raises(DiscoveryError, match="no catalogue"):
        search.new_session()
