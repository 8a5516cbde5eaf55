"""pytest-benchmark: FastMCP's ``search_tools`` at 2,000 tools, ``ToolsiftSearchTransform`` beside
FastMCP's ``BM25SearchTransform``: the whole call through the in-memory ``Client``, and the
transform's ranking alone. ``benches/bench_mcp.py`` runs the full MCP bench (11.6k tools,
nDCG@10, ``toolsift serve``); ``pytest benches --benchmark-disable`` runs each once as a test."""

from __future__ import annotations

import asyncio
import sys

import pytest

pytest.importorskip("pytest_benchmark")
if sys.version_info < (3, 11):  # pragma: no cover - FastMCP needs 3.11+
    pytest.skip("FastMCP needs Python 3.11+", allow_module_level=True)

from bench_mcp import fastmcp_tools, generated, server  # noqa: E402
from fastmcp import Client  # noqa: E402
from fastmcp.server.transforms.search import BM25SearchTransform  # noqa: E402
from toolsift.integrations.fastmcp import ToolsiftSearchTransform  # noqa: E402

TRANSFORMS = {"toolsift": ToolsiftSearchTransform, "bm25": BM25SearchTransform}
QUERY = "archive a ticket"
TOOLS = fastmcp_tools(generated(2000))


@pytest.mark.benchmark(group="mcp-search_tools-2k")
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_search_tools_call(benchmark, name: str) -> None:
    mcp = server(TOOLS, TRANSFORMS[name]())
    loop = asyncio.new_event_loop()
    client = Client(mcp)
    loop.run_until_complete(client.__aenter__())
    try:

        def call() -> list[str]:
            result = loop.run_until_complete(client.call_tool_mcp("search_tools", {"query": QUERY}))
            return [t["name"] for t in result.structured_content["result"]]

        assert call()[0].endswith("_archive_ticket")  # checked before it is timed
        benchmark(call)
    finally:
        loop.run_until_complete(client.__aexit__(None, None, None))
        loop.close()


@pytest.mark.benchmark(group="mcp-rank-2k")
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_ranking_alone(benchmark, name: str) -> None:
    transform = TRANSFORMS[name]()
    loop = asyncio.new_event_loop()

    def rank() -> list[str]:
        return [t.name for t in loop.run_until_complete(transform._search(TOOLS, QUERY))]

    assert rank()[0].endswith("_archive_ticket")
    benchmark(rank)
    loop.close()
