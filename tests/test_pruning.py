"""Pruned top-k search (``rust/prune.rs``) returns exactly what the exhaustive path returns.

The Rust engine prunes queries with many postings (``"auto"``);
``toolsift._core._set_scoring_mode`` forces the exhaustive reference loop or pruning. Both must
give the same ranked lists with the same score bits, and the pure-Python engine (``_fallback.py``)
the same again, on random corpora whose terms overlap heavily (so that the top-k cut falls inside
long runs of close and tied scores) and on the shared catalogues with their own queries.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from functools import partial
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ._corpora import search_options
from .conftest import HAVE_RUST, costly, shared_dir

pytestmark = pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")

VOCAB = (
    "read reader readme write file files issue pull request get list user channel send "
    "message the a of data database calendar event zeta x"
).split()
WEIGHTS = [6.0, 2.0, 1.0, 0.0]
T = TypeVar("T")


def run(mode: str, fn: Callable[[], T]) -> T:
    """``fn()`` with the scoring path ``mode`` forced; back to ``"auto"`` afterwards."""
    from toolsift._core import _set_scoring_mode

    _set_scoring_mode(mode)
    try:
        return fn()
    finally:
        _set_scoring_mode("auto")


def in_parts(parts: int, fn: Callable[[], T]) -> T:
    """``fn()`` with every pruned search cut into ``parts`` document ranges searched in
    parallel; back to the automatic choice afterwards."""
    from toolsift._core import _set_search_parts

    _set_search_parts(parts)
    try:
        return run("pruned", fn)
    finally:
        _set_search_parts(0)


def exhaustive(fn: Callable[[], T]) -> T:
    return run("exhaustive", fn)


def pruned(fn: Callable[[], T]) -> T:
    return run("pruned", fn)


def random_corpus(seed: int, n: int, vocab: int) -> tuple[list[str], list[list[tuple[int, str]]]]:
    """Skewed word choice over a small vocabulary: most documents share the first words, and
    a few names repeat, so score ties at the k-th place are common."""
    rng = random.Random(seed)
    words = VOCAB[:vocab]
    names = [f"t{rng.randrange(max(2, n // 2))}" for _ in range(n)]
    docs = []
    for _ in range(n):
        fields = []
        for _ in range(rng.randrange(4)):
            k = 1 + rng.randrange(40 if rng.random() < 0.1 else 6)
            text = " ".join(
                words[min(rng.randrange(vocab), rng.randrange(vocab))] for _ in range(k)
            )
            fields.append((rng.randrange(len(WEIGHTS)), text))
        docs.append(fields)
    return names, docs


query_words = st.lists(
    st.sampled_from(VOCAB + ["rea", "wri", "mess", "da", "nowhere"]), min_size=1, max_size=10
).map(" ".join)


@settings(max_examples=costly(), deadline=None)
@given(
    seed=st.integers(0, 2**32),
    n=st.sampled_from([1, 10, 70, 300, 1500]),
    vocab=st.integers(2, len(VOCAB)),
    query=query_words,
    limit=st.sampled_from([1, 2, 3, 8, 25, 200]),
    options=search_options(n_docs=1500),
    exclude=st.lists(st.integers(0, 1499), max_size=20),
    profile=st.sampled_from(["omp", "english"]),
    parts=st.integers(2, 5),
)
def test_pruned_equals_exhaustive_and_the_python_engine(
    seed, n, vocab, query, limit, options, exclude, profile, parts
):
    from toolsift._core import Index as RustIndex
    from toolsift._pyengine.index import Index as PyIndex

    names, docs = random_corpus(seed, n, vocab)
    rust = RustIndex(names, docs, WEIGHTS, profile=profile)
    got = pruned(lambda: rust.search(query, limit, exclude, **options))
    reference = exhaustive(lambda: rust.search(query, limit, exclude, **options))
    assert got == reference  # ids, order and score bits
    # Cut into document ranges searched in parallel (sharing θ), then merged.
    assert in_parts(parts, lambda: rust.search(query, limit, exclude, **options)) == reference
    assert rust.search(query, limit, exclude, **options) == reference  # auto
    python = PyIndex(names, docs, WEIGHTS, profile=profile).search(query, limit, exclude, **options)
    assert got == python
    batch = pruned(lambda: rust.search_many([query, query + " data"], limit, exclude, **options))
    assert batch[0] == got
    assert batch[1] == exhaustive(lambda: rust.search(query + " data", limit, exclude, **options))


def test_the_switch_changes_the_path_not_the_results():
    from toolsift._core import Index as RustIndex

    names, docs = random_corpus(3, 2000, len(VOCAB))
    rust = RustIndex(names, docs, WEIGHTS)
    queries = ["read file", "the a of", "send message user channel data", "rea mess"]
    for q in queries:
        for limit in (1, 8, 25):
            call = partial(rust.search, q, limit, prefix_fraction=0.5)
            hits = pruned(call)
            assert hits, q
            assert hits == exhaustive(call)
    many = pruned(lambda: rust.search_many(queries * 4, 8, prefix_fraction=0.5))
    assert many == exhaustive(lambda: rust.search_many(queries * 4, 8, prefix_fraction=0.5))
    with pytest.raises(ValueError, match="scoring mode"):
        run("fast", lambda: None)


@pytest.fixture(scope="module")
def mcp_mixed():
    base = shared_dir()
    if base is None or not (base / "data" / "mcp_mixed.tools.jsonl").exists():
        pytest.skip("../shared/data/mcp_mixed.tools.jsonl not found (set TOOLSIFT_SHARED_DIR)")
    from toolsift import ToolIndex, load_catalog

    tools = load_catalog(base / "data" / "mcp_mixed.tools.jsonl")
    with (base / "data" / "mcp_mixed.queries.jsonl").open(encoding="utf-8") as fh:
        queries = [json.loads(line)["query"] for line in fh]
    return ToolIndex(tools, engine="rust"), ToolIndex(tools, engine="python"), queries


def test_shared_catalogue_pruned_equals_exhaustive(mcp_mixed):
    from toolsift import tokenize
    from toolsift.evaluation.variants import STOPWORDS_EN

    index, python, queries = mcp_mixed
    engine = index._index
    filtered = []
    for q in queries:
        kept = [t for t in dict.fromkeys(tokenize(q)) if t not in STOPWORDS_EN]
        filtered.append(" ".join(kept) or q)
    option_sets = [
        {},
        {"prefix_fraction": 0.5},
        {"coverage": True, "prefix_fraction": 0.5},
        {"threshold": 8.0, "relative_floor": 0.3},
        {"include": range(0, 11578, 3), "required": ["file"]},
    ]
    for i, q in enumerate(queries[::2] + filtered[::2]):
        opts = option_sets[i % len(option_sets)]
        limit = (8, 25, 1)[i % 3]
        call = partial(engine.search, q, limit, [5, 17], **opts)
        reference = exhaustive(call)
        assert pruned(call) == reference, q
        assert in_parts(2 + i % 3, call) == reference, q

    # End to end through ToolIndex (exact-name tier, prefixes), against the Python engine too.
    def ranked(tool_index, q):
        return [(r.tool.name, r.score) for r in tool_index.search(q)]

    for q in queries[:60] + filtered[:60]:
        got = pruned(partial(ranked, index, q))
        assert got == exhaustive(partial(ranked, index, q))
        assert got == ranked(python, q)
