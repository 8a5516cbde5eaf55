"""The one runtime field extraction is Rust's: ``ToolIndex(tools)`` hands the engine the
:class:`~toolsift.Tool` objects, and the engine reads their attributes into the record that
``from_records`` reads from JSON (``rust/bindings/tools.rs``, ``rust/build/records.rs``).
``toolsift._text.documents.document`` is its deliberate pure-Python twin (the Python engine's):
for arbitrary Unicode tools, schemas (nested properties, items, mappings that are not dicts)
and field weights, both give the same documents, and both engines build bit-identical
snapshots with the same scores, in a build and in a copy-on-write update."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolsift import FieldWeights, Tool, ToolIndex
from toolsift._text.documents import document
from toolsift.errors import ToolDefinitionError

_core = pytest.importorskip("toolsift._core")

_words = st.sampled_from(
    [
        "read",
        "file",
        "the",
        "a",
        "word",
        "cloud",
        "éte",
        "日本語",
        "😀",
        "C++",
        "x_y",
        "Ⅻ",
        " ",
        "\ud83d",
    ]
)
_text = st.one_of(st.lists(_words, max_size=8).map(" ".join), st.text(max_size=24))
_optional = st.one_of(st.none(), _text)
_key = st.text(max_size=6)


class _Frozen(Mapping[str, Any]):
    """A mapping that is not a ``dict``: read through its own methods by both extractions."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def _wrapped(value: Any, how: int) -> Any:
    if not isinstance(value, dict) or how == 0:
        return value
    return MappingProxyType(value) if how == 1 else _Frozen(value)


_schema: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.integers(), st.booleans(), _text, st.lists(st.integers(), max_size=2)),
    lambda inner: st.one_of(
        st.dictionaries(
            st.sampled_from(["properties", "items", "description", "type", "x"]),
            inner,
            max_size=4,
        ),
        st.tuples(
            st.dictionaries(
                _key, st.fixed_dictionaries({}, optional={"description": _text, "items": inner})
            ),
            st.integers(0, 2),
        ).map(lambda p: {"type": "object", "properties": _wrapped(p[0], p[1])}),
        st.tuples(inner, st.integers(0, 2)).map(lambda p: _wrapped(p[0], p[1])),
    ),
    max_leaves=10,
)


@st.composite
def _tool(draw: st.DrawFn) -> Tool | None:
    server = draw(st.one_of(st.none(), st.text(min_size=1, max_size=6)))
    schema = draw(_schema)
    try:
        return Tool(
            name=draw(st.text(min_size=1, max_size=10)),
            description=draw(_text),
            input_schema=schema if isinstance(schema, Mapping) else {},
            server=server,
            mcp_tool_name=draw(st.one_of(st.none(), st.text(min_size=1, max_size=6))),
            label=draw(st.one_of(st.none(), st.text(min_size=1, max_size=8))),
            title=draw(_optional),
            summary=draw(_optional),
            search_hint=draw(_optional),
        )
    except ToolDefinitionError:  # a blank name, a lone surrogate in a name, ...
        return None


_weights = st.builds(
    lambda base, title, params, pairs: dataclasses.replace(
        base, title=title, parameter_descriptions=params, word_pairs=pairs
    ),
    st.sampled_from([FieldWeights(), FieldWeights.for_profile("english")]),
    st.sampled_from([0.0, 1.5]),
    st.sampled_from([0.0, 0.25]),
    st.sampled_from([0.0, 0.1]),
)


def _unique(tools: list[Tool | None]) -> list[Tool]:
    return list({t.name: t for t in tools if t is not None}.values())


def _engine_bytes(index: ToolIndex) -> bytes:
    """The engine's own snapshot (no tool section, which cannot hold a lone surrogate)."""
    return bytes(index._index.to_bytes(b""))


def _lossy(text: str) -> str:
    """What the engine indexes of a text: UTF-8 cannot hold a lone surrogate (U+FFFD)."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if text else text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool=_tool(), weights=_weights)
def test_the_engine_reads_a_tool_into_the_twins_document(
    tool: Tool | None, weights: FieldWeights
) -> None:
    if tool is None:
        return
    w = weights.as_list()
    want = [(f, _lossy(text)) for f, text in document(tool, w)]
    assert _core._tool_document(tool, w) == want


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tools=st.lists(_tool(), max_size=8).map(_unique),
    more=st.lists(_tool(), max_size=3).map(_unique),
    weights=_weights,
    profile=st.sampled_from(["english", "omp"]),
    query=st.lists(_words, min_size=1, max_size=4).map(lambda w: " ".join(["file", *w])),
)
def test_both_engines_build_the_same_index_of_any_tools(
    tools: list[Tool], more: list[Tool], weights: FieldWeights, profile: str, query: str
) -> None:
    def lossless(t: Tool) -> bool:  # the Python engine indexes a lone surrogate as it is
        texts = [text for _, text in document(t, weights.as_list())]
        return all(_lossy(text) == text for text in texts)

    tools = [t for t in tools if lossless(t)]
    more = [t for t in more if lossless(t)]
    rust = ToolIndex(tools, engine="rust", field_weights=weights, profile=profile)  # type: ignore[arg-type]
    twin = ToolIndex(tools, engine="python", field_weights=weights, profile=profile)  # type: ignore[arg-type]
    assert _engine_bytes(rust) == _engine_bytes(twin)
    rust, twin = rust.with_tools(add=more), twin.with_tools(add=more)
    assert _engine_bytes(rust) == _engine_bytes(twin)
    for q in (query, "read file", "word cloud"):
        got = [(m.name, m.score) for m in rust.search(q, 10)]
        want = [(m.name, m.score) for m in twin.search(q, 10)]
        assert [n for n, _ in got] == [n for n, _ in want]
        assert all(abs(a - b) <= 1e-9 for (_, a), (_, b) in zip(got, want))
