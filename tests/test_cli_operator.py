"""The command line for an operator: ``search --config`` over a config's servers, ``catalog``
with unreachable servers (a warning, or ``--strict``) and a safe temporary file, checked
``--call-timeout``, help pages that show defaults, and ``docs/cli.md`` covering every command."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from ._cli import cli

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
COMMANDS = ("search", "stats", "eval", "serve", "catalog", "dashboard")


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0", "1e400", "soon"])
def test_call_timeout_is_checked_by_the_configs_rule(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """``--call-timeout inf`` was accepted: the dashboard's settings then answered 500."""
    code, err, _ = cli(capsys, "serve", "mcp.json", "--call-timeout", value)
    assert code == 2
    assert (
        f"argument --call-timeout: must be a finite number of seconds above 0, got {value!r}" in err
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_a_description_and_shows_defaults(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code, _, out = cli(capsys, command, "--help")
    assert code == 0
    usage, _, rest = out.partition("\n\n")
    assert rest.split("\n\n")[0].strip() and not rest.startswith(("positional", "options"))
    if command in ("serve", "dashboard"):
        assert "(default: 127.0.0.1)" in out and "(default: 8765)" in out
    if command == "serve":
        assert "(default: stdio)" in out


def _options(capsys: pytest.CaptureFixture[str], command: str) -> set[str]:
    _, _, out = cli(capsys, command, "--help")
    return set(re.findall(r"^ {2}(?:-\w, )?(--[a-z][a-z0-9-]+)", out, re.M)) - {"--help"}


def test_the_cli_page_documents_every_command_and_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    _, _, top = cli(capsys, "--help")
    listed = re.search(r"\{([a-z,]+)\}", top)
    assert listed is not None and set(listed.group(1).split(",")) == set(COMMANDS)
    sections = dict(re.findall(r"^## `toolsift (\w+)`\n(.*?)(?=^## |\Z)", page, re.M | re.S))
    assert set(sections) == set(COMMANDS)
    shared = page.split("\n## ", 1)[0]  # the catalogue options of search and stats
    for command in COMMANDS:
        text = sections[command] + (shared if command in ("search", "stats") else "")
        missing = {o for o in _options(capsys, command) if f"`{o}" not in text}
        assert not missing, f"docs/cli.md, toolsift {command}: {sorted(missing)}"


# --- the MCP commands against a real server and a broken one ------------------------------------


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("fastmcp", reason="the MCP commands need the MCP extra")
    path = tmp_path_factory.mktemp("operator") / "mcp.json"
    servers = {
        "time": {"command": PY, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
        "broken": {"command": PY, "args": ["-c", "import sys"]},
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def test_search_with_a_config_searches_its_servers(
    capsys: pytest.CaptureFixture[str], config: Path
) -> None:
    """``search --config mcp.json`` searched the built-in demo catalogue instead."""
    code, err, out = cli(capsys, "search", "current time in a timezone", "--config", str(config))
    assert code == 0, err
    assert out.startswith('Found 2 of 2 tools for "current time in a timezone"')
    assert "mcp__time__get_current_time" in out and "github" not in out
    assert "toolsift: warning: Server 'broken': cannot list its tools" in err


def test_catalog_writes_the_servers_it_reached_through_a_fresh_temporary_file(
    capsys: pytest.CaptureFixture[str], config: Path, tmp_path: Path
) -> None:
    """One unreachable server failed the whole command; and the output went through a fixed
    ``OUT.tmp``, following a symlink planted there."""
    out = tmp_path / "tools.jsonl"
    victim = tmp_path / "victim"
    (tmp_path / "tools.jsonl.tmp").symlink_to(victim)
    code, err, _ = cli(capsys, "catalog", "--config", str(config), "-o", str(out), "--strict")
    assert code == 2 and "Server 'broken': cannot list its tools" in err and not out.exists()
    code, err, _ = cli(capsys, "catalog", "--config", str(config), "-o", str(out))
    assert code == 0, err
    assert "toolsift: warning: Server 'broken'" in err and "2 tools of 1 of 2 servers" in err
    assert {json.loads(line)["server"] for line in out.read_text().splitlines()} == {"time"}
    assert not victim.exists() and (tmp_path / "tools.jsonl.tmp").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tools.jsonl", "tools.jsonl.tmp"]
