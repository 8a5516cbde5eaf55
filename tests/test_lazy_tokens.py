"""Schema tokens are counted only when something reads them: auto mode's token threshold (for a
catalogue within its tool threshold) and ``schema_tokens()``. Counting serialises each tool's
JSON, which dominated building a large ``Catalog``; a count, once made, is carried over by the
catalogue's updates (only the new tools are counted)."""

from __future__ import annotations

import pytest
from toolsift import Catalog, DiscoverySession, Tool
from toolsift._session import state
from toolsift.tokens import tool_tokens


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the tools whose tokens are counted, in order."""
    names: list[str] = []

    def counting(tool: Tool) -> int:
        names.append(tool.name)
        return tool_tokens(tool)

    monkeypatch.setattr(state, "tool_tokens", counting)
    return names


def _tools(n: int, words: int = 3, prefix: str = "t") -> list[Tool]:
    return [
        Tool(name=f"{prefix}{i}", description=" ".join(["deploy the service"] * words))
        for i in range(n)
    ]


@pytest.mark.parametrize("mode", ["all", "auto", "mcp-only"])
def test_a_large_catalogue_counts_no_tokens(counted: list[str], mode: str) -> None:
    catalog = Catalog(_tools(100))
    session = catalog.session(mode=mode)  # type: ignore[arg-type]
    session.search("deploy", limit=3)
    private = DiscoverySession(_tools(100), mode=mode)  # type: ignore[arg-type]
    private.search("deploy", limit=3)
    catalog.add_tools(_tools(5, prefix="new"))
    session.search("deploy", limit=3)
    assert counted == []  # 100 tools > auto's 40: the count decides, tokens are not needed


def test_auto_mode_within_its_tool_threshold_reads_the_tokens(counted: list[str]) -> None:
    small, large = _tools(10), _tools(10, words=2_000)  # 10 x ~9,000 tokens > 16,000
    assert Catalog(small).session(mode="auto").effective_mode == "off"
    assert Catalog(large).session(mode="auto").effective_mode == "all"
    assert DiscoverySession(small, mode="auto").effective_mode == "off"
    assert DiscoverySession(large, mode="auto").effective_mode == "all"
    assert len(counted) == 40


def test_a_counted_total_is_carried_over_by_updates(counted: list[str]) -> None:
    catalog = Catalog(_tools(50))
    core = catalog._core  # noqa: SLF001 - the generations themselves
    assert counted == []
    first = core.current.tokens
    assert first == sum(tool_tokens(t) for t in _tools(50))
    assert len(counted) == 50
    catalog.connect_server("mail", [Tool(name="mcp__mail__send", server="mail", description="x")])
    catalog.remove_tools(["t0"])
    gen = core.current
    assert "tokens" in gen._cache  # noqa: SLF001 - carried, not recounted
    assert counted[50:] == ["mcp__mail__send"]
    assert gen.tokens == sum(tool_tokens(e.tool) for e in gen.entries.values())


def test_schema_tokens_counts_on_demand(counted: list[str]) -> None:
    tools = _tools(60)
    session = DiscoverySession(tools)
    assert counted == []
    assert session.schema_tokens() == sum(tool_tokens(t) for t in tools)
    assert len(counted) == 60
    session.schema_tokens()
    assert len(counted) == 60  # counted once a tool
