"""The parallel, pipelined build: the same index and the same errors at any size."""

from __future__ import annotations

import os

import pytest

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


@pytest.mark.parametrize("weights", ["seed", "english", "titled", "paired"])
def test_document_columns_read_back_as_pairs_and_build_the_same_index(engine_index, weights):
    """`documents()` hands the Rust engine flat columns; read as a sequence they are exactly the
    `(field id, text)` pairs of `document()`, and either form builds the same index."""
    from toolsift._text.documents import FieldWeights, document, documents

    if weights == "titled":
        w = FieldWeights(title=1.5).as_list()
    elif weights == "paired":
        w = FieldWeights(summary=1.0, description=0.25, word_pairs=0.1).as_list()
    else:
        w = FieldWeights.for_profile(weights).as_list()
    tools = _tools()
    columns = documents(tools, w)
    pairs = [document(t, w) for t in tools]
    assert len(columns) == len(pairs)
    assert list(columns) == pairs
    assert columns[-1] == pairs[-1] and columns[10:20] == pairs[10:20]
    with pytest.raises(IndexError):
        columns[len(pairs)]
    names = [t.name for t in tools]
    profile = "seed" if weights == "seed" else "english"
    want = engine_index(names, pairs, w, profile=profile).to_bytes()
    # Read after the parts were joined (above), and part by part from fresh documents.
    assert engine_index(names, columns, w, profile=profile).to_bytes() == want
    fresh = documents(tools, w)
    assert fresh._toolsift_columns is None and len(fresh) == len(pairs)
    assert engine_index(names, fresh, w, profile=profile).to_bytes() == want
    assert list(fresh) == pairs


def test_malformed_document_parts_are_read_as_pairs_from_there(engine_index):
    """A part that doesn't hold together ends the reading of parts: the documents after those of
    the parts before it are read from the object's own iteration."""
    from toolsift._text.documents import Documents, FieldWeights, document, documents

    w = FieldWeights.for_profile("english").as_list()
    tools = _tools()
    names = [t.name for t in tools]
    want = engine_index(names, [document(t, w) for t in tools], w, profile="english").to_bytes()

    class Broken(Documents):
        __slots__ = ("broken",)

        def _toolsift_parts(self):
            parts = self._each_part()
            yield next(parts)
            yield self.broken
            yield from parts

    for broken in [("x", b"", []), (["a"], b"\x00", [2]), (["a"], b"\x00"), None, 7]:
        docs = Broken._lazy(tools, w)
        docs.broken = broken
        assert engine_index(names, docs, w, profile="english").to_bytes() == want
    assert len(list(documents(tools, w)._toolsift_parts())) == 3  # 2,048 tools a part
