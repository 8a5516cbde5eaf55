"""What word pairs (the variant layer's ``pairs=``) would cost the engine, on mcp_mixed.

    python benches/pairs_cost.py [--data ../shared/data] [--weight 0.1]

The engine has no pair field; this emulates one with the search-hint field, which no tool of the
catalogue uses: each tool's hint is the :func:`toolsift._variants.word_pairs` of its summary, at
``--weight`` (the hint's weight is also ``--weight`` in the baseline, where every hint is empty),
and each query gets its own pairs appended. It prints, for the plain english ``ToolIndex`` and
for the one with pairs, the build time (best of 5), the median search of the first 200 labeled
queries (3 rounds), the engine's memory and its vocabulary. The eleventh session's run is in
BENCHMARKS.md ("Retrieval quality", "Tried in the eleventh session").
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import statistics
import sys
import time
from pathlib import Path


def measure(tools, queries, weights) -> dict[str, float]:
    from toolsift import ToolIndex

    builds = []
    for _ in range(5):
        gc.collect()
        t = time.perf_counter()
        index = ToolIndex(tools, field_weights=weights)
        builds.append(time.perf_counter() - t)
    times = []
    for _ in range(3):
        for q in queries:
            t = time.perf_counter()
            index.search(q)
            times.append(time.perf_counter() - t)
    engine = index._index
    return {
        "build_ms": min(builds) * 1e3,
        "search_us": statistics.median(times) * 1e6,
        "memory_mb": engine.memory_bytes / 1e6,
        "terms": engine.vocabulary_size,
    }


def main() -> int:
    from toolsift import load_catalog, tokenize
    from toolsift._documents import FieldWeights
    from toolsift._variants import word_pairs
    from toolsift.evaluate import find_data_dir

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder with the labeled sets (default: ../shared/data)")
    parser.add_argument("--weight", type=float, default=0.1, help="the pairs' field weight")
    args = parser.parse_args()
    data = find_data_dir(args.data)
    if data is None:
        print("no labeled data: pass --data or set TOOLSIFT_SHARED_DIR", file=sys.stderr)
        return 2
    tools = load_catalog(Path(data) / "mcp_mixed.tools.jsonl")
    with (Path(data) / "mcp_mixed.queries.jsonl").open(encoding="utf-8") as fh:
        queries = [json.loads(line)["query"] for line in fh][:200]
    if any(t.search_hint for t in tools):
        print("the catalogue uses search hints: the emulation needs them free", file=sys.stderr)
        return 2
    weights = dataclasses.replace(FieldWeights.for_profile("english"), search_hint=args.weight)
    paired_tools = [
        dataclasses.replace(t, search_hint=" ".join(word_pairs(t.display_summary, tokenize)))
        for t in tools
    ]
    paired_queries = [f"{q} {' '.join(word_pairs(q, tokenize))}" for q in queries]
    print("| mcp_mixed, english | build | search (median) | engine memory | terms |")
    print("|---|---:|---:|---:|---:|")
    for label, (ts, qs) in {
        "without pairs": (tools, queries),
        f"with pairs at {args.weight:g}": (paired_tools, paired_queries),
    }.items():
        m = measure(ts, qs, weights)
        print(
            f"| {label} | {m['build_ms']:.0f} ms | {m['search_us']:.1f} µs "
            f"| {m['memory_mb']:.1f} MB | {m['terms']:,} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
