"""Index build and single-query search, Rust beside pure Python, on real and synthetic catalogues.

Time with:
    pytest benches/test_search.py --benchmark-enable --benchmark-only \
        --benchmark-columns=median,mean,ops,rounds
CI runs every bench once as a test (``--benchmark-disable``) so that none can rot.
"""

from __future__ import annotations

import itertools

import pytest

pytest.importorskip("pytest_benchmark")

from _synthetic import synthetic_queries, synthetic_tools  # noqa: E402
from toolsift import Match, ToolIndex, available_engines  # noqa: E402

ENGINES = [pytest.param(e, id=e) for e in ("rust", "python")]
#: The analysis profiles: the default (english) and OMP ``search_tool_bm25``'s (omp).
PROFILES = [pytest.param(p, id=p) for p in ("english", "omp")]


def need(engine: str) -> None:
    if engine not in available_engines():
        pytest.skip("toolsift._core is not built")


def cycle_search(index, queries):
    """One search per call, cycling through ``queries``: ``index.search(query)``, the call an
    agent's search tool makes (the default limit, 8)."""
    it = itertools.cycle(queries)

    def run():
        return index.search(next(it))

    return run


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("engine", ENGINES)
def test_search_mcp_mixed(benchmark, engine, profile, mcp_mixed_tools, mcp_mixed_queries):
    need(engine)
    benchmark.group = f"search-mcp_mixed-11578-tools-{profile}"
    index = ToolIndex(mcp_mixed_tools, engine=engine, profile=profile)
    assert index.search("read a file from the filesystem")  # never time a wrong answer
    benchmark(cycle_search(index, mcp_mixed_queries))


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("engine", ENGINES)
def test_build_mcp_mixed(benchmark, engine, profile, mcp_mixed_tools):
    need(engine)
    benchmark.group = f"build-mcp_mixed-11578-tools-{profile}"
    index = benchmark.pedantic(
        ToolIndex,
        args=(mcp_mixed_tools,),
        kwargs={"engine": engine, "profile": profile},
        rounds=3,
        iterations=1,
    )
    assert len(index) == len(mcp_mixed_tools)


@pytest.mark.parametrize("n", [1_000, 10_000])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("engine", ENGINES)
def test_search_synthetic(benchmark, engine, profile, n):
    need(engine)
    benchmark.group = f"search-synthetic-{n}-tools-{profile}"
    index = ToolIndex(synthetic_tools(n), engine=engine, profile=profile)
    queries = synthetic_queries(200)
    assert index.search(queries[0])
    benchmark(cycle_search(index, queries))


@pytest.mark.parametrize("n", [1_000, 10_000])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("engine", ENGINES)
def test_build_synthetic(benchmark, engine, profile, n):
    need(engine)
    benchmark.group = f"build-synthetic-{n}-tools-{profile}"
    tools = synthetic_tools(n)
    index = benchmark.pedantic(
        ToolIndex,
        args=(tools,),
        kwargs={"engine": engine, "profile": profile},
        rounds=3,
        iterations=1,
    )
    assert len(index) == n


# Query-language costs on mcp_mixed: each bench isolates one form or option.
SEED_004 = (
    "search_graph trace_path get_code_snippet query_graph search_code index_repository "
    "codebase-memory-mcp"
)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.benchmark(group="search-mcp_mixed-plain-bm25")
def test_search_mcp_mixed_plain(benchmark, engine, mcp_mixed_tools, mcp_mixed_queries):
    """Plain BM25+ (no exact-name tier, no prefix matching): the engine as before issue 3."""
    need(engine)
    index = ToolIndex(mcp_mixed_tools, engine=engine)
    it = itertools.cycle(mcp_mixed_queries)
    assert index.search("read a file", exact_names=False, prefix_fraction=0.0)
    benchmark(lambda: index.search(next(it), 8, exact_names=False, prefix_fraction=0.0))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.benchmark(group="search-mcp_mixed-seed004")
def test_search_seed_004_query(benchmark, engine, mcp_mixed_tools):
    need(engine)
    index = ToolIndex(mcp_mixed_tools, engine=engine)
    result = index.search(SEED_004)
    assert [m.reason for m in result[:6]] == ["exact_name"] * 6
    benchmark(index.search, SEED_004)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.benchmark(group="search-mcp_mixed-keyword-ranker")
def test_search_keyword_ranker(benchmark, engine, mcp_mixed_tools, mcp_mixed_queries):
    need(engine)
    index = ToolIndex(mcp_mixed_tools, engine=engine)
    assert index.search("read file", ranker="keyword")
    it = itertools.cycle(mcp_mixed_queries)
    benchmark(lambda: index.search(next(it), ranker="keyword"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.benchmark(group="search-mcp_mixed-select")
def test_select(benchmark, engine, mcp_mixed_tools):
    need(engine)
    index = ToolIndex(mcp_mixed_tools, engine=engine)
    query = "select:read_file,github/create_issue,mcp__time__get_current_time"
    assert len(index.search(query)) >= 3
    benchmark(index.search, query)


class _RecordedEngine:
    """Answers ``search`` with the hits the real engine gave for the same text (recorded on first
    use) and forwards everything else, so that a bench times only ``ToolIndex``'s Python layer."""

    def __init__(self, inner):
        self._inner = inner
        self._hits = {}

    def search(self, text, limit, *args, **kwargs):
        hits = self._hits.get((text, limit))
        if hits is None:
            hits = self._hits[(text, limit)] = self._inner.search(text, limit, *args, **kwargs)
        return hits

    def search_matches(self, tools, reason, text, limit, *args):
        # As the Rust engine answers it: the hits as Match objects, built in compiled code.
        return _build_matches(tools, self.search(text, limit, *args), reason)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def _build_matches(tools, hits, reason):
    try:
        from toolsift._core import _new_matches
    except ImportError:  # no extension: the pure-Python builder
        from toolsift.result import new_matches

        return new_matches(tools, hits, reason)
    return _new_matches(Match, tools, hits, reason)


@pytest.mark.benchmark(group="search-mcp_mixed-python-layer")
def test_search_python_layer(benchmark, mcp_mixed_tools, mcp_mixed_queries):
    """``ToolIndex.search(q, 8)`` with the BM25+ engine call replaced by recorded hits: the cost
    of parsing, the exact-name tier's name detection, option checks and result objects."""
    index = ToolIndex(mcp_mixed_tools, engine="python")
    index._index = _RecordedEngine(index._index)
    for query in mcp_mixed_queries:  # record every query's hits (slow engine, once)
        index.search(query, 8)
    assert index.search("read a file from the filesystem")
    benchmark(cycle_search(index, mcp_mixed_queries))


@pytest.mark.parametrize("mode", ["search_many", "loop"])
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.benchmark(group="batch-mcp_mixed-200-queries")
def test_tool_index_batch(benchmark, engine, mode, mcp_mixed_tools, mcp_mixed_queries):
    """``ToolIndex.search_many`` over 200 agent queries against a loop of ``search`` calls
    (throughput = 200 / the median)."""
    need(engine)
    index = ToolIndex(mcp_mixed_tools, engine=engine)
    expected = [index.search(q) for q in mcp_mixed_queries]
    if mode == "loop":
        result = benchmark(lambda: [index.search(q) for q in mcp_mixed_queries])
    else:
        result = benchmark(index.search_many, mcp_mixed_queries)
    assert result == expected
