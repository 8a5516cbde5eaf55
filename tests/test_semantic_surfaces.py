"""The semantic switch and "nothing fits" on every surface: sessions, catalogue views, the
meta-tool and its JSON contracts, the config, the command line, the FastMCP transform and the
gateway (both styles).

The legacy suite runs with ``TOOLSIFT_SEMANTIC=off`` (see ``conftest.py``); these tests ask for
``semantic=True`` where they need the model. Abstention is forced with ``min_confidence=1``
where a test checks the plumbing rather than the calibration (a confidence of exactly 1 never
happens), and switched off with ``min_confidence=0``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys

import pytest
from toolsift import Catalog, DiscoverySession, Tool, default_tools
from toolsift.config import ToolSearchConfig
from toolsift.contract import (
    anthropic_tool_result,
    search_tool_bm25_content,
    search_tool_bm25_details,
    tool_search_response,
)
from toolsift.metatool import call_meta_tool
from toolsift.session import NO_MATCH_MESSAGE

from ._cli import cli

NO_FIT = "bake a sourdough loaf for the weekend"
FORECAST = "mcp__weather__get_forecast"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    """One semantic catalogue of the built-in tools for the module (vectors built once)."""
    return Catalog(default_tools(), semantic=True)


def _session(**options) -> DiscoverySession:
    return DiscoverySession(default_tools(), semantic=True, **options)


# --- the switch --------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [1, "on", None, "yes"])
def test_semantic_takes_true_false_or_auto(value) -> None:
    with pytest.raises((TypeError, ValueError), match="semantic must be True, False or 'auto'"):
        DiscoverySession(default_tools(), semantic=value)
    with pytest.raises((TypeError, ValueError), match="semantic must be True, False or 'auto'"):
        Catalog(default_tools()[:3], semantic=False).session(semantic=value)


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan")])
def test_min_confidence_is_between_0_and_1(value) -> None:
    with pytest.raises(ValueError, match="min_confidence must be between 0 and 1"):
        DiscoverySession(default_tools(), min_confidence=value)
    with pytest.raises(TypeError, match="min_confidence must be a number"):
        DiscoverySession(default_tools(), min_confidence="high")
    with pytest.raises(ValueError, match="min_confidence must be between 0 and 1"):
        DiscoverySession(default_tools()).search("weather", min_confidence=value)


def test_semantic_off_is_the_lexical_ranking() -> None:
    """semantic=False ranks exactly as BM25+ alone, computes no confidence and so never
    abstains, even at min_confidence=1."""
    lexical = DiscoverySession(default_tools(), semantic=False, min_confidence=1.0)
    found = lexical.search("weather forecast", limit=3)
    assert found.confidence is None and not found.abstained
    assert found.activated[0] == FORECAST
    plain = default_tools()
    from toolsift import ToolIndex

    ranked = ToolIndex(plain, semantic=False).search("weather forecast", 3)
    assert list(found.activated) == [m.tool.name for m in ranked]


def test_semantic_on_reports_a_confidence() -> None:
    session = _session()
    found = session.search("what will the weather be like tomorrow in Paris", limit=3)
    assert isinstance(found.confidence, float) and 0.0 <= found.confidence <= 1.0
    assert FORECAST in found.activated and not found.abstained


# --- nothing fits --------------------------------------------------------------------------------


def test_a_session_abstains_below_min_confidence() -> None:
    session = _session(min_confidence=1.0)
    visible = session.visible_tools
    result = session.search(NO_FIT)
    assert result.abstained and result.message == NO_MATCH_MESSAGE
    assert result.activated == () and result.matches == () and result.already_active == ()
    assert session.visible_tools == visible and session.selected == ()
    assert isinstance(result.confidence, float) and result.confidence < 1.0


def test_min_confidence_0_never_abstains() -> None:
    session = _session(min_confidence=0.0)
    result = session.search(NO_FIT, limit=2)
    assert not result.abstained and len(result.activated) == 2
    # and per search: the session's default is overridden by the call
    other = _session(min_confidence=1.0).search(NO_FIT, limit=2, min_confidence=0)
    assert not other.abstained and len(other.activated) == 2


def test_asearch_takes_min_confidence() -> None:
    session = _session(min_confidence=0.0)
    assert asyncio.run(session.asearch(NO_FIT, min_confidence=1.0)).abstained
    assert not asyncio.run(session.asearch(NO_FIT)).abstained


def test_the_fitted_default_abstains_on_an_unrelated_request() -> None:
    """The default threshold (no min_confidence given) answers "nothing fits" for a request
    no built-in tool serves, and still activates the right tool for one that it serves."""
    session = _session()
    assert session.search(NO_FIT).abstained
    assert FORECAST in session.search("weather forecast for Berlin", limit=3).activated


@pytest.mark.parametrize("query", ["select:get_forecast", "select:mcp__weather__get_forecast"])
def test_select_never_abstains(query: str) -> None:
    result = _session(min_confidence=1.0).search(query)
    assert not result.abstained and result.activated == (FORECAST,)


def test_an_exact_tool_name_never_abstains() -> None:
    result = _session(min_confidence=1.0).search("mcp__weather__get_forecast")
    assert not result.abstained and result.activated[0] == FORECAST


def test_the_meta_tool_answers_no_match() -> None:
    session = _session(min_confidence=1.0)
    call = call_meta_tool(session, {"query": NO_FIT})
    content = json.loads(call.content)
    assert content["activated_tools"] == [] and content["match_count"] == 0
    assert content["no_match"] is True and content["message"] == NO_MATCH_MESSAGE
    assert 0.0 <= content["confidence"] < 1.0
    assert list(content)[:4] == ["query", "activated_tools", "match_count", "total_tools"]
    assert call.details["no_match"] is True and call.details["tools"] == []
    toolsearch = tool_search_response(call.result)
    assert toolsearch["matches"] == [] and toolsearch["no_match"] is True
    block = anthropic_tool_result(call.result, "toolu_1")["content"]
    assert block == [{"type": "text", "text": NO_MATCH_MESSAGE}]


def test_an_answered_search_keeps_the_original_bytes() -> None:
    """The added fields appear only when a search abstained."""
    result = _session(min_confidence=0.0).search("weather forecast", limit=1)
    content = search_tool_bm25_content(result)
    assert content == (
        '{"query":"weather forecast","activated_tools":["mcp__weather__get_forecast"],'
        '"match_count":1,"total_tools":221}'
    )
    assert "no_match" not in search_tool_bm25_details(result)
    assert "no_match" not in tool_search_response(result)


def test_a_catalogue_view_abstains_and_can_turn_semantic_off(catalog: Catalog) -> None:
    view = catalog.session(min_confidence=1.0)
    result = view.search(NO_FIT)
    assert result.abstained and result.activated == () and view.selected == ()
    assert view.search("select:get_forecast").activated == (FORECAST,)
    answered = catalog.session(min_confidence=0.0).search("weather tomorrow in Paris", limit=3)
    assert FORECAST in answered.activated and answered.confidence is not None
    lexical = catalog.session(semantic=False, min_confidence=1.0).search(NO_FIT, limit=2)
    assert lexical.confidence is None and not lexical.abstained
    # semantic=False on a semantic catalogue ranks as a lexical catalogue does, on every path
    plain = Catalog(default_tools(), semantic=False)
    for options in ({}, {"threshold": 0.5}, {"ranker": "keyword"}):
        mine, theirs = catalog.session(semantic=False), plain.session()
        for query in ("is it going to rain tomorrow", "send a slack message", "weather"):
            a, b = mine.search(query, 3, **options), theirs.search(query, 3, **options)
            assert a.activated == b.activated and a.already_active == b.already_active
    rebuilt = catalog.session(semantic=False, rebuild_on_activation=True).search("weather", 3)
    assert rebuilt.activated == plain.session().search("weather", 3).activated
    assert rebuilt.confidence is None
    semantic = catalog.session(rebuild_on_activation=True, min_confidence=1.0).search(NO_FIT)
    assert semantic.abstained and semantic.confidence is not None


def test_a_view_answers_as_a_session_of_its_own(catalog: Catalog) -> None:
    """A catalogue view and a DiscoverySession over the same tools rank alike with semantic on,
    activation (active tools left out) included."""
    view = catalog.session(min_confidence=0.0)
    own = _session(min_confidence=0.0)
    for query in ("send a message to the team channel", "create an issue for the bug", "weather"):
        a, b = view.search(query, limit=3), own.search(query, limit=3)
        assert a.activated == b.activated and a.already_active == b.already_active, query


def test_config_sets_semantic_and_min_confidence(catalog: Catalog) -> None:
    config = ToolSearchConfig(semantic=True, min_confidence=1.0)
    session = DiscoverySession(default_tools(), config=config)
    assert session.min_confidence == 1.0 and session.search(NO_FIT).abstained
    assert catalog.session(config=config).search(NO_FIT).abstained
    # an argument given beside the config wins over it
    assert (
        not DiscoverySession(default_tools(), config=config, min_confidence=0)
        .search(NO_FIT)
        .abstained
    )
    off = DiscoverySession(default_tools(), config=ToolSearchConfig(semantic=False))
    assert off.search("weather").confidence is None


# --- the command line ------------------------------------------------------------------------


def test_cli_semantic_flags(capsys) -> None:
    code, err, out = cli(
        capsys, "search", NO_FIT, "--semantic", "--min-confidence", "1", "--format", "json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["no_match"] is True and report["matches"] == []
    assert report["message"] == NO_MATCH_MESSAGE and 0 <= report["confidence"] < 1
    code, err, out = cli(capsys, "search", NO_FIT, "--semantic", "--min-confidence", "1")
    assert code == 0 and out.startswith(NO_MATCH_MESSAGE)
    code, err, out = cli(capsys, "search", "weather forecast", "--no-semantic", "--format", "json")
    report = json.loads(out)
    assert "confidence" not in report and "no_match" not in report
    assert report["matches"][0]["name"] == FORECAST


def test_cli_semantic_errors(capsys) -> None:
    code, err, _ = cli(capsys, "search", "weather", "--min-confidence", "2")
    assert code == 2 and err == "toolsift: error: --min-confidence must be between 0 and 1, got 2\n"
    code, err, _ = cli(capsys, "search", "weather", "--semantic", "--embed", "minilm")
    assert code == 2 and "--semantic cannot be combined with --embed" in err


def test_cli_reads_the_semantic_config(capsys, tmp_path) -> None:
    path = tmp_path / "toolsift.toml"
    path.write_text("[tool_search]\nsemantic = true\nmin_confidence = 1.0\n")
    code, err, out = cli(capsys, "search", NO_FIT, "--config", str(path), "--format", "json")
    assert code == 0, err
    assert json.loads(out)["no_match"] is True
    # the flags win over the config
    code, err, out = cli(
        capsys, "search", NO_FIT, "--config", str(path), "--no-semantic", "--format", "json"
    )
    assert "no_match" not in json.loads(out)


def test_serve_flags_override_the_config(tmp_path) -> None:
    if sys.version_info < (3, 11):  # pragma: no cover
        pytest.skip("the gateway needs Python 3.11+")
    import argparse

    from toolsift.config import ConfigError
    from toolsift.gateway.commands import _gateway_config, add_parsers

    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {"time": {"command": "mcp-server-time"}},
                "tool_search": {"semantic": True, "min_confidence": 0.5},
            }
        )
    )
    parser = argparse.ArgumentParser()
    add_parsers(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", str(path)])
    settings = _gateway_config(args, str(path)).tool_search
    assert settings.semantic is True and settings.min_confidence == 0.5
    args = parser.parse_args(["serve", str(path), "--no-semantic", "--min-confidence", "0"])
    settings = _gateway_config(args, str(path)).tool_search
    assert settings.semantic is False and settings.min_confidence == 0.0
    args = parser.parse_args(["serve", str(path), "--min-confidence", "3"])
    with pytest.raises(ConfigError, match="--min-confidence must be between 0 and 1"):
        _gateway_config(args, str(path))


# --- the FastMCP transform and the gateway ---------------------------------------------------

_MCP = sys.version_info >= (3, 11)
needs_mcp = pytest.mark.skipif(not _MCP, reason="FastMCP and the MCP SDK need Python 3.11+")


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def _mcp_tools() -> list[dict]:
    """A few built-in tools as a raw tools/list of one server."""
    raw = []
    for tool in default_tools():
        if tool.server == "weather" or tool.server == "github":
            definition = dict(tool.to_mcp())
            definition["name"] = tool.mcp_tool_name
            raw.append(definition)
    return raw


@needs_mcp
def test_transform_answers_nothing_fits() -> None:
    from fastmcp import Client, FastMCP
    from toolsift.integrations.fastmcp import ToolsiftSearchTransform

    def server(**options) -> FastMCP:
        mcp = FastMCP("s")
        for tool in default_tools()[:60]:
            mcp.add_tool(_fastmcp_tool(tool))
        mcp.add_transform(ToolsiftSearchTransform(semantic=True, **options))
        return mcp

    async def scenario() -> None:
        async with Client(server(min_confidence=1.0)) as client:
            result = await client.call_tool_mcp("search_tools", {"query": NO_FIT})
            assert not result.is_error and _text(result) == NO_MATCH_MESSAGE
            chosen = default_tools()[0].name
            found = await client.call_tool_mcp("search_tools", {"query": f"select:{chosen}"})
            assert [t["name"] for t in found.structured_content["result"]] == [chosen]
        async with Client(server(min_confidence=0.0)) as client:
            result = await client.call_tool_mcp("search_tools", {"query": NO_FIT, "limit": 2})
            assert len(result.structured_content["result"]) == 2

    asyncio.run(scenario())


@needs_mcp
def test_transform_takes_the_config() -> None:
    from toolsift.integrations.fastmcp import ToolsiftSearchTransform

    transform = ToolsiftSearchTransform(config=ToolSearchConfig(semantic=False, min_confidence=0.4))
    assert transform._semantic is False and transform._min_confidence == 0.4
    with pytest.raises(ValueError, match="semantic must be"):
        ToolsiftSearchTransform(semantic="yes")  # type: ignore[arg-type]


@functools.cache
def _echo_class():
    """A FastMCP tool that answers with its name (made once: a pydantic class is slow to make)."""
    from fastmcp.tools import Tool as FastMCPTool
    from fastmcp.tools.base import ToolResult

    class _Echo(FastMCPTool):
        async def run(self, arguments):  # type: ignore[override]
            return ToolResult(content=self.name)

    return _Echo


def _fastmcp_tool(tool: Tool):
    return _echo_class()(name=tool.name, description=tool.description, parameters=tool.input_schema)


@needs_mcp
@pytest.mark.parametrize("style", ["activate", "search-and-call"])
def test_gateway_answers_nothing_fits(style: str) -> None:
    from fastmcp import Client
    from toolsift.config import GatewayConfig
    from toolsift.gateway.server import Gateway

    settings = ToolSearchConfig(style=style, semantic=True, min_confidence=1.0)
    gateway = Gateway(GatewayConfig((), settings))
    search = "search_tool_bm25" if style == "activate" else "search_tools"

    async def scenario() -> None:
        await gateway._on_tools("weather", _mcp_tools())
        async with Client(gateway.mcp) as client:
            before = [t.name for t in await client.list_tools()]
            result = await client.call_tool_mcp(search, {"query": NO_FIT})
            assert not result.is_error
            if style == "activate":
                content = json.loads(_text(result))
                assert content["no_match"] is True and content["activated_tools"] == []
                assert content["message"] == NO_MATCH_MESSAGE
            else:
                assert _text(result) == NO_MATCH_MESSAGE
            assert [t.name for t in await client.list_tools()] == before
            found = await client.call_tool_mcp(search, {"query": f"select:{FORECAST}"})
            assert FORECAST in _text(found)

    asyncio.run(scenario())


# --- fallback: the model cannot load ---------------------------------------------------------


@pytest.fixture
def no_model(monkeypatch):
    """The model loader fails (as with the extra missing): remembered failure cleared, the
    once-per-process warnings afresh."""
    from toolsift.semantic import model as model_module

    def broken(cls):
        raise ImportError("no module named 'tokenizers'")

    monkeypatch.setattr(model_module, "_LOADED", {})
    monkeypatch.setattr(model_module, "_WARNED", set())
    monkeypatch.setattr(model_module.StaticEncoder, "load", classmethod(broken))


def test_every_surface_falls_back_to_bm25_with_one_warning(no_model, capsys) -> None:
    """semantic=True on every surface without a model: one SemanticWarning in all, and each
    answers as BM25+ does (no confidence, so nothing abstains, even at min_confidence=1)."""
    from toolsift.errors import SemanticWarning

    lexical = DiscoverySession(default_tools(), semantic=False).search("weather forecast", 3)
    with pytest.warns(SemanticWarning, match=r"BM25\+ only") as caught:
        session = _session(min_confidence=1.0)
        found = session.search("weather forecast", limit=3)
        view = Catalog(default_tools(), semantic=True).session(min_confidence=1.0)
        viewed = view.search("weather forecast", limit=3)
        call = call_meta_tool(_session(min_confidence=1.0), {"query": "weather forecast"})
        code, err, out = cli(capsys, "search", "weather forecast", "--semantic", "--limit", "3")
    assert len(caught) == 1
    assert found.activated == viewed.activated == lexical.activated
    assert found.confidence is None and not found.abstained and not viewed.abstained
    assert call.result.activated and "no_match" not in call.content
    assert code == 0 and FORECAST in out


@needs_mcp
def test_transform_and_gateway_fall_back(no_model) -> None:
    from fastmcp import Client, FastMCP
    from toolsift.config import GatewayConfig
    from toolsift.errors import SemanticWarning
    from toolsift.gateway.server import Gateway
    from toolsift.integrations.fastmcp import ToolsiftSearchTransform

    mcp = FastMCP("s")
    for tool in default_tools()[:60]:
        mcp.add_tool(_fastmcp_tool(tool))
    mcp.add_transform(ToolsiftSearchTransform(semantic=True, min_confidence=1.0))
    settings = ToolSearchConfig(semantic=True, min_confidence=1.0)

    async def scenario() -> None:
        async with Client(mcp) as client:
            query = {"query": "create a ticket", "limit": 2}
            result = await client.call_tool_mcp("search_tools", query)
            assert not result.is_error and len(result.structured_content["result"]) == 2
        gateway = Gateway(GatewayConfig((), settings))
        await gateway._on_tools("weather", _mcp_tools())
        async with Client(gateway.mcp) as client:
            result = await client.call_tool_mcp("search_tool_bm25", {"query": "weather forecast"})
            assert FORECAST in json.loads(_text(result))["activated_tools"]

    with pytest.warns(SemanticWarning, match=r"BM25\+ only") as caught:
        asyncio.run(scenario())
    assert len(caught) == 1


@needs_mcp
def test_gateway_settings_switch_semantic_live() -> None:
    """A new tool_search.semantic (the dashboard's live settings) indexes the catalogue again
    once, keeping every client's activations; a new min_confidence reaches every session."""
    from toolsift.gateway.sessions import SessionRegistry

    registry = SessionRegistry(ToolSearchConfig(semantic=False))
    tools = tuple(t for t in default_tools() if t.server == "weather")
    registry.set_server("weather", tools)
    client = registry.state("c1").session
    assert client.search("select:get_forecast").activated == (FORECAST,)
    assert not registry.shared.index.semantic
    registry.reconfigure(ToolSearchConfig(semantic=True, min_confidence=0.7))
    assert registry.shared.index.semantic and len(registry.shared) == len(tools)
    session = registry.state("c1").session
    assert session.selected == (FORECAST,) and session.min_confidence == 0.7
    assert session.search("is it going to rain in Paris tomorrow").confidence is not None
