"""toolsift as langgraph-bigtool's tool retrieval and as a LangChain retriever: a real
``create_agent`` graph over 500 tools, driven by a scripted LangChain fake chat model."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

if sys.version_info < (3, 10):  # pragma: no cover - the framework's own floor
    pytest.skip("langgraph-bigtool needs Python 3.10+", allow_module_level=True)

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import StructuredTool
from langgraph_bigtool import create_agent
from toolsift.errors import QueryError
from toolsift.integrations.langgraph import ToolsiftRetriever, ToolsiftToolRetrieval

ARGS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _registry() -> dict[str, Any]:
    registry: dict[str, Any] = {}
    for i in range(498):
        registry[f"filler_{i}"] = StructuredTool(
            name=f"filler_{i}",
            description=f"Inventory record {i} lookup for warehouse shelf {i}",
            args_schema=ARGS,
            func=lambda city, i=i: f"filler {i}",
        )
    registry["get_weather"] = StructuredTool(
        name="get_weather",
        description="Current weather forecast for a city",
        args_schema=ARGS,
        func=lambda city: f"sunny in {city}",
    )
    registry["book_flight"] = StructuredTool(
        name="book_flight",
        description="Book a flight ticket to a city",
        args_schema=ARGS,
        func=lambda city: f"booked to {city}",
    )
    return registry


@pytest.fixture(scope="module")
def registry() -> dict[str, Any]:
    return _registry()


class ScriptedModel(GenericFakeChatModel):
    """Answers with the scripted messages and records the tools bound at each step."""

    bound: list[list[str]] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.bound.append([getattr(t, "name", None) or t.__name__ for t in tools])
        return self


def _run(registry: dict[str, Any], retrieval: ToolsiftToolRetrieval, script: list[AIMessage]):
    model = ScriptedModel(messages=iter(script))
    model.bound = []
    graph = create_agent(
        model,
        registry,
        retrieve_tools_function=retrieval.retrieve_tools_function,
        retrieve_tools_coroutine=retrieval.retrieve_tools_coroutine,
    ).compile()
    return model, graph


def _call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def test_the_model_searches_the_tool_is_activated_called_and_answers(registry) -> None:
    retrieval = ToolsiftToolRetrieval(registry, limit=2)
    search = retrieval.retrieve_tools_function.__name__
    model, graph = _run(
        registry,
        retrieval,
        [
            _call(search, {"query": "weather forecast"}, "c1"),
            _call("get_weather", {"city": "Paris"}, "c2"),
            AIMessage(content="It is sunny in Paris."),
        ],
    )
    state = graph.invoke({"messages": [("user", "Weather in Paris?")]})
    assert state["selected_tool_ids"][0] == "get_weather"
    tool_outputs = [m.content for m in state["messages"] if isinstance(m, ToolMessage)]
    assert "get_weather" in tool_outputs[0] and tool_outputs[1] == "sunny in Paris"
    assert state["messages"][-1].content == "It is sunny in Paris."
    # First step: only the search tool; after the search: it and the found tools, no other.
    assert model.bound[0] == [search]
    assert model.bound[1][0] == search and "get_weather" in model.bound[1]
    assert len(model.bound[1]) <= 3 and "book_flight" not in model.bound[1]


def test_async_graph_and_select_with_missing_names(registry) -> None:
    retrieval = ToolsiftToolRetrieval(registry)
    search = retrieval.retrieve_tools_function.__name__
    model, graph = _run(
        registry,
        retrieval,
        [
            _call(search, {"query": "select:book_flight,teleport"}, "c1"),
            _call("book_flight", {"city": "Rome"}, "c2"),
            AIMessage(content="Booked."),
        ],
    )
    state = asyncio.run(graph.ainvoke({"messages": [("user", "Fly me to Rome")]}))
    assert state["selected_tool_ids"] == ["book_flight"]
    assert retrieval.last_result.missing == ("teleport",)
    assert [m.content for m in state["messages"] if isinstance(m, ToolMessage)][-1] == (
        "booked to Rome"
    )
    assert model.bound[1] == [search, "book_flight"]


def test_each_search_is_independent_of_earlier_ones(registry) -> None:
    """The graph state holds activations: a second conversation finds the same tool again."""
    retrieval = ToolsiftToolRetrieval(registry, limit=1)
    assert retrieval.retrieve("weather forecast") == ["get_weather"]
    assert retrieval.retrieve("weather forecast") == ["get_weather"]


def test_the_retrieval_tool_describes_the_catalogue_and_refuses_an_empty_query(registry) -> None:
    retrieval = ToolsiftToolRetrieval(registry)
    assert "500" in (retrieval.retrieve_tools_function.__doc__ or "")
    with pytest.raises(QueryError):
        retrieval.retrieve("  ")


def test_an_abstaining_search_returns_no_id(registry) -> None:
    class Abstaining:
        def __init__(self, result: Any) -> None:
            self._result = result
            self.abstained = True

        def __getattr__(self, name: str) -> Any:
            return getattr(self._result, name)

    retrieval = ToolsiftToolRetrieval(registry)
    real = retrieval._session

    def abstaining_session() -> Any:
        session = real()
        search = session.search
        session.search = lambda *a, **k: Abstaining(search(*a, **k))  # type: ignore[method-assign]
        return session

    retrieval._session = abstaining_session  # type: ignore[method-assign]
    assert retrieval.retrieve("weather forecast") == []


def test_the_langchain_retriever_returns_documents(registry) -> None:
    retriever = ToolsiftRetriever(registry, limit=2)
    documents = retriever.invoke("book a flight")
    assert documents[0].metadata["tool_id"] == "book_flight"
    assert documents[0].page_content == "Book a flight ticket to a city"
    assert documents[0].metadata["abstained"] is False
    missing = retriever.invoke("select:get_weather,nope")
    assert [d.metadata["tool_id"] for d in missing] == ["get_weather"]
    assert missing[0].metadata["missing"] == ["nope"]
    assert retriever.invoke("   ") == []
