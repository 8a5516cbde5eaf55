"""nDCG@10 of the default (english) ranking over a grid of BM25+'s k1 and b, on every labeled set.

    python benches/bm25_grid.py [--data ../shared/data]

Prints one row per (k1, b): nDCG@10 on mcp_mixed (strict), metatool and gorilla_hf, with every
other setting at ``ToolIndex``'s default (δ stays the english profile's 0.5). The ninth session's
run is in BENCHMARKS.md ("Retrieval quality", "Tried in the ninth session").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main() -> int:
    from toolsift import ToolIndex
    from toolsift.errors import ToolsiftError
    from toolsift.evaluate import DATASETS, evaluate, find_data_dir, load_dataset
    from toolsift.hybrid import lexical_search

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder with the labeled sets (default: ../shared/data)")
    args = parser.parse_args()
    data = find_data_dir(args.data)
    if data is None:
        print("no labeled data: pass --data or set TOOLSIFT_SHARED_DIR", file=sys.stderr)
        return 2
    sets = [load_dataset(name, Path(data)) for name in DATASETS]

    def ranker(tools, **params):
        index = ToolIndex(tools, **params)
        pos = {t.name: i for i, t in enumerate(tools)}

        def rank(query: str, k: int) -> list[int]:
            try:
                return [pos[m.tool.name] for m in lexical_search(index, query, k)]
            except ToolsiftError:
                return []

        return rank

    print("| k1 | b | " + " | ".join(d.name for d in sets) + " |")
    print("|---:|---:|" + "---:|" * len(sets))
    for k1 in (0.9, 1.2, 1.6, 2.0):
        for b in (0.5, 0.65, 0.75, 0.85):
            scores = [evaluate(d, ranker(d.tools, k1=k1, b=b))["nDCG@10"] for d in sets]
            print(f"| {k1} | {b} | " + " | ".join(f"{s:.4f}" for s in scores) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
