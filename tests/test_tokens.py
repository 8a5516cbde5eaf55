"""Token counts: the offline heuristic, and its error against o200k_base where available."""

from __future__ import annotations

import pytest
from toolsift import Tool, default_tools
from toolsift.tokens import CHARS_PER_TOKEN, counter, estimate_tokens, tool_json, tool_tokens


def test_heuristic():
    assert estimate_tokens("") == 0
    assert estimate_tokens("x" * 44) == 10
    assert estimate_tokens("x" * 45) == 11
    tool = Tool(name="ping", description="Check that the server answers.")
    assert tool_tokens(tool) == -(-len(tool_json(tool)) // CHARS_PER_TOKEN)
    assert counter("heuristic") is estimate_tokens
    with pytest.raises(ValueError, match="tokenizer must be"):
        counter("gpt2")  # type: ignore[arg-type]


def test_heuristic_is_within_10_percent_of_o200k_on_the_builtin_catalogue():
    pytest.importorskip("bpe_openai", reason="bpe-openai (toolsift[tokens]) is not installed")
    exact = counter("o200k")
    tools = default_tools()
    real = sum(exact(tool_json(t)) for t in tools)
    estimate = sum(tool_tokens(t) for t in tools)
    assert abs(estimate - real) / real < 0.10
