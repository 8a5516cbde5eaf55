"""``ToolIndex.from_records`` (``toolsift._index.records``, ``rust/build/catalog.rs``) builds
the index that ``ToolIndex(load_tools(...))`` builds: bit-identical engine snapshots, the same
ranked lists and scores, the same ``Match.tool`` values, and the same errors."""

from __future__ import annotations

import json
import string
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
import toolsift
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolsift import ToolIndex
from toolsift._index.persist import tool_names
from toolsift._index.records import SourceTools
from toolsift.errors import CatalogError, ToolDefinitionError, ToolsiftError
from toolsift.loaders import load_catalog, load_tools

pytest.importorskip("toolsift._core")

QUERIES = [
    "read a file",
    "create an issue in a repository",
    "send a slack message",
    "search the web",
    "weather forecast for a city",
    "database query sql",
    "+calendar event",
    "选择 搜索",
]


def _engine_bytes(index: ToolIndex) -> bytes:
    """The engine's own snapshot (no tool section): equal bytes, bit-identical indexes."""
    return bytes(index._index.to_bytes(b""))


def assert_same(fast: ToolIndex, slow: ToolIndex, queries: list[str] = QUERIES) -> None:
    assert [t for t in tool_names(fast._tools, fast._by_name)] == [
        t for t in tool_names(slow._tools, slow._by_name)
    ]
    assert _engine_bytes(fast) == _engine_bytes(slow)
    for query in queries:
        got = fast.search(query, 10)
        want = slow.search(query, 10)
        assert [(m.name, m.score, m.reason) for m in got] == [
            (m.name, m.score, m.reason) for m in want
        ]
        assert [m.tool for m in got] == [m.tool for m in want]
    for name in list(tool_names(slow._tools, slow._by_name))[:: max(1, len(slow) // 50)]:
        assert fast.get(name) == slow.get(name)


CATALOGUES = [
    "mcp_mixed",
    "gorilla_hf",
    "metatool",
    "popular_mcp_servers",
    "codebase_memory_mcp",
]


@pytest.mark.parametrize("profile", ["english", "omp"])
@pytest.mark.parametrize("name", CATALOGUES)
def test_every_shared_catalogue_builds_the_same_index(
    shared_data: Path, name: str, profile: str
) -> None:
    path = shared_data / f"{name}.tools.jsonl"
    if not path.exists():
        pytest.skip(f"{path.name} is not in the shared data")
    slow = ToolIndex(load_catalog(path), profile=profile)  # type: ignore[arg-type]
    from_file = ToolIndex.from_records(path, profile=profile)  # type: ignore[arg-type]
    assert isinstance(from_file._tools, SourceTools)  # the Rust path, not the fallback
    assert_same(from_file, slow)
    data = path.read_bytes()
    assert_same(ToolIndex.from_records(data, profile=profile), slow)  # type: ignore[arg-type]
    dicts = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
    from_dicts = ToolIndex.from_records(dicts, profile=profile)  # type: ignore[arg-type]
    assert isinstance(from_dicts._tools, SourceTools)
    assert_same(from_dicts, ToolIndex(load_tools(dicts), profile=profile))  # type: ignore[arg-type]


def test_the_built_in_catalogue_builds_the_same_index() -> None:
    tools = toolsift.default_tools()
    fast = ToolIndex.from_records([t.to_dict() for t in tools])
    assert isinstance(fast._tools, SourceTools)
    assert_same(fast, ToolIndex(tools))
    assert fast.tools == tuple(tools)


def test_an_mcp_tools_list_with_a_server(tmp_path: Path) -> None:
    result = {
        "server": "github",
        "tools": [
            {
                "name": "create_issue",
                "description": "Create an issue",
                "inputSchema": {"type": "object", "properties": {"title": {"description": "T"}}},
                "annotations": {"title": "New issue"},
            },
            {"name": "list_repos", "inputSchema": None},
        ],
    }
    slow = ToolIndex(load_tools(result))
    data = json.dumps(result).encode()
    fast = ToolIndex.from_records(data)
    assert isinstance(fast._tools, SourceTools)
    assert_same(fast, slow)
    path = tmp_path / "github.json"
    path.write_bytes(data)
    assert_same(ToolIndex.from_records(path), ToolIndex(load_catalog(path)))
    items = result["tools"]
    assert_same(
        ToolIndex.from_records(items, server="gh"), ToolIndex(load_tools(items, server="gh"))
    )


def test_other_forms_and_formats_take_the_loaders_path(tmp_path: Path) -> None:
    openai = [{"type": "function", "function": {"name": "get_weather", "description": "Weather"}}]
    fast = ToolIndex.from_records(openai)
    assert not isinstance(fast._tools, SourceTools)
    assert_same(fast, ToolIndex(load_tools(openai)))
    catalogue = {"servers": [{"name": "fs", "tools": [{"name": "read_file"}]}]}
    assert_same(ToolIndex.from_records(catalogue), ToolIndex(load_tools(catalogue)))
    assert_same(ToolIndex.from_records(openai, engine="python"), ToolIndex(load_tools(openai)))


def test_word_pairs_take_the_rust_path() -> None:
    paired = toolsift.FieldWeights(word_pairs=0.1)
    items = [
        {"name": "a", "description": "Generate a word cloud chart"},
        {"name": "b", "description": "Cloud storage: put a word in a bucket (日本語 word)"},
    ]
    fast = ToolIndex.from_records(items, field_weights=paired)
    assert isinstance(fast._tools, SourceTools)
    assert_same(fast, ToolIndex(load_tools(items), field_weights=paired), ["word cloud"])


@pytest.mark.parametrize(
    "items",
    [
        [{"name": "a"}, {"name": "a"}],  # duplicate
        [{"name": ""}],
        [{"name": "a", "input_schema": {"properties": None}}],
        [{"name": "a", "description": 3}],
        [{"name": "a", "server": "s", "mcp_tool_name": "b"}],
        [{"name": "x", "inputSchema": {}}],  # MCP without a server
        ["not a tool"],
    ],
)
def test_invalid_definitions_raise_the_loaders_errors(items: list[Any], tmp_path: Path) -> None:
    with pytest.raises(ToolDefinitionError) as want:
        load_tools(items)
    with pytest.raises(ToolDefinitionError) as got:
        ToolIndex.from_records(items)
    assert (type(got.value), str(got.value)) == (type(want.value), str(want.value))
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(item) for item in items) + "\n", encoding="utf-8")
    with pytest.raises(ToolsiftError) as want_file:
        load_catalog(path)
    with pytest.raises(ToolsiftError) as got_file:
        ToolIndex.from_records(path)
    assert (type(got_file.value), str(got_file.value)) == (
        type(want_file.value),
        str(want_file.value),
    )


def test_invalid_json_raises_catalog_errors(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"name": "a"}\n{"name": \n', encoding="utf-8")
    with pytest.raises(CatalogError) as want:
        load_catalog(path)
    with pytest.raises(CatalogError) as got:
        ToolIndex.from_records(path)
    assert str(got.value) == str(want.value)
    with pytest.raises(CatalogError, match=r"^<bytes>:2: invalid JSON"):
        ToolIndex.from_records(path.read_bytes())


def test_snapshots_and_updates_of_a_fast_index() -> None:
    items = [
        {"name": "read_file", "description": "Read a file", "server": "fs"},
        {"name": "write_file", "description": "Write a file", "server": "fs"},
    ]
    fast = ToolIndex.from_records(items)
    slow = ToolIndex(load_tools(items))
    assert fast.to_bytes() == slow.to_bytes()
    extra = toolsift.Tool(name="mcp__fs__stat", description="File status", server="fs")
    updated = fast.with_tools(add=[extra], remove=["mcp__fs__write_file"])
    assert_same(updated, slow.with_tools(add=[extra], remove=["mcp__fs__write_file"]))
    assert [m.name for m in fast.search("select:read_file")] == ["mcp__fs__read_file"]


# --- generated definitions ----------------------------------------------------------------------

_words = st.sampled_from(
    ["read", "file", "issue", "send", "message", "éte", "日本語", "😀", "cloud", "a b", " "]
)
_text = st.one_of(
    st.lists(_words, max_size=6).map(" ".join),
    st.text(max_size=30),
)
_name = st.one_of(
    st.text(alphabet=string.ascii_letters + "_-", min_size=1, max_size=8),
    st.text(min_size=0, max_size=8),
)
_schema: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.integers(), st.text(max_size=5), st.booleans()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["properties", "items", "description", "type", "x", "é"]),
            inner,
            max_size=4,
        ),
        st.dictionaries(
            _name, st.fixed_dictionaries({}, optional={"description": _text}), max_size=4
        ).map(lambda props: {"type": "object", "properties": props}),
    ),
    max_leaves=12,
)


@st.composite
def _definition(draw: st.DrawFn) -> dict[str, Any]:
    item: dict[str, Any] = {"name": draw(_name)}
    for key in ("description", "title", "summary", "search_hint", "label", "source"):
        if draw(st.booleans()):
            item[key] = draw(st.one_of(_text, st.none()))
    kind = draw(st.sampled_from(["record", "record_server", "mcp"]))
    if kind == "mcp":
        item["inputSchema"] = draw(_schema)
        if draw(st.booleans()):
            item["annotations"] = {"title": draw(_text)}
    else:
        if draw(st.booleans()):
            item["input_schema"] = draw(_schema)
        if kind == "record_server":
            item["server"] = draw(st.one_of(_name, st.none()))
    return item


def _outcome(build: Any) -> Any:
    try:
        return build()
    except (ToolDefinitionError, CatalogError) as exc:
        return (type(exc), str(exc))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(_definition(), max_size=8),
    server=st.one_of(st.none(), st.sampled_from(["fs", "@ai/slack", "日本"])),
    profile=st.sampled_from(["english", "omp"]),
    query=st.lists(_words, min_size=1, max_size=4).map(lambda w: " ".join(["file", *w])),
)
def test_generated_definitions_build_the_same_index(
    items: list[dict[str, Any]], server: str | None, profile: str, query: str
) -> None:
    want = _outcome(lambda: ToolIndex(load_tools(items, server=server), profile=profile))  # type: ignore[arg-type]
    got = _outcome(lambda: ToolIndex.from_records(items, server=server, profile=profile))  # type: ignore[arg-type]
    if isinstance(want, tuple):
        assert got == want
        return
    assert isinstance(got, ToolIndex)
    queries = [query, "read file"]
    assert_same(got, want, queries)
    try:
        data = "\n".join(json.dumps(item, ensure_ascii=False) for item in items).encode()
    except UnicodeEncodeError:  # a lone surrogate: not a UTF-8 file
        return
    from_bytes = _outcome(lambda: ToolIndex.from_records(data, server=server, profile=profile))  # type: ignore[arg-type]
    assert isinstance(from_bytes, ToolIndex)
    assert_same(from_bytes, want, queries)


@pytest.mark.parametrize(
    ("items", "fast"),
    [
        # Values the extraction never reads are not converted: any Python value is fine there.
        ([{"name": "a", "input_schema": {"enum": {1, 2}, "x": "\ud800"}, "meta": object()}], True),
        ([{"name": "a", "input_schema": {"properties": {"p": {"description": ("t",)}}}}], True),
        ([{"name": "a", "input_schema": {"items": [1], "properties": {"q": None}}}], True),
        # Mappings that are not dicts, and lone surrogates in read text: the loaders' path.
        ([{"name": "a", "input_schema": MappingProxyType({"properties": {"p": {}}})}], False),
        ([{"name": "a", "input_schema": {"properties": MappingProxyType({"p": {}})}}], False),
        ([{"name": "a", "description": "half \ud83d emoji"}], False),
        ([{"name": "a", "input_schema": {"properties": {"\ud800": {}}}}], False),
        (
            [{"name": "a", "inputSchema": {}, "annotations": MappingProxyType({"title": "T"})}],
            False,
        ),
    ],
)
def test_python_values_in_definitions(items: list[Any], fast: bool) -> None:
    want = _outcome(lambda: ToolIndex(load_tools(items, server="s")))
    got = _outcome(lambda: ToolIndex.from_records(items, server="s"))
    if isinstance(want, tuple):
        assert got == want
        return
    assert isinstance(got, ToolIndex)
    assert isinstance(got._tools, SourceTools) is fast
    assert_same(got, want, ["a", "t"])
