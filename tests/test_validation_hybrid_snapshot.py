"""Input validation of HybridIndex, with_tools / replace_server, snapshot loading and saving,
and the pure-Python tokenizer: each bad input raises one documented exception whose message
names the argument, and the object still works afterwards."""

from __future__ import annotations

import dataclasses
import json
import pickle

import pytest
from toolsift import LimitError, QueryError, SnapshotError, Tool, ToolIndex
from toolsift._snapshot import format as _snapshot
from toolsift._snapshot.tools_section import LazyTools
from toolsift._text.tokenize import tokenize as py_tokenize

np = pytest.importorskip("numpy")

from toolsift.hybrid import HybridIndex, minmax_fuse, rrf_fuse  # noqa: E402

from ._corpora import FOUR_TOOLS  # noqa: E402

TOOLS = FOUR_TOOLS
VECTORS = np.eye(4, dtype=np.float32)
QV = [0.1, 0.2, 0.9, 0.3]


def fake_embed(texts: list[str]) -> np.ndarray:
    """One axis per topic word, float32, like a real embedder's output."""
    out = np.zeros((len(texts), 4), dtype=np.float32)
    for i, text in enumerate(texts):
        for j, word in enumerate(("weather", "issue", "email", "file")):
            if word in text.lower():
                out[i, j] = 1.0
    return out


def hybrid(**kw) -> HybridIndex:
    return HybridIndex(ToolIndex(TOOLS), embeddings=VECTORS, **kw)


def names(result) -> list[str]:
    return [m.name for m in result]


# --- HybridIndex: limit -------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [-1, 0, 2.0, 1.5, "3", True, np.int64(3)])
@pytest.mark.parametrize("with_vectors", [False, True])
def test_hybrid_limit_is_checked_like_tool_index(limit, with_vectors) -> None:
    h = hybrid() if with_vectors else HybridIndex(ToolIndex(TOOLS))
    with pytest.raises(LimitError) as expected:
        ToolIndex(TOOLS).search("send email", limit)
    with pytest.raises(LimitError, match=r"^Limit must be a positive integer, got ") as got:
        h.search("send email", limit, query_vector=QV if with_vectors else None)
    assert str(got.value) == str(expected.value)
    # still works
    assert names(h.search("send email", 2, query_vector=QV if with_vectors else None))[0] == (
        "send_email"
    )


def test_hybrid_limit_none_is_the_default() -> None:
    assert len(hybrid().search("file email weather issue", None, query_vector=[1, 1, 1, 1])) == 4
    assert len(HybridIndex(ToolIndex(TOOLS)).search("send email", None)) >= 1


def test_hybrid_select_and_keyword_only_respect_the_limit() -> None:
    h = HybridIndex(ToolIndex(TOOLS))
    assert len(h.search("send email read file weather issue", 1)) == 1
    got = hybrid().search("select:read_file,send_email", 1, query_vector=QV)
    assert len(got) == 1 and got[0].reason == "select"


# --- HybridIndex: construction options --------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"rrf_k": float("nan")}, r"rrf_k must be a finite number, got nan"),
        ({"rrf_k": float("inf")}, r"rrf_k must be a finite number, got inf"),
        ({"rrf_k": -1.0}, r"rrf_k must be >= 0, got -1.0"),
        ({"dense_weight": float("nan")}, r"dense_weight must be a finite number, got nan"),
        ({"dense_weight": 1.5}, r"dense_weight must be between 0 and 1, got 1.5"),
        ({"dense_weight": -0.1}, r"dense_weight must be between 0 and 1, got -0.1"),
        ({"candidates": 0}, r"candidates must be >= 1, got 0"),
        ({"fusion": "max"}, r"fusion must be 'minmax' or 'rrf', got 'max'"),
        ({"fusion": ["rrf"]}, r"fusion must be 'minmax' or 'rrf', got \['rrf'\]"),
    ],
)
def test_hybrid_options_out_of_range(kw, message) -> None:
    with pytest.raises(ValueError, match=message):
        hybrid(**kw)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"rrf_k": "60"}, r"rrf_k must be a number, got str"),
        ({"dense_weight": None}, r"dense_weight must be a number, got NoneType"),
        ({"dense_weight": True}, r"dense_weight must be a number, got bool"),
        ({"candidates": 1.5}, r"candidates must be an int, got float"),
        ({"candidates": float("nan")}, r"candidates must be an int, got float"),
        ({"candidates": True}, r"candidates must be an int, got bool"),
        ({"embed": 5}, r"embed must be a callable that embeds a list of texts, got int"),
        ({"model_id": 5}, r"model_id must be a str, got int"),
        ({"cache_dir": True}, r"cache_dir must be a path, False or None, got bool"),
    ],
)
def test_hybrid_options_of_the_wrong_type(kw, message) -> None:
    with pytest.raises(TypeError, match=message):
        hybrid(**kw)


def test_hybrid_numeric_options_accept_numpy_numbers() -> None:
    h = hybrid(
        fusion="rrf", rrf_k=np.float32(10), dense_weight=np.float64(0.5), candidates=np.int64(3)
    )
    assert (h.rrf_k, h.dense_weight, h.candidates) == (10.0, 0.5, 3)
    assert names(h.search("send email", 1, query_vector=QV)) == ["send_email"]


def test_rrf_scores_stay_finite_at_k_zero() -> None:
    got = hybrid(fusion="rrf", rrf_k=0).search("email file", 4, query_vector=QV)
    assert got[0].score == 1.0 and all(0.0 <= m.score <= 1.0 for m in got)


def test_hybrid_index_must_be_a_tool_index() -> None:
    with pytest.raises(TypeError, match=r"index must be a toolsift.ToolIndex, got list"):
        HybridIndex(TOOLS)  # type: ignore[arg-type]


# --- HybridIndex: embeddings and the embed callable ------------------------------------------


@pytest.mark.parametrize(
    ("embeddings", "message"),
    [
        ("abc", r"embeddings must be an array of real numbers, got str"),
        ([[1, 2], [3]], r"embeddings must be an array of real numbers, got list"),
        (np.eye(4) * 1j, r"embeddings must be an array of real numbers, got ndarray"),
        (np.eye(3), r"with 4 rows and dim >= 1, got shape \(3, 3\)"),
        (np.ones(4), r"with 4 rows and dim >= 1, got shape \(4,\)"),
        (np.ones((4, 0)), r"with 4 rows and dim >= 1, got shape \(4, 0\)"),
        (np.full((4, 2), np.nan), r"embeddings must be finite"),
        (np.full((4, 2), 1e39), r"embeddings must be finite .*float32 range"),
    ],
)
def test_bad_embedding_matrices(embeddings, message) -> None:
    with pytest.raises(ValueError, match=message):
        HybridIndex(ToolIndex(TOOLS), embeddings=embeddings)


def test_huge_and_tiny_embeddings_keep_their_direction() -> None:
    """Rows near float32's limits are normalised without overflow or underflow."""
    plain = names(hybrid().search("email file", 4, query_vector=QV))
    for scale in (1e30, 1e-40):
        h = HybridIndex(ToolIndex(TOOLS), embeddings=VECTORS * np.float32(scale))
        qv = np.array(QV, dtype=np.float64) * scale
        assert names(h.search("email file", 4, query_vector=qv)) == plain


@pytest.mark.parametrize(
    ("embed", "message"),
    [
        (lambda texts: None, r"the embed callable's result must be an array of real numbers, got"),
        (lambda texts: ["x"] * len(texts), r"embed callable's result must be an array of real"),
        (lambda texts: np.ones((1, 3)), r"one vector per text, a \(4, dim\) matrix, got shape"),
        (lambda texts: np.ones(3), r"one vector per text, a \(4, dim\) matrix, got shape \(3,\)"),
        (lambda texts: np.full((len(texts), 3), np.inf), r"embed callable's result must be finite"),
    ],
)
def test_embed_callable_with_a_wrong_result(embed, message, tmp_path) -> None:
    with pytest.raises(ValueError, match=message):
        HybridIndex(ToolIndex(TOOLS), embed=embed, cache_dir=tmp_path)
    assert not list(tmp_path.iterdir())  # nothing cached


def test_embed_callable_wrong_query_embedding() -> None:
    def vectors_only_for_batches(texts: list[str]) -> np.ndarray:
        out = fake_embed(texts)
        return out[0] if len(texts) == 1 else out  # a 1-D vector for one text: wrong

    h = HybridIndex(ToolIndex(TOOLS), embed=vectors_only_for_batches, cache_dir=False)
    with pytest.raises(ValueError, match=r"a \(1, dim\) matrix, got shape \(4,\) for 1 text"):
        h.search("send an email")
    assert names(h.search("send an email", 1, query_vector=[0, 0, 1, 0])) == ["send_email"]


def test_embed_callable_float64_lists_are_accepted() -> None:
    h = HybridIndex(
        ToolIndex(TOOLS),
        embed=lambda texts: fake_embed(texts).astype(float).tolist(),
        cache_dir=False,
    )
    assert h.embeddings is not None and h.embeddings.dtype == np.float32
    assert h.search("an email please", 1)[0].name == "send_email"


def test_embed_model_id_must_be_a_str() -> None:
    def embed(texts: list[str]) -> np.ndarray:
        return fake_embed(texts)

    embed.model_id = 7  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match=r"embed.model_id must be a str, got int"):
        HybridIndex(ToolIndex(TOOLS), embed=embed)


@pytest.mark.parametrize(
    ("vector", "message"),
    [
        ([1, 0], r"query vector must have 4 finite values, got shape \(2,\)"),
        ([[1], [0], [0], [0]], r"query vector must have 4 finite values, got shape \(4, 1\)"),
        (np.ones((2, 2)), r"query vector must have 4 finite values, got shape \(2, 2\)"),
        (3.0, r"query vector must have 4 finite values, got shape \(\)"),
        ("abcd", r"query vector must be an array of real numbers, got str .*4 dimensions"),
        ([np.nan, 0, 0, 0], r"query vector must be finite .*4 dimensions"),
        ([1j, 0, 0, 0], r"query vector must be an array of real numbers, got list"),
    ],
)
def test_bad_query_vectors(vector, message) -> None:
    h = hybrid()
    with pytest.raises(ValueError, match=message):
        h.search("email", query_vector=vector)
    assert h.search("email", 1, query_vector=[[0, 0, 1, 0]])[0].name == "send_email"


# --- HybridIndex: search arguments ------------------------------------------------------------


def test_exclude_str_is_one_name() -> None:
    for h, qv in ((hybrid(), QV), (HybridIndex(ToolIndex(TOOLS)), None)):
        one = h.search("send email read file", 4, exclude="send_email", query_vector=qv)
        listed = h.search("send email read file", 4, exclude=["send_email"], query_vector=qv)
        assert names(one) == names(listed) and "send_email" not in names(one)
        assert names(h.search("send email", 4, exclude=iter(["send_email"]), query_vector=qv)) == (
            names(h.search("send email", 4, exclude={"send_email"}, query_vector=qv))
        )


@pytest.mark.parametrize(
    ("exclude", "message"),
    [
        (None, r"exclude must be a tool name or an iterable of tool names, got NoneType"),
        (5, r"exclude must be a tool name or an iterable of tool names, got int"),
        ([1], r"exclude must hold tool names \(str\), got int"),
        ([b"send_email"], r"exclude must hold tool names \(str\), got bytes"),
    ],
)
def test_bad_exclude(exclude, message) -> None:
    h = hybrid()
    with pytest.raises(TypeError, match=message):
        h.search("send email", exclude=exclude, query_vector=QV)
    assert h.search("send email", 1, query_vector=QV)[0].name == "send_email"


def test_bad_query_and_lexical() -> None:
    h = hybrid()
    with pytest.raises(QueryError, match=r"^Query must be a string, got int\.$"):
        h.search(5)  # type: ignore[arg-type]
    with pytest.raises(QueryError, match=r"^Query must not be empty\.$"):
        h.search("  ")
    with pytest.raises(TypeError, match=r"lexical\[1\] must be a toolsift.Match, got str"):
        lexical = ToolIndex(TOOLS).search("email", 1).matches
        h.search("email", lexical=[*lexical, "read_file"], query_vector=QV)
    assert h.search("email", 1, query_vector=QV)[0].name == "send_email"


def test_dense_search_arguments() -> None:
    h = hybrid()
    with pytest.raises(LimitError, match=r"^Limit must be a positive integer, got 0\.$"):
        h.dense_search(np.array(QV), 0)
    with pytest.raises(ValueError, match=r"vector must have 4 values, got shape \(2,\)"):
        h.dense_search(np.ones(2), 3)
    with pytest.raises(ValueError, match=r"dense_search needs tool embeddings"):
        HybridIndex(ToolIndex(TOOLS)).dense_search(np.ones(4), 3)
    assert h.dense_search(np.array([0, 0, 1, 0]), 1) == [(2, 1.0)]


def test_empty_index_with_embeddings() -> None:
    h = HybridIndex(ToolIndex([]), embeddings=np.zeros((0, 4)))
    assert len(h.search("send email", query_vector=QV)) == 0


def test_fusion_functions_check_k_and_weights() -> None:
    with pytest.raises(ValueError, match=r"k must be a finite number, got nan"):
        rrf_fuse([[1]], k=float("nan"))
    with pytest.raises(ValueError, match=r"k must be >= 0, got -1"):
        rrf_fuse([[1]], k=-1)
    with pytest.raises(ValueError, match=r"weights must hold one weight per list \(2\), got 1"):
        rrf_fuse([[1], [2]], [1.0])
    with pytest.raises(ValueError, match=r"weights\[0\] must be a finite number, got nan"):
        minmax_fuse([[(1, 1.0)]], [float("nan")])
    with pytest.raises(TypeError, match=r"weights\[1\] must be a number, got str"):
        minmax_fuse([[(1, 1.0)], []], [0.5, "0.5"])  # type: ignore[list-item]


# --- with_tools / replace_server ----------------------------------------------------------------


def test_with_tools_remove_str_is_one_name(engine) -> None:
    index = ToolIndex(TOOLS, engine=engine)
    assert [t.name for t in index.with_tools(remove="send_email")] == [
        "get_weather", "create_issue", "read_file",
    ]  # fmt: skip
    assert [t.name for t in index.with_tools(remove=iter(["send_email"]))] == [
        t.name for t in index.with_tools(remove=["send_email"])
    ]
    with pytest.raises(KeyError, match="send_mail"):
        index.with_tools(remove="send_mail")
    assert len(index) == 4


@pytest.mark.parametrize(
    ("kw", "error", "message"),
    [
        ({"remove": None}, TypeError, r"remove must be a tool name or an iterable of tool names"),
        ({"remove": b"read_file"}, TypeError, r"iterable of tool names, got bytes"),
        ({"remove": [1]}, TypeError, r"remove must hold tool names \(str\), got int"),
        ({"remove": [["read_file"]]}, TypeError, r"remove must hold tool names \(str\), got list"),
        ({"add": None}, TypeError, r"add must be an iterable of toolsift.Tool, got NoneType"),
        ({"add": "abc"}, TypeError, r"add must be an iterable of toolsift.Tool, got str"),
        ({"add": TOOLS[0]}, TypeError, r"got Tool \(wrap a single tool in a list\)"),
        ({"add": [{"name": "x"}]}, TypeError, r"add\[0\] must be a toolsift.Tool, got dict"),
    ],
)
def test_with_tools_bad_arguments(kw, error, message) -> None:
    index = ToolIndex(TOOLS)
    with pytest.raises(error, match=message):
        index.with_tools(**kw)
    assert index.search("send email", 1)[0].name == "send_email"


def test_replace_server_bad_arguments() -> None:
    tools = [Tool(name="mcp__s__a", server="s", mcp_tool_name="a", description="alpha")]
    index = ToolIndex(tools)
    with pytest.raises(TypeError, match=r"server must be a str, got int"):
        index.replace_server(5, [])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"tools must be an iterable of toolsift.Tool, got Tool"):
        index.replace_server("s", tools[0])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"tools\[0\] must be a toolsift.Tool, got str"):
        index.replace_server("s", ["mcp__s__b"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"belongs to server None, not 's'"):
        index.replace_server("s", [Tool(name="b")])
    assert [t.name for t in index.replace_server("s", [])] == []


# --- loading crafted snapshots ------------------------------------------------------------------


SNAP_TOOLS = [Tool(name="a", description="alpha file"), Tool(name="b", description="beta file")]


def _parts(engine: str = "python"):
    cols, meta = _snapshot.loads(ToolIndex(SNAP_TOOLS, engine=engine).to_bytes())
    head, *records = meta.split(b"\n")
    return cols, json.loads(head), records


def _build(cols, head, records) -> bytes:
    return _snapshot.dumps(cols, b"\n".join([json.dumps(head).encode(), *records]))


def test_snapshot_with_duplicate_names(engine) -> None:
    cols, head, records = _parts()
    cols = dataclasses.replace(cols, names=["a", "a"])
    head.update(servers=[None, None], mcp_tool_names=[None, None])
    blob = _build(cols, head, [records[0], records[0]])
    with pytest.raises(SnapshotError, match=r"the tool name 'a' appears twice\. Rebuild"):
        ToolIndex.from_bytes(blob, engine=engine)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({"name": "heavy"}, r"the field weight 'name' is 'heavy', not a finite number >= 0"),
        ({"name": True}, r"the field weight 'name' is True, not a finite number >= 0"),
        ({"name": None}, r"the field weight 'name' is None, not a finite number >= 0"),
        ({"name": -1.0}, r"the field weight 'name' is -1.0, not a finite number >= 0"),
        ({"name": float("nan")}, r"the field weight 'name' is nan, not a finite number >= 0"),
        ({"heft": 1.0}, r"its tool section names an unknown field weight 'heft'"),
        ({"word_pairs": 0.5}, r"'word_pairs' is 0.5 in its tool section but 0.0 in the index"),
        ({"name": 5.0}, r"'name' is 5.0 in its tool section but 6.0 in the index"),
    ],
)
def test_snapshot_with_bad_field_weights(engine, weights, message) -> None:
    cols, head, records = _parts()
    head["field_weights"] = {**head["field_weights"], **weights}
    with pytest.raises(SnapshotError, match=message):
        ToolIndex.from_bytes(_build(cols, head, records), engine=engine)


@pytest.mark.parametrize("value", [None, [], "x"])
def test_snapshot_without_a_field_weights_object(engine, value) -> None:
    cols, head, records = _parts()
    head["field_weights"] = value
    with pytest.raises(SnapshotError, match=r"its tool section has no field weights object"):
        ToolIndex.from_bytes(_build(cols, head, records), engine=engine)
    del head["field_weights"]
    with pytest.raises(SnapshotError, match=r"its tool section has no field weights object"):
        ToolIndex.from_bytes(_build(cols, head, records), engine=engine)


def test_snapshot_engine_weights_differ_in_count(engine) -> None:
    cols, head, records = _parts()
    short = dataclasses.replace(cols, field_weights=cols.field_weights[:3])
    with pytest.raises(
        SnapshotError,
        match=r"'mcp_tool_name' is 4.0 in its tool section but the index stores only 3",
    ):
        ToolIndex.from_bytes(_build(short, head, records), engine=engine)
    long = dataclasses.replace(cols, field_weights=[*cols.field_weights, 1.0, 1.0])
    with pytest.raises(SnapshotError, match=r"the index stores 13 field weights, more than the 11"):
        ToolIndex.from_bytes(_build(long, head, records), engine=engine)


def test_snapshot_from_before_word_pairs_still_loads(engine) -> None:
    """A snapshot written before a field existed stores fewer weights and no key for it."""
    cols, head, records = _parts()
    assert len(cols.field_weights) == 11 and cols.field_weights[10] == 0.0
    old = dataclasses.replace(cols, field_weights=cols.field_weights[:10])
    del head["field_weights"]["word_pairs"]
    head["field_weights"]["name"] = 6  # an int weight, as an older writer may store
    index = ToolIndex.from_bytes(_build(old, head, records), engine=engine)
    assert [m.name for m in index.search("alpha")] == ["a"]
    grown = index.with_tools(add=[Tool(name="c", description="gamma file")])
    assert [m.name for m in grown.search("gamma")] == ["c"]


def test_snapshot_weights_left_out_are_the_index_weights(engine) -> None:
    cols, head, records = _parts()
    original = ToolIndex(SNAP_TOOLS, engine=engine).field_weights
    head["field_weights"] = {"name": 6.0}
    loaded = ToolIndex.from_bytes(_build(cols, head, records), engine=engine)
    assert loaded.field_weights == original
    assert loaded.to_bytes() == ToolIndex(SNAP_TOOLS, engine=engine).to_bytes()


def test_snapshot_load_stays_lazy(engine) -> None:
    tools = [Tool(name=f"t{i}", description=f"tool number {i} file") for i in range(300)]
    index = ToolIndex.from_bytes(ToolIndex(tools, engine=engine).to_bytes(), engine=engine)
    assert isinstance(index._tools, LazyTools)
    assert all(type(item) is bytes for item in index._tools._items)  # nothing decoded
    assert index.get("t7") == tools[7]


# --- saving tools that cannot be serialised --------------------------------------------------


def _surrogate_tool(field: str) -> Tool:
    """A tool with a lone surrogate in ``field`` (``Tool`` refuses one: set it past the check,
    as an older toolsift or a subclass could have)."""
    tool = Tool(name="mcp__s__bad", server="s", mcp_tool_name="bad", description="read file")
    object.__setattr__(tool, field, getattr(tool, field) + "\ud800")
    return tool


@pytest.mark.parametrize("field", ["description", "server", "mcp_tool_name"])
def test_save_names_the_tool_with_a_lone_surrogate(engine, field, tmp_path) -> None:
    index = ToolIndex([TOOLS[0], _surrogate_tool(field)], engine=engine)
    message = (
        rf"Cannot save the index: tool 'mcp__s__bad' \(tools\[1\]\) cannot be stored, its field "
        rf"'{field}' holds a lone surrogate \('\\ud800'\), which UTF-8 cannot encode"
    )
    with pytest.raises(SnapshotError, match=message):
        index.to_bytes()
    with pytest.raises(SnapshotError, match=message):
        pickle.dumps(index)
    path = tmp_path / "x.tsift"
    with pytest.raises(SnapshotError, match=message):
        index.save(path)
    assert not list(tmp_path.iterdir())
    assert index.search("weather", 1)[0].name == "get_weather"


@pytest.mark.parametrize(
    ("schema", "field", "what"),
    [
        ({"properties": {"x": {"default": b"raw"}}}, "input_schema.properties.x.default", "bytes"),
        ({"enum": [1, {2, 3}]}, r"input_schema.enum\[1\]", "set"),
        ({"properties": {"x": {"default": 1j}}}, "input_schema.properties.x.default", "complex"),
    ],
)
def test_save_names_the_tool_with_a_non_json_schema_value(engine, schema, field, what) -> None:
    bad = Tool(name="odd", description="odd tool", input_schema={"type": "object", **schema})
    index = ToolIndex([TOOLS[0], bad], engine=engine)
    message = (
        rf"tool 'odd' \(tools\[1\]\) cannot be stored, its field '{field}' holds a {what} value, "
        "which is not JSON"
    )
    with pytest.raises(SnapshotError, match=message):
        index.to_bytes()
    with pytest.raises(SnapshotError, match=message):
        pickle.dumps(index)
    assert index.search("odd", 1)[0].name == "odd"


def test_save_of_a_loaded_index_names_the_added_tool(engine) -> None:
    loaded = ToolIndex.from_bytes(ToolIndex(TOOLS, engine=engine).to_bytes(), engine=engine)
    bad = Tool(name="odd", input_schema={"type": "object", "default": b"x"})
    grown = loaded.with_tools(add=[bad])
    with pytest.raises(SnapshotError, match=r"tool 'odd' \(tools\[4\]\) cannot be stored"):
        grown.to_bytes()
    assert len(ToolIndex.from_bytes(loaded.to_bytes(), engine=engine)) == 4


def test_int_field_weights_are_saved_as_floats(engine) -> None:
    from toolsift import FieldWeights

    index = ToolIndex(TOOLS, engine=engine, field_weights=FieldWeights(name=6, summary=3))
    loaded = ToolIndex.from_bytes(index.to_bytes(), engine=engine)
    assert loaded.field_weights.as_list() == index.field_weights.as_list()
    assert [m.name for m in loaded.search("email")] == [m.name for m in index.search("email")]


# --- the pure-Python tokenizer ------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, 5, b"abc", ["a"]])
def test_python_tokenizer_refuses_non_str_like_rust(value) -> None:
    message = f"text must be a str, got {type(value).__name__}"
    with pytest.raises(TypeError, match=rf"^{message}$"):
        py_tokenize(value)  # type: ignore[arg-type]
    try:
        from toolsift._core import tokenize as rust_tokenize
    except ImportError:
        return
    with pytest.raises(TypeError, match=rf"^{message}$"):
        rust_tokenize(value)  # type: ignore[arg-type]


def test_python_tokenizer_takes_str_subclasses() -> None:
    class Text(str):
        pass

    assert py_tokenize(Text("readFile café")) == ["read", "file", "cafe"]
