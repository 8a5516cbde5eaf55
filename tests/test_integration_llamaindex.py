"""toolsift as a LlamaIndex agent's tool retriever over 500 tools: a real ``FunctionAgent``
run driven by LlamaIndex's scripted ``MockFunctionCallingLLM`` (no network, no key)."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

from ._agent_tools import agent_registry

if sys.version_info < (3, 10):  # pragma: no cover - the framework's own floor
    pytest.skip("llama-index-core needs Python 3.10+", allow_module_level=True)

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool, ToolMetadata
from pydantic import BaseModel
from toolsift.integrations.llamaindex import ToolsiftObjectRetriever

# LlamaIndex's workflow agents still read pydantic's deprecated ``__fields__`` (their code).
pytestmark = pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecationWarning")


class City(BaseModel):
    city: str


def _tool(name: str, description: str, answer: str) -> FunctionTool:
    return FunctionTool(
        fn=lambda city: answer.format(city=city),
        metadata=ToolMetadata(name=name, description=description, fn_schema=City),
    )


@pytest.fixture(scope="module")
def tools() -> list[FunctionTool]:
    return agent_registry(_tool)


class Script:
    """A response generator: the scripted replies in turn; records the tools offered at each
    step and the tool results the model read."""

    def __init__(self, replies: list[ChatMessage]) -> None:
        self.replies = list(replies)
        self.offered: list[list[str]] = []
        self.results: list[str] = []

    def __call__(self, messages: Any, **kwargs: Any) -> ChatMessage:
        self.offered.append([t.metadata.name for t in kwargs.get("tools") or ()])
        self.results = [str(m.content) for m in messages if m.role == MessageRole.TOOL]
        return self.replies.pop(0)


def _call(name: str, arguments: dict[str, Any], call_id: str) -> ChatMessage:
    block = ToolCallBlock(tool_call_id=call_id, tool_name=name, tool_kwargs=arguments)
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=[block])


def _text(text: str) -> ChatMessage:
    return ChatMessage(role=MessageRole.ASSISTANT, content=text)


def _run(retriever: Any, script: Script, question: str) -> str:
    agent = FunctionAgent(
        tool_retriever=retriever, llm=MockFunctionCallingLLM(response_generator=script)
    )

    async def go() -> str:
        return str(await agent.run(user_msg=question))

    return asyncio.run(go())


def test_search_activates_the_tool_the_model_calls_it_and_answers(tools) -> None:
    retriever = ToolsiftObjectRetriever(tools, default_limit=2)
    script = Script(
        [
            _call("search_tool_bm25", {"query": "weather forecast"}, "c1"),
            _call("get_weather", {"city": "Paris"}, "c2"),
            _text("It is sunny in Paris."),
        ]
    )
    assert "It is sunny in Paris." in _run(retriever, script, "Weather in Paris?")
    assert script.offered[0] == ["search_tool_bm25"]
    assert script.offered[1] == ["search_tool_bm25", "get_weather"]
    found, called = script.results
    assert json.loads(found)["activated_tools"] == ["get_weather"]
    assert called == "sunny in Paris"


def test_a_tool_never_found_is_not_offered_and_its_call_is_refused(tools) -> None:
    retriever = ToolsiftObjectRetriever(tools)
    script = Script([_call("book_flight", {"city": "Rome"}, "c1"), _text("gave up")])
    _run(retriever, script, "Fly me to Rome")
    assert script.offered == [["search_tool_bm25"], ["search_tool_bm25"]]
    assert "not found" in script.results[0] and "booked" not in script.results[0]


def test_select_reports_missing_names_and_sessions_are_separate(tools) -> None:
    retriever = ToolsiftObjectRetriever(tools, always_available=["filler_0"])
    script = Script(
        [_call("search_tool_bm25", {"query": "select:book_flight,teleport"}, "c1"), _text("ok")]
    )
    _run(retriever, script, "go")
    assert json.loads(script.results[0])["missing"] == ["teleport"]
    assert script.offered[1] == ["search_tool_bm25", "filler_0", "book_flight"]
    other = retriever.new_session()
    assert [t.metadata.name for t in other.retrieve("x")] == ["search_tool_bm25", "filler_0"]


def test_a_bad_query_is_answered_with_an_error(tools) -> None:
    retriever = ToolsiftObjectRetriever(tools)
    output = retriever.search_tool.call(query="   ")
    assert "error" in json.loads(str(output))
