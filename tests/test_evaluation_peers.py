"""The end-to-end peers of the semantic benchmark: FastMCP's ``BM25SearchTransform`` ranking
(scored over postings, checked equal to FastMCP's own loop) and tantivy."""

from __future__ import annotations

import sys

import pytest
from toolsift import default_tools
from toolsift.evaluation import peers

QUERIES = [
    "open a pull request",
    "send a message to a slack channel",
    "read the contents of a file",
    "what's the weather in Paris tomorrow",
    "the the the a",  # repeated and common tokens: repeats count in FastMCP's scoring
    "kubernetes pod logs crash",
    "???",
    "",
]


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.mark.skipif(sys.version_info < (3, 11), reason="FastMCP needs Python 3.11+")
def test_fastmcp_ranking_equals_fastmcps_own(tools):
    pytest.importorskip("fastmcp")
    rank = peers._fastmcp_bm25_ranker(tools)
    for query in QUERIES:
        for k in (1, 5, 100):
            assert rank(query, k) == rank.index.query(query, k), (query, k)  # type: ignore[attr-defined]
    assert rank("open a pull request", 3)[0] == next(
        i for i, t in enumerate(tools) if t.name == "mcp__github__create_pull_request"
    )


@pytest.mark.skipif(sys.version_info < (3, 11), reason="FastMCP needs Python 3.11+")
def test_fastmcp_ranking_runs_fastmcps_own_transform(tools):
    """The documents are the ones FastMCP's transform builds from the listed tools: its own
    ``_search`` over the same tools returns the same names."""
    import asyncio

    pytest.importorskip("fastmcp")
    from fastmcp.server.transforms.search import BM25SearchTransform
    from fastmcp.tools.base import Tool as FastMCPTool

    listed = [
        FastMCPTool(
            name=t.name, description=t.description, parameters=dict(t.to_mcp()["inputSchema"])
        )
        for t in tools
    ]
    transform = BM25SearchTransform(max_results=10)
    rank = peers._fastmcp_bm25_ranker(tools)
    for query in QUERIES[:6]:
        theirs = asyncio.run(transform._search(listed, query))
        assert [tools[i].name for i in rank(query, 10)] == [t.name for t in theirs], query


def test_tantivy_ranks_the_obvious_tool_first(tools):
    pytest.importorskip("tantivy")
    rank = peers._tantivy_ranker(tools)
    names = [t.name for t in tools]
    assert names[rank("create a pull request", 5)[0]] == "mcp__github__create_pull_request"
    assert names[rank("kubernetes pod logs", 5)[0]] == "mcp__kubernetes__get_pod_logs"
    # query syntax in a request is read as words, never as an error
    assert rank('title:"x" AND (slack OR -email) field:value ^2', 5)
    assert rank("???", 5) == [] and rank("", 5) == []
    assert len(rank("file", 100)) <= 100


def test_toolsift_eval_has_a_semantic_ranker(tools):
    pytest.importorskip("numpy")
    from toolsift.evaluation.rankers import make_ranker

    rank = make_ranker("toolsift-semantic", tools)
    names = [t.name for t in tools]
    assert names[rank("open a pull request", 5)[0]] == "mcp__github__create_pull_request"
    assert len(rank("send a message to the team", 30)) == 30  # k beyond the agent-facing cap
    assert rank("???", 5) == []
