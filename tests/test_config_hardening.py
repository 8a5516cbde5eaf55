"""toolsift.config against hostile files and values: rate limits that round-trip, a writer that
keeps the file (TOML comments, JSON order and indentation, symlinks, modes) and only writes the
changed keys, capped limits, regular files only, checked server names and ``${VAR}``."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import ConfigError, default_tools
from toolsift.config import (
    MAX_CONFIG_LIMIT,
    MAX_SERVER_NAME,
    RateLimit,
    ToolSearchConfig,
    check_setting,
    load_config,
    load_gateway_config,
    parse_tool_search,
    save_config,
)
from toolsift.shared_catalog import Catalog
from toolsift.tools import mcp_name

from ._cli import cli

replace_config = dataclasses.replace

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


# --- rate limits --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds", "written"),
    [
        ("1/1000000s", 1_000_000, "1/1000000s"),
        ("5/1000h", 3_600_000, "5/3600000s"),
        ("3/1234567s", 1_234_567, "3/1234567s"),
        ("2/90m", 5_400, "2/5400s"),
        ("7/hour", 3_600, "7/hour"),
    ],
)
def test_rate_limits_are_written_as_whole_seconds_and_read_back(
    tmp_path: Path, text: str, seconds: int, written: str
) -> None:
    """A large period was written as ``1/1e+06s``, which the parser refuses: the saved file
    no longer loaded."""
    limit = RateLimit.parse(text)
    assert limit.per_seconds == seconds and str(limit) == written
    assert RateLimit.parse(str(limit)) == limit
    path = tmp_path / "toolsift.toml"
    save_config(ToolSearchConfig(rate_limit=limit), path)
    assert load_config(path).rate_limit == limit


@pytest.mark.parametrize(
    "text", ["1/" + "9" * 400 + "s", "1/400d", "1/9000h", "1/0s", "0/min", "9" * 30 + "/min"]
)
def test_absurd_rate_limits_are_refused(text: str) -> None:
    """A 400-digit period parsed to ``inf`` and the rate-limit message then overflowed."""
    with pytest.raises(ConfigError, match=r"tool_search\.rate_limit"):
        parse_tool_search({"rate_limit": text})


@pytest.mark.parametrize("seconds", [math.inf, math.nan, 0.5, -1.0, 1e12])
def test_a_rate_limit_object_needs_a_finite_whole_period(seconds: float) -> None:
    with pytest.raises(ValueError, match="period"):
        RateLimit(1, seconds)


# --- limits ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["max_limit", "max_results"])
@pytest.mark.parametrize("value", [2**64, 10**40, MAX_CONFIG_LIMIT + 1])
def test_huge_limits_are_refused_with_the_cap(key: str, value: int) -> None:
    block = {"max_limit": MAX_CONFIG_LIMIT, key: value}
    with pytest.raises(ConfigError, match=f"tool_search.{key} must be an integer from 1 to 10,000"):
        parse_tool_search(block)
    assert parse_tool_search({"max_limit": MAX_CONFIG_LIMIT}).max_limit == MAX_CONFIG_LIMIT


@pytest.mark.parametrize("limit", [2**64, 10**30])
def test_the_catalogue_view_clamps_a_huge_limit_on_both_engines(limit: int) -> None:
    """The Rust catalogue view raised ``OverflowError`` for a limit of 2**64; the Python engine
    clamped it."""
    found = {}
    for engine in ("rust", "python"):
        catalog = Catalog(default_tools(), engine=engine)
        explicit = catalog.session(max_limit=limit).search("create a calendar event", limit)
        default = catalog.session(max_limit=limit, default_limit=limit)
        found[engine] = [m.tool.name for m in explicit.matches]
        by_default = default.search("create a calendar event").matches
        assert [m.tool.name for m in by_default] == found[engine]
    assert found["rust"] == found["python"] and found["rust"]


def test_call_timeout_has_one_rule() -> None:
    assert check_setting("call_timeout", 2) == 2.0
    for bad in (math.inf, math.nan, -1.0, 0):
        with pytest.raises(ConfigError, match="call_timeout"):
            check_setting("call_timeout", bad)


# --- the writer -----------------------------------------------------------------------------------

COMMENTED = """\
# Gateway for my laptop.
[mcpServers.time]  # the clock
command = "mcp-server-time"
added = 1979-05-27T07:32:00Z

[tool_search]
# keep it short
max_results = 3   # three is plenty
gate = false
"""


def test_toml_save_keeps_comments_formatting_and_datetimes(tmp_path: Path) -> None:
    """Every save rewrote the file from scratch (comments lost), and a TOML datetime raised
    ``TypeError``."""
    path = tmp_path / "toolsift.toml"
    path.write_text(COMMENTED)
    save_config(replace_config(load_config(path), max_results=4), path)
    assert path.read_text() == COMMENTED.replace("max_results = 3 ", "max_results = 4 ")
    save_config(replace_config(load_config(path), rate_limit=RateLimit(2, 60.0)), path)
    text = path.read_text()
    assert text.startswith(COMMENTED.split("[tool_search]")[0])
    assert text.endswith('gate = false\nrate_limit = "2/min"\n')
    save_config(replace_config(load_config(path), rate_limit=None), path)
    assert "rate_limit" not in path.read_text() and "# keep it short" in path.read_text()


def test_json_save_writes_only_the_changed_keys_in_the_files_layout(tmp_path: Path) -> None:
    """A 3-key file became 13 keys (every default), re-indented with 2 spaces."""
    path = tmp_path / "mcp.json"
    original = {
        "mcpServers": {"time": {"command": "mcp-server-time", "args": ["-v"]}},
        "tool_search": {"max_results": 3, "gate": False, "mode": "all"},
    }
    path.write_text(json.dumps(original, indent=4) + "\n")
    save_config(replace_config(load_config(path), max_results=5), path)
    text = path.read_text()
    saved = json.loads(text)
    assert list(saved) == ["mcpServers", "tool_search"]
    assert saved["tool_search"] == {"max_results": 5, "gate": False, "mode": "all"}
    assert '\n    "mcpServers"' in text and '\n            "command"' in text
    assert text.endswith("}\n")


def test_toml_save_escapes_what_toml_requires(tmp_path: Path) -> None:
    """Keys outside the BMP were written as surrogate pairs and DEL raw: invalid TOML."""
    path = tmp_path / "toolsift.toml"
    path.write_text('[mcpServers."🚀 rocket"]\ncommand = "x"\nenv = { "K🚀" = "v" }\n')
    config = ToolSearchConfig(meta_tool_name="find\x7f🚀\x01", always_available=("🚀 rocket",))
    save_config(config, path)
    assert load_config(path) == config
    assert tomllib.loads(path.read_text())["mcpServers"]["🚀 rocket"]["env"] == {"K🚀": "v"}


JSON_TEXT = '{\n\t"mcpServers": {"a": {"command": "x"}},\n\t"tool_search": {"gate": false}\n}\n'


# A quarter of the profile's examples: each one writes 4 files through tomlkit (~5 ms each).
@settings(max_examples=max(10, settings().max_examples // 4))
@given(
    name=st.text(min_size=1).filter(lambda s: s.strip() == s and s),
    always=st.lists(st.text(min_size=1), max_size=4),
)
def test_any_unicode_values_round_trip_through_both_writers(name: str, always: list[str]) -> None:
    """save_config's text (new file, or an existing one changed) reads back as the config; the
    disk is left out (the file tests above cover it) so that many examples run fast."""
    from unittest import mock

    from toolsift._config_read import parse_config_text

    config = ToolSearchConfig(meta_tool_name=name, always_available=tuple(always))
    for file, existing in (("t.toml", COMMENTED), ("m.json", JSON_TEXT)):
        for text in ("", existing):
            written: list[str] = []

            def write(_file: str, new: str, check: object, out: list[str] = written) -> None:
                check(new)  # type: ignore[operator]  # parses it back, compares
                out.append(new)

            with (
                mock.patch("toolsift.config._read_text", return_value=(file, text)),
                mock.patch("toolsift.config.os.path.exists", return_value=bool(text)),
                mock.patch("toolsift.config.write_atomic", write),
            ):
                save_config(config, file)
            doc = parse_config_text(file, written[0])
            assert parse_tool_search(doc["tool_search"]) == config
            if text:
                assert doc["mcpServers"] == parse_config_text(file, text)["mcpServers"]


def test_save_keeps_a_symlink_and_the_files_mode(tmp_path: Path) -> None:
    """The link was replaced by a regular file (the target kept the old settings) and the mode
    became 0600."""
    real = tmp_path / "dotfiles" / "toolsift.toml"
    real.parent.mkdir()
    real.write_text("[tool_search]\nmax_results = 3\n")
    real.chmod(0o640)
    link = tmp_path / "toolsift.toml"
    link.symlink_to(real)
    save_config(ToolSearchConfig(max_results=6), link)
    assert link.is_symlink() and load_config(real).max_results == 6
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(os.listdir(real.parent)) == ["toolsift.toml", "toolsift.toml.bak"]


def test_save_refuses_text_that_would_not_read_back(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    with pytest.raises(ConfigError, match="not valid Unicode"):
        save_config(ToolSearchConfig(meta_tool_name="bad\ud800"), path)
    assert not path.exists() and os.listdir(tmp_path) == []


# --- reading --------------------------------------------------------------------------------------


def test_the_reader_refuses_devices_fifos_and_directories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``/dev/zero`` ate all memory (MemoryError) and a FIFO hung forever."""
    fifo = tmp_path / "mcp.toml"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo), str(tmp_path)):
        with pytest.raises(ConfigError, match="is not a regular file"):
            load_config(path)
        for argv in (["serve", path], ["search", "x", "--config", path]):
            code, err, _ = cli(capsys, *argv)
            assert code == 2 and err.startswith(f"toolsift: error: {path}: is not a regular")


def test_the_reader_caps_the_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolsift import _config_read

    path = tmp_path / "toolsift.toml"
    path.write_text("[tool_search]\nmax_results = 3\n" + "#" * 100 + "\n")
    monkeypatch.setattr(_config_read, "MAX_CONFIG_BYTES", 64)
    with pytest.raises(ConfigError, match="over the config file size cap of 64"):
        load_config(path)


# --- servers -------------------------------------------------------------------------------------


def _servers(tmp_path: Path, servers: dict[str, object]) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


@pytest.mark.parametrize(
    ("names", "problem"),
    [
        (["", "ok"], "is not a valid server name"),
        (["  "], "is not a valid server name"),
        (["x" * (MAX_SERVER_NAME + 1)], f"(at most {MAX_SERVER_NAME})"),
    ],
)
def test_server_names_are_checked_when_loading(
    tmp_path: Path, names: list[str], problem: str
) -> None:
    """Such names were accepted and failed at run time, in a reconnect loop."""
    path = _servers(tmp_path, {n: {"command": "x"} for n in names})
    with pytest.raises(ConfigError) as caught:
        load_gateway_config(path)
    assert problem in str(caught.value) and str(path) in str(caught.value)
    assert load_gateway_config(_servers(tmp_path, {"x" * MAX_SERVER_NAME: {"command": "x"}}))


def test_server_names_that_differ_only_in_punctuation_get_their_own_names(tmp_path: Path) -> None:
    """Canonical names are injective: ``a.b``, ``a_b``, ``a b`` and ``a/b`` once collided (and
    failed at run time, in a reconnect loop); each now has a name of its own."""
    names = ["a.b", "a_b", "a b", "a/b"]
    config = load_gateway_config(_servers(tmp_path, {n: {"command": "x"} for n in names}))
    assert [s.name for s in config.servers] == names
    assert len({mcp_name(n, "tool") for n in names}) == len(names)


def test_variables_are_expanded_in_args_env_url_and_headers(tmp_path: Path) -> None:
    servers = {
        "local": {
            "command": "${NOT_EXPANDED}",
            "args": ["--root", "${ROOT}/data", "$${LITERAL}", "$PLAIN"],
            "env": {"TOKEN": "${TOKEN}", "LEVEL": "${LEVEL:-info}"},
        },
        "remote": {"url": "${BASE:-http://127.0.0.1:9}/mcp", "headers": {"A": "Bearer ${TOKEN}"}},
    }
    path = _servers(tmp_path, servers)
    environ = {"ROOT": "/srv", "TOKEN": "s3cr$t ${ROOT}"}
    local, remote = load_gateway_config(path, environ=environ).servers
    assert local.command == "${NOT_EXPANDED}"
    assert local.args == ("--root", "/srv/data", "${LITERAL}", "$PLAIN")
    assert local.env == {"TOKEN": "s3cr$t ${ROOT}", "LEVEL": "info"}  # never expanded twice
    assert remote.url == "http://127.0.0.1:9/mcp" and remote.headers == {
        "A": "Bearer s3cr$t ${ROOT}"
    }
    with pytest.raises(
        ConfigError, match=r"mcpServers.local.env.TOKEN: the environment variable TOKEN is not set"
    ):
        load_gateway_config(path, environ={"ROOT": "/srv"})
    bad = _servers(tmp_path, {"s": {"command": "x", "args": ["${1BAD}"]}})
    with pytest.raises(ConfigError, match=r"mcpServers.s.args: '\$\{' must start a reference"):
        load_gateway_config(bad, environ={})


def test_saving_keeps_unexpanded_references(tmp_path: Path) -> None:
    path = _servers(tmp_path, {"s": {"command": "x", "env": {"T": "${TOKEN}"}}})
    save_config(ToolSearchConfig(max_results=2), path)
    assert json.loads(path.read_text())["mcpServers"]["s"]["env"] == {"T": "${TOKEN}"}
