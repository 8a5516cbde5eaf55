"""The compiled loader and ``ToolIndex``'s read of :class:`~toolsift.Tool` objects take each text
field's UTF-8 from the ``str`` itself (no copy through ``bytes``): any Unicode text, ``str``
subclasses and lone surrogates are read as before (the pure-Python twin's documents, the
Python loaders' tools), and ``checked_tools`` leaves the cyclic collector as it found it."""

from __future__ import annotations

import gc

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from toolsift import FieldWeights, Tool
from toolsift._index.build import checked_tools
from toolsift._loaders.formats import _detect
from toolsift._text.documents import document
from toolsift.errors import ToolDefinitionError
from toolsift.loaders import load_tools

_core = pytest.importorskip("toolsift._core")

_TEXT = st.text(st.characters(codec="utf-8"), max_size=40)
_NAME = st.text(st.sampled_from("ab_-é中😀"), min_size=1, max_size=10)


class _Str(str):
    """A ``str`` subclass: read through its ``str`` value."""


@settings(max_examples=150, deadline=None)
@given(
    name=_NAME,
    description=_TEXT,
    hint=st.none() | _TEXT,
    server=st.none() | _NAME,
    key=_NAME,
    subclass=st.booleans(),
    surrogate=st.booleans(),
)
def test_the_engine_reads_any_text_of_a_tool_as_the_twin(
    name, description, hint, server, key, subclass, surrogate
):
    wrap = _Str if subclass else str
    schema = {"properties": {key: {"description": wrap(description)}}}
    if surrogate:  # (a tool's own text fields; a schema's are read as their twin's test reads)
        description += "\ud800"
        hint = None if hint is None else hint + "\udfff"
    try:
        tool = Tool(
            name=wrap(name),
            description=wrap(description),
            search_hint=None if hint is None else wrap(hint),
            server=None if server is None else wrap(server),
            mcp_tool_name=None if server is None else wrap(name),
            input_schema=schema,
        )
    except ToolDefinitionError:  # (Tool refuses some texts itself)
        reject()
    weights = FieldWeights.for_profile("english").as_list()
    try:
        want = [(f, text) for f, text in document(tool, weights)]
    except Exception as exc:
        with pytest.raises(type(exc)):
            _core._tool_document(tool, weights)
        return
    assert _core._tool_document(tool, weights) == want


@settings(max_examples=150, deadline=None)
@given(items=st.lists(st.fixed_dictionaries({"name": _NAME, "description": _TEXT}), max_size=6))
def test_the_compiled_loader_keeps_each_text_as_the_python_converter(items):
    for i, item in enumerate(items):
        item["name"] = f"{i}-{item['name']}"  # (unique once sanitised)
    tools = load_tools(items, server="srv")
    python = [_detect(item, "srv")(item, "srv", False) for item in items]
    assert tools == python
    for tool, item in zip(tools, items):
        assert tool.description is item["description"]  # the caller's str, not a copy


@pytest.mark.parametrize("enabled", [True, False])
def test_checked_tools_leaves_the_collector_as_it_was(enabled):
    tools = [Tool(name=f"t{i}", server=f"s{i % 3}", mcp_tool_name=f"t{i}") for i in range(50)]
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        _, by_name, servers = checked_tools(tools)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
    assert len(by_name) == 50 and sorted(servers) == ["s0", "s1", "s2"]
