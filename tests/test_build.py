"""The parallel, pipelined build: the same index and the same errors at any size."""

from __future__ import annotations

import pytest

from ._corpora import VOCAB, WEIGHTS

N = 5000  # spans several 2,048-document chunks


def docs(n=N):
    return [
        [(i % 3, " ".join(VOCAB[(i * 7 + j) % len(VOCAB)] for j in range(i % 9)))] for i in range(n)
    ]


def test_large_builds_agree_across_engines(engine_index):
    from toolsift._fallback import Index as PyIndex

    names = [f"t{i % 50}" for i in range(N)]
    idx, ref = engine_index(names, docs(), WEIGHTS), PyIndex(names, docs(), WEIGHTS)
    assert idx.to_bytes() == ref.to_bytes()
    for q in ["read file", "send message user", "data of the"]:
        assert idx.search(q, 20) == ref.search(q, 20)


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
