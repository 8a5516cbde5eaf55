"""What word pairs (``FieldWeights.word_pairs``) cost, on mcp_mixed: build, search, memory.

    python benches/pairs_cost.py [--data ../shared/data] [--weight 0.1] [--engine rust]

Prints, for the default english ``ToolIndex`` and for the same with word pairs at ``--weight``,
the build time (best of 5), the median ``search`` of the first 200 labeled queries (3 rounds),
the engine's memory and its vocabulary. The eleventh session's run is in BENCHMARKS.md
("Retrieval quality", "Word pairs").
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


def measure(tools, queries, weights, engine: str) -> dict[str, float]:
    from toolsift import ToolIndex

    builds = []
    for _ in range(5):
        gc.collect()
        t = time.perf_counter()
        index = ToolIndex(tools, field_weights=weights, engine=engine)
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
    from toolsift import FieldWeights, load_catalog
    from toolsift.evaluate import find_data_dir

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder with the labeled sets (default: ../shared/data)")
    parser.add_argument("--weight", type=float, default=0.1, help="the pairs' field weight")
    parser.add_argument("--engine", choices=["rust", "python"], default="rust")
    args = parser.parse_args()
    data = find_data_dir(args.data)
    if data is None:
        print("no labeled data: pass --data or set TOOLSIFT_SHARED_DIR", file=sys.stderr)
        return 2
    tools = load_catalog(Path(data) / "mcp_mixed.tools.jsonl")
    with (Path(data) / "mcp_mixed.queries.jsonl").open(encoding="utf-8") as fh:
        queries = [json.loads(line)["query"] for line in fh][:200]
    plain = FieldWeights.for_profile("english")
    paired = dataclasses.replace(plain, word_pairs=args.weight)
    print("| mcp_mixed, english | build | search (median) | engine memory | terms |")
    print("|---|---:|---:|---:|---:|")
    for label, weights in {
        "without pairs": plain,
        f"with pairs at {args.weight:g}": paired,
    }.items():
        m = measure(tools, queries, weights, args.engine)
        print(
            f"| {label} | {m['build_ms']:.0f} ms | {m['search_us']:.1f} µs "
            f"| {m['memory_mb']:.1f} MB | {m['terms']:,} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
