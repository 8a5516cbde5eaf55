"""ToolIndex snapshots: what a gateway worker pays to load a catalogue built elsewhere.

    pytest benches/test_tool_snapshot.py --benchmark-enable --benchmark-only \\
        --benchmark-columns=median,mean,rounds
    TOOLSIFT_BENCH_LARGE=1 pytest benches/test_tool_snapshot.py ...   # adds 100k tools

Side by side, on the same file: ``ToolIndex.load`` (tools decoded when first read), the same load
followed by reading every tool (what loading cost before tools were decoded lazily), a rebuild
from the tools, and the first search after a load (it builds the name table from the name
columns). On ``MCP-shaped`` synthetic tools from ``_synthetic.synthetic_tools``.
"""

from __future__ import annotations

import functools
import os

import pytest

pytest.importorskip("pytest_benchmark")

from _synthetic import synthetic_tools  # noqa: E402
from toolsift import ToolIndex, available_engines  # noqa: E402

LARGE = os.environ.get("TOOLSIFT_BENCH_LARGE") == "1"
SIZES = [pytest.param(n, id=f"{n // 1000}k") for n in [10_000] + ([100_000] if LARGE else [])]
ENGINES = [pytest.param(e, id=e) for e in ("rust", "python")]


@functools.lru_cache(maxsize=1)
def tools(n: int):
    return synthetic_tools(n)


@functools.lru_cache(maxsize=2)
def snapshot(n: int, engine: str, tmp: str) -> str:
    path = os.path.join(tmp, f"tools-{n}-{engine}.tsift")
    ToolIndex(tools(n), engine=engine).save(path)
    return path


def need(engine: str) -> None:
    if engine not in available_engines():
        pytest.skip("toolsift._core is not built")


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("engine", ENGINES)
def test_load(benchmark, engine, n, tmp_path_factory):
    need(engine)
    benchmark.group = f"tool-snapshot-load-{n}"
    path = snapshot(n, engine, str(tmp_path_factory.getbasetemp()))
    index = benchmark.pedantic(ToolIndex.load, args=(path,), kwargs={"engine": engine}, rounds=3)
    assert len(index) == n


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("engine", ENGINES)
def test_load_and_read_every_tool(benchmark, engine, n, tmp_path_factory):
    need(engine)
    benchmark.group = f"tool-snapshot-load-{n}"
    path = snapshot(n, engine, str(tmp_path_factory.getbasetemp()))

    def run():
        index = ToolIndex.load(path, engine=engine)
        return index.tools

    assert benchmark.pedantic(run, rounds=3) == tuple(tools(n))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("engine", ENGINES)
def test_rebuild_instead_of_load(benchmark, engine, n):
    need(engine)
    benchmark.group = f"tool-snapshot-load-{n}"
    index = benchmark.pedantic(ToolIndex, args=(tools(n),), kwargs={"engine": engine}, rounds=3)
    assert len(index) == n


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("engine", ENGINES)
def test_load_and_first_search(benchmark, engine, n, tmp_path_factory):
    need(engine)
    benchmark.group = f"tool-snapshot-first-search-{n}"
    path = snapshot(n, engine, str(tmp_path_factory.getbasetemp()))

    def run():
        return ToolIndex.load(path, engine=engine).search("create issue on github")

    assert benchmark.pedantic(run, rounds=3)
