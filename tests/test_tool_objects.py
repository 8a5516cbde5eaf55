"""The compiled loader (``rust/bindings/tool_objects.rs``, ``toolsift._loaders.compiled``) makes the
tools the Python loaders make: on arbitrary items (any Unicode, lone surrogates, blank and
over-long names, values of the wrong type, nested and oversized schemas, duplicates, every
document shape), ``load_tools``, ``from_mcp``, ``from_records`` and ``load_catalog`` give equal
tools, field by field (derived fields and value types included), or the same error as with the
compiled loader switched off; and it does take the plain items it is meant for."""

from __future__ import annotations

import dataclasses
import json
import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolsift import Tool, loaders
from toolsift._loaders.compiled import compiled_tools
from toolsift._loaders.formats import _mcp_item, _record_item
from toolsift.errors import ToolsiftError
from toolsift.limits import MAX_NAME_LENGTH, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES
from toolsift.loaders import from_mcp, from_records, load_catalog, load_tools
from toolsift.tools import mcp_name

pytest.importorskip("toolsift._core")

#: Every field of a Tool, derived ones included, in order: what the compiled loader must set.
_FIELDS = tuple(f.name for f in dataclasses.fields(Tool))

# Characters that matter: ASCII, spaces Python's isspace knows (and one it does not), Latin-1,
# CJK, astral (two UTF-16 units), and lone surrogates (which UTF-8 cannot encode).
_CHARS = st.one_of(
    st.sampled_from("aZ09_-./@ \t\n\x1c\x85\u00a0\u200b\u3000é中😀\ud800\udfff"),
    st.characters(exclude_categories=()),
)
_TEXT = st.text(_CHARS, max_size=12)
_LONG_TEXT = st.text(st.sampled_from("ab 中😀"), min_size=95, max_size=210)
_NAME = st.one_of(
    _TEXT,
    st.sampled_from(
        ["read_file", "", " ", "\u3000", "mcp__srv__", "mcp__srv__x", "mcp__a_b__y", "a b"]
    ),
    st.sampled_from(["x" * MAX_NAME_LENGTH, "x" * (MAX_NAME_LENGTH + 1)]),
)
_WRONG = st.one_of(st.integers(), st.booleans(), st.lists(st.none(), max_size=1))
_OPTIONAL_TEXT = st.one_of(st.none(), _TEXT, _LONG_TEXT, _WRONG)
_LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _TEXT)
_JSON = st.recursive(
    _LEAF,
    lambda inner: (
        st.lists(inner, max_size=3) | st.tuples(inner) | st.dictionaries(_TEXT, inner, max_size=3)
    ),
    max_leaves=8,
)
_PROPERTIES = st.one_of(
    st.dictionaries(_TEXT, _JSON, max_size=4),
    st.none(),
    _WRONG,
    st.just({1: {}}),
    st.just(MappingProxyType({"a": {}})),
)
_SCHEMA = st.one_of(
    st.none(),
    _WRONG,
    st.fixed_dictionaries(
        {}, optional={"type": st.just("object"), "properties": _PROPERTIES, "x": _JSON}
    ),
    st.just(MappingProxyType({"type": "object"})),
)
_ITEM_KEYS: dict[str, st.SearchStrategy[Any]] = {
    "name": st.one_of(_NAME, _WRONG, st.none()),
    "description": _OPTIONAL_TEXT,
    "inputSchema": _SCHEMA,
    "input_schema": _SCHEMA,
    "server": st.one_of(st.none(), st.just("srv"), st.just("a b"), _TEXT, _WRONG),
    "mcp_tool_name": st.one_of(st.none(), st.just("read_file"), _NAME, _WRONG),
    "label": _OPTIONAL_TEXT,
    "title": _OPTIONAL_TEXT,
    "summary": _OPTIONAL_TEXT,
    "search_hint": _OPTIONAL_TEXT,
    "source": _OPTIONAL_TEXT,
    "annotations": st.one_of(
        st.none(), _WRONG, st.fixed_dictionaries({}, optional={"title": _OPTIONAL_TEXT})
    ),
    "type": st.sampled_from([None, "function", "custom", "web_search"]),
    "parameters": _SCHEMA,
    "metadata": _JSON,
}
_ITEM = st.one_of(
    st.fixed_dictionaries({}, optional=_ITEM_KEYS),
    st.fixed_dictionaries({"name": _NAME}, optional={"inputSchema": _SCHEMA}),
    _WRONG,
)
_SERVER = st.one_of(st.none(), st.sampled_from(["srv", "a b", "@x/😀", "mcp"]))


@st.composite
def _items(draw: st.DrawFn) -> list[Any]:
    items = draw(st.lists(_ITEM, max_size=5))
    if items and draw(st.integers(0, 4)) == 0:  # a duplicate
        items.append(items[draw(st.integers(0, len(items) - 1))])
    return items


@st.composite
def _document(draw: st.DrawFn) -> Any:
    """A document of any shape ``load_tools`` reads (or almost: some are malformed)."""
    items = draw(_items())
    shape = draw(st.integers(0, 5))
    if shape == 0:
        return items
    if shape == 1:
        return tuple(items)
    if shape == 2:
        return {"tools": items, **draw(st.fixed_dictionaries({}, optional={"server": _SERVER}))}
    if shape == 3:
        return {"servers": [{"name": "a", "tools": items}, {"name": "b", "tools": items[:1]}]}
    if shape == 4:
        return {"a": items, "b": draw(st.one_of(st.just(items[:2]), _WRONG))}
    return items[0] if items else {}


def _fields(tool: Tool) -> list[tuple[str, type, Any]]:
    """Every field of ``tool``, derived ones included, with its value's type."""
    out = []
    for name in _FIELDS:
        value = getattr(tool, name)
        out.append((name, type(value), dict(value) if name == "input_schema" else value))
    return out


def _outcome(load: Callable[[], list[Tool]]) -> tuple[Any, ...]:
    """What a load gives: each tool's fields, or the error's type, message, tool and field."""
    try:
        tools = load()
    except ToolsiftError as error:
        details = [getattr(error, a, None) for a in ("tool", "field", "path", "line")]
        return ("error", type(error), str(error), *details)
    except (TypeError, ValueError) as error:
        return ("error", type(error), str(error))
    assert all(type(t) is Tool for t in tools)
    return ("tools", [_fields(t) for t in tools])


@contextmanager
def _python_only() -> Iterator[None]:
    """The loaders with the compiled loader switched off."""
    with mock.patch.object(loaders, "compiled_tools", lambda *args, **kwargs: None):
        yield


def _same(load: Callable[[], list[Tool]]) -> tuple[Any, ...]:
    """``load`` gives the same with the compiled loader as without it."""
    with _python_only():
        expected = _outcome(load)
    assert _outcome(load) == expected
    return expected


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(doc=_document(), server=_SERVER, skip=st.booleans())
def test_load_tools_is_the_python_path(doc: Any, server: str | None, skip: bool) -> None:
    _same(lambda: load_tools(doc, server=server, skip_unsupported=skip))


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(items=_items(), server=st.sampled_from(["srv", "a b", "@x/😀"]))
def test_from_mcp_and_from_records_are_the_python_path(items: list[Any], server: str) -> None:
    _same(lambda: from_mcp(items, server))
    _same(lambda: from_records(items))


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(doc=_document())
def test_load_catalog_is_the_python_path(doc: Any, tmp_path: Path) -> None:
    try:
        text = json.dumps(doc, ensure_ascii=False)
        text.encode("utf-8")
    except (TypeError, ValueError, UnicodeEncodeError):
        return  # not JSON (a tuple key, a proxy, a lone surrogate)
    path = tmp_path / "tools.json"
    path.write_text(text, encoding="utf-8")
    _same(lambda: load_catalog(path))


# Items the compiled loader is meant for: it must take them, not leave them to Python.
_PLAIN_TEXT = st.text(st.characters(codec="utf-8"), max_size=250)  # no lone surrogate
_PLAIN_NAME = st.text(st.sampled_from("ab_-é中😀 ."), min_size=1, max_size=10).filter(
    lambda s: not s.isspace()
)
_PLAIN_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), _PLAIN_TEXT),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_PLAIN_TEXT, inner, max_size=3),
    max_leaves=10,
)
_PLAIN_SCHEMA = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {"type": st.just("object")},
        optional={"properties": st.dictionaries(_PLAIN_TEXT, _PLAIN_JSON, max_size=4)},
    ),
)
_MCP_ITEM = st.fixed_dictionaries(
    {"name": _PLAIN_NAME},
    optional={
        "description": st.one_of(st.none(), _PLAIN_TEXT),
        "inputSchema": _PLAIN_SCHEMA,
        "title": st.one_of(st.none(), _PLAIN_TEXT),
        "annotations": st.fixed_dictionaries({}, optional={"title": _PLAIN_TEXT}),
    },
)
_RECORD = st.fixed_dictionaries(
    {"name": _PLAIN_NAME, "input_schema": _PLAIN_SCHEMA},
    optional={
        "description": _PLAIN_TEXT,
        "server": st.one_of(st.none(), _PLAIN_NAME),
        "label": _PLAIN_NAME,
        "title": _PLAIN_TEXT,
        "summary": _PLAIN_TEXT,
        "search_hint": _PLAIN_TEXT,
        "source": _PLAIN_TEXT,
    },
)


def _distinct(items: list[dict[str, Any]], key: Callable[[dict[str, Any]], Any]) -> list[Any]:
    return list({key(item): item for item in items}.values())


@given(items=st.lists(_MCP_ITEM, max_size=6), server=_PLAIN_NAME)
def test_plain_mcp_items_are_made_compiled(items: list[dict[str, Any]], server: str) -> None:
    items = _distinct(items, lambda item: mcp_name(server, item["name"]))
    tools = compiled_tools(items, [server] * len(items), _mcp_item)
    assert tools is not None
    with _python_only():
        expected = from_mcp(items, server)
    assert [_fields(t) for t in tools] == [_fields(t) for t in expected]


@given(items=st.lists(_RECORD, max_size=6))
def test_plain_records_are_made_compiled(items: list[dict[str, Any]]) -> None:
    # A distinct last character keeps the canonical names distinct.
    items = [{**item, "name": item["name"] + str(i)} for i, item in enumerate(items)]
    with _python_only():
        expected = from_records(items)
    tools = compiled_tools(items, [None] * len(items), _record_item)
    assert tools is not None
    assert [_fields(t) for t in tools] == [_fields(t) for t in expected]
    assert compiled_tools(items, [None] * len(items)) is not None  # detected as records


def test_compiled_tools_are_real_tools() -> None:
    item = {"name": "read_file", "description": "Read a file.", "inputSchema": None}
    (tool,) = load_tools([item], server="fs")
    assert tool == Tool(
        name="mcp__fs__read_file",
        description="Read a file.",
        server="fs",
        mcp_tool_name="read_file",
    )
    assert type(tool.input_schema) is MappingProxyType
    assert pickle.loads(pickle.dumps(tool)) == tool
    assert hash(tool) == hash("mcp__fs__read_file")
    with pytest.raises(AttributeError):
        tool.name = "x"  # type: ignore[misc]


def test_the_schema_is_a_copy() -> None:
    properties = {"path": {"type": "string"}}
    schema = {"type": "object", "properties": properties}
    (tool,) = load_tools([{"name": "a", "inputSchema": schema}], server="fs")
    schema["type"] = "changed"
    properties["path"]["type"] = "changed"  # nested: frozen by the compiled loader
    assert dict(tool.input_schema) == {"type": "object", "properties": {"path": {"type": "string"}}}
    assert tool.schema_keys == ("path",)
    with pytest.raises(TypeError):
        tool.input_schema["type"] = "x"  # type: ignore[index]


def _nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    for _ in range(depth - 1):
        schema = {"x": schema}
    return schema


@pytest.mark.parametrize(
    "schema",
    [
        _nested(MAX_SCHEMA_DEPTH),
        _nested(MAX_SCHEMA_DEPTH + 1),
        {"x": list(range(MAX_SCHEMA_NODES - 1))},
        {"x": list(range(MAX_SCHEMA_NODES))},
    ],
    ids=["deepest", "too-deep", "largest", "too-large"],
)
def test_schema_caps_are_the_python_ones(schema: dict[str, Any]) -> None:
    _same(lambda: load_tools([{"name": "a", "input_schema": schema}]))


def test_a_schema_cycle_is_the_python_error() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["self"] = schema
    outcome = _same(lambda: load_tools([{"name": "a", "input_schema": schema}]))
    assert outcome[0] == "error" and "cycle" in outcome[2]


def test_a_duplicate_is_the_python_error() -> None:
    items = [{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]
    outcome = _same(lambda: load_tools(items, server="s"))
    assert outcome[0] == "error" and "Duplicate" in outcome[2] and "$[0]" in outcome[2]


@pytest.mark.shared_data
def test_mcp_mixed_is_the_python_path(shared_data: Path) -> None:
    path = shared_data / "mcp_mixed.tools.jsonl"
    dicts = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    assert compiled_tools(dicts, [None] * len(dicts)) is not None
    outcome = _same(lambda: load_tools(dicts))
    assert outcome[0] == "tools" and len(outcome[1]) == len(dicts)
