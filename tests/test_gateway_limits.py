"""The gateway's guards on their own: the token bucket of the search rate limit and the gate's
message; and the docstring examples of the MCP subpackages."""

from __future__ import annotations

import doctest
import importlib
import sys

import pytest
from toolsift.config import RateLimit
from toolsift.gateway.limits import TokenBucket, gate_message, rate_limit_message


def test_token_bucket_refills_evenly() -> None:
    now = [0.0]
    bucket = TokenBucket(RateLimit(5, 60.0), clock=lambda: now[0])
    assert [bucket.take() for _ in range(6)] == [True] * 5 + [False]
    assert bucket.retry_after() == pytest.approx(12.0)
    now[0] = 11.9
    assert not bucket.take()
    now[0] = 12.0
    assert bucket.take() and not bucket.take()
    now[0] = 10_000.0  # a long pause refills to the size, not beyond
    assert [bucket.take() for _ in range(6)] == [True] * 5 + [False]


def test_messages_say_what_to_do() -> None:
    text = gate_message("mcp__git__git_log", "search_tool_bm25")
    assert "'mcp__git__git_log' is not active in this session" in text
    assert '{"query": "select:mcp__git__git_log"}' in text
    assert rate_limit_message(RateLimit(2, 1.0), 0.2) == (
        "Search rate limit exceeded (2/sec for this client): try again in 1 s."
    )


MODULES = ["toolsift.gateway.limits", "toolsift.config"]
if sys.version_info >= (3, 11):
    MODULES += [
        "toolsift.gateway.downstream",
        "toolsift.gateway.sessions",
        "toolsift.gateway.server",
        "toolsift.integrations.fastmcp",
    ]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
