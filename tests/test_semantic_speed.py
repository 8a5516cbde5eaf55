"""The semantic search's fast paths give the very rankings of the plain computations they
replace: the dense top k found from a sample's bound, the candidates' statistics, the coverage
merge of a whole task in numpy, the router's quick identifier check, a task's cosines in one pass
over the tool vectors, and the float16 dense kernel. Each is compared, bit for bit, with the
straightforward computation (written out here), and a whole index with every fast path is
compared with one without them, through the public ``ToolIndex.search``.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
pytest.importorskip("tokenizers")

import toolsift  # noqa: E402
from toolsift.semantic import fusion, ranker, route, tasks  # noqa: E402
from toolsift.semantic.vectors import DenseColumns, ToolVectors  # noqa: E402

from .conftest import HAVE_RUST  # noqa: E402


def plain_top(values: np.ndarray, k: int) -> list[int]:
    """The previous computation: argpartition over every value, then ordered."""
    n = values.shape[0]
    part = np.argpartition(values, n - k)[n - k :] if k < n else np.arange(n)
    return part[np.lexsort((part, -values[part]))].tolist()


def plain_cover(whole, parts, limit, part_weight, covered_weight):
    """The previous coverage merge: one tool at a time, in Python."""
    pool = set(whole)
    for part in parts:
        pool.update(part)
    weights = [1.0] * len(parts)
    chosen = []
    base = {d: whole.get(d, 0.0) for d in pool}
    while pool and len(chosen) < limit:
        best, best_score = -1, -1.0
        for d in pool:
            s = base[d]
            for w, part in zip(weights, parts):
                s += part_weight * w * part.get(d, 0.0)
            if s > best_score or (s == best_score and d < best):
                best, best_score = d, s
        chosen.append((best, best_score))
        pool.discard(best)
        for i, part in enumerate(parts):
            if part.get(best, 0.0) >= 0.999:
                weights[i] = covered_weight
    return chosen


@given(
    st.integers(1, 3000),
    st.integers(1, 60),
    st.integers(0, 2**32 - 1),
    st.sampled_from([3, 40, 100_000]),
)
def test_top_positions_are_the_argpartition_order(n, k, seed, levels):
    """Few distinct levels make ties common, also at the cut."""
    rng = np.random.default_rng(seed)
    values = (rng.integers(0, levels, n) / levels).astype(np.float32)
    k = min(k, n)
    assert fusion.top_positions(values, k) == plain_top(values, k)


@given(st.integers(2, 3000), st.integers(0, 2**32 - 1))
def test_candidate_statistics_keep_their_bits(n, seed):
    cos = np.random.default_rng(seed).normal(0.1, 0.2, n).astype(np.float32)
    cand = fusion.Candidates.of([], cos, 50)
    mean = float(cos.sum(dtype=np.float64)) / n
    var = max(float(np.square(cos, dtype=np.float64).sum()) / n - mean * mean, 0.0)
    assert (cand.cos_mean, cand.cos_std) == (mean, var**0.5)


@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(0, 4))
def test_the_coverage_merge_is_the_one_at_a_time_merge(seed, limit, n_parts):
    rng = np.random.default_rng(seed)
    level = lambda: float(rng.choice([0.0, 0.25, 0.5, 1.0, rng.random()]))  # noqa: E731
    whole = {int(d): level() for d in rng.integers(0, 30, 15)}
    parts = [{int(d): level() for d in rng.integers(0, 30, 6)} for _ in range(n_parts)]
    got = tasks.cover(whole, parts, limit, 0.25, 0.3)
    assert got == plain_cover(whole, parts, limit, 0.25, 0.3)


@given(st.text(alphabet="aZé_.-/:@1 (?)É'`", max_size=12))
def test_the_quick_identifier_check_only_skips_plain_words(piece):
    if not route._maybe_identifier(piece):
        assert not route.is_identifier(piece)


def test_route_is_unchanged_by_the_quick_check(monkeypatch):
    queries = ["Find readFile and write_file", "How do I get the weather in Paris?", "x Ab aB"]
    queries += ["getWeather", "Read the README.md then summarise it", "a b c", "ÉtéFoo"]
    quick = [route.route(q) for q in queries]
    monkeypatch.setattr(route, "_maybe_identifier", lambda piece: True)
    assert [route.route(q) for q in queries] == quick


@pytest.fixture(scope="module")
def catalogue() -> list[toolsift.Tool]:
    """The built-in tools under eight servers: 1,768 tools, every one with seven twins of the
    same text (equal cosines: ties at the dense cut)."""
    base = toolsift.default_tools()
    return [
        toolsift.Tool(
            name=f"s{i}__{t.name}", description=t.description, input_schema=t.input_schema
        )
        for i in range(8)
        for t in base
    ]


QUERIES = [
    "read a file from disk",
    "How do I get tomorrow's forecast for Paris?",
    "Find the latest sales report, then email it to my manager",
    "search the web for MCP papers and summarize the top three; save as PDF",
    "create a github issue and then notify the team on slack",
    "read_file",
    "weather forecast",
    "list the pods in my kubernetes cluster",
    "translate this text to French and send it by email",
]


def _plain(monkeypatch) -> None:
    """Every fast path replaced by the plain computation."""
    monkeypatch.setattr(fusion, "top_positions", plain_top)
    monkeypatch.setattr(ranker, "cover", plain_cover)
    monkeypatch.setattr(route, "_maybe_identifier", lambda piece: True)
    rank = ranker.SemanticRanker.rank
    monkeypatch.setattr(
        ranker.SemanticRanker,
        "rank",
        lambda self, q, limit, lexical, dense, dense_many=None: rank(
            self, q, limit, lexical, dense
        ),
    )
    # the dense kernel: the float32 numpy twin, one query at a time
    monkeypatch.setattr(ToolVectors, "kernel", property(lambda self: DenseColumns(self.matrix)))


def _answers(index: toolsift.ToolIndex) -> list:
    out = []
    for q in QUERIES:
        for options in ({}, {"limit": 25}, {"exclude": [f"s0__{t.name}" for t in index][:5]}):
            index._semantic._recent.clear()  # type: ignore[union-attr]
            r = index.search(q, **options)
            out.append(([(m.tool.name, m.score) for m in r.matches], r.confidence))
    return out


def test_the_fast_paths_rank_as_the_plain_computation(catalogue, monkeypatch):
    """On the default engine (both engines give the same lists: ``test_semantic_index``)."""
    engine = "rust" if HAVE_RUST else "python"
    index = toolsift.ToolIndex(catalogue, semantic=True, engine=engine)
    assert index.semantic
    fast = _answers(index)
    with monkeypatch.context() as m:
        _plain(m)
        index = toolsift.ToolIndex(catalogue, semantic=True, engine=engine)
        plain = _answers(index)
    assert fast == plain
    assert all(math.isfinite(s) for matches, _ in fast for _, s in matches)


def test_a_task_is_scored_in_one_pass_over_the_vectors(catalogue):
    index = toolsift.ToolIndex(catalogue, semantic=True)
    vectors = index._semantic.vectors  # type: ignore[union-attr]
    calls = []
    one, many = vectors.similarities, vectors.similarities_many
    vectors.similarities = lambda v: calls.append(1) or one(v)  # type: ignore[method-assign]
    vectors.similarities_many = lambda v: calls.append(len(v)) or many(v)  # type: ignore[method-assign]
    index.search("Find the latest sales report, then email it to my manager and archive it")
    assert calls == [3]  # the whole request and its two steps, together
    index.search("Find the latest sales report, then email it to my manager and archive it")
    assert calls == [3]  # the recent cosines serve the same request again


def test_many_similarities_are_each_ones(catalogue):
    matrix = ToolVectors.build(
        toolsift.semantic.model.default_encoder().encode, catalogue[:300], "m", "python"
    ).matrix
    vectors = np.random.default_rng(3).normal(size=(4, matrix.shape[1])).astype(np.float32)
    for engine in ["rust", "python"] if HAVE_RUST else ["python"]:
        tv = ToolVectors(matrix, "m", engine)
        many = tv.similarities_many(vectors)
        for row, v in zip(many, vectors):
            assert row.tobytes() == tv.similarities(v).tobytes()
            assert row.tobytes() == DenseColumns(matrix).similarities(v).tobytes()
