"""An index past 64k tools: the Rust engine's large-index layout ranks as the pure-Python engine.

From 65,536 tools (``MIN_PRUNE_DOCS``) the Rust engine prunes, stores no per-posting impacts,
and in the english profile lets a stemmed copy that holds exactly its word's documents read the
word's postings at half the term frequency (``rust/build/share.rs``). The Rust tests prove each
of these against the small-index layout on random corpora; this test checks the whole, at that
size, against the pure-Python engine, which knows none of them: the same ranked lists, scores
within 1e-9, single and batch searches, and a snapshot round trip.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .conftest import HAVE_RUST

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benches"))

from _synthetic import synthetic_queries, synthetic_tools  # noqa: E402
from toolsift import ToolIndex  # noqa: E402

pytestmark = pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")

N_TOOLS = 66_000  # past MIN_PRUNE_DOCS (65,536)
QUERIES = synthetic_queries(40) + [
    "read the files of a repository",
    "send a slack message to a channel",
    "server 1234 close",
    "+record update",
    "reminde",  # a prefix
]


def ranked(index: ToolIndex, query: str) -> list[tuple[str, float]]:
    return [(m.name, m.score) for m in index.search(query, limit=10)]


def test_a_large_english_index_ranks_as_the_python_engine(tmp_path: Path) -> None:
    tools = synthetic_tools(N_TOOLS)
    rust = ToolIndex(tools, engine="rust", profile="english")
    python = ToolIndex(tools, engine="python", profile="english")
    rust.save(tmp_path / "large.toolsift")
    loaded = ToolIndex.load(tmp_path / "large.toolsift", engine="rust")
    batch = rust.search_many(QUERIES, limit=10)
    compared = 0
    for query, many in zip(QUERIES, batch):
        want = ranked(python, query)
        for got in (ranked(rust, query), ranked(loaded, query)):
            assert [n for n, _ in got] == [n for n, _ in want], query
            assert all(abs(a - b) <= 1e-9 for (_, a), (_, b) in zip(got, want)), query
        assert [(m.name, m.score) for m in many] == ranked(rust, query), query
        compared += bool(want)
    assert compared >= len(QUERIES) - 2
