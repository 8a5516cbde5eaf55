"""Hypothesis fuzzing with hostile input (not only well-formed): catalogues, catalogue files,
queries, options and snapshots. Both engines give the same result or the same typed error, and
no other exception type escapes. (The long campaign, a million inputs per target, is
``fuzz/campaign.py``; see RELIABILITY.md.)"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any, Callable

import pytest
import toolsift
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolsift import Tool, ToolIndex
from toolsift._snapshot import format as _snapshot

from .conftest import HAVE_RUST

#: The documented errors: toolsift's own, and the builtin ones of a wrong argument type or
#: value (an option out of range), an unknown tool (``explain``) or a file that cannot be read.
TYPED = (toolsift.ToolsiftError, TypeError, ValueError, KeyError, OSError)

ENGINES = ["python", "rust"] if HAVE_RUST else ["python"]

pytestmark = pytest.mark.skipif(not HAVE_RUST, reason="compares the Rust engine with the twin")

FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# --- strategies --------------------------------------------------------------------------------

WORDS = ["read", "file", "send", "message", "get", "list", "create", "issue", "search", "x"]

#: Text as a hostile server writes it: any code point (lone surrogates, controls, NUL,
#: combining marks, CJK, right-to-left), long runs of one word, and the overlapping vocabulary.
hostile_text = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF), max_size=30),
    st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join),
    st.builds(lambda w, n: w * n, st.sampled_from(["ay", "ing", "aé", "中文", "+", "select:"]),
              st.integers(1, 3000)),
    st.sampled_from(["", " ", "\x00", "\ud800", "select:", "select:,", "+", "++read", "\u2028"]),
)  # fmt: skip

#: JSON-like values with cycles excluded but deep nesting, huge numbers and odd types included.
json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), hostile_text,
    st.integers(min_value=10**300, max_value=10**400),
)  # fmt: skip
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(hostile_text, inner, max_size=4)
    ),
    max_leaves=20,
)


def _deep(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"items": value}
    return value


hostile_schema = st.one_of(
    json_value,
    st.fixed_dictionaries({"type": st.just("object"), "properties": json_value}),
    st.integers(1, 200).map(_deep),
)

hostile_tool = st.fixed_dictionaries(
    {"name": st.one_of(hostile_text, json_leaf)},
    optional={
        "description": st.one_of(hostile_text, json_leaf),
        "input_schema": hostile_schema,
        "server": st.one_of(hostile_text, json_leaf),
        "mcp_tool_name": hostile_text,
        "search_hint": hostile_text,
        "title": hostile_text,
    },
)

#: An option's hostile values: right and wrong types, out of range, huge, NaN, empty.
hostile_option = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 40), st.integers(10**18, 10**400),
    st.floats(), st.sampled_from(["", "no", "5", b"x", [5], {"a": 1}, ("read_file",), ["slack"]]),
)  # fmt: skip
OPTION_NAMES = [
    "limit", "exclude", "servers", "ranker", "exact_names", "prefix_fraction", "prefix_min_len",
    "max_expansions", "threshold", "relative_floor", "coverage", "normalize", "max_limit",
    "max_query_length",
]  # fmt: skip
hostile_options = st.dictionaries(st.sampled_from(OPTION_NAMES), hostile_option, max_size=3)

# --- outcomes ----------------------------------------------------------------------------------


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """``("ok", value)`` or ``("error", (type, message))``; an untyped exception fails."""
    try:
        return "ok", call()
    except TYPED as exc:
        return "error", (type(exc).__name__, str(exc))


def ranked(result: Any) -> list[tuple[str, float]]:
    return [(m.name, m.score) for m in result]


def same(a: tuple[str, Any], b: tuple[str, Any]) -> None:
    assert a[0] == b[0], (a, b)
    if a[0] == "error":
        assert a[1] == b[1]
        return
    if isinstance(a[1], list) and a[1] and isinstance(a[1][0], tuple):
        assert [n for n, _ in a[1]] == [n for n, _ in b[1]]
        for (_, x), (_, y) in zip(a[1], b[1]):
            assert math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)
    else:
        assert a[1] == b[1]


def _tools(items: list[dict[str, Any]]) -> list[Tool]:
    tools: dict[str, Tool] = {}
    for item in items:
        kind, tool = outcome(lambda item=item: Tool.from_dict(item))
        if kind == "ok":
            tools.setdefault(tool.name, tool)
    return list(tools.values())


BASE = _tools(
    [{"name": f"{a}_{b}", "description": f"{a} the {b} {c}", "server": s}
     for a, b, c, s in [("read", "file", "disk", "fs"), ("send", "message", "chat", "slack"),
                        ("create", "issue", "repo", "github"), ("list", "file", "dir", "fs")]]
)  # fmt: skip


# --- properties --------------------------------------------------------------------------------


@FUZZ
@given(st.lists(hostile_tool, max_size=6), hostile_text)
def test_hostile_catalogues_build_and_search_alike_in_both_engines(items, query) -> None:
    tools = _tools(items)  # Tool creation: a ToolDefinitionError or a tool, never another error

    def run(engine: str) -> Any:
        index = ToolIndex(tools, engine=engine)  # type: ignore[arg-type]
        return ranked(index.search(query)), outcome(lambda: index.to_bytes() and len(index))

    same(*(outcome(lambda e=e: run(e)) for e in ENGINES))


@FUZZ
@given(hostile_text, hostile_options)
def test_hostile_queries_and_options_give_one_outcome_in_both_engines(query, options) -> None:
    results = []
    for engine in ENGINES:
        index = ToolIndex(BASE, engine=engine)  # type: ignore[arg-type]
        results.append(outcome(lambda i=index: ranked(i.search(query, **options))))
    same(*results)
    explain_options = {
        k: v for k, v in options.items()
        if k in ("prefix_fraction", "prefix_min_len", "max_expansions", "max_query_length")
    }  # fmt: skip
    explained = []
    for engine in ENGINES:
        index = ToolIndex(BASE, engine=engine)  # type: ignore[arg-type]
        explained.append(
            outcome(
                lambda i=index: round(i.explain(query, "read_file", **explain_options).score, 9)
            )
        )
    same(*explained)


@FUZZ
@given(st.one_of(
    st.binary(max_size=200),
    st.lists(hostile_tool, max_size=4).map(lambda v: json.dumps(v, default=str).encode()),
    st.lists(hostile_tool, max_size=4).map(
        lambda v: "\n".join(json.dumps(x, default=str) for x in v).encode()
    ),
    st.builds(lambda d: b'{"tools":[{"name":"a","x":' + b"[" * d + b"]" * d + b"}]}",
              st.integers(1, 5000)),
    st.builds(lambda n: b'[{"name":"a","x":' + b"9" * n + b"}]", st.integers(4000, 5000)),
), st.sampled_from([".json", ".jsonl", ".txt"]))  # fmt: skip
def test_hostile_catalogue_files_load_or_raise_a_typed_error(data, suffix) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"tools{suffix}"
        path.write_bytes(data)
        kind, value = outcome(lambda: toolsift.load_catalog(path))
        if kind == "error":
            assert value[0] in ("CatalogError", "ToolDefinitionError", "DuplicateToolError"), value


def _snapshot_of(engine: str) -> bytes:
    return ToolIndex(BASE, engine=engine).to_bytes()  # type: ignore[arg-type]


@FUZZ
@given(st.data())
def test_hostile_snapshots_load_alike_or_raise_a_snapshot_error(data) -> None:
    blob = _snapshot_of("python")
    how = data.draw(st.sampled_from(["flip", "truncate", "metadata"]))
    if how == "flip":
        at = data.draw(st.integers(0, len(blob) - 1))
        blob = blob[:at] + bytes([blob[at] ^ data.draw(st.integers(1, 255))]) + blob[at + 1 :]
    elif how == "truncate":
        blob = blob[: data.draw(st.integers(0, len(blob) - 1))]
    else:  # valid checksums, hostile tool section
        cols, meta = _snapshot.loads(blob)
        lines = meta.split(b"\n")
        i = data.draw(st.integers(0, len(lines) - 1))
        lines[i] = json.dumps(data.draw(json_value), default=str).encode()
        blob = _snapshot.dumps(cols, b"\n".join(lines))

    def run(engine: str) -> Any:
        index = ToolIndex.from_bytes(blob, engine=engine)  # type: ignore[arg-type]
        return ranked(index.search("read file")), [t.name for t in index.tools]

    results = [outcome(lambda e=e: run(e)) for e in ENGINES]
    same(*results)
    if results[0][0] == "error":
        assert results[0][1][0] == "SnapshotError", results[0]
