"""One 20-tool MCP server reconnecting to a large catalogue, through the public API.

    python benches/bench_update.py [--size 100000] [--rounds 15]

Times ``Catalog.replace_server`` and ``ToolIndex.replace_server`` (wall and process CPU, the
median of ``--rounds`` updates after two warm-up ones) over ``--size`` synthetic tools, on the
Rust engine, with nothing else running in the process. Two servers: one that reconnects with
tools of the same lengths every time (the catalogue's average length, and so every norm, stays:
an update carries the pruning bounds of unchanged lists over), and one whose tools' lengths
change at every reconnect (every bound is computed again).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _synthetic import synthetic_tools  # noqa: E402
from bench_gateway import server_tools  # noqa: E402
from toolsift import Catalog, Tool, ToolIndex  # noqa: E402


def other_lengths(round_: int) -> list[Tool]:
    """The reconnecting server's 20 tools, their descriptions one word longer every round."""
    return [
        Tool(
            name=tool.name,
            server=tool.server,
            description=tool.description + " extra" * (round_ % 7),
        )
        for tool in server_tools(round_)
    ]


def measure(update: Callable[[int], object], rounds: int) -> tuple[float, float, float]:
    """The median wall and CPU time of ``update(round)`` in ms, and the least CPU time."""
    walls, cpus = [], []
    for round_ in range(rounds + 2):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        update(round_ + 1)
        if round_ >= 2:
            walls.append((time.perf_counter() - wall) * 1e3)
            cpus.append((time.process_time() - cpu) * 1e3)
    return statistics.median(walls), statistics.median(cpus), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    tools = synthetic_tools(args.size)
    print(f"{args.size:,} tools, load average {os.getloadavg()[0]:.1f}")
    for label, server in [("same lengths", server_tools), ("other lengths", other_lengths)]:
        catalog = Catalog(tools, engine="rust")
        catalog.connect_server("reconnecting", server(0))
        state = {"index": ToolIndex([*tools, *server(0)], engine="rust")}
        catalog.index.search("warm")
        state["index"].search("warm")

        def by_catalog(round_: int, server=server, catalog=catalog) -> None:
            catalog.replace_server("reconnecting", server(round_))

        def by_index(round_: int, server=server, state=state) -> None:
            state["index"] = state["index"].replace_server("reconnecting", server(round_))

        for name, update in [("Catalog", by_catalog), ("ToolIndex", by_index)]:
            wall, cpu, least = measure(update, args.rounds)
            print(
                f"{name}.replace_server, {label}: wall p50 {wall:.1f} ms, "
                f"CPU p50 {cpu:.1f} ms (least {least:.1f})"
            )
        del catalog, state
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
