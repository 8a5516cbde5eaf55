"""User mistakes end in ``toolsift: error: ...`` and a non-zero exit, never a Python traceback.

The CLI runs in-process (``toolsift.cli.main(argv)``); usage errors exit through argparse
(``SystemExit(2)``), the others return 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolsift import CatalogError, load_catalog
from toolsift import evaluate as ev

from ._cli import cli

TOOLS = [
    {"name": "read_file", "description": "Read a file from disk", "input_schema": {}},
    {"name": "send_email", "description": "Send an email message", "input_schema": {}},
]


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def labeled_set(tmp_path: Path, *query_lines: str) -> Path:
    """A ``metatool`` set in ``tmp_path``: two tools and these lines as its queries file."""
    tools = "".join(json.dumps(t) + "\n" for t in TOOLS)
    (tmp_path / "metatool.tools.jsonl").write_text(tools, "utf-8")
    (tmp_path / "metatool.queries.jsonl").write_text("".join(f"{q}\n" for q in query_lines))
    return tmp_path


def eval_cli(capsys: pytest.CaptureFixture[str], data: Path, *argv: str) -> tuple[int, str, str]:
    args = ("eval", "--data", str(data), "--datasets", "metatool", "--rankers", "toolsift")
    return cli(capsys, *args, *argv)


GOOD = '{"query": "read a file", "relevant": ["read_file"]}'


# --- 1. deeply nested JSON ------------------------------------------------------------------


def test_deep_json_document_is_a_catalog_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(deep(100_000))
    with pytest.raises(CatalogError, match="nesting of arrays and objects is too deep") as info:
        load_catalog(path)
    assert str(info.value).startswith(f"{path}:1: invalid JSON:")
    assert (info.value.path, info.value.line) == (str(path), 1)


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_deep_json_lines_row_names_its_line(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"tools{suffix}"
    path.write_text(json.dumps(TOOLS[0]) + "\n" + deep(100_000) + "\n")
    with pytest.raises(CatalogError, match="too deep") as info:
        load_catalog(path)
    assert str(info.value).startswith(f"{path}:2: invalid JSON:")
    assert info.value.line == 2


def test_deep_multiline_document_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[\n" * 5000 + "]\n" * 5000)  # no single line is too deep
    with pytest.raises(CatalogError, match="too deep") as info:
        load_catalog(path)
    assert str(info.value).startswith(f"{path}: invalid JSON:")
    assert (info.value.path, info.value.line) == (str(path), None)


@pytest.mark.parametrize("command", [["search", "read file"], ["stats"]])
def test_cli_deep_catalogue(tmp_path: Path, capsys, command: list[str]) -> None:
    path = tmp_path / "deep.json"
    path.write_text(deep(100_000))
    code, err, out = cli(capsys, *command, "--catalog", str(path))
    assert code == 2
    assert err.startswith(f"toolsift: error: {path}:1: invalid JSON: the nesting")


def test_cli_schema_too_deep_to_process_is_no_traceback(tmp_path: Path, capsys) -> None:
    """Parsed, but nested deeper than a schema may be (``toolsift.limits.MAX_SCHEMA_DEPTH``)."""
    schema: dict = {}
    for _ in range(600):
        schema = {"a": schema}
    tool = {"name": "t", "description": "d", "input_schema": {"properties": {"x": schema}}}
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([tool]))
    code, err, out = cli(capsys, "search", "t", "--catalog", str(path))
    assert code == 2
    assert err.startswith(
        f"toolsift: error: {path}:$[0]: tool 't': field 'input_schema' is nested too deep: "
        "more than 64 levels at ..."
    )
    assert "Traceback" not in err and len(err) < 300


def test_cli_reports_a_recursion_error_cleanly(monkeypatch, capsys) -> None:
    from toolsift import cli as cli_module

    def too_deep(args):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(cli_module, "_search", too_deep)
    code, err, _ = cli(capsys, "search", "x")
    assert (code, err) == (
        2,
        "toolsift: error: a catalogue: a tool definition is nested too deeply to process.\n",
    )


# --- 2. --limit-queries and load_dataset(limit=...) -----------------------------------------


@pytest.mark.parametrize("value", ["0", "-1"])
def test_eval_limit_queries_must_be_positive(tmp_path: Path, capsys, value: str) -> None:
    code, err, out = eval_cli(capsys, labeled_set(tmp_path, GOOD), "--limit-queries", value)
    assert code == 2
    last = err.splitlines()[-1]
    assert (
        last
        == f"toolsift: error: argument --limit-queries: must be a positive integer, got {value}"
    )


def test_eval_limit_queries_must_be_an_int(tmp_path: Path, capsys) -> None:
    code, err, out = eval_cli(capsys, labeled_set(tmp_path, GOOD), "--limit-queries", "x")
    assert code == 2
    assert (
        err.splitlines()[-1] == "toolsift: error: argument --limit-queries: invalid int value: 'x'"
    )


def test_eval_limit_queries_one_works(tmp_path: Path, capsys) -> None:
    code, err, out = eval_cli(
        capsys, labeled_set(tmp_path, GOOD, GOOD), "--limit-queries", "1", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["datasets"]["metatool"]["queries"] == 1


@pytest.mark.parametrize("limit", [0, -1])
def test_load_dataset_limit_must_be_positive(tmp_path: Path, limit: int) -> None:
    with pytest.raises(
        ValueError, match=f"limit must be a positive number of queries, got {limit}"
    ):
        ev.load_dataset("metatool", labeled_set(tmp_path, GOOD), limit=limit)


def test_load_dataset_limit_must_be_an_int(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="limit must be an int or None, got float"):
        ev.load_dataset("metatool", labeled_set(tmp_path, GOOD), limit=1.5)  # type: ignore[arg-type]


# --- 3. malformed queries files -------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message", "field"),
    [
        (
            '{"query": "find papers"}',
            "field 'relevant' (the names of the relevant tools) is missing.",
            "relevant",
        ),
        ("[1]", "a labeled query must be a JSON object, got list.", None),
        ('{"relevant": ["read_file"]}', "field 'query' (the query text) is missing.", "query"),
        ('{"query": 3, "relevant": []}', "field 'query' must be a string, got int.", "query"),
        (
            '{"query": "q", "relevant": "read_file"}',
            "field 'relevant' must be a list of tool names (strings), got str.",
            "relevant",
        ),
        (
            '{"query": "q", "relevant": [1]}',
            "field 'relevant' must be a list of tool names (strings), got list.",
            "relevant",
        ),
        (
            '{"query": "q", "relevant_tools": [{"server": "s"}]}',
            "field 'relevant_tools' must be a list of",
            "relevant_tools",
        ),
        ("not json", "invalid JSON: Expecting value (column 1).", None),
        (
            deep(100_000),
            "invalid JSON: the nesting of arrays and objects is too deep to read.",
            None,
        ),
    ],
)
def test_bad_query_line_names_file_line_and_field(
    tmp_path: Path, capsys, line: str, message: str, field: str | None
) -> None:
    data = labeled_set(tmp_path, GOOD, line)  # the bad line is line 2
    queries = data / "metatool.queries.jsonl"
    with pytest.raises(CatalogError) as info:
        ev.load_dataset("metatool", data)
    assert str(info.value).startswith(f"{queries}:2: {message}")
    assert (info.value.path, info.value.line, info.value.field) == (str(queries), 2, field)
    code, err, out = eval_cli(capsys, data)
    assert code == 2
    assert err.startswith(f"toolsift: error: {queries}:2: {message}")


def test_lenient_mode_needs_relevant_not_relevant_tools(tmp_path: Path) -> None:
    line = '{"query": "q", "relevant_tools": [{"server": null, "name": "read_file"}]}'
    data = labeled_set(tmp_path, line)
    assert len(ev.load_dataset("metatool", data).queries) == 1  # strict: relevant_tools
    with pytest.raises(CatalogError, match=r":1: field 'relevant' .* is missing"):
        ev.load_dataset("metatool", data, strict=False)


def test_queries_file_not_utf8(tmp_path: Path, capsys) -> None:
    data = labeled_set(tmp_path, GOOD)
    queries = data / "metatool.queries.jsonl"
    queries.write_bytes(GOOD.encode() + b'\n{"query": "\xff"}\n')
    code, err, out = eval_cli(capsys, data)
    assert code == 2
    assert err.startswith(f"toolsift: error: {queries}:2: not valid UTF-8")


def test_queries_file_with_bom_and_blank_lines_loads(tmp_path: Path) -> None:
    data = labeled_set(tmp_path)
    (data / "metatool.queries.jsonl").write_text("\ufeff" + GOOD + "\n\n  \n" + GOOD + "\n")
    assert len(ev.load_dataset("metatool", data).queries) == 2


def test_eval_main_raises_catalog_errors_for_the_cli(tmp_path: Path) -> None:
    """Called directly, ``evaluate.main`` leaves a malformed set to its caller (the CLI reports
    it)."""
    import argparse

    parser = argparse.ArgumentParser()
    ev.add_arguments(parser)
    data = labeled_set(tmp_path, "[1]")
    args = parser.parse_args(
        ["--data", str(data), "--datasets", "metatool", "--rankers", "toolsift"]
    )
    with pytest.raises(CatalogError):
        ev.main(args)


def test_eval_unreadable_queries_file(tmp_path: Path, capsys) -> None:
    data = labeled_set(tmp_path, GOOD)
    (data / "metatool.queries.jsonl").unlink()
    (data / "metatool.queries.jsonl").mkdir()
    (data / "gorilla_hf.queries.jsonl").write_text(GOOD)  # so that --data is a labeled-set folder
    code, err, out = eval_cli(capsys, data)
    assert code == 2
    assert (
        err == f"toolsift: error: cannot read {data / 'metatool.queries.jsonl'}: Is a directory\n"
    )


def test_eval_missing_dataset(tmp_path: Path, capsys) -> None:
    data = labeled_set(tmp_path, GOOD)
    code, err, out = cli(
        capsys, "eval", "--data", str(data), "--datasets", "nope", "--rankers", "toolsift"
    )
    assert code == 2
    assert (
        err
        == f"toolsift: error: cannot read {data / 'nope.tools.jsonl'}: No such file or directory\n"
    )


def test_eval_bad_word_pairs_weight(tmp_path: Path, capsys) -> None:
    code, err, out = eval_cli(
        capsys, labeled_set(tmp_path, GOOD), "--rankers", "toolsift+pairs=abc"
    )
    assert code == 2
    assert err == (
        "toolsift: error: ranker 'toolsift+pairs=abc': the word-pairs weight must be a number "
        "(toolsift+pairs=0.1)\n"
    )


def test_eval_without_data_uses_the_error_prefix(tmp_path: Path, capsys) -> None:
    code, err, out = cli(capsys, "eval", "--data", str(tmp_path / "absent"))
    assert code == 2
    assert err.startswith("toolsift: error: the labeled sets were not found.")


# --- 4. stats --limit -----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "-5"])
def test_stats_limit_must_be_positive(tmp_path: Path, capsys, value: str) -> None:
    path = tmp_path / "tools.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in TOOLS))
    for command in (["stats"], ["stats", "--query", "read a file"], ["search", "read a file"]):
        code, err, out = cli(capsys, *command, "--catalog", str(path), "--limit", value)
        assert (code, err, out) == (
            2,
            f"toolsift: error: Limit must be a positive integer, got {value}.\n",
            "",
        )


def test_stats_limit_one_works(tmp_path: Path, capsys) -> None:
    path = tmp_path / "tools.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in TOOLS))
    code, err, out = cli(
        capsys, "stats", "--catalog", str(path), "--limit", "1", "--format", "json"
    )
    assert code == 0, err
    assert json.loads(out)["activated_tools"] == 1
