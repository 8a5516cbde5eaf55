"""A forked child process can search, batch, build, update and load with the Rust engine.

Gateways pre-fork workers after building their index, and ``multiprocessing`` forks by default on
Linux. rayon's global thread pool does not survive a ``fork``: a child that hands it a job waits
forever. The engine therefore runs its parallel work in a pool made per process
(``rust/pool.rs``); these tests fork after the parent has used it and fail if the child hangs.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable

import pytest
from toolsift import Tool, ToolIndex

from .conftest import HAVE_RUST

pytestmark = [
    pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built"),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)"),
]

TOOLS = [
    Tool(
        name=f"mcp__srv{i % 7}__{verb}_{obj}_{i}",
        description=f"{verb.capitalize()} the {obj} of a project {i}",
        server=f"srv{i % 7}",
        mcp_tool_name=f"{verb}_{obj}_{i}",
    )
    for i, (verb, obj) in enumerate(
        (v, o)
        for v in ("get", "list", "create", "delete", "send", "read")
        for o in ("issue", "file", "message", "user", "event", "report", "page")
        for _ in range(12)
    )
]
QUERIES = ["read a file", "send a message to a user", "list issues", "create an event report"]


def in_forked_child(work: Callable[[], bool], timeout: float = 60.0) -> int:
    """Runs ``work`` in a forked child; its exit code (0: it returned True). Fails on a hang."""
    with warnings.catch_warnings():
        # Python 3.12+ warns that forking a process with threads may deadlock: the very case.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 1
        try:
            code = 0 if work() else 2
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail(f"the forked child did not finish in {timeout:.0f} s (a dead thread pool?)")


def test_a_forked_child_uses_and_builds_indexes():
    from toolsift._core import _set_scoring_mode, _set_search_parts

    index = ToolIndex(TOOLS, engine="rust")
    expected = [r.names for r in index.search_many(QUERIES, 5)]  # the parent's pool is busy
    snapshot = index.to_bytes()
    _set_scoring_mode("pruned")
    _set_search_parts(2)  # one search in two parallel ranges: the pool again
    try:
        split = [index.search(q, 5).names for q in QUERIES]
        assert split == expected

        def work() -> bool:
            batch = [r.names for r in index.search_many(QUERIES, 5)]
            single = [index.search(q, 5).names for q in QUERIES]
            rebuilt = ToolIndex(TOOLS, engine="rust")
            loaded = ToolIndex.from_bytes(snapshot, engine="rust")
            updated = index.with_tools(remove=[TOOLS[0].name])
            return (
                batch == expected
                and single == expected
                and [r.names for r in rebuilt.search_many(QUERIES, 5)] == expected
                and [loaded.search(q, 5).names for q in QUERIES] == expected
                and len(updated) == len(TOOLS) - 1
                and loaded.to_bytes() == snapshot
            )

        assert in_forked_child(work) == 0
    finally:
        _set_scoring_mode("auto")
        _set_search_parts(0)
