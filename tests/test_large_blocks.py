"""The engine's large blocks: built, updated and searched through the extension's allocator.

The Rust extension maps its blocks of 1 MiB and up apart from malloc (``rust/alloc.rs``), so
that freeing them does not raise glibc's thresholds: a large index's columns, the build's
chunk buffers, and the vectors that an update copies and grows all go through it, growing and
shrinking across the threshold. This test drives every one of those paths at a size where they
cross it (12,000 tools: postings of about 2 MiB) and checks the results against the pure-Python
engine, which allocates nothing there, and against fresh builds: the same ranked lists, scores
within 1e-9, after a build from a file, each update, a snapshot round trip, and in a fresh
process whose malloc thresholds were raised before the build.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import HAVE_RUST

BENCHES = Path(__file__).resolve().parents[1] / "benches"
sys.path.insert(0, str(BENCHES))

from _synthetic import synthetic_queries, synthetic_tools  # noqa: E402
from toolsift import Tool, ToolIndex  # noqa: E402

pytestmark = pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")

N_TOOLS = 12_000
QUERIES = [*synthetic_queries(12), "deploy service", "+record update", "server 12 close"]


@functools.cache
def catalogue() -> list[Tool]:
    """``N_TOOLS`` synthetic tools and 4,000 more to add."""
    return synthetic_tools(N_TOOLS + 4_000)


def ranked(index: ToolIndex, query: str) -> list[tuple[str, float]]:
    return [(m.name, m.score) for m in index.search(query, limit=10)]


def assert_same(rust: ToolIndex, tools: list[Tool], engine: str = "rust") -> None:
    """``rust`` holds ``tools`` in order and ranks as a fresh index of them built by
    ``engine`` (a fresh Rust build for the steps between, cheaper than the Python engine's)."""
    fresh = ToolIndex(tools, engine=engine)
    assert [t.name for t in rust.tools] == [t.name for t in tools]
    matched = 0
    for query in QUERIES:
        got, want = ranked(rust, query), ranked(fresh, query)
        assert [n for n, _ in got] == [n for n, _ in want], query
        assert all(abs(a - b) <= 1e-9 for (_, a), (_, b) in zip(got, want)), query
        matched += bool(want)
    assert matched >= len(QUERIES) - 2


def reconnecting(n: int, round_: int) -> list[Tool]:
    """A server's ``n`` tools at reconnect ``round_`` (new descriptions each time)."""
    words = ["deploy", "rollback", "status", "logs", "metrics", "alert", "scale", "restart"]
    return [
        Tool(
            name=f"mcp__reconnecting__tool_{i}",
            server="reconnecting",
            mcp_tool_name=f"tool_{i}",
            description=f"{words[i % 8]} {words[(i + round_) % 8]} service number {i}",
        )
        for i in range(n)
    ]


def test_a_large_index_built_updated_and_searched(tmp_path: Path) -> None:
    tools = catalogue()[:N_TOOLS]
    path = tmp_path / "tools.jsonl"
    path.write_text("".join(json.dumps(t.to_dict()) + "\n" for t in tools), encoding="utf-8")
    index = ToolIndex.from_records(path, engine="rust")
    assert_same(index, tools)

    # A 20-tool server connects, then reconnects with a new list, then with fewer tools.
    for round_, n in enumerate([20, 20, 7]):
        index = index.replace_server("reconnecting", reconnecting(n, round_))
        assert_same(index, tools + reconnecting(n, round_))
    tools = tools + reconnecting(7, 2)

    # Thousands of tools at once: the index's columns grow, then shrink, past 1 MiB.
    added = catalogue()[N_TOOLS:]
    index = index.with_tools(add=added)
    tools = tools + added
    assert_same(index, tools)
    removed = {t.name for t in tools[::2]}
    index = index.with_tools(remove=removed)
    tools = [t for t in tools if t.name not in removed]

    index.save(tmp_path / "index.toolsift")
    assert_same(index, tools, "python")
    assert_same(ToolIndex.load(tmp_path / "index.toolsift", engine="rust"), tools)


def test_a_build_after_the_host_raised_mallocs_thresholds(tmp_path: Path) -> None:
    # A host that frees a large block first (here a 30 MiB bytearray) raises glibc's mmap
    # threshold to that size before the engine runs: the engine's blocks are its own anyway.
    tools = catalogue()[:N_TOOLS]
    path = tmp_path / "tools.jsonl"
    path.write_text("".join(json.dumps(t.to_dict()) + "\n" for t in tools), encoding="utf-8")
    code = (
        "import json, sys\n"
        "from toolsift import ToolIndex\n"
        "block = bytearray(30 << 20)\n"
        "del block\n"
        "index = ToolIndex.from_records(sys.argv[1], engine='rust')\n"
        "print(json.dumps([[m.name, m.score] for m in index.search(sys.argv[2], limit=10)]))\n"
    )
    query = QUERIES[0]
    out = subprocess.run(
        [sys.executable, "-c", code, str(path), query],
        check=True,
        capture_output=True,
        text=True,
    )
    got = json.loads(out.stdout)
    want = ranked(ToolIndex(tools, engine="rust"), query)
    assert got and [n for n, _ in got] == [n for n, _ in want]
    assert all(abs(a - b) <= 1e-9 for (_, a), (_, b) in zip(got, want))
