"""The dense kernel of hybrid search: Rust (``toolsift._core.DenseMatrix``) and its numpy twin
(``toolsift.hybrid._DenseColumns``) give the same similarities bit for bit and the same top-k
lists, on arbitrary finite float32 matrices, and HybridIndex ranks alike on both engines."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolsift import Tool, ToolIndex

np = pytest.importorskip("numpy")

from toolsift.hybrid import HybridIndex, _DenseColumns, _DenseRust  # noqa: E402

from .conftest import HAVE_RUST  # noqa: E402

pytestmark = pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")

# Any finite float32: subnormals, huge magnitudes (sums may overflow to +-inf, or NaN), -0.0.
FLOATS = st.floats(width=32, allow_nan=False, allow_infinity=False)
# Values in a narrow set, so that equal similarities (ties) are common.
FEW = st.sampled_from([0.0, -0.0, 0.5, -0.5, 1.0, 0.25])


@st.composite
def problems(draw):
    rows = draw(st.integers(0, 70))
    dim = draw(st.integers(1, 19))
    values = draw(st.one_of(st.just(FLOATS), st.just(FEW)))
    matrix = np.array(
        draw(st.lists(values, min_size=rows * dim, max_size=rows * dim)), dtype=np.float32
    ).reshape(rows, dim)
    vector = np.array(draw(st.lists(values, min_size=dim, max_size=dim)), dtype=np.float32)
    ids = st.integers(0, max(rows - 1, 0))
    exclude = draw(st.lists(ids, max_size=5)) if rows else []
    only = draw(st.one_of(st.none(), st.lists(ids, max_size=rows))) if rows else None
    k = draw(st.integers(1, rows + 3))
    return matrix, vector, np.asarray(exclude, dtype=np.intp), only, k


def kernels(matrix):
    from toolsift._core import DenseMatrix

    return _DenseRust(matrix, DenseMatrix), _DenseColumns(matrix)


@given(problems())
def test_both_kernels_agree_bit_for_bit(problem) -> None:
    matrix, vector, exclude, only, k = problem
    rust, twin = kernels(matrix)
    a, b = rust.similarities(vector), twin.similarities(vector)
    # The same bits, NaN (inf - inf after an overflow) included.
    assert a.tobytes() == b.tobytes() or np.array_equal(a, b, equal_nan=True)
    only_ids = None if only is None else np.asarray(only, dtype=np.intp)
    expected = twin.top_k(vector, k, exclude, only_ids)
    assert rust.top_k(vector, k, exclude, only_ids) == expected
    # The twin's list is the definition: finite similarities, best first, then by row.
    allowed = set(range(len(matrix))) if only is None else set(only)
    pool = sorted(
        ((-float(b[i]), i) for i in allowed - set(exclude.tolist()) if np.isfinite(b[i])),
    )
    assert [(i, -s) for s, i in pool[:k]] == expected


@given(problems())
def test_float16_vectors_and_many_queries_give_the_float32_bits(problem) -> None:
    """The semantic index's float16 tool vectors, kept as float16 in Rust, score as the same
    values in float32 (Rust and the twin), one query at a time or several in one pass."""
    from toolsift._core import DenseMatrix

    matrix, vector, exclude, only, k = problem
    with np.errstate(over="ignore"):
        half = matrix.astype(np.float16)
    half[~np.isfinite(half)] = 0
    rust = _DenseRust(half, DenseMatrix)
    wide, twin = kernels(half.astype(np.float32))
    vectors = np.stack([vector, vector[::-1], -vector])
    many = rust.similarities_many(vectors)
    for row, v in zip(many, vectors):
        expected = twin.similarities(v)
        for got in (row, rust.similarities(v), wide.similarities(v)):
            assert got.tobytes() == expected.tobytes() or np.array_equal(
                got, expected, equal_nan=True
            )
    only_ids = None if only is None else np.asarray(only, dtype=np.intp)
    assert rust.top_k(vector, k, exclude, only_ids) == twin.top_k(vector, k, exclude, only_ids)


def test_float16_input_errors() -> None:
    from toolsift._core import DenseMatrix

    with pytest.raises(ValueError, match="dtype must be 'float32' or 'float16'"):
        DenseMatrix(b"", 0, 1, "int8")
    with pytest.raises(ValueError, match="bytes of a float16 array"):
        DenseMatrix(b"abc", 1, 1, "float16")
    with pytest.raises(ValueError, match="row 0 holds a non-finite value at column 1"):
        DenseMatrix(np.array([1, np.inf], np.float16).tobytes(), 1, 2, "float16")
    m = DenseMatrix(np.eye(2, dtype=np.float16).tobytes(), 2, 2, "float16")
    assert m.memory_bytes == 8
    with pytest.raises(ValueError, match="2 values each, got 3 values"):
        m.similarities_many(np.ones(3, np.float32).tobytes())


def test_large_subsets_take_the_full_pass_with_the_same_bits() -> None:
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((5000, 37)).astype(np.float32)
    vector = rng.standard_normal(37).astype(np.float32)
    rust, twin = kernels(matrix)
    for only in (np.arange(0, 5000, 2), np.arange(0, 5000, 211)):  # past and below 1/32
        assert rust.top_k(vector, 50, np.array([4, 6]), only) == twin.top_k(
            vector, 50, np.array([4, 6]), only
        )
    assert rust.similarities(vector).tobytes() == twin.similarities(vector).tobytes()


def test_bad_input_is_a_value_error_never_a_crash() -> None:
    from toolsift._core import DenseMatrix

    with pytest.raises(ValueError, match="not 2 x 3"):
        DenseMatrix(np.zeros(5, np.float32).tobytes(), 2, 3)
    with pytest.raises(ValueError, match="row 1 holds a non-finite value at column 0"):
        DenseMatrix(np.array([1, 2, np.nan, 4], np.float32).tobytes(), 2, 2)
    with pytest.raises(ValueError, match="bytes of a float32 array"):
        DenseMatrix(b"abc", 1, 1)
    m = DenseMatrix(np.eye(2, dtype=np.float32).tobytes(), 2, 2)
    with pytest.raises(ValueError, match="must have 2 values, got 3"):
        m.top_k(np.ones(3, np.float32).tobytes(), 1)
    with pytest.raises(ValueError, match="finite"):
        m.similarities(np.array([np.inf, 0], np.float32).tobytes())
    with pytest.raises(ValueError, match="excluded row 7 is out of range"):
        m.top_k(np.ones(2, np.float32).tobytes(), 1, np.array([7], np.uint32).tobytes())
    with pytest.raises(ValueError, match="row id 2 is out of range"):
        m.top_k(np.ones(2, np.float32).tobytes(), 1, None, np.array([2], np.uint32).tobytes())
    assert m.rows == 2 and m.dim == 2 and m.memory_bytes >= 16


def test_hybrid_search_ranks_alike_on_both_engines() -> None:
    tools = [
        Tool(name=f"tool_{i}", description=f"does thing {i % 7} with item {i % 5}")
        for i in range(60)
    ]
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((60, 24)).astype(np.float32)
    vectors[10] = vectors[20]  # a tie in cosine: ordered by position on both engines
    results = []
    for engine in ("rust", "python"):
        hybrid = HybridIndex(ToolIndex(tools, engine=engine), embeddings=vectors)
        query_vector = vectors[20] + 0.01
        result = hybrid.search("thing 3 item", 12, query_vector=query_vector)
        dense = hybrid.dense_search(query_vector / np.linalg.norm(query_vector), 30, [5])
        results.append(([(m.name, m.score, m.reason, m.dense) for m in result], dense))
    assert results[0] == results[1]
    dense = results[0][1]
    assert [i for i, _ in dense[:2]] == [10, 20] and 5 not in [i for i, _ in dense]


def test_exclude_outside_the_tools_is_an_index_error() -> None:
    hybrid = HybridIndex(ToolIndex([Tool(name="a"), Tool(name="b")]), embeddings=np.eye(2))
    with pytest.raises(IndexError, match="outside 0..1"):
        hybrid.dense_search(np.array([1.0, 0.0]), 2, [2])
    with pytest.raises(IndexError):
        hybrid.dense_search(np.array([1.0, 0.0]), 2, [-1])
    with pytest.raises(ValueError, match="finite"):
        hybrid.dense_search(np.array([np.nan, 0.0]), 2)


def test_a_searched_hybrid_index_still_pickles() -> None:
    import pickle

    tools = [Tool(name="a", description="x"), Tool(name="b", description="y")]
    hybrid = HybridIndex(ToolIndex(tools), embeddings=np.eye(2))
    first = hybrid.search("x", 2, query_vector=[0, 1])  # makes the Rust kernel
    copy = pickle.loads(pickle.dumps(hybrid))
    assert copy.search("x", 2, query_vector=[0, 1]) == first
    assert hybrid._kernel is not None  # the original keeps its kernel
