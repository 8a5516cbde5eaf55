"""``toolsift search`` and the help pages: ``--format json``, ``--explain``, the "found" wording,
a description for every command and option, and the spinner of a long index build.

The CLI runs in-process (``toolsift.cli.main``), as in ``test_cli_errors.py``.
"""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import pytest
import toolsift._cli.progress
import toolsift.cli
from toolsift import DiscoverySession, Tool, ToolIndex, default_tools
from toolsift.render import print_details, render_text

from ._cli import cli

QUERY = "open a pull request"


def test_every_command_has_a_description_and_every_option_a_help(capsys) -> None:
    code, _, top = cli(capsys, "--help")
    assert code == 0 and "Search tool catalogues" in top
    for command in ("search", "stats", "eval"):
        code, _, page = cli(capsys, command, "--help")
        assert code == 0
        # argparse prints the description between the usage and the first options heading
        head = page.split("\n\n")[1]
        assert not head.startswith(("positional", "options")), page
        assert len(head.split()) >= 8, head
        parser = toolsift.cli._parser()
        sub = parser._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
        for action in sub._actions:
            assert action.help, f"toolsift {command} {action.option_strings} has no help"


def test_help_uses_no_internal_words(capsys) -> None:
    for argv in (["--help"], ["search", "--help"], ["stats", "--help"], ["eval", "--help"]):
        _, _, page = cli(capsys, *argv)
        assert not re.search(r"seed \d|issue[- ]\d|\.\./shared|seed 00", page), (argv, page)


def test_a_one_off_search_says_found_not_activated(capsys) -> None:
    code, err, out = cli(capsys, "search", QUERY, "--limit", "3")
    assert code == 0, err
    assert out.splitlines()[0] == f'Found 3 of 221 tools for "{QUERY}"'
    assert "ctivated" not in out


def test_render_text_found_and_activated() -> None:
    details = {"query": "q", "total_tools": 4, "tools": [{"name": "a", "score": 1.0}]}
    details["activated_tools"] = ["a"]
    assert render_text(details).splitlines()[0] == 'Activated 1 of 4 discoverable tools for "q"'
    assert render_text(details, found=True).splitlines()[0] == 'Found 1 of 4 tools for "q"'
    drawn = io.StringIO()
    print_details(details, drawn, color=True, found=True)  # rich, as on a terminal
    assert "Found 1 of 4 tools" in drawn.getvalue() and "ctivated" not in drawn.getvalue()


def test_format_json_without_embed(capsys) -> None:
    code, err, out = cli(capsys, "search", QUERY, "--limit", "3", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    expected = ToolIndex(default_tools()).search(QUERY, limit=3)
    assert report["query"] == QUERY and report["query_kind"] == "keyword"
    assert report["total_tools"] == 221
    assert [m["name"] for m in report["matches"]] == expected.names
    assert [m["score"] for m in report["matches"]] == [m.score for m in expected]
    assert {m["server"] for m in report["matches"]} == {"github"}
    assert {m["reason"] for m in report["matches"]} == {"bm25"}
    assert "missing" not in report and "explain" not in report["matches"][0]


def test_format_json_of_a_select_query_lists_missing(capsys) -> None:
    code, err, out = cli(capsys, "search", "select:get_forecast,nope", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["query_kind"] == "select"
    assert [m["name"] for m in report["matches"]] == ["mcp__weather__get_forecast"]
    assert report["missing"] == ["nope"]
    assert report["suggestions"] == {"nope": []}


def test_format_json_suggests_names_for_a_misspelt_select(capsys) -> None:
    """A misspelt ``select:`` name gets the same "did you mean" suggestions in the CLI's JSON as
    the gateway and the agent adapters give the model; a found name gets none."""
    code, err, out = cli(capsys, "search", "select:get_forcast,get_forecast", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    session = DiscoverySession(default_tools())
    expected = session.search("select:get_forcast,get_forecast")
    assert report["missing"] == ["get_forcast"]
    assert report["suggestions"] == {"get_forcast": list(expected.suggestions["get_forcast"])}
    assert report["suggestions"]["get_forcast"][0] == "get_forecast"
    code, err, out = cli(capsys, "search", "pull request " + "x " * 300, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["notices"] == ["query cut to 500 characters"]


def test_explain_json_sums_to_each_score(capsys) -> None:
    argv = ("search", QUERY, "--limit", "4", "--format", "json", "--explain")
    code, err, out = cli(capsys, *argv)
    assert code == 0, err
    index = ToolIndex(default_tools())
    for match in json.loads(out)["matches"]:
        why = match["explain"]
        assert why["score"] == match["score"]
        total = 0.0
        for term in why["terms"]:
            total += term["contribution"]
            assert term["fields"] and all(tf > 0 for tf in term["fields"].values())
        assert total == match["score"]
        expected = index.explain(QUERY, match["name"])
        assert [t["term"] for t in why["terms"]] == [t.display for t in expected.terms]


def test_explain_text_lists_terms_and_fields(capsys) -> None:
    code, err, out = cli(capsys, "search", "weather forecast", "--limit", "1", "--explain")
    assert code == 0, err
    why = out.split("\nWhy: ", 1)[1].splitlines()
    assert why[1].startswith("1. mcp__weather__get_forecast  score ")
    assert why[1].endswith("(ranked by BM25+)")
    terms = [line.split()[0] for line in why[2:]]
    assert terms == ["weather", "weather", "forecast", "forecast"]  # each with its stem
    assert "(stem)" in why[3] and "in name 6, label 4" in why[2]
    contributions = [float(line.split()[1 if "(stem)" not in line else 2]) for line in why[2:]]
    assert math.isclose(sum(contributions), float(why[1].split()[3]), abs_tol=0.01)


def test_explain_of_a_select_query_and_an_exact_name(capsys, tmp_path: Path) -> None:
    code, err, out = cli(capsys, "search", "select:get_forecast", "--explain")
    assert code == 0, err
    assert "(fetched by select:)" in out and "no query term matches this tool" in out
    code, err, out = cli(capsys, "search", "create_pull_request now", "--limit", "2", "--explain")
    assert code == 0, err
    assert "1. mcp__github__create_pull_request" in out
    assert "(the query names it; listed first)" in out


def test_explain_with_a_profile_and_a_catalogue(capsys, tmp_path: Path) -> None:
    catalogue = tmp_path / "tools.json"
    catalogue.write_text(
        json.dumps([{"name": "read_file", "description": "Read a file"}]), encoding="utf-8"
    )
    argv = ("search", "read file", "--catalog", str(catalogue), "--format", "json", "--explain")
    code, err, out = cli(capsys, *argv, "--profile", "omp")
    assert code == 0, err
    terms = json.loads(out)["matches"][0]["explain"]["terms"]
    assert [t["term"] for t in terms] == ["read", "file"]  # the plain profile: no stems


@pytest.mark.parametrize("fmt", ["details", "toolsearch", "anthropic"])
def test_explain_needs_text_or_json(capsys, fmt: str) -> None:
    code, err, out = cli(capsys, "search", QUERY, "--explain", "--format", fmt)
    assert code == 2 and out == ""
    assert "--explain" in err and "--format text or json" in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_large_build_shows_a_spinner_on_a_terminal_only(monkeypatch) -> None:
    tools = [Tool(name=f"tool_{i}", description=f"does thing {i}") for i in range(30)]
    monkeypatch.setattr(toolsift._cli.progress, "PROGRESS_TOOLS", 20)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    session = DiscoverySession(tools, mode="all", always_available=())
    toolsift.cli._build_index(session)
    assert session.prepare() is False  # built already
    assert "indexing 30 tools" in terminal.getvalue()
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    session = DiscoverySession(tools, mode="all", always_available=())
    toolsift.cli._build_index(session)
    assert session.prepare() is False and pipe.getvalue() == ""
    monkeypatch.setattr("sys.stderr", terminal)
    small = DiscoverySession(tools[:5], mode="all", always_available=())
    before = terminal.getvalue()
    toolsift.cli._build_index(small)
    assert terminal.getvalue() == before


def test_search_and_stats_show_the_spinner_on_a_terminal(monkeypatch, capsys) -> None:
    """The session's build, and the explanation index of ``--explain``, each say so."""
    monkeypatch.setattr(toolsift._cli.progress, "PROGRESS_TOOLS", 200)  # the built-in 221 tools
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert toolsift.cli.main(["search", QUERY, "--limit", "1", "--explain"]) == 0
    assert terminal.getvalue().count("indexing 221 tools") >= 2
    assert "mcp__github__create_pull_request" in capsys.readouterr().out
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert toolsift.cli.main(["stats", "--query", QUERY]) == 0
    assert "indexing 221 tools" in terminal.getvalue()
