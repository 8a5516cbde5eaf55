"""Public-API search and build timings of one toolsift install, as one JSON line.

    python benches/public_api.py [CATALOG.jsonl QUERIES.jsonl]

Only public names (``toolsift.load_catalog``, ``toolsift.ToolIndex``, ``ToolIndex.search``), so
that two installs (say, before and after a refactor) can be run alternately by the same command
and compared in one sitting. Without arguments it uses the built-in catalogue and its own
queries.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import toolsift


def _queries(path: str | None) -> list[str]:
    if path is None:
        return [
            "open a pull request",
            "send a message to a slack channel",
            "create a calendar event",
            "read a file",
            "search the web",
            "list my repositories",
        ]
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["query"] for line in f if line.strip()][:300]


def main() -> None:
    catalog = sys.argv[1] if len(sys.argv) > 1 else None
    queries = _queries(sys.argv[2] if len(sys.argv) > 2 else None)
    t = time.perf_counter()
    tools = toolsift.load_catalog(catalog) if catalog else toolsift.default_tools()
    load_s = time.perf_counter() - t
    builds = []
    for _ in range(3):
        t = time.perf_counter()
        index = toolsift.ToolIndex(tools)
        builds.append(time.perf_counter() - t)
    for q in queries:  # warm-up: first-use caches
        index.search(q)
    times = []
    for _ in range(5):
        for q in queries:
            t = time.perf_counter()
            index.search(q)
            times.append(time.perf_counter() - t)
    times.sort()
    print(
        json.dumps(
            {
                "tools": len(tools),
                "queries": len(queries),
                "load_ms": round(load_s * 1e3, 1),
                "build_ms_median": round(statistics.median(builds) * 1e3, 1),
                "search_us_p50": round(times[len(times) // 2] * 1e6, 2),
                "search_us_p90": round(times[int(len(times) * 0.9)] * 1e6, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
