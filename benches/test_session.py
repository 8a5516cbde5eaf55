"""DiscoverySession: what one agent turn costs when its search activates tools.

    pytest benches/test_session.py --benchmark-enable --benchmark-only \\
        --benchmark-columns=median,mean,rounds
    TOOLSIFT_BENCH_LARGE=1 pytest benches/test_session.py ...   # adds 100k tools

Each round is one search of a fresh query on a session in ``mode="all"``: the search, its
activations, and (with the default ``rebuild_on_activation=True``) the index update that takes
the activated tools out of the hidden corpus before the next search, so scores stay seed 000's.
Side by side: the default; the default with ``session.prepare()`` run before each round, untimed
(the update done while the model reads the results); and ``rebuild_on_activation=False`` (active
tools stay in the index and are excluded from results; no update). Both engines, on mcp_mixed
(11,578 real tools, from ../shared/data) and on synthetic MCP-shaped catalogues.
"""

from __future__ import annotations

import functools
import itertools
import os

import pytest

pytest.importorskip("pytest_benchmark")

from _synthetic import synthetic_queries, synthetic_tools  # noqa: E402
from toolsift import DiscoverySession  # noqa: E402

LARGE = os.environ.get("TOOLSIFT_BENCH_LARGE") == "1"
SIZES = [pytest.param(n, id=f"{n // 1000}k") for n in [10_000] + ([100_000] if LARGE else [])]
ENGINES = [pytest.param(e, id=e) for e in ("rust", "python")]
MODES = [
    pytest.param("rebuild", id="rebuild"),
    pytest.param("prepared", id="rebuild-prepared"),
    pytest.param("no-rebuild", id="no-rebuild"),
]


@functools.lru_cache(maxsize=1)
def tools(n: int):
    return synthetic_tools(n)


def bench_session(benchmark, catalogue, queries, engine, mode):
    rebuild = mode != "no-rebuild"
    session = DiscoverySession(catalogue, mode="all", engine=engine, rebuild_on_activation=rebuild)
    session.search(queries[0])  # the first build is not what a turn costs
    upcoming = itertools.cycle(queries[1:])
    activated = []

    def one_turn():
        activated.append(len(session.search(next(upcoming)).activated))

    # "prepared": the update after the previous activation runs before the round, untimed (what
    # a gateway gets by calling session.prepare() while the model reads the results).
    def prepare() -> None:  # pytest-benchmark takes a value returned by setup for arguments
        session.prepare()

    setup = prepare if mode == "prepared" else None
    rounds = 30 if engine == "rust" else 5
    benchmark.pedantic(one_turn, setup=setup, rounds=rounds, iterations=1, warmup_rounds=1)
    assert sum(activated) > 0  # the rounds did activate tools


@pytest.mark.parametrize("rebuild", MODES)
@pytest.mark.parametrize("engine", ENGINES)
def test_activating_search_mcp_mixed(
    benchmark, mcp_mixed_tools, mcp_mixed_queries, engine, rebuild
):
    benchmark.group = "session: activating search, mcp_mixed (11,578 tools)"
    bench_session(benchmark, mcp_mixed_tools, mcp_mixed_queries, engine, rebuild)


# The pure-Python engine is left out at 100k: a round takes seconds there.
SIZED_ENGINES = [
    pytest.param(n.values[0], e.values[0], id=f"{n.id}-{e.id}")
    for n in SIZES
    for e in ENGINES
    if e.values[0] == "rust" or n.values[0] <= 10_000
]


@pytest.mark.parametrize("rebuild", MODES)
@pytest.mark.parametrize(("n", "engine"), SIZED_ENGINES)
def test_activating_search_synthetic(benchmark, n, engine, rebuild):
    benchmark.group = f"session: activating search, synthetic {n:,} tools"
    bench_session(benchmark, tools(n), synthetic_queries(100), engine, rebuild)
