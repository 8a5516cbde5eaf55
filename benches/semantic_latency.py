"""Semantic search cost through the public API: search latency (query embedding included) with
semantic search on and off, build time, and the tool vectors' build time and memory, at the
size of mcp_mixed (11,578 tools) and of a 100,000-tool synthetic catalogue.

    python benches/semantic_latency.py                         # mcp_mixed + 100k synthetic
    python benches/semantic_latency.py --skip-100k --rounds 3
    python benches/semantic_latency.py --skip-100k --ab /path/to/other/python --pairs 4

Prints one JSON object per line. Needs ``$TOOLSIFT_SHARED_DIR/data`` for mcp_mixed (its query
texts are only timed here, never scored).

The queries are distinct and each round asks them in turn, so a semantic index's cosines of its
latest query texts never serve a timed search (as for a user who does not repeat a query). The
``first`` figures time each query's first search in the process (words not seen yet are
tokenized then); the others, after a warm-up pass (every word known: an agent's usual case).
``semantic_cpu`` is each search's CPU time on its thread (a loaded machine's wall-clock times
include waiting for a core). ``--ab`` alternates child processes of this tree and of another
``python/`` folder (say, the main branch's), ``--pairs`` times, each child on the same catalogue
and queries, and prints the median of each side's figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import toolsift  # noqa: E402
from _synthetic import synthetic_queries, synthetic_tools  # noqa: E402
from toolsift.evaluation.datasets import find_data_dir  # noqa: E402
from toolsift.semantic.model import default_encoder  # noqa: E402
from toolsift.semantic.route import route  # noqa: E402


def _percentiles(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {
        "p50_ms": round(statistics.median(times) * 1e3, 4),
        "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))] * 1e3, 4),
        "mean_ms": round(statistics.fmean(times) * 1e3, 4),
    }


def _search_times(
    index: toolsift.ToolIndex,
    queries: list[str],
    rounds: int,
    first: list[float] | None = None,
    cpu: list[float] | None = None,
) -> list[float]:
    """Wall-clock seconds of each search; ``cpu`` gets each one's CPU time on this thread
    (what a search costs without waiting for a core: on a shared machine, wall-clock
    percentiles measure the other processes as much as the search)."""
    for q in queries:  # warm-up: first-use caches
        t = time.perf_counter()
        index.search(q)
        if first is not None:
            first.append(time.perf_counter() - t)
    times = []
    for _ in range(rounds):
        for q in queries:
            c = time.thread_time()
            t = time.perf_counter()
            index.search(q)
            times.append(time.perf_counter() - t)
            if cpu is not None:
                cpu.append(time.thread_time() - c)
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
    }
    first: list[float] = []
    cpu: list[float] = []
    row["lexical"] = _percentiles(_search_times(lexical, queries, rounds))
    row["semantic"] = _percentiles(_search_times(semantic, queries, rounds, first, cpu))
    row["semantic_cpu"] = _percentiles(cpu)
    row["semantic_first"] = _percentiles(first)
    tasks = [q for q in queries if route(q).kind == "task"]
    if tasks:
        row["semantic_tasks"] = _percentiles(_search_times(semantic, tasks, rounds))
        row["tasks"] = len(tasks)
    # Once every query's words are known (the memo of WordMemo): the common case of an agent.
    warm = []
    for q in queries:
        t = time.perf_counter()
        encoder.encode_one(q)
        warm.append(time.perf_counter() - t)
    row["query_embed_warm_us"] = round(statistics.median(warm) * 1e6, 1)
    row["load_average"] = os.getloadavg()[0]
    print(json.dumps(row), flush=True)


def _ab(args: argparse.Namespace) -> None:
    """Alternate child processes of this tree and of ``args.ab``; print each side's medians."""
    own = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")
    sides: dict[str, list[dict]] = {"this": [], "other": []}
    command = [sys.executable, os.path.abspath(__file__), "--skip-100k", "--rounds"]
    command += [str(args.rounds)] + (["--data", args.data] if args.data else [])
    for _ in range(args.pairs):
        for side, path in (("other", args.ab), ("this", own)):
            env = {**os.environ, "PYTHONPATH": path}
            out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            sides[side].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for side, rows in sides.items():
        summary: dict[str, object] = {"side": side, "python": args.ab if side == "other" else own}
        for key in ("lexical", "semantic", "semantic_cpu", "semantic_first", "semantic_tasks"):
            for stat in ("p50_ms", "p99_ms"):
                values = [r[key][stat] for r in rows if key in r]
                summary[f"{key}_{stat}"] = round(statistics.median(values), 4) if values else None
        summary["load_average"] = [r["load_average"] for r in rows]
        print(json.dumps(summary), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-100k", action="store_true")
    parser.add_argument("--data", default=None)
    parser.add_argument("--ab", default=None, help="another python/ folder to compare with")
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    if args.ab:
        _ab(args)
        return
    data = find_data_dir(args.data)
    if data is not None:
        tools = toolsift.load_catalog(data / "mcp_mixed.tools.jsonl")
        with open(data / "mcp_mixed.queries.jsonl", encoding="utf-8") as f:
            texts = [json.loads(line)["query"] for line in f if line.strip()]
        queries = list(dict.fromkeys(texts))[:300]  # distinct
        run("mcp_mixed", list(tools), queries, args.rounds)
    if not args.skip_100k:
        queries = list(dict.fromkeys(synthetic_queries(300)))
        run("synthetic-100k", synthetic_tools(100_000), queries, args.rounds)


if __name__ == "__main__":
    main()
