"""The name table's cost: built by the first search of an index, and carried over an update.

    python benches/bench_names.py            # 100k synthetic tools and mcp_mixed (11.6k tools)
    python benches/bench_names.py --quick    # 5k synthetic tools only (a smoke run)

Rows, per catalogue (each the median of a few runs in this process, wall clock and CPU time):

* ``first search``: the first search of a fresh index (a ``select:``), which builds the name
  table (the index itself is built before the clock starts);
* ``with_tools, no table``: an update adding 20 new tools and removing 20, on an index whose
  name table is not built yet (the update's cost without the name table);
* ``with_tools(+20, -20)``: the same update on the same index once its name table is built (the
  table is carried over, not rebuilt): the difference is the table's share;
* ``first search after``: the first ``select:`` search of the updated index;
* ``NameTable.remapped only`` (synthetic tools): the table's own share of that update, timed
  alone (an internal entry point: the figure the public rows cannot isolate under load);
* ``table RSS``: the RSS growth of building the table (a first ``select:`` of an indexed name)
  in a fresh process, after ``gc.collect`` and ``malloc_trim``.

The indexes are built through the public API: ``ToolIndex(tools)`` over the synthetic tools, and
``ToolIndex.from_records(path)`` over mcp_mixed (which needs ``TOOLSIFT_SHARED_DIR``; skipped
without it).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).parent))

from _measure import trimmed_rss  # noqa: E402
from _synthetic import synthetic_tools  # noqa: E402
from toolsift import Tool, ToolIndex  # noqa: E402


def _rss_mib() -> float:
    return trimmed_rss() / 2**20


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - start, time.process_time() - cpu, out


def _index(source: str) -> ToolIndex:
    if source == "mcp_mixed":
        base = os.environ.get("TOOLSIFT_SHARED_DIR", str(Path(__file__).parents[2] / "shared"))
        return ToolIndex.from_records(str(Path(base) / "data" / "mcp_mixed.tools.jsonl"))
    return ToolIndex(synthetic_tools(int(source)))


def _added(n: int) -> list[Tool]:
    return [
        Tool(
            name=f"mcp__reconnected__fetch_item_{i}",
            description=f"Fetch item {i} from the reconnected server",
            server="reconnected",
            mcp_tool_name=f"fetch_item_{i}",
        )
        for i in range(n)
    ]


def _round(index: ToolIndex) -> list[tuple[str, float, float]]:
    name = index.tools[len(index) // 2].name
    remove = [index.tools[i].name for i in range(0, len(index), len(index) // 20)][:20]
    # The same update before the name table is built: the update's cost without the table.
    bare = _timed(lambda: index.with_tools(add=_added(20), remove=remove))
    first = _timed(lambda: index.search(f"select:{name}"))
    update = _timed(lambda: index.with_tools(add=_added(20), remove=remove))
    updated = update[2]
    after = _timed(lambda: updated.search("select:fetch_item_7"))
    assert [m.name for m in after[2]] == ["mcp__reconnected__fetch_item_7"], after[2]
    return [
        ("with_tools, no table", *bare[:2]),
        ("first search", *first[:2]),
        ("with_tools(+20, -20)", *update[:2]),
        ("first search after", *after[:2]),
    ]


def run(source: str, rounds: int) -> dict[str, tuple[float, float]]:
    rows: dict[str, list[tuple[float, float]]] = {}
    for _ in range(rounds):
        for row, wall, cpu in _round(_index(source)):
            rows.setdefault(row, []).append((wall, cpu))
        gc.collect()
    return {
        k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
        for k, v in rows.items()
    }


def remapped_only(n: int, rounds: int) -> float:
    """Median CPU seconds of the name table's own share of the update (internal:
    ``NameTable.remapped`` with 20 tools added and 20 removed, the table built)."""
    from toolsift._names.table import NameTable

    tools = synthetic_tools(n)
    table = NameTable(tools)
    removed = set(range(0, n, n // 20))
    new_ids, kept = [], []
    for i, tool in enumerate(tools):
        new_ids.append(-1 if i in removed else len(kept))
        if i not in removed:
            kept.append(tool)
    updated = kept + _added(20)
    cpus = [_timed(lambda: table.remapped(updated, new_ids, len(kept)))[1] for _ in range(rounds)]
    return statistics.median(cpus)


def table_rss(source: str) -> float:
    """RSS growth (MiB) of the first search (the name table) in a fresh process."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[2]); import bench_names as b\n"
        "index = b._index(sys.argv[1])\n"
        "name = index.tools[0].name\n"
        "before = b._rss_mib(); index.search('select:' + name)\n"
        "print(b._rss_mib() - before)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, source, str(Path(__file__).parent)],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5k synthetic tools only")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sources = ["5000"] if args.quick else ["100000", "mcp_mixed"]
    print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    for source in sources:
        label = f"{int(source):,} synthetic" if source.isdigit() else source
        try:
            rows = run(source, args.rounds)
        except FileNotFoundError as exc:
            print(f"{label}: skipped ({exc})")
            continue
        print(f"{label}:")
        for row, (wall, cpu) in rows.items():
            print(f"  {row:24s} {wall * 1e3:9.2f} ms wall {cpu * 1e3:9.2f} ms CPU")
        print(f"  {'table RSS':24s} {table_rss(source):9.1f} MiB")
        if source.isdigit():
            cpu = remapped_only(int(source), 2 * args.rounds + 1)
            print(f"  {'NameTable.remapped only':24s} {'':>17s} {cpu * 1e3:9.2f} ms CPU")


if __name__ == "__main__":
    main()
