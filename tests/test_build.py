"""The parallel, pipelined build: the same index and the same errors at any size."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ._corpora import VOCAB, WEIGHTS
from .conftest import HAVE_RUST

N = 5000  # spans several 2,048-document chunks


def docs(n=N):
    return [
        [(i % 3, " ".join(VOCAB[(i * 7 + j) % len(VOCAB)] for j in range(i % 9)))] for i in range(n)
    ]


def test_large_builds_agree_across_engines(engine_index):
    from toolsift._pyengine.index import Index as PyIndex

    names = [f"t{i % 50}" for i in range(N)]
    idx, ref = engine_index(names, docs(), WEIGHTS), PyIndex(names, docs(), WEIGHTS)
    assert idx.to_bytes() == ref.to_bytes()
    for q in ["read file", "send message user", "data of the"]:
        assert idx.search(q, 20) == ref.search(q, 20)


@pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")
def test_builds_past_the_bound_on_chunks_in_flight_agree_and_fail_alike():
    """The pipelined build holds at most 4 chunks per pool thread converted and not yet
    tokenized, and merges tokenized chunks while it waits: with more chunks than that, the index
    is the pure-Python engine's, and an error in a late chunk is still the one reported."""
    from toolsift._core import Index
    from toolsift._pyengine.index import Index as PyIndex

    n = min(2048 * (4 * (os.cpu_count() or 1) + 3), 150_000)
    names = [f"t{i % 97}" for i in range(n)]
    built = Index(names, docs(n), WEIGHTS)
    assert built.to_bytes() == PyIndex(names, docs(n), WEIGHTS).to_bytes()
    bad = docs(n)
    bad[n - 5] = [(len(WEIGHTS), "text")]
    with pytest.raises(ValueError, match=f"document {n - 5}"):
        Index(names, bad, WEIGHTS)


def test_errors_in_later_chunks(engine_index):
    names = [f"t{i}" for i in range(N)]
    bad = docs()
    bad[4100] = [(len(WEIGHTS), "text")]
    with pytest.raises(ValueError, match="document 4100"):
        engine_index(names, bad, WEIGHTS)
    with pytest.raises(ValueError, match="names"):
        engine_index(names[:-1], docs(), WEIGHTS)
    with pytest.raises(ValueError, match="weight"):
        engine_index(names, docs(), [1.0, float("nan"), 1.0, 0.0])
    typed = docs()
    typed[4500] = [("not an id", "text")]
    with pytest.raises(TypeError):
        engine_index(names, typed, WEIGHTS)
    with pytest.raises(ValueError):
        engine_index(names, docs(), WEIGHTS, k1=-1.0)


def _tools(n=N):
    from toolsift import Tool

    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path"},
            "opts": {"type": "object", "properties": {"x": {"description": "nested ok"}}},
        },
    }
    return [
        Tool(
            name=f"srv{i % 7}__tool_{i}",
            description=" ".join(VOCAB[(i * 5 + j) % len(VOCAB)] for j in range(i % 11)),
            input_schema=schema if i % 3 else {},
            server=f"srv{i % 7}" if i % 2 else None,
            mcp_tool_name=f"tool_{i}" if i % 4 else None,
            title="Café Tool \ud800" if i % 5 == 0 else None,
            search_hint="read files" if i % 6 == 0 else None,
        )
        for i in range(n)
    ]


def _weights(kind: str) -> list[float]:
    from toolsift._text.documents import FieldWeights

    if kind == "titled":
        return FieldWeights(title=1.5).as_list()
    if kind == "paired":
        return FieldWeights(summary=1.0, description=0.25, word_pairs=0.1).as_list()
    return FieldWeights.for_profile(kind).as_list()


@pytest.mark.skipif(not HAVE_RUST, reason="the Rust extension is not built")
@pytest.mark.parametrize("weights", ["omp", "english", "titled", "paired"])
def test_the_engine_reads_tools_into_the_twins_documents(weights):
    """The Rust engine reads each Tool itself (`_build_tools`, several 2,048-tool chunks): the
    same documents as the pure-Python twin's `document()`, and the same index as those
    documents build, in a build and in an update."""
    from toolsift import _core
    from toolsift._pyengine.index import Index as PyIndex
    from toolsift._text.documents import document

    w = _weights(weights)
    tools = _tools()
    pairs = [document(t, w) for t in tools]
    assert [_core._tool_document(t, w) for t in tools] == pairs
    names = [t.name for t in tools]
    profile = "omp" if weights == "omp" else "english"
    built, names_made = _core._build_tools(tools, w, 1.2, 0.75, 0.5, profile)
    # The name table made beside the index is the table of the same tools.
    want_names = _core._build_name_table(tools)
    for got_map, want_map in zip(names_made[:2], want_names[:2]):
        assert list(got_map.items()) == list(want_map.items())
    assert built.to_bytes() == _core.Index(names, pairs, w, delta=0.5, profile=profile).to_bytes()
    twin = PyIndex(names, pairs, w, delta=0.5, profile=profile)
    assert built.to_bytes() == twin.to_bytes()
    head, _ = _core._build_tools(tools[:-2500], w, 1.2, 0.75, 0.5, profile)
    updated = _core._update_tools(head, tools[-2500:], [0, 5])
    twin_head = PyIndex(names[:-2500], pairs[:-2500], w, delta=0.5, profile=profile)
    want = twin_head.updated(names[-2500:], pairs[-2500:], remove=[0, 5])
    assert updated.to_bytes() == want.to_bytes()


@pytest.mark.skipif(not HAVE_RUST, reason="the Rust extension is not built")
def test_reading_tools_fails_with_the_twins_errors():
    """What the engine cannot read fails as the twin does: a `Mapping` in a schema is read
    through its own methods (their error is raised), and a non-Tool's missing attribute is
    an AttributeError; nothing is built."""
    from collections.abc import Mapping

    from toolsift import Tool, _core
    from toolsift._text.documents import document

    class Exploding(Mapping):
        def __getitem__(self, key):
            raise KeyError(key)

        def __iter__(self):
            return iter(())

        def __len__(self):
            return 1

        def values(self):
            raise RuntimeError("boom")

    w = _weights("english")
    bad = Tool(name="x", input_schema={"properties": {"p": {"properties": Exploding()}}})
    tools = [*_tools(3000), bad]
    with pytest.raises(RuntimeError, match="boom"):
        document(bad, w)
    with pytest.raises(RuntimeError, match="boom"):
        _core._build_tools(tools, w, 1.2, 0.75, 0.5, "english")
    with pytest.raises(AttributeError):
        _core._build_tools([*tools[:10], object()], w, 1.2, 0.75, 0.5, "english")
    seed = _weights("omp")  # the parameters are not read: nothing fails
    assert len(_core._build_tools(tools, seed, 1.2, 0.75, 0.5, "omp")[0]) == len(tools)


@pytest.mark.skipif(not HAVE_RUST, reason="the Rust extension is not built")
@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.sampled_from([None, "s", "t"])),
        max_size=8,
    ),
    odd=st.none() | st.integers(0, 8),
    subclass=st.booleans(),
)
def test_checked_tools_in_one_call_equals_its_loop(rows, odd, subclass):
    """`checked_tools` makes its maps in one compiled call (`_tool_positions`): the same maps
    as its Python loop, and the loop's error for the first item it refuses (a non-Tool, a name
    seen before)."""
    from unittest import mock

    import toolsift._index.build as build
    from toolsift import Tool
    from toolsift.tools import mcp_name

    class Sub(Tool):
        pass

    make = Sub if subclass else Tool
    tools: list[object] = [
        make(name=mcp_name(s, n) if s else n, server=s, mcp_tool_name=n if s else None)
        for n, s in rows
    ]
    if odd is not None:
        tools.insert(min(odd, len(tools)), "not a tool")

    def outcome(call):
        try:
            return call()
        except Exception as exc:
            return type(exc), str(exc)

    got = outcome(lambda: build.checked_tools(tools))
    with mock.patch.object(build, "_tool_positions", None):
        want = outcome(lambda: build.checked_tools(tools))
    assert got == want
