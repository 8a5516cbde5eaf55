"""``toolsift search --embed``: hybrid (BM25+ and dense) search from the command line.

The CLI runs in-process (``toolsift.cli.main(argv)``), as in ``test_cli_errors.py``. MiniLM is
real (the ``embed`` extra is part of ``.[test]``); its tool vectors go to one cache directory per
module (``TOOLSIFT_CACHE_DIR``), so the built-in catalogue is embedded once, and the model is
loaded once.
"""

from __future__ import annotations

import functools
import io
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import toolsift.embed
from toolsift import default_tools
from toolsift.hybrid import DEFAULT_DENSE_WEIGHT

from ._cli import cli

QUERY = "open a pull request"
PULL_REQUEST = "mcp__github__create_pull_request"
REASONS = {"hybrid", "bm25", "dense", "select", "exact_name"}
HINT = "pip install 'toolsift[embed]'"


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh vector cache for the module, and one MiniLM model for all its searches."""
    directory = tmp_path_factory.mktemp("toolsift-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOOLSIFT_CACHE_DIR", str(directory))
        patch.setattr(
            toolsift.embed, "get_embedder", functools.lru_cache()(toolsift.embed.get_embedder)
        )
        yield directory


@pytest.fixture(autouse=True)
def no_home_cache(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSIFT_CACHE_DIR", str(cache_dir))  # never ~/.cache/toolsift


def hybrid_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, err, out = cli(capsys, "search", *argv, "--embed", "minilm", "--format", "json")
    assert code == 0 and err == "", err
    report: dict[str, Any] = json.loads(out)
    return report


def rows(out: str) -> list[list[str]]:
    """The ranking lines of the text view, split into columns (header lines dropped)."""
    return [line.split() for line in out.splitlines() if line[:4].strip().isdigit()]


def test_the_pull_request_tool_is_in_the_built_in_catalogue() -> None:
    assert PULL_REQUEST in {t.name for t in default_tools()}


def test_text_view_ranks_pull_request_tools(capsys, cache_dir: Path) -> None:
    code, err, out = cli(capsys, "search", QUERY, "--embed", "minilm", "--limit", "5")
    assert code == 0 and err == "", err
    lines = out.splitlines()
    assert lines[0] == (
        f'Hybrid search of 221 tools for "{QUERY}" '
        f"(minilm, minmax fusion, dense weight {DEFAULT_DENSE_WEIGHT:g})"
    )
    assert lines[1].split() == ["rank", "tool", "score", "reason", "lexical", "cosine"]
    table = rows(out)
    assert [r[0] for r in table] == ["1", "2", "3", "4", "5"]
    assert PULL_REQUEST in [r[1] for r in table[:3]]
    for _, _, score, reason, lexical, cosine in table:
        assert 0.0 <= float(score) <= 1.0
        assert reason in REASONS
        assert lexical == "-" or float(lexical) > 0
        assert cosine == "-" or -1.0 <= float(cosine) <= 1.0
    assert table[0][2] == "1.000"
    # The tool vectors went to TOOLSIFT_CACHE_DIR.
    assert list(cache_dir.glob("all-MiniLM-L6-v2-onnx-int8-*.npy"))


def test_json_view_has_the_fields(capsys) -> None:
    report = hybrid_json(capsys, QUERY)
    assert set(report) == {"mode", "note", "notices", "matches"}
    assert report["mode"] == "hybrid" and report["note"] is None and report["notices"] == []
    matches = report["matches"]
    assert len(matches) == 8  # the default --limit
    for m in matches:
        assert set(m) == {"name", "server", "score", "reason", "lexical", "dense"}
        assert 0.0 <= m["score"] <= 1.0
        assert m["reason"] in REASONS
        assert m["lexical"] is None or m["lexical"] > 0
        assert m["dense"] is None or -1.0 <= m["dense"] <= 1.0
    assert matches[0]["score"] == 1.0 == max(m["score"] for m in matches)
    scores = [m["score"] for m in matches]
    assert scores == sorted(scores, reverse=True)
    assert PULL_REQUEST in [m["name"] for m in matches[:3]]
    first = next(m for m in matches if m["name"] == PULL_REQUEST)
    assert first["server"] == "github" and first["reason"] == "hybrid"


def test_an_exact_tool_name_comes_first(capsys) -> None:
    name = "mcp__github__list_issues"
    assert name in {t.name for t in default_tools()}
    report = hybrid_json(capsys, f"{QUERY} with {name}", "--limit", "3")
    first = report["matches"][0]
    assert (first["name"], first["reason"], first["score"]) == (name, "exact_name", 1.0)
    code, _, out = cli(capsys, "search", name, "--embed", "minilm", "--limit", "3")
    assert code == 0
    assert rows(out)[0][:4] == ["1", name, "1.000", "exact_name"]


def test_fusion_and_weight_options_and_the_lexical_settings(capsys) -> None:
    code, err, out = cli(
        capsys, "search", QUERY, "--embed", "minilm", "--fusion", "rrf", "--dense-weight", "0.5"
    )
    assert code == 0 and err == "", err
    assert out.splitlines()[0].endswith("(minilm, rrf fusion, dense weight 0.5)")
    assert all(0.0 <= float(r[2]) <= 1.0 for r in rows(out))
    # Weight 0: the lexical order, of the index --profile asks for (seed 000's ranking puts
    # merge_pull_request first, as in test_cli.py's keyword search).
    report = hybrid_json(capsys, QUERY, "--dense-weight", "0", "--profile", "omp", "--limit", "2")
    names = [m["name"] for m in report["matches"]]
    assert names == ["mcp__github__merge_pull_request", PULL_REQUEST]


def test_a_limit_above_25_is_clamped_as_in_the_keyword_search(capsys, tmp_path: Path) -> None:
    # One cap for every entry point: 25, or the config's max_limit.
    code, err, out = cli(capsys, "search", QUERY, "--embed", "minilm", "--limit", "30")
    assert code == 0 and err == "", err
    assert len(rows(out)) == 25 and "notice: limit 30 clamped to 25" in out
    report = hybrid_json(capsys, QUERY, "--limit", "30")
    assert report["notices"] == ["limit 30 clamped to 25"] and len(report["matches"]) == 25
    config = tmp_path / "toolsift.toml"
    config.write_text("[tool_search]\nmax_limit = 30\nalways_available = []\n")
    report = hybrid_json(capsys, QUERY, "--limit", "30", "--config", str(config))
    assert report["notices"] == [] and len(report["matches"]) == 30


def test_a_catalogue_file_and_an_empty_one(capsys, tmp_path: Path) -> None:
    tools = [
        {"name": "deploy", "description": "Deploy the service to production"},
        {"name": "rollback", "description": "Roll back the last deployment"},
        {"name": "get_weather", "description": "Current weather for a city"},
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools), "utf-8")
    report = hybrid_json(capsys, "undo the release", "--catalog", str(path), "--limit", "2")
    assert report["matches"][0]["name"] == "rollback"
    empty = tmp_path / "empty.json"
    empty.write_text("[]", "utf-8")
    code, err, out = cli(capsys, "search", "x", "--embed", "minilm", "--catalog", str(empty))
    assert code == 2 and f"{empty}: the catalogue holds no tools" in err, err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--embed", "minilm", "--dense-weight", "1.5"], "--dense-weight must be between 0 and 1"),
        (["--embed", "minilm", "--dense-weight", "nan"], "--dense-weight must be a finite"),
        (["--fusion", "rrf"], "--fusion needs --embed"),
        (["--dense-weight", "0.5"], "--dense-weight needs --embed"),
        (["--embed", "minilm", "--format", "details"], "--format details is a keyword-search"),
        (["--embed", "minilm", "--format", "toolsearch"], "with --embed use --format text or json"),
        (["--embed", "minilm", "--format", "anthropic"], "with --embed use --format text or json"),
        (["--embed", "minilm", "--limit", "0"], "Limit must be a positive integer, got 0."),
        (["--embed", "minilm", "--word-pairs", "-1"], "--word-pairs must be a positive number"),
    ],
)
def test_usage_errors_exit_2(capsys, argv: list[str], message: str) -> None:
    code, err, out = cli(capsys, "search", QUERY, *argv)
    assert code == 2 and out == ""
    assert err.startswith("toolsift: error: ") and message in err
    assert len(err.splitlines()) == 1  # no traceback


def test_an_empty_query_is_an_error(capsys) -> None:
    code, err, _ = cli(capsys, "search", " ", "--embed", "minilm")
    assert (code, err) == (2, "toolsift: error: Query must not be empty.\n")


def test_a_missing_embedder_dependency_prints_the_install_hint(capsys, monkeypatch) -> None:
    message = f"The MiniLM embedder needs the optional dependencies: {HINT} (No module named x)."

    def missing(name: str, **_: Any) -> Any:
        raise ImportError(message)

    monkeypatch.setattr(toolsift.embed, "get_embedder", missing)
    code, err, out = cli(capsys, "search", QUERY, "--embed", "minilm")
    assert (code, err, out) == (2, f"toolsift: error: {message}\n", "")


def test_a_missing_wordllama_names_its_own_package(capsys, monkeypatch) -> None:
    # wordllama is in no extra: the hint must not send the user to toolsift[embed].
    monkeypatch.setitem(sys.modules, "wordllama", None)  # its import fails, as when absent
    code, err, out = cli(capsys, "search", QUERY, "--embed", "wordllama")
    assert code == 2 and out == ""
    assert err.startswith("toolsift: error: The wordllama embedder needs wordllama: ")
    assert "pip install wordllama" in err and "toolsift[embed]" not in err


def test_missing_numpy_prints_the_install_hint(capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "toolsift.hybrid", None)  # its import fails, as without numpy
    code, err, out = cli(capsys, "search", QUERY, "--embed", "minilm")
    assert code == 2 and out == ""
    assert err.startswith("toolsift: error: --embed needs the optional dependencies: ")
    assert HINT in err and len(err.splitlines()) == 1


def test_help_names_the_default_dense_weight(capsys) -> None:
    code, _, out = cli(capsys, "search", "--help")
    assert code == 0
    assert "--embed" in out and "--fusion" in out
    assert f"(default {DEFAULT_DENSE_WEIGHT:g})" in " ".join(out.split())


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_embedding_a_catalogue_draws_progress_on_a_terminal_only() -> None:
    from toolsift.cli import _ProgressEmbedder

    calls: list[int] = []

    def embed(texts: list[str]) -> Any:
        calls.append(len(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)

    embed.model_id = "fake"  # type: ignore[attr-defined]
    texts = [f"tool {i}" * (i % 5 + 1) for i in range(600)]
    terminal = _Terminal()
    wrapped = _ProgressEmbedder(embed, "fake", stream=terminal)
    assert wrapped.model_id == "fake"
    vectors = wrapped(texts)
    assert calls == [256, 256, 88]  # in chunks, in order
    assert np.array_equal(vectors, embed(texts))
    assert "embedding the tools with fake" in terminal.getvalue()
    calls.clear()
    piped = io.StringIO()  # not a terminal: one call, nothing drawn
    assert np.array_equal(_ProgressEmbedder(embed, "fake", stream=piped)(texts), vectors)
    assert calls == [600] and piped.getvalue() == ""
    calls.clear()
    wrapped(["one query"])  # a query goes straight through
    assert calls == [1]


def test_explain_splits_the_lexical_part(capsys) -> None:
    """``--explain`` with ``--embed``: each match's BM25+ part, term by term; cosines unsplit."""
    report = hybrid_json(capsys, QUERY, "--limit", "3", "--explain")
    for match in report["matches"]:
        terms = match["explain"]["terms"]
        if match["lexical"] is None:
            continue
        assert terms and math.isclose(sum(t["contribution"] for t in terms), match["lexical"])
    code, err, out = cli(capsys, "search", QUERY, "--embed", "minilm", "--limit", "2", "--explain")
    assert code == 0, err
    assert "Why: the BM25+ part of each score" in out
    assert f"1. {report['matches'][0]['name']}  BM25+ " in out
