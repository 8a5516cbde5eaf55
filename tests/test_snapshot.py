"""Snapshots: ``to_bytes``/``from_bytes``, ``save``/``load`` and pickling, in both engines.

A snapshot written by one engine loads in the other (the bytes are identical), a loaded index
ranks bit for bit like the saved one, and a truncated, corrupted, wrong-magic or newer-version
snapshot raises :class:`toolsift.SnapshotError`, never a crash.
"""

from __future__ import annotations

import pickle
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import SnapshotError, Tool, ToolIndex
from toolsift._pyengine.index import Index as PyIndex
from toolsift._snapshot.format import FORMAT_VERSION

from ._corpora import ENGINE_CLASSES, QUERY_LANGUAGE, VOCAB, WEIGHTS, corpus
from .conftest import HAVE_RUST, costly

QUERIES = ["read file", "the a of", "issue pull request", "send message user channel", "data"]
needs_rust = pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")


def sample(cls, n=40):
    names = [f"tool{i % 17}" for i in range(n)]
    docs = [
        [(i % 4, " ".join(VOCAB[(i * 7 + j) % len(VOCAB)] for j in range(i % 9)))] for i in range(n)
    ]
    return cls(names, docs, WEIGHTS, k1=1.1, b=0.6, delta=0.5)


def same(a, b):
    assert len(a) == len(b) and a.names == b.names and a.params == b.params
    assert a.profile == b.profile
    assert a.average_length == b.average_length and a.vocabulary_size == b.vocabulary_size
    for q in QUERIES:
        assert a.search(q, 50) == b.search(q, 50)
    # Presence postings (field 3 has weight 0), sorted terms (prefixes) and the gates.
    for q in QUERIES + ["rea fil", "mess chan us"]:
        for options in QUERY_LANGUAGE:
            assert a.search(q, 10, **options) == b.search(q, 10, **options), (q, options)


def test_round_trip_bytes_file_and_pickle(engine_index, tmp_path):
    idx = sample(engine_index)
    same(idx, engine_index.from_bytes(idx.to_bytes()))
    back, meta = engine_index.from_bytes(idx.to_bytes(b"\x00meta"), with_metadata=True)
    assert meta == b"\x00meta"
    same(idx, back)
    path = tmp_path / "index.tsift"
    idx.save(path, b"m")
    same(idx, engine_index.load(path))
    assert engine_index.load(str(path), with_metadata=True)[1] == b"m"
    same(idx, pickle.loads(pickle.dumps(idx)))
    assert engine_index.from_bytes(bytearray(idx.to_bytes())).names == idx.names
    empty = engine_index([], [], [])
    assert len(engine_index.from_bytes(empty.to_bytes())) == 0


@needs_rust
@settings(max_examples=costly())
@given(data=corpus(), profile=st.sampled_from(["omp", "english"]))
def test_both_engines_write_the_same_bytes_and_read_each_other(data, profile):
    from toolsift._core import Index as RustIndex

    names, docs = data
    r = RustIndex(names, docs, WEIGHTS, profile=profile)
    p = PyIndex(names, docs, WEIGHTS, profile=profile)
    assert r.to_bytes(b"x") == p.to_bytes(b"x")
    same(RustIndex.from_bytes(p.to_bytes()), p)
    same(PyIndex.from_bytes(r.to_bytes()), r)


def test_error_messages_say_what_is_wrong(engine_index):
    data = sample(engine_index).to_bytes()
    cases = [
        (b"PK\x03\x04 zip", "wrong magic"),
        (b"", "wrong magic"),
        (data[:20], "truncated"),
        (data[:-1], "truncated"),
        (data + b"\x00", "unexpected bytes"),
        (data[:8] + struct.pack("<I", FORMAT_VERSION + 1) + data[12:], "newer"),
        (data[:8] + struct.pack("<I", 1) + data[12:], "older"),
        (data[:8] + struct.pack("<I", 0) + data[12:], "version is 0"),
        (data[:-10] + bytes([data[-10] ^ 1]) + data[-9:], "checksum"),
    ]
    for bad, want in cases:
        with pytest.raises(SnapshotError, match=want):
            engine_index.from_bytes(bad)
    with pytest.raises(TypeError):
        engine_index.from_bytes("not bytes")


def test_snapshot_error_is_a_value_error(engine_index, tmp_path):
    path = tmp_path / "bad"
    path.write_bytes(b"garbage")
    with pytest.raises(ValueError):
        engine_index.load(path)
    with pytest.raises(FileNotFoundError):
        engine_index.load(tmp_path / "missing")


@pytest.mark.parametrize("engine_index", ENGINE_CLASSES)
@given(
    cut=st.integers(0, 10**6),
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=4),
)
def test_truncations_and_byte_flips_raise_snapshot_error(engine_index, cut, flips):
    data = bytearray(sample(engine_index, 12).to_bytes(b"meta"))
    data = data[: cut % (len(data) + 1)]
    for at, mask in flips:
        if data:
            data[at % len(data)] ^= mask
    if bytes(data) == sample(engine_index, 12).to_bytes(b"meta"):
        return
    with pytest.raises(SnapshotError):
        engine_index.from_bytes(bytes(data))


@pytest.mark.parametrize("engine_index", ENGINE_CLASSES)
@given(
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), min_size=1, max_size=3)
)
def test_structural_corruption_with_a_valid_checksum_is_caught(engine_index, flips):
    """The checksum is recomputed after the damage, so only the structural checks can catch it;
    the reader must either raise SnapshotError or produce an index that searches safely."""
    data = bytearray(sample(engine_index, 12).to_bytes(b"meta"))
    for at, mask in flips:
        data[32 + at % (len(data) - 32)] ^= mask
    data[24:28] = struct.pack("<I", zlib.crc32(bytes(data[32:])))
    try:
        idx = engine_index.from_bytes(bytes(data))
    except SnapshotError:
        return
    for q in QUERIES:
        idx.search(q, 5)


@pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")
@given(
    params=st.tuples(
        st.floats(allow_nan=True, allow_infinity=True),
        st.floats(allow_nan=True, allow_infinity=True),
        st.floats(allow_nan=True, allow_infinity=True),
    )
)
def test_both_readers_take_the_bm25_parameters_a_build_takes(params):
    """Stored k1, b, delta: each reader loads exactly the ones a build accepts (k1 and delta up
    to 1000; a larger one overflows the scores), and refuses the others with one message."""
    data = bytearray(sample(PyIndex, 3).to_bytes())
    data[32:56] = struct.pack("<3d", *params)
    data[24:28] = struct.pack("<I", zlib.crc32(bytes(data[32:])))
    from toolsift._core import Index as RustIndex

    outcomes = []
    for engine_index in (RustIndex, PyIndex):
        try:
            outcomes.append(engine_index.from_bytes(bytes(data)).params)
        except SnapshotError as exc:
            outcomes.append(str(exc))
    assert repr(outcomes[0]) == repr(outcomes[1])
    try:
        PyIndex(["a"], [[(0, "x")]], [1.0], k1=params[0], b=params[1], delta=params[2])
    except ValueError:
        assert "BM25 parameters (k1, b, delta) are out of range" in str(outcomes[0])
    else:
        assert outcomes[0] == params


def test_huge_counts_do_not_allocate(engine_index):
    """A header that claims 2^32 - 1 postings must fail on the length check, not allocate."""
    data = bytearray(sample(engine_index, 3).to_bytes())
    n_fields = struct.unpack_from("<I", data, 32 + 28)[0]  # after k1, b, delta and the profile
    at = 32 + 28 + 4 + 8 * n_fields + 8  # n_postings
    data[at : at + 4] = b"\xff\xff\xff\xff"
    data[24:28] = struct.pack("<I", zlib.crc32(bytes(data[32:])))
    with pytest.raises(SnapshotError, match="runs past the end"):
        engine_index.from_bytes(bytes(data))


TOOLS = [
    Tool(
        name="mcp__github__create_issue",
        description="Create a new issue in a GitHub repository. ünïcode ✓",
        input_schema={"type": "object", "properties": {"title": {"type": "string"}}},
        server="github",
        mcp_tool_name="create_issue",
        title="Create issue",
        search_hint="open bug ticket",
    ),
    Tool(name="send_message", description="Send a chat message to a channel"),
]


def test_tool_index_round_trips_tools_weights_and_params(engine, tmp_path):
    from toolsift import FieldWeights

    index = ToolIndex(TOOLS, engine=engine, k1=1.0, b=0.5, field_weights=FieldWeights(title=1.0))
    path = tmp_path / "tools.tsift"
    index.save(path)
    for other in ("rust", "python") if HAVE_RUST else ("python",):
        back = ToolIndex.load(path, engine=other)
        assert back.engine == other
        assert back.tools == index.tools
        assert back.field_weights == index.field_weights
        assert back.params == index.params
        # +required words of the (weight-0) description, prefixes, exact names, select: and
        # the keyword ranker: the name table and keyword index are rebuilt from the tools.
        for q in [
            "open an issue",
            "chat message",
            "create",
            "+repository issue",
            "+disk chat",
            "iss mess",
            "create_issue please",
            "select:send_message,create_issue",
        ]:
            assert back.search(q) == index.search(q)
            assert back.search(q, ranker="keyword") == index.search(q, ranker="keyword")
            assert back.search_many([q, q]) == index.search_many([q, q])
    again = pickle.loads(pickle.dumps(index))
    assert again.engine == index.engine and again.tools == index.tools
    assert again.search("issue") == index.search("issue")


def test_tool_index_rejects_a_bare_engine_snapshot(engine):
    index = ToolIndex(TOOLS, engine=engine)
    with pytest.raises(SnapshotError, match="holds no tools"):
        ToolIndex.from_bytes(index._index.to_bytes())
    with pytest.raises(SnapshotError, match="checksum"):
        data = index.to_bytes()
        ToolIndex.from_bytes(data[:-3] + b"???")


def _search_in_worker(index, query):
    return [(m.name, m.score) for m in index.search(query)]


def test_tool_index_crosses_process_boundaries(engine):
    """A spawned worker process receives the pickled index (snapshot bytes) and ranks the same."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    index = ToolIndex(TOOLS, engine=engine)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
        got = pool.submit(_search_in_worker, index, "open an issue").result(timeout=120)
    assert got == [(m.name, m.score) for m in index.search("open an issue")]
