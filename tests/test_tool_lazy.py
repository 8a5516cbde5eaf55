"""The lazy fields of a loaded :class:`~toolsift.Tool` (``toolsift._tool.lazy``, the frozen
schema of ``rust/bindings/frozen_schema.rs``): a tool whose schema the compiled loader froze is
indistinguishable from the tool ``Tool(...)`` makes eagerly, on arbitrary Unicode schemas:
equality, hash, repr, every field's value and type (nested ones included), pickling, copies,
``dataclasses.replace``, the ``to_*`` renderings, and the document both engines index."""

from __future__ import annotations

import copy
import dataclasses
import gc
import math
import pickle
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from toolsift import FieldWeights, Tool, ToolIndex
from toolsift._text.documents import document
from toolsift.errors import ToolDefinitionError
from toolsift.loaders import load_tools

_core = pytest.importorskip("toolsift._core")

_WEIGHTS = ToolIndex([Tool(name="x")]).field_weights.as_list()
_ALL_WEIGHTS = [1.0] * len(_WEIGHTS)  # parameter descriptions scored too

# Any Unicode, lone surrogates included (they keep a schema eager), and the JSON escapes.
_TEXT = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=8),
    st.sampled_from(["", "description", "properties", "items", 'q"\\/\b\n\x00', "é中😀"]),
)
_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),  # beyond 64 bits: eager
    st.sampled_from([2**63 - 1, -(2**63), 2**64 - 1, 2**64, 0]),
    st.floats(),  # NaN and infinities: eager
    st.sampled_from([-0.0, 1e16, 5e-324, 1.0, 0.1]),
    _TEXT,
)
_JSON = st.recursive(
    _LEAF,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner)  # a tuple: eager
        | st.dictionaries(_TEXT, inner, max_size=3)
        | st.dictionaries(st.integers(0, 2), inner, max_size=1)  # a key not a str: eager
    ),
    max_leaves=10,
)
_PROPERTY = st.fixed_dictionaries(
    {}, optional={"description": _JSON, "type": _TEXT, "properties": _JSON, "items": _JSON}
)
_SCHEMA = st.fixed_dictionaries(
    {},
    optional={
        "type": st.just("object"),
        "properties": st.dictionaries(_TEXT, st.one_of(_PROPERTY, _JSON), max_size=4),
        "items": _JSON,
        "required": st.lists(_TEXT, max_size=2),
        "x": _JSON,
    },
)


def _typed(value: Any) -> Any:
    """``value`` with every nested value's type beside it (``1 == 1.0 == True`` in Python)."""
    if isinstance(value, MappingProxyType):
        return ("proxy", _typed(dict(value)))
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_typed(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


def _plain_json(value: Any) -> bool:
    """Whether ``json.loads`` of ``value``'s JSON text gives ``value`` back exactly."""
    if isinstance(value, dict) and type(value) is dict:
        return all(type(k) is str and _plain_json(k) and _plain_json(v) for k, v in value.items())
    if type(value) is list:
        return all(_plain_json(v) for v in value)
    if type(value) is str:
        return not any("\ud800" <= c <= "\udfff" for c in value)
    if type(value) is int:
        return -(2**63) <= value < 2**64
    if type(value) is float:
        return math.isfinite(value)
    return value is None or type(value) is bool


def _stored(tool: Tool) -> Any:
    """``tool``'s schema as stored (a frozen one undecoded)."""
    return Tool.__dict__["input_schema"].storage.__get__(tool, Tool)


def _loaded(schema: dict[str, Any], **fields: Any) -> Tool:
    (tool,) = load_tools([{"name": "t", "input_schema": schema, **fields}])
    return tool


@given(schema=_SCHEMA, description=_TEXT)
@example(schema={}, description="\ud800")  # the Python loader's definition: stored as given
def test_a_frozen_tool_is_the_eager_tool(schema: dict[str, Any], description: str) -> None:
    try:
        eager = Tool(name="t", description=description, input_schema=schema)
    except ToolDefinitionError:
        return  # a property key Tool refuses (a lone surrogate): not loaded either
    lazy = _loaded(schema, description=description)
    # The compiled loader takes a definition whose every text is valid Unicode (a lone
    # surrogate anywhere, the description too, sends it to the Python loader, which stores
    # the schema as given); it freezes a schema of plain JSON values.
    frozen = _plain_json(schema) and _plain_json(description)
    assert (type(_stored(lazy)) is bytes) == frozen
    # Read before anything decodes the schema: the index build reads the frozen form itself.
    assert _core._tool_document(lazy, _ALL_WEIGHTS) == _core._tool_document(eager, _ALL_WEIGHTS)
    assert (type(_stored(lazy)) is bytes) == frozen  # still undecoded
    assert lazy == eager and hash(lazy) == hash(eager) and repr(lazy) == repr(eager)
    for field in dataclasses.fields(Tool):
        assert _typed(getattr(lazy, field.name)) == _typed(getattr(eager, field.name)), field.name
    assert document(lazy, _ALL_WEIGHTS) == document(eager, _ALL_WEIGHTS)
    assert _typed(lazy.to_mcp()) == _typed(eager.to_mcp())
    assert _typed(lazy.to_dict()) == _typed(eager.to_dict())


@given(schema=_SCHEMA)
def test_a_decoded_schema_with_its_keys_pending_reads_as_the_eager_tool(
    schema: dict[str, Any],
) -> None:
    try:
        eager = Tool(name="t", input_schema=schema)
    except ToolDefinitionError:
        return
    lazy = _loaded(schema)
    frozen = type(_stored(lazy)) is bytes
    assert lazy.input_schema == eager.input_schema  # decodes the schema, not the keys
    if frozen:
        assert Tool.__dict__["schema_keys"].storage.__get__(lazy, Tool) is None
    # The engine reads the decoded schema from its slot and computes the pending keys.
    assert _core._tool_document(lazy, _ALL_WEIGHTS) == _core._tool_document(eager, _ALL_WEIGHTS)
    assert lazy.schema_keys == eager.schema_keys


@given(schema=_SCHEMA)
def test_schema_keys_alone_decode_the_same_keys(schema: dict[str, Any]) -> None:
    try:
        eager = Tool(name="t", input_schema=schema)
    except ToolDefinitionError:
        return
    lazy = _loaded(schema)
    assert lazy.schema_keys == eager.schema_keys  # read first, before input_schema
    assert lazy.input_schema == eager.input_schema


def test_a_frozen_tool_copies_pickles_and_replaces_as_an_eager_one() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "description": "Query"}}}
    lazy, eager = _loaded(schema), Tool(name="t", input_schema=schema)
    assert type(_stored(lazy)) is bytes
    for other in (
        pickle.loads(pickle.dumps(lazy)),
        copy.copy(lazy),
        copy.deepcopy(lazy),
        dataclasses.replace(lazy),
    ):
        assert other == eager and type(other.input_schema) is MappingProxyType
    assert dataclasses.replace(lazy, name="u").input_schema == schema
    assert [f.name for f in dataclasses.fields(lazy)] == [f.name for f in dataclasses.fields(eager)]


def test_a_frozen_schema_is_read_only_and_its_decoded_form_kept() -> None:
    lazy = _loaded({"properties": {"a": {}}})
    schema = lazy.input_schema
    assert type(schema) is MappingProxyType and lazy.input_schema is schema
    with pytest.raises(TypeError):
        schema["x"] = 1  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        lazy.input_schema = {}  # type: ignore[misc]
    assert lazy.schema_keys == ("a",) and lazy.schema_keys is lazy.schema_keys


def test_tools_without_a_schema_share_one_frozen_default() -> None:
    a, b = load_tools([{"name": "a"}, {"name": "b", "input_schema": None}])
    assert _stored(a) is _stored(b) and type(_stored(a)) is bytes
    assert dict(a.input_schema) == {"type": "object", "properties": {}} and a.schema_keys == ()


def test_key_order_is_kept() -> None:
    schema = {"properties": {"b": {}, "a": {}}, "type": "object"}
    lazy = _loaded(schema)
    assert list(lazy.input_schema) == ["properties", "type"]
    assert list(lazy.input_schema["properties"]) == ["b", "a"]
    assert lazy.schema_keys == ("a", "b")


def test_a_frozen_tool_leaves_the_collector_until_its_schema_is_decoded() -> None:
    lazy = _loaded({"properties": {"a": {"enum": [1, 2]}}})
    assert not gc.is_tracked(lazy)  # strings and bytes only: in no reference cycle
    lazy.input_schema["properties"]["a"]["enum"].append(lazy)  # a cycle, now possible
    assert gc.is_tracked(lazy)
    eager = Tool(name="t", input_schema={"properties": {}})
    assert gc.is_tracked(eager)


def test_bytes_are_not_a_schema_a_caller_may_pass() -> None:
    with pytest.raises(ToolDefinitionError, match="field 'input_schema' must be a JSON object"):
        Tool(name="t", input_schema=b"{}")  # type: ignore[arg-type]
    with pytest.raises(ToolDefinitionError, match="input_schema"):
        load_tools([{"name": "t", "input_schema": b"{}"}])


def test_an_index_of_frozen_tools_ranks_as_one_of_eager_tools() -> None:
    items = [
        {
            "name": f"tool_{i}",
            "description": f"Tool number {i} reads {'files' if i % 2 else 'mail'}.",
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string", "description": "File path to read"}},
            },
        }
        for i in range(20)
    ]
    lazy = load_tools(items)
    eager = [Tool(name=t.name, description=t.description, input_schema=dict(i["input_schema"]))
             for t, i in zip(lazy, items)]  # fmt: skip
    assert all(type(_stored(t)) is bytes for t in lazy)
    weights = FieldWeights.for_profile("english")
    weights = dataclasses.replace(weights, parameter_descriptions=1.0)
    for kwargs in ({}, {"field_weights": weights}):
        a, b = ToolIndex(lazy, **kwargs), ToolIndex(eager, **kwargs)
        for query in ("read files", "file path", "mail"):
            hits_a = [(m.tool.name, round(m.score, 9)) for m in a.search(query, 20)]
            hits_b = [(m.tool.name, round(m.score, 9)) for m in b.search(query, 20)]
            assert hits_a == hits_b and hits_a
