"""Pruned against exhaustive top-k scoring, interleaved A/B in one process.

    TOOLSIFT_SHARED_DIR=../shared python benches/prune_report.py            # mcp_mixed, 10k, 100k
    python benches/prune_report.py --sizes 10000 100000 1000000 --no-mcp

For every query both paths run back to back (alternating which goes first), switched with
``toolsift._core._set_scoring_mode`` (``"exhaustive"`` against ``"auto"``, or ``"pruned"``
with ``--always``); the table gives each path's median and the ratio,
and every result pair is checked equal (ranked ids and exact scores). Rows:

* ``mcp_mixed`` ``ToolIndex.search`` end to end (as shipped: exact-name tier, prefixes), and the
  raw engine call ``Index.search(tokens, 8)`` with the queries as they are and with
  ``STOPWORDS_EN`` filtered out (each distinct term once), as the "english" profile will do;
* synthetic catalogues (``benches/_synthetic.py``, as ``scale_report.py``): raw engine call.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


PRUNED = "auto"


def ab(fn, queries, rounds: int = 3) -> tuple[float, float, int]:
    """Medians (µs) of fn(q) pruned and exhaustive, interleaved; asserts equal results."""
    from toolsift._core import _set_scoring_mode

    pruned: list[float] = []
    exhaustive: list[float] = []
    differ = 0
    for r in range(rounds):
        for i, q in enumerate(queries):
            out = {}
            for mode in (False, True) if (i + r) % 2 else (True, False):
                _set_scoring_mode("exhaustive" if mode else PRUNED)
                t = time.perf_counter()
                res = fn(q)
                dt = time.perf_counter() - t
                (exhaustive if mode else pruned).append(dt)
                out[mode] = res
            if out[False] != out[True]:
                differ += 1
    _set_scoring_mode("auto")
    return statistics.median(pruned) * 1e6, statistics.median(exhaustive) * 1e6, differ


def search8(index, query: str):
    return index.search(query, 8)


def row(name: str, result: tuple[float, float, int]) -> str:
    p, e, differ = result
    return f"| {name} | {e:,.1f} µs | {p:,.1f} µs | {e / p:.2f}× | {differ} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", type=int, default=[10_000, 100_000])
    parser.add_argument("--no-mcp", action="store_true")
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--always", action="store_true", help="force pruning, not auto")
    args = parser.parse_args()
    global PRUNED
    PRUNED = "pruned" if args.always else "auto"
    from _synthetic import FIELD_WEIGHTS, synthetic_documents, synthetic_queries
    from toolsift import ToolIndex, load_catalog, tokenize
    from toolsift._core import Index
    from toolsift.evaluation.variants import STOPWORDS_EN

    print("| queries | exhaustive (median) | pruned (median) | speed-up | results differing |")
    print("|---|---:|---:|---:|---:|")
    shared = Path(os.environ.get("TOOLSIFT_SHARED_DIR", HERE.parents[1] / "shared")) / "data"
    if not args.no_mcp and (shared / "mcp_mixed.tools.jsonl").exists():
        tools = load_catalog(shared / "mcp_mixed.tools.jsonl")
        with (shared / "mcp_mixed.queries.jsonl").open(encoding="utf-8") as fh:
            queries = [json.loads(line)["query"] for line in fh]
        index = ToolIndex(tools, engine="rust")
        engine = index._index
        print(
            row("mcp_mixed, ToolIndex.search (as shipped)", ab(index.search, queries)), flush=True
        )
        toks = [" ".join(tokenize(q)) for q in queries]
        print(
            row("mcp_mixed, engine, query tokens as is", ab(partial(search8, engine), toks)),
            flush=True,
        )
        filtered = []
        for t in toks:
            words = t.split()
            kept = list(dict.fromkeys(x for x in words if x not in STOPWORDS_EN)) or words
            filtered.append(" ".join(kept))
        print(
            row(
                "mcp_mixed, engine, stop words dropped, distinct",
                ab(partial(search8, engine), filtered),
            ),
            flush=True,
        )
    for n in args.sizes:
        names, docs = synthetic_documents(n)
        idx = Index(names, docs, FIELD_WEIGHTS)
        queries = synthetic_queries(args.queries)
        rounds = 3 if n <= 100_000 else 1
        print(
            row(f"synthetic {n:,}, engine", ab(partial(search8, idx), queries, rounds)), flush=True
        )
        del idx, names, docs


if __name__ == "__main__":
    main()
