"""The raw engines (``_core.Index`` and ``_pyengine.index.Index``) behave identically."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolsift import LimitError, QueryError
from toolsift._pyengine.index import Index as PyIndex

from .conftest import HAVE_RUST

W = [6.0, 4.0, 2.0, 1.0]

DOCS = [
    ("read_file", [(0, "read_file"), (2, "Read the complete contents of a file")]),
    ("write_file", [(0, "write_file"), (2, "Create or overwrite a file")]),
    ("fetch", [(0, "fetch"), (2, "Fetch a URL and return markdown")]),
    ("search", [(0, "search"), (2, "Search the web"), (3, "query")]),
]


def build(cls, docs=DOCS, weights=W, **kw):
    return cls([n for n, _ in docs], [f for _, f in docs], weights, **kw)


def test_ranks_and_scores_match_hand_computation(engine_index):
    idx = build(engine_index)
    hits = idx.search("read file", 8)
    assert [d for d, _ in hits] == [0, 1]
    # lengths: read_file 6*2 + 2*7 = 26, write_file 6*2 + 2*5 = 22, fetch 6 + 2*6 = 18,
    # search 6 + 2*3 + 1 = 13; avg = 77/4.
    k1, b, delta, avg, n = 1.2, 0.75, 1.0, 79 / 4, 4

    def term(df, tf, length):
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        return idf * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg)) + delta)

    assert hits[0][1] == pytest.approx(term(1, 8, 26) + term(2, 8, 26), rel=1e-12)
    assert hits[1][1] == pytest.approx(term(2, 8, 22), rel=1e-12)


def test_errors_are_typed_and_identical(engine_index):
    idx = build(engine_index)
    with pytest.raises(QueryError, match="at least one letter or number"):
        idx.search("?!  --", 3)
    for bad in (0, -1, True, 2.5, "3", None):
        with pytest.raises(LimitError, match="Limit must be a positive integer"):
            idx.search("file", bad)
    with pytest.raises(TypeError):
        idx.search(b"file", 3)
    with pytest.raises(ValueError, match="field 9"):
        engine_index(["a"], [[(9, "x")]], W)
    with pytest.raises(ValueError, match="names for"):
        engine_index(["a", "b"], [[(0, "x")]], W)
    with pytest.raises(ValueError, match="weight"):
        engine_index(["a"], [[(0, "x")]], [-1.0])
    with pytest.raises(ValueError, match="k1"):
        engine_index(["a"], [[(0, "x")]], W, k1=float("nan"))
    with pytest.raises(ValueError, match="b"):
        engine_index(["a"], [[(0, "x")]], W, b=2.0)


def test_empty_corpus_returns_nothing(engine_index):
    idx = engine_index([], [], W)
    assert len(idx) == 0
    assert idx.search("anything", 5) == []
    assert idx.average_length == 1.0
    with pytest.raises(QueryError):
        idx.search("...", 5)


def test_exclusion_is_applied_before_the_limit(engine_index):
    idx = build(engine_index)
    assert [d for d, _ in idx.search("file", 1, exclude=[0])] == [1]


def test_zero_weight_fields_are_not_indexed(engine_index):
    idx = engine_index(["a"], [[(0, "alpha"), (1, "beta")]], [1.0, 0.0])
    assert idx.document_frequency("alpha") == 1
    assert idx.document_frequency("beta") == 0
    assert idx.search("beta", 3) == []


def test_lone_surrogates_are_separators(engine_index):
    idx = engine_index(["a\ud800"], [[(0, "x\ud800y")]], [1.0])
    assert [d for d, _ in idx.search("y", 3)] == [0]
    assert [d for d, _ in idx.search("x\udfffy", 3)] == [0]


# ---------------------------------------------------------------------------------------------
# Parity: random corpora over a small vocabulary, so that terms overlap and ties happen.

VOCAB = [
    "read",
    "write",
    "file",
    "File",
    "search",
    "web",
    "GitHub",
    "issue",
    "pull",
    "request",
    "slack",
    "message",
    "send",
    "get",
    "list",
    "create",
    "delete",
    "db",
    "query",
    "Ünïcode",
]
word = st.sampled_from(VOCAB)
text = st.lists(word, min_size=0, max_size=8).map(" ".join) | st.text(max_size=12)
field = st.tuples(st.integers(0, 3), text)
docs = st.lists(st.lists(field, max_size=5), max_size=25)
weights = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 4.0, 6.0, 1.25]), min_size=4, max_size=4)
queries = st.lists(word, min_size=1, max_size=6).map(" ".join) | st.text(min_size=1, max_size=20)


@pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")
@given(
    docs=docs,
    weights=weights,
    query=queries,
    limit=st.integers(1, 30),
    names=st.lists(st.sampled_from(["a", "b", "B", "c", "é"]), min_size=25, max_size=25),
    params=st.tuples(
        st.sampled_from([0.0, 0.9, 1.2, 2.0]),
        st.sampled_from([0.0, 0.5, 0.75, 1.0]),
        st.sampled_from([0.0, 0.5, 1.0]),
    ),
    exclude=st.lists(st.integers(0, 24), max_size=4),
    profile=st.sampled_from(["omp", "english"]),
)
def test_rust_and_python_engines_agree(
    docs, weights, query, limit, names, params, exclude, profile
):
    from toolsift._core import Index as RustIndex

    k1, b, delta = params
    names = [f"{n}{i % 3}" for i, n in enumerate(names[: len(docs)])]
    rust = RustIndex(names, docs, weights, k1=k1, b=b, delta=delta, profile=profile)
    py = PyIndex(names, docs, weights, k1=k1, b=b, delta=delta, profile=profile)
    assert rust.profile == py.profile == profile
    assert rust.vocabulary_size == py.vocabulary_size
    assert rust.average_length == py.average_length
    try:
        expected = py.search(query, limit, exclude)
    except QueryError:
        with pytest.raises(QueryError):
            rust.search(query, limit, exclude)
        return
    got = rust.search(query, limit, exclude)
    assert [d for d, _ in got] == [d for d, _ in expected]
    for (_, a), (_, b_) in zip(got, expected):
        assert math.isclose(a, b_, rel_tol=0, abs_tol=1e-9)
