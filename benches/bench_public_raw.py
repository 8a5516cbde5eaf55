"""The public search beside the raw engine: what ``ToolIndex.search`` costs over the engine's own
ranked ``(id, score)`` list, on synthetic catalogues and on mcp_mixed, the same queries for each.

    python benches/bench_public_raw.py [--sizes 1000 10000 100000] [--queries 80] [--repeat 7]

Three calls per query, each timed in turn in every round (so machine noise hits them alike):

- ``public``: ``ToolIndex.search(q)``, what users call (a ``SearchResult`` of ``Match`` objects);
- ``one-call``: the engine's one-call path behind it (parse, name proof, search, result objects);
- ``raw``: the raw engine's search, ``(id, score)`` pairs and nothing else.

Each query's time is its fastest round (min-of-repeats, ``--number`` calls a round); ``min`` is
the mean of those over the queries, ``median`` their median.
Ratios (public / raw) come first. mcp_mixed is read from ``$TOOLSIFT_SHARED_DIR/data`` (or
``../shared/data`` beside the checkout) and skipped, with a message, when absent.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synthetic import synthetic_queries, synthetic_tools  # noqa: E402
from toolsift import Tool, ToolIndex, load_catalog  # noqa: E402
from toolsift._index import calls  # noqa: E402
from toolsift._options import DEFAULT_PREFIX_FRACTION  # noqa: E402
from toolsift.query import DEFAULT_MAX_QUERY_LENGTH  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CALLS = ("public", "one-call", "raw")


def mcp_mixed() -> tuple[list[Tool], list[str]] | None:
    """mcp_mixed's tools and labeled queries, or None when the shared data is absent."""
    env = os.environ.get("TOOLSIFT_SHARED_DIR")
    for base in ([Path(env)] if env else []) + [ROOT.parent / "shared"]:
        tools = base / "data" / "mcp_mixed.tools.jsonl"
        queries = base / "data" / "mcp_mixed.queries.jsonl"
        if tools.is_file() and queries.is_file():
            with open(queries, encoding="utf-8") as f:
                texts = [json.loads(line)["query"] for line in f if line.strip()]
            return load_catalog(tools), texts
    return None


def callables(index: ToolIndex) -> dict[str, Callable[[str], object]]:
    """The three calls of one query on ``index`` (see the module docstring)."""
    engine = index._searcher._index
    index.search("warm up")  # fills the default request cache and the name table
    request = calls.DEFAULT_REQUESTS[None]
    tools, keys = index._tools, index._lookups.names.keys
    fields, limit = request.plain_fields, request.limit

    def one_call(q: str) -> object:
        return engine.search_plain(
            tools, keys, fields, q, limit, DEFAULT_MAX_QUERY_LENGTH, DEFAULT_PREFIX_FRACTION, 3, 16
        )

    return {"public": index.search, "one-call": one_call, "raw": lambda q: engine.search(q, 8)}


def measure(index: ToolIndex, queries: list[str], repeat: int, number: int) -> dict[str, dict]:
    """Per call, over the queries' fastest rounds (min-of-repeats): their mean and median."""
    funcs = callables(index)
    for q in queries:  # warm-up
        for f in funcs.values():
            f(q)
    best = {name: [float("inf")] * len(queries) for name in funcs}
    gc.disable()
    try:
        for _ in range(repeat):
            for name, f in funcs.items():
                mins = best[name]
                for i, q in enumerate(queries):
                    t = time.perf_counter()
                    for _ in range(number):
                        f(q)
                    dt = (time.perf_counter() - t) / number
                    if dt < mins[i]:
                        mins[i] = dt
    finally:
        gc.enable()
    return {
        name: {"min_us": statistics.fmean(m) * 1e6, "median_us": statistics.median(m) * 1e6}
        for name, m in best.items()
    }


def plain_share(index: ToolIndex, queries: list[str]) -> float:
    """The share of the queries the one-call path answers (the rest take the general path)."""
    f = callables(index)["one-call"]
    return sum(f(q) is not None for q in queries) / len(queries)


def report(label: str, index: ToolIndex, queries: list[str], repeat: int, number: int) -> dict:
    stats = measure(index, queries, repeat, number)
    raw = stats["raw"]
    row = {
        "catalog": label,
        "tools": len(index),
        "queries": len(queries),
        "public/raw min": round(stats["public"]["min_us"] / raw["min_us"], 2),
        "public/raw median": round(stats["public"]["median_us"] / raw["median_us"], 2),
        "one-call/raw median": round(stats["one-call"]["median_us"] / raw["median_us"], 2),
        "one-call answers": round(plain_share(index, queries), 2),
    }
    for name in CALLS:
        row[f"{name} min us"] = round(stats[name]["min_us"], 2)
        row[f"{name} median us"] = round(stats[name]["median_us"], 2)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=80)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=20, help="calls per query per round")
    parser.add_argument("--no-mcp", action="store_true", help="leave mcp_mixed out")
    args = parser.parse_args()
    print(f"# load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    queries = synthetic_queries(args.queries)
    for n in args.sizes:
        index = ToolIndex(synthetic_tools(n), engine="rust")
        row = report(f"synthetic {n}", index, queries, args.repeat, args.number)
        print(json.dumps(row), flush=True)
        del index
    if not args.no_mcp:
        data = mcp_mixed()
        if data is None:
            print("# mcp_mixed skipped: mcp_mixed.tools.jsonl not found (set TOOLSIFT_SHARED_DIR)")
        else:
            tools, texts = data
            index = ToolIndex(tools, engine="rust")
            row = report("mcp_mixed", index, texts[: args.queries], args.repeat, args.number)
            print(json.dumps(row), flush=True)
    print(f"# load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
