"""Semantic search through ``ToolIndex``: the switch and its fallbacks, abstention, snapshots with
tool vectors, per-server re-embedding, ``select:`` never padded, and both engines agreeing."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import toolsift.semantic.model as model_module
from toolsift import Catalog, SearchResult, Tool, ToolIndex
from toolsift.errors import SemanticWarning, SnapshotError
from toolsift.semantic import DEFAULT_MIN_CONFIDENCE
from toolsift.semantic.model import default_encoder

TOOLS = [
    Tool(name="read_file", description="Read the contents of a file from disk"),
    Tool(name="send_email", description="Send an email message to a recipient"),
    Tool(name="get_weather", description="Current weather forecast for a city"),
    Tool(name="create_issue", description="Open a bug report in the issue tracker"),
    Tool(name="mcp__git__commit", server="git", mcp_tool_name="commit",
         description="Record changes to the repository"),
    Tool(name="mcp__git__push", server="git", mcp_tool_name="push",
         description="Upload local commits to the remote"),
]  # fmt: skip


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    """Each test sees the once-per-process warnings afresh."""
    monkeypatch.setattr(model_module, "_WARNED", set())


class CountingEncoder:
    """The shipped encoder, counting the texts it embeds in batches."""

    def __init__(self) -> None:
        self.inner = default_encoder()
        self.model_id = self.inner.model_id
        self.dim = self.inner.dim
        self.texts: list[str] = []

    def encode(self, texts):
        self.texts.extend(texts)
        return self.inner.encode(texts)

    def encode_one(self, text):
        return self.inner.encode_one(text)


def names(result) -> list[str]:
    return [m.name for m in result]


# --- the switch --------------------------------------------------------------------------------


def test_switch_values(monkeypatch):
    assert ToolIndex(TOOLS, semantic=True).semantic
    assert not ToolIndex(TOOLS, semantic=False).semantic
    assert not ToolIndex(TOOLS).semantic  # conftest: TOOLSIFT_SEMANTIC=off
    monkeypatch.setenv("TOOLSIFT_SEMANTIC", "on")
    assert ToolIndex(TOOLS).semantic
    assert not ToolIndex(TOOLS, semantic=False).semantic  # an explicit False wins
    monkeypatch.setenv("TOOLSIFT_SEMANTIC", "auto")
    assert ToolIndex(TOOLS).semantic  # the extra is installed in the test environment
    with pytest.raises(ValueError, match="semantic must be True, False or 'auto'"):
        ToolIndex(TOOLS, semantic="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="semantic must be True, False or 'auto', got int"):
        ToolIndex(TOOLS, semantic=1)  # type: ignore[arg-type]


def test_unknown_env_value_warns_once_and_means_auto(monkeypatch):
    monkeypatch.setenv("TOOLSIFT_SEMANTIC", "maybe")
    with pytest.warns(SemanticWarning, match="TOOLSIFT_SEMANTIC='maybe'"):
        assert ToolIndex(TOOLS).semantic
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ToolIndex(TOOLS)  # no second warning


def test_missing_model_falls_back_to_bm25_with_one_warning(monkeypatch):
    monkeypatch.setattr(model_module, "_LOADED", {})
    monkeypatch.setattr(
        model_module.StaticEncoder, "load", classmethod(lambda cls: (_ for _ in ()).throw(
            ImportError("no module named 'tokenizers'")))
    )  # fmt: skip
    with pytest.warns(SemanticWarning, match="BM25\\+ only.*tokenizers") as caught:
        first = ToolIndex(TOOLS, semantic=True)
        second = ToolIndex(TOOLS, semantic=True)
    assert len(caught) == 1
    assert not first.semantic and not second.semantic
    assert names(first.search("read a file")) == names(ToolIndex(TOOLS).search("read a file"))
    # "auto" with the extra missing is quietly lexical
    monkeypatch.setenv("TOOLSIFT_SEMANTIC", "auto")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not ToolIndex(TOOLS).semantic


def test_a_failing_encoder_never_raises_from_search():
    index = ToolIndex(TOOLS, semantic=True)
    lexical = ToolIndex(TOOLS, semantic=False)

    def broken(text):
        raise RuntimeError("onnx went away")

    index._semantic.encoder = type("Broken", (), {"encode_one": staticmethod(broken)})()
    with pytest.warns(SemanticWarning, match="RuntimeError: onnx went away") as caught:
        first = index.search("send a message")
        second = index.search("read the file")
    assert len(caught) == 1
    assert first == lexical.search("send a message")
    assert second == lexical.search("read the file")


def test_a_failing_encoder_at_build_leaves_the_index_lexical(monkeypatch):
    def broken(self, texts, batch_size=1024):
        raise MemoryError("no room")

    monkeypatch.setattr(model_module.StaticEncoder, "encode", broken)
    with pytest.warns(SemanticWarning, match="embedding its tools failed"):
        index = ToolIndex(TOOLS, semantic=True)
    assert not index.semantic
    assert names(index.search("weather")) == ["get_weather"]


# --- results -----------------------------------------------------------------------------------


def test_semantic_results_carry_a_confidence():
    index = ToolIndex(TOOLS, semantic=True)
    result = index.search("what is the temperature outside in Paris")
    assert result[0].name == "get_weather" and result[0].reason == "semantic"
    assert result.confidence is not None and 0.0 <= result.confidence <= 1.0
    assert not result.abstained
    lexical = ToolIndex(TOOLS, semantic=False).search("weather", abstain=True)
    assert lexical.confidence is None and not lexical.abstained and names(lexical)


def test_abstain_below_the_threshold():
    index = ToolIndex(TOOLS, semantic=True)
    result = index.search("bake a chocolate cake", abstain=True, min_confidence=1.0)
    assert result.abstained and len(result) == 0 and result.confidence is not None
    kept = index.search("bake a chocolate cake", abstain=True, min_confidence=0.0)
    assert not kept.abstained and len(kept) > 0
    assert not index.search("bake a chocolate cake", min_confidence=1.0).abstained
    # a query that names a tool is sure of it
    named = index.search("read_file please", abstain=True, min_confidence=1.0)
    assert named[0].name == "read_file" and named.confidence == 1.0 and not named.abstained
    assert 0.0 < DEFAULT_MIN_CONFIDENCE < 1.0


@pytest.mark.parametrize(("value", "error"), [(1.5, ValueError), (-0.1, ValueError),
                                              ("high", TypeError), (True, TypeError)])  # fmt: skip
def test_bad_min_confidence(value, error):
    for index in (ToolIndex(TOOLS, semantic=True), ToolIndex(TOOLS, semantic=False)):
        with pytest.raises(error, match="min_confidence"):
            index.search("weather", min_confidence=value)
    with pytest.raises(TypeError, match="abstain must be a bool"):
        ToolIndex(TOOLS, semantic=True).search("weather", abstain="yes")  # type: ignore[arg-type]


def test_select_is_never_padded():
    index = ToolIndex(TOOLS, semantic=True)
    result = index.search("select:read_file,nope")
    assert names(result) == ["read_file"] and result.missing == ("nope",)
    assert result.query_kind == "select" and result.confidence is None


def test_filters_hold_on_the_semantic_path():
    index = ToolIndex(TOOLS, semantic=True)
    assert set(names(index.search("save my work", servers=["git"]))) <= {
        "mcp__git__commit", "mcp__git__push"}  # fmt: skip
    assert "read_file" not in names(index.search("read a file", exclude=["read_file"]))
    assert len(index.search("anything at all", 2)) == 2
    assert index.search("x", 100).clamped


def test_search_many_matches_search():
    index = ToolIndex(TOOLS, semantic=True)
    queries = ["send a note to Bob", "forecast", "select:read_file"]
    assert index.search_many(queries, 3) == [index.search(q, 3) for q in queries]


def test_both_engines_agree(engine):
    other = "python" if engine == "rust" else "rust"
    a = ToolIndex(TOOLS, engine=engine, semantic=True)
    b = ToolIndex(TOOLS, engine=other, semantic=True)
    for query in ["read a file", "tell my colleague the news", "push code", "umbrella today?"]:
        ra, rb = a.search(query, 6), b.search(query, 6)
        assert names(ra) == names(rb)
        assert [m.score for m in ra] == pytest.approx([m.score for m in rb], abs=1e-9)
        assert ra.confidence == pytest.approx(rb.confidence, abs=1e-9)


# --- snapshots and updates ---------------------------------------------------------------------


def test_snapshot_round_trip_keeps_the_vectors(engine, tmp_path):
    index = ToolIndex(TOOLS, engine=engine, semantic=True)
    path = tmp_path / "tools.tsift"
    index.save(path)
    loaded = ToolIndex.load(path, semantic=True)
    assert np.array_equal(loaded._semantic.vectors.matrix, index._semantic.vectors.matrix)
    for query in ["read a file", "notify someone"]:
        assert loaded.search(query) == index.search(query)
    assert not ToolIndex.load(path, semantic=False).semantic
    back = pickle.loads(pickle.dumps(index))
    assert back.semantic and back.search("notify someone") == index.search("notify someone")


def test_an_old_snapshot_loads_and_embeds_its_tools():
    data = ToolIndex(TOOLS, semantic=False).to_bytes()
    loaded = ToolIndex.from_bytes(data, semantic=True)
    fresh = ToolIndex(TOOLS, semantic=True)
    assert np.array_equal(loaded._semantic.vectors.matrix, fresh._semantic.vectors.matrix)


def test_a_corrupt_semantic_section_is_a_snapshot_error():
    data = ToolIndex(TOOLS, semantic=True).to_bytes()
    short = ToolIndex([Tool(name="a", description="alpha")], semantic=True).to_bytes()
    from toolsift._index import persist

    parts = persist.from_bytes(data, "python")
    entry = dict(parts.semantic, vectors=persist.from_bytes(short, "python").semantic["vectors"])
    bad = persist.to_bytes(parts.tools, parts.index, parts.field_weights, entry)
    with pytest.raises(SnapshotError, match="semantic section is invalid"):
        ToolIndex.from_bytes(bad, semantic=True)
    assert not ToolIndex.from_bytes(bad, semantic=False).semantic


def test_an_update_embeds_only_the_added_tools():
    counter = CountingEncoder()
    index = ToolIndex(TOOLS, semantic=True)
    index._semantic.encoder = counter
    new = [Tool(name="mcp__git__pull", server="git", mcp_tool_name="pull",
                description="Fetch and merge remote changes")]  # fmt: skip
    updated = index.replace_server("git", new)
    assert len(counter.texts) == 1 and "pull" in counter.texts[0]
    fresh = ToolIndex([*TOOLS[:4], *new], semantic=True)
    assert np.array_equal(updated._semantic.vectors.matrix, fresh._semantic.vectors.matrix)
    assert updated.search("merge the remote") == fresh.search("merge the remote")


def test_semantic_result_equality_covers_the_new_fields():
    base = SearchResult("q", "keyword", 8)
    assert base != SearchResult("q", "keyword", 8, confidence=0.5)
    assert base != SearchResult("q", "keyword", 8, abstained=True)


def test_catalog_reconnect_embeds_only_that_server():
    catalog = Catalog(TOOLS[:4], servers={"git": TOOLS[4:]}, semantic=True)
    index = catalog.index
    assert index.semantic
    counter = CountingEncoder()
    index._semantic.encoder = counter
    catalog.connect_server("git", TOOLS[4:])
    assert len(counter.texts) == 2
    catalog.remove_tools(["read_file"])
    assert len(counter.texts) == 2
    assert catalog.index.semantic


def test_catalog_rebuild_carries_the_vectors_of_unchanged_tools():
    big = [Tool(name=f"mcp__big__t{i}", server="big", mcp_tool_name=f"t{i}",
                description=f"tool number {i}") for i in range(80)]  # fmt: skip
    catalog = Catalog(TOOLS[:4], servers={"big": big}, semantic=True)
    counter = CountingEncoder()
    catalog.index._semantic.encoder = counter
    changed = [*big[:70], Tool(name="mcp__big__new", server="big", mcp_tool_name="new",
                               description="a brand new tool")]  # fmt: skip
    catalog.connect_server("big", changed)  # more than 64 changes: the index is rebuilt
    assert counter.texts == ["new: a brand new tool"]
    fresh = ToolIndex([*TOOLS[:4], *changed], semantic=True)
    assert np.array_equal(catalog.index._semantic.vectors.matrix, fresh._semantic.vectors.matrix)


# --- HybridIndex -------------------------------------------------------------------------------


def test_hybrid_select_is_never_padded():
    from toolsift.hybrid import HybridIndex

    hybrid = HybridIndex(ToolIndex(TOOLS), embeddings=np.eye(len(TOOLS)))
    result = hybrid.search("select:read_file,nope", query_vector=np.ones(len(TOOLS)))
    assert [m.name for m in result] == ["read_file"] and result.missing == ("nope",)


def test_hybrid_falls_back_to_keywords_when_its_embedder_fails(tmp_path):
    from toolsift.hybrid import HybridIndex

    def broken(texts):
        raise OSError("model file vanished")

    with pytest.warns(SemanticWarning, match="OSError: model file vanished") as caught:
        hybrid = HybridIndex(ToolIndex(TOOLS), embed=broken, cache_dir=tmp_path)
        result = hybrid.search("weather")
    assert len(caught) == 1 and hybrid.embeddings is None
    assert result.mode == "keyword" and result[0].name == "get_weather"
    calls = []

    def query_breaks(texts):
        calls.append(len(texts))
        if len(texts) == 1:
            raise RuntimeError("busy")
        return np.eye(len(TOOLS))[: len(texts)]

    hybrid = HybridIndex(ToolIndex(TOOLS), embed=query_breaks, cache_dir=False)
    with pytest.warns(SemanticWarning, match="RuntimeError: busy"):
        result = hybrid.search("weather")
    assert result.mode == "keyword" and result.note == "the embedder failed: keyword-only search"


def test_hybrid_over_a_semantic_index_uses_its_lexical_side():
    from toolsift.hybrid import HybridIndex

    hybrid = HybridIndex(ToolIndex(TOOLS, semantic=True))
    assert [m.reason for m in hybrid.search("weather")] == ["bm25"]


def test_a_loaded_index_updates_with_its_vectors():
    loaded = ToolIndex.from_bytes(ToolIndex(TOOLS, semantic=True).to_bytes(), semantic=True)
    new = [Tool(name="mcp__git__pull", server="git", mcp_tool_name="pull",
                description="Fetch and merge remote changes")]  # fmt: skip
    updated = loaded.replace_server("git", new)
    fresh = ToolIndex([*TOOLS[:4], *new], semantic=True)
    assert np.array_equal(updated._semantic.vectors.matrix, fresh._semantic.vectors.matrix)
    assert updated.search("merge the remote") == fresh.search("merge the remote")


def test_both_engines_agree_on_the_built_in_catalogue():
    from toolsift import default_tools

    tools = default_tools()
    rust = ToolIndex(tools, engine="rust", semantic=True)
    python = ToolIndex(tools, engine="python", semantic=True)
    queries = [
        "open a pull request and ask for a review",
        "what's on my calendar tomorrow",
        "mcp__github__create_issue",
        "store this note",
        "deploy, then tell the team",
    ]
    for query in queries:
        a, b = rust.search(query, 10), python.search(query, 10)
        assert names(a) == names(b), query
        assert [m.score for m in a] == pytest.approx([m.score for m in b], abs=1e-9)
        assert a.confidence == pytest.approx(b.confidence, abs=1e-9)


def test_from_records_takes_the_switch():
    records = [{"name": "read_file", "description": "Read a file from disk"}]
    assert ToolIndex.from_records(records, server="fs", semantic=True).semantic
    assert not ToolIndex.from_records(records, server="fs", semantic=False).semantic


def test_a_long_build_draws_a_progress_bar_on_a_terminal(monkeypatch):
    import io

    from toolsift.semantic import vectors as vectors_module

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    encoder = default_encoder()
    texts = [f"tool number {i} does a thing" for i in range(30)]
    monkeypatch.setattr(vectors_module, "PROGRESS_TOOLS", 20)
    monkeypatch.setattr(vectors_module, "BATCH", 8)
    stream = Terminal()
    drawn = vectors_module._with_progress(encoder.encode, texts, stream)
    assert "embedding tools" in stream.getvalue()
    assert np.allclose(drawn, encoder.encode(texts), atol=1e-6)
    quiet = io.StringIO()  # not a terminal: no bar
    vectors_module._with_progress(encoder.encode, texts, quiet)
    assert quiet.getvalue() == ""


def test_normalize_on_the_semantic_path():
    result = ToolIndex(TOOLS, semantic=True).search("send a message", normalize=True)
    assert result[0].normalized_score == 1.0
    normalized = [m.normalized_score for m in result]
    assert normalized == sorted(normalized, reverse=True) and normalized[0] == 1.0
    assert normalized == [m.score / result[0].score for m in result]
    lexical = ToolIndex(TOOLS, semantic=True).search("message", ranker="keyword")
    assert {m.reason for m in lexical} == {"keyword"} and lexical.confidence is None
