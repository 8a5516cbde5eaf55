"""Semantic search cost through the public API: search latency (query embedding included) with
semantic search on and off, build time, and the tool vectors' build time and memory, at the
size of mcp_mixed (11,578 tools) and of a 100,000-tool synthetic catalogue.

    python benches/semantic_latency.py                         # mcp_mixed + 100k synthetic
    python benches/semantic_latency.py --skip-100k --rounds 3

Prints one JSON object per line. Needs ``$TOOLSIFT_SHARED_DIR/data`` for mcp_mixed (its query
texts are only timed here, never scored).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import toolsift  # noqa: E402
from _synthetic import synthetic_queries, synthetic_tools  # noqa: E402
from toolsift.evaluation.datasets import find_data_dir  # noqa: E402
from toolsift.semantic.model import default_encoder  # noqa: E402


def _percentiles(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {
        "p50_ms": round(statistics.median(times) * 1e3, 4),
        "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))] * 1e3, 4),
        "mean_ms": round(statistics.fmean(times) * 1e3, 4),
    }


def _search_times(index: toolsift.ToolIndex, queries: list[str], rounds: int) -> list[float]:
    for q in queries:  # warm-up: first-use caches
        index.search(q)
    times = []
    for _ in range(rounds):
        for q in queries:
            t = time.perf_counter()
            index.search(q)
            times.append(time.perf_counter() - t)
    return times


def run(label: str, tools: list[toolsift.Tool], queries: list[str], rounds: int) -> None:
    encoder = default_encoder()
    t = time.perf_counter()
    lexical = toolsift.ToolIndex(tools, semantic=False)
    build_lexical = time.perf_counter() - t
    t = time.perf_counter()
    semantic = toolsift.ToolIndex(tools, semantic=True)
    build_semantic = time.perf_counter() - t
    assert semantic.semantic
    vectors = semantic._semantic.vectors  # type: ignore[union-attr]
    t = time.perf_counter()
    for q in queries:
        encoder.encode_one(q)
    embed_us = (time.perf_counter() - t) / len(queries) * 1e6
    row = {
        "catalogue": label,
        "tools": len(tools),
        "queries": len(queries),
        "build_lexical_s": round(build_lexical, 3),
        "build_semantic_s": round(build_semantic, 3),
        "vectors_s": round(build_semantic - build_lexical, 3),
        "vectors_mb": round(vectors.matrix.nbytes / 1e6, 1),
        "kernel_mb": round(vectors.matrix.size * 4 / 1e6, 1),
        "snapshot_section_mb": round(len(vectors.to_header()["vectors"]) / 1e6, 1),
        "query_embed_first_us": round(embed_us, 1),
        "lexical": _percentiles(_search_times(lexical, queries, rounds)),
        "semantic": _percentiles(_search_times(semantic, queries, rounds)),
    }
    # Once every query's words are known (the memo of WordMemo): the common case of an agent.
    warm = []
    for q in queries:
        t = time.perf_counter()
        encoder.encode_one(q)
        warm.append(time.perf_counter() - t)
    row["query_embed_warm_us"] = round(statistics.median(warm) * 1e6, 1)
    row["load_average"] = os.getloadavg()[0]
    print(json.dumps(row), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-100k", action="store_true")
    parser.add_argument("--data", default=None)
    args = parser.parse_args()
    data = find_data_dir(args.data)
    if data is not None:
        tools = toolsift.load_catalog(data / "mcp_mixed.tools.jsonl")
        with open(data / "mcp_mixed.queries.jsonl", encoding="utf-8") as f:
            queries = [json.loads(line)["query"] for line in f if line.strip()][:300]
        run("mcp_mixed", list(tools), queries, args.rounds)
    if not args.skip_100k:
        run("synthetic-100k", synthetic_tools(100_000), synthetic_queries(300), args.rounds)


if __name__ == "__main__":
    main()
