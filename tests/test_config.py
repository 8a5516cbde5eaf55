"""toolsift.config: one parser for toolsift.toml and the tool_search block of an mcpServers
file, typed errors naming the key and the file, and an atomic save that keeps a .bak."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from toolsift import ConfigError, DiscoverySession, Tool
from toolsift.config import (
    RateLimit,
    ToolSearchConfig,
    load_config,
    load_gateway_config,
    parse_tool_search,
    save_config,
)
from toolsift.metatool import call_meta_tool, meta_tool

from ._cli import cli

FULL_TOML = """
[tool_search]
enabled = true
always_available = ["time", "git/git_status"]
max_results = 3
max_limit = 10
threshold = 0.5
mode = "mcp-only"
profile = "omp"
style = "search-and-call"
gate = false
rate_limit = "5/min"
call_timeout = 12.5
meta_tool_name = "find_tools"

[mcpServers.time]
command = "mcp-server-time"
args = ["--local-timezone", "UTC"]

[mcpServers.remote]
url = "http://127.0.0.1:9000/mcp"
headers = { Authorization = "Bearer x" }
"""


def test_a_full_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "toolsift.toml"
    path.write_text(FULL_TOML)
    config = load_config(path)
    assert config == ToolSearchConfig(
        enabled=True,
        always_available=("time", "git/git_status"),
        max_results=3,
        max_limit=10,
        threshold=0.5,
        mode="mcp-only",
        profile="omp",
        style="search-and-call",
        gate=False,
        rate_limit=RateLimit(5, 60.0),
        call_timeout=12.5,
        meta_tool_name="find_tools",
    )
    gateway = load_gateway_config(path)
    assert [s.name for s in gateway.servers] == ["time", "remote"]
    assert gateway.servers[0].args == ("--local-timezone", "UTC")
    assert gateway.servers[1].transport == "http"
    assert gateway.servers[1].headers == {"Authorization": "Bearer x"}


def test_json_block_and_defaults(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"t": {"command": "x"}}}))
    assert load_config(path) == ToolSearchConfig()
    path.write_text(json.dumps({"tool_search": {"enabled": False}}))
    assert load_config(path).effective_mode == "off"


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"max_result": 3}, "tool_search.max_result is not a known key"),
        ({"max_results": "3"}, "tool_search.max_results must be a positive integer, got '3'"),
        ({"max_results": 0}, "tool_search.max_results must be a positive integer"),
        ({"max_results": 30}, "tool_search.max_results (30) is above max_limit (25)"),
        ({"threshold": -1}, "tool_search.threshold must be a finite number >= 0"),
        ({"threshold": True}, "tool_search.threshold must be a number"),
        ({"enabled": "yes"}, "tool_search.enabled must be true or false"),
        ({"gate": "maybe"}, "tool_search.gate must be true or false"),
        ({"mode": "some"}, "tool_search.mode must be one of off, all, mcp-only, auto"),
        ({"style": "x"}, "tool_search.style must be one of activate, search-and-call"),
        ({"profile": "x"}, "tool_search.profile must be one of"),
        ({"rate_limit": "fast"}, "tool_search.rate_limit must be like '5/min'"),
        ({"always_available": [1]}, "tool_search.always_available must be a list of tool"),
        ({"call_timeout": 0}, "tool_search.call_timeout must be above 0"),
    ],
)
def test_errors_name_the_key_and_the_file(tmp_path: Path, block: dict, message: str) -> None:
    path = tmp_path / "toolsift.json"
    path.write_text(json.dumps({"tool_search": block}))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)
    assert caught.value.path == str(path) and caught.value.key.startswith("tool_search.")
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty"),
        ("[tool_search\n", "not valid TOML"),
        ("tool_search = 3\n", "tool_search must be a table/object"),
        ("[other]\n", "other is not a known key"),
    ],
)
def test_unreadable_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "toolsift.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.toml")


@pytest.mark.parametrize(
    ("servers", "message"),
    [
        ({}, "mcpServers must be a non-empty object"),
        ({"a": {}}, "mcpServers.a must have either a command"),
        ({"a": {"command": "x", "url": "y"}}, "mcpServers.a must have either a command"),
        ({"a": {"command": "x", "args": "y"}}, "mcpServers.a.args must be a list of strings"),
        ({"a": {"command": "x", "cmd": "y"}}, "mcpServers.a.cmd is not a known key"),
        ({"a": {"url": "x", "transport": "ws"}}, "mcpServers.a.transport must be http or sse"),
    ],
)
def test_gateway_config_errors(tmp_path: Path, servers: dict, message: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    with pytest.raises(ConfigError, match=message):
        load_gateway_config(path)


def test_rate_limits() -> None:
    assert RateLimit.parse("5/min") == RateLimit(5, 60.0)
    assert RateLimit.parse("10 / sec") == RateLimit(10, 1.0)
    assert RateLimit.parse("100/hour") == RateLimit(100, 3600.0)
    assert RateLimit.parse("3/10s") == RateLimit(3, 10.0)
    assert str(RateLimit(5, 60.0)) == "5/min" and str(RateLimit(3, 10.0)) == "3/10s"
    assert parse_tool_search({"rate_limit": None}).rate_limit is None
    for bad in ("0/min", "5/fortnight", "5", "/min"):
        with pytest.raises(ValueError):
            RateLimit.parse(bad)


@pytest.mark.parametrize("name", ["toolsift.toml", "mcp.json"])
def test_save_is_atomic_keeps_a_backup_and_the_other_keys(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".toml"):
        path.write_text(FULL_TOML)
    else:
        path.write_text(json.dumps({"mcpServers": {"t": {"command": "x", "env": {"A": "1"}}}}))
    before = path.read_bytes()
    servers = load_gateway_config(path).servers
    config = ToolSearchConfig(max_results=4, gate=False, rate_limit=RateLimit(2, 1.0))
    save_config(config, path)
    assert load_config(path) == config
    assert load_gateway_config(path).servers == servers  # the servers are kept
    assert (tmp_path / f"{name}.bak").read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == sorted([name, f"{name}.bak"])  # no temp file left


def test_save_leaves_the_file_whole_when_writing_fails(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "toolsift.toml"
    save_config(ToolSearchConfig(max_results=2), path)
    before = path.read_bytes()

    def boom(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        save_config(ToolSearchConfig(max_results=6), path)
    assert path.read_bytes() == before
    assert [p for p in os.listdir(tmp_path) if p.endswith(".tmp")] == []


def test_session_from_config(tmp_path: Path) -> None:
    tools = [
        Tool(
            name=f"mcp__s__t{i}", server="s", description=f"shared words {i}", mcp_tool_name=f"t{i}"
        )
        for i in range(40)
    ]
    config = ToolSearchConfig(
        max_results=3, max_limit=5, always_available=("s/t0",), meta_tool_name="find"
    )
    session = DiscoverySession.from_config(config, tools)
    assert (session.default_limit, session.max_limit) == (3, 5)
    assert [t.name for t in session.visible_tools] == ["mcp__s__t0"]
    assert len(session.search("shared words").activated) == 3
    call = call_meta_tool(session, {"query": "shared words", "limit": 100})
    assert len(call.result.activated) == 5 and call.details["limit"] == 5
    schema = meta_tool(session).input_schema["properties"]["limit"]
    assert schema["maximum"] == 5 and "default 3" in schema["description"]
    assert meta_tool(session).name == "find"
    path = tmp_path / "toolsift.toml"
    save_config(config, path)
    assert DiscoverySession.from_config(path, tools).max_limit == 5
    # An explicit argument wins over the config.
    assert DiscoverySession(tools, config=config, max_limit=7).max_limit == 7


def test_cli_reads_the_config(capsys, tmp_path: Path) -> None:
    path = tmp_path / "toolsift.toml"
    path.write_text("[tool_search]\nmax_results = 2\nmax_limit = 3\nalways_available = []\n")
    code, err, out = cli(capsys, "search", "pull request", "--config", str(path))
    assert code == 0, err
    assert out.startswith('Found 2 of 221 tools for "pull request"')
    code, err, out = cli(capsys, "search", "pull request", "--config", str(path), "--limit", "50")
    assert out.startswith("Found 3 of 221")
    path.write_text("[tool_search]\nmax_result = 2\n")
    code, err, _ = cli(capsys, "search", "x", "--config", str(path))
    assert code == 2 and err == (
        f"toolsift: error: {path}: tool_search.max_result is not a known key (known: "
        "allowed_origins, always_available, call_timeout, client_ttl, enabled, gate, max_clients, "
        "max_limit, max_results, meta_tool_name, min_confidence, mode, profile, rate_limit, "
        "regex_tool, semantic, storage, style, threshold, token)\n"
    )


def test_regex_tool_is_a_flag_like_gate() -> None:
    from toolsift.config import parse_tool_search

    assert parse_tool_search({"regex_tool": "on"}).regex_tool is True
    assert parse_tool_search({}).regex_tool is False
    with pytest.raises(ConfigError, match="tool_search.regex_tool"):
        parse_tool_search({"regex_tool": "yes please"})


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_semantic_keys_round_trip(tmp_path: Path, suffix: str) -> None:
    """tool_search.semantic and tool_search.min_confidence survive save and load; the default
    (min_confidence None: the fitted default) is left out of the file."""
    path = tmp_path / f"toolsift{suffix}"
    for config in (
        ToolSearchConfig(semantic=False, min_confidence=0.25),
        ToolSearchConfig(semantic=True, min_confidence=0.0),
        ToolSearchConfig(),
    ):
        save_config(config, path)
        assert load_config(path) == config
    assert "min_confidence" not in path.read_text()
    assert ToolSearchConfig().semantic == "auto" and ToolSearchConfig().min_confidence is None


def test_semantic_keys_are_checked() -> None:
    assert parse_tool_search({"semantic": "on"}).semantic is True
    assert parse_tool_search({"semantic": "off"}).semantic is False
    assert parse_tool_search({"semantic": "auto", "min_confidence": 1}).min_confidence == 1.0
    for block, problem in (
        ({"semantic": "yes"}, 'tool_search.semantic must be true, false or "auto"'),
        ({"semantic": 1}, "tool_search.semantic must be"),
        ({"min_confidence": 1.5}, "tool_search.min_confidence must be between 0 and 1"),
        ({"min_confidence": -0.1}, "tool_search.min_confidence must be a finite number >= 0"),
        ({"min_confidence": "high"}, "tool_search.min_confidence must be a number"),
    ):
        with pytest.raises(ConfigError, match=re.escape(problem)):
            parse_tool_search(block)


def test_storage_urls_are_checked_and_their_password_never_shown(tmp_path) -> None:
    from toolsift.config import ToolSearchConfig, load_config, parse_tool_search, save_config

    config = parse_tool_search({"storage": "rediss://app:hunter2@cache:6380/2"})
    assert config.storage == "rediss://app:hunter2@cache:6380/2"
    assert config.to_dict()["storage"] == "rediss://app:***@cache:6380/2"
    assert "hunter2" not in repr(config)
    assert ToolSearchConfig().storage == "memory://"
    for bad, why in [
        ("mysql://db", "must start with one of memory://, redis://"),
        ("redis://:pw@/0", "names no host: 'redis://:***@/0'"),
        ("redis://cache/x", "the database after the host must be a number"),
        ("memory://here", "must be exactly memory://"),
        (6379, "must be a storage URL"),
    ]:
        with pytest.raises(ConfigError, match="tool_search.storage") as caught:
            parse_tool_search({"storage": bad})
        assert why in str(caught.value) and "pw@" not in str(caught.value)
    # Saving other settings keeps the file's URL, password included (never the masked form).
    path = tmp_path / "toolsift.toml"
    path.write_text('[tool_search]\nstorage = "redis://:hunter2@cache:6379/0"\n')
    save_config(replace(load_config(path), max_results=3), path)
    again = load_config(path)
    assert again.storage == "redis://:hunter2@cache:6379/0" and again.max_results == 3
