"""The ``toolsift`` command, driven as a user would: a subprocess, real files in tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "NO_COLOR": "1", **env}
    return subprocess.run(
        [sys.executable, "-m", "toolsift", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=120,
    )


def write(path: Path, data) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    return str(path)


@pytest.fixture
def catalogs(tmp_path: Path) -> list[str]:
    mcp = {
        "servers": [
            {
                "name": "slack",
                "summary": "Slack",
                "tools": [
                    {
                        "name": "send_message",
                        "description": "Send a message to a Slack channel",
                        "inputSchema": {"type": "object", "properties": {"channel": {}}},
                    }
                ],
            }
        ]
    }
    openai = [
        {
            "type": "function",
            "function": {"name": "get_weather", "description": "Current weather for a city"},
        }
    ]
    anthropic = [
        {
            "name": "create_ticket",
            "description": "Create a support ticket",
            "input_schema": {"type": "object", "properties": {"title": {"type": "string"}}},
        }
    ]
    records = "\n".join(
        json.dumps({"name": n, "description": d, "input_schema": {"type": "object"}})
        for n, d in [("deploy", "Deploy the service"), ("rollback", "Roll back a deploy")]
    )
    return [
        write(tmp_path / "mcp.json", mcp),
        write(tmp_path / "openai.json", openai),
        write(tmp_path / "anthropic.json", anthropic),
        write(tmp_path / "records.jsonl", records),
    ]


def test_search_the_builtin_catalogue():
    out = run("search", "open a pull request", "--limit", "3")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == 'Found 3 of 221 tools for "open a pull request"'
    assert sum(line.startswith("- github/") for line in lines) == 3
    assert lines[1].endswith("  mcp__github__create_pull_request")  # the name to call
    # OMP search_tool_bm25's ranking (its tokens only) put merge_pull_request first
    out = run("search", "open a pull request", "--limit", "3", "--profile", "omp")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].endswith("  mcp__github__merge_pull_request")
    out = run("search", "open a pull request", "--profile", "klingon")
    assert out.returncode != 0 and "klingon" in out.stderr


def test_search_every_catalogue_format(catalogs):
    args = [arg for path in catalogs for arg in ("--catalog", path)]
    for query, name in [
        ("slack message", "mcp__slack__send_message"),
        ("weather in a city", "get_weather"),
        ("support ticket", "create_ticket"),
        ("roll back", "rollback"),
    ]:
        out = run("search", query, "--limit", "1", "--format", "details", *args)
        assert out.returncode == 0, out.stderr
        details = json.loads(out.stdout)
        assert details["activated_tools"] == [name]
        assert details["total_tools"] == 5


def test_formats(catalogs):
    args = ["search", "deploy", "--catalog", catalogs[3]]
    toolsearch = json.loads(run(*args, "--format", "toolsearch").stdout)
    assert toolsearch["query_kind"] == "keyword" and toolsearch["total_deferred_tools"] == 2
    anthropic = json.loads(run(*args, "--format", "anthropic", "--tool-use-id", "toolu_9").stdout)
    assert anthropic["tool_use_id"] == "toolu_9"
    assert anthropic["content"][0] == {"type": "tool_reference", "tool_name": "deploy"}
    details = run(*args, "--format", "details").stdout
    assert details.startswith('{"query":"deploy","limit":8,') and details.endswith("}\n")


def test_no_match_and_empty_catalogue(tmp_path):
    out = run("search", "zzyzx")
    assert out.stdout.strip() == "No matching tools found."
    empty = write(tmp_path / "empty.json", [])
    out = run("search", "anything", "--catalog", empty)
    assert out.returncode == 2 and f"{empty}: the catalogue holds no tools" in out.stderr


def test_malformed_catalogue_names_file_line_and_field(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"name": "ok", "description": "fine"}\n{"name": "broken", "description": 42}\n', "utf-8"
    )
    out = run("search", "x", "--catalog", str(bad))
    assert out.returncode == 2 and out.stdout == ""
    message = out.stderr.strip()
    assert message.startswith(f"toolsift: error: {bad}:2:")
    assert "'description'" in message and "broken" in message
    assert len(out.stderr.splitlines()) == 1  # no traceback


def test_invalid_json_and_missing_file(tmp_path):
    broken = write(tmp_path / "broken.json", '{"tools": [\n{"name": }\n]}')
    out = run("search", "x", "--catalog", broken)
    assert out.returncode == 2
    assert out.stderr.startswith(f"toolsift: error: {broken}:2: invalid JSON")
    missing = tmp_path / "nope.json"
    out = run("search", "x", "--catalog", str(missing))
    assert out.returncode == 2
    assert (
        out.stderr.strip() == f"toolsift: error: cannot read {missing}: No such file or directory"
    )


def test_bad_query_and_limit_exit_2():
    out = run("search", "???")
    assert out.returncode == 2
    assert out.stderr == "toolsift: error: Query must contain at least one letter or number.\n"
    out = run("search", "weather", "--limit", "0")
    assert out.returncode == 2
    assert out.stderr == "toolsift: error: Limit must be a positive integer, got 0.\n"
    out = run("search", "weather", "--limit", "x")
    assert out.returncode == 2
    assert (
        out.stderr.splitlines()[-1] == "toolsift: error: argument --limit: invalid int value: 'x'"
    )


def test_stats_text_and_json():
    out = run("stats")
    assert out.returncode == 0, out.stderr
    assert "221 tools on 23 servers" in out.stdout
    assert "saved" in out.stdout and "heuristic" in out.stdout
    report = json.loads(run("stats", "--format", "json", "--query", "weather forecast").stdout)
    assert report["tools"] == 221
    assert 1 <= report["activated_tools"] <= 8
    assert (
        report["with_discovery_tokens"] == report["meta_tool_tokens"] + report["activated_tokens"]
    )
    assert report["saved_tokens"] == report["all_tools_tokens"] - report["with_discovery_tokens"]
    assert report["saved_ratio"] > 0.8


def test_stats_of_a_catalogue(catalogs):
    report = json.loads(run("stats", "--format", "json", "--catalog", catalogs[0]).stdout)
    assert report["tools"] == 1 and report["servers"] == 1


def test_progress_bar_only_on_a_terminal(tmp_path):
    # A large catalogue piped: no progress bar, stderr stays empty.
    big = [{"name": f"t{i}", "description": "x " * 400} for i in range(6000)]
    path = write(tmp_path / "big.json", big)
    assert os.path.getsize(path) > 4 * 1024 * 1024
    out = run("search", "x", "--catalog", path, "--limit", "1")
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""


def test_progress_bar_on_a_terminal(tmp_path, monkeypatch):
    import io

    from toolsift import cli

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    small = write(tmp_path / "small.json", [{"name": "a"}])
    big = write(
        tmp_path / "big.json", [{"name": f"t{i}", "description": "x " * 400} for i in range(6000)]
    )
    terminal = Terminal()
    monkeypatch.setattr(cli.sys, "stderr", terminal)
    assert list(cli._progress_paths([small])) == [small]
    assert terminal.getvalue() == ""  # small loads draw nothing
    assert list(cli._progress_paths([small, big])) == [small, big]
    assert "loading big.json" in terminal.getvalue()


def test_a_closed_pipe_is_not_an_error():
    command = [
        sys.executable,
        "-m",
        "toolsift",
        "search",
        "the",
        "--limit",
        "221",
        "--format",
        "toolsearch",
    ]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.read(10)
        process.stdout.close()
        stderr = process.stderr.read()
        assert process.wait(timeout=120) == 0
    assert stderr == b""


def test_eval_without_the_labeled_sets_says_where_to_look(tmp_path):
    proc = run("eval", "--data", str(tmp_path / "absent"))
    assert proc.returncode == 2
    assert "labeled sets were not found" in proc.stderr


def test_eval_prints_the_quality_table_as_json():
    from .conftest import require_shared

    data = require_shared("data")
    proc = run(
        "eval",
        "--data",
        str(data),
        "--datasets",
        "gorilla_hf",
        "--rankers",
        "toolsift",
        "--limit-queries",
        "60",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    text = json.dumps(out)
    assert "gorilla_hf" in text and "ndcg" in text.lower()
