"""The cyclic collector's pauses around a catalogue update: a 20-tool server reconnecting while
one thread searches (an asyncio gateway's event loop), every collection timed as it happens.

    TOOLSIFT_SHARED_DIR=/path/to/shared python benches/bench_reconnect_gc.py [--sizes 100k]

Python's collector runs inside whatever allocation crosses its threshold, with the GIL held:
a collection's time is a pause for every thread. An update makes new containers; the first
young-generation pass after it visits each of their references. This script times every
collection (``gc.callbacks``: wall clock, and the collecting thread's CPU time, which the
machine's other jobs do not inflate) while the server reconnects ``--updates`` times, and
``gc.collect(0)`` right after each update, alone. Ratios are not the point here: the longest
pause is.

A full collection walks every container alive, the catalogue's and the application's alike, so
its pause grows with the process, not with the update. ``--gc-freeze`` runs everything again
after ``gc.freeze()`` (once the catalogue and its sessions are built: what a gateway operator
may do at start-up), and the table's first row is a full ``gc.collect()`` with 10,000 sessions
alive, without and with the freeze.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_gateway import load, server_tools  # noqa: E402
from toolsift import Catalog  # noqa: E402


class Pauses:
    """Every collection's generation, wall time and CPU time, from ``gc.callbacks``."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, float, float]] = []
        self._start: tuple[float, float] = (0.0, 0.0)

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = (time.perf_counter(), time.thread_time())
        else:
            wall, cpu = self._start
            self.rows.append(
                (info["generation"], time.perf_counter() - wall, time.thread_time() - cpu)
            )


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def full_collection_cpu(rounds: int = 5) -> float:
    """The median CPU time of a full ``gc.collect()`` on this thread."""
    times = []
    for _ in range(rounds):
        start = time.thread_time()
        gc.collect()
        times.append(time.thread_time() - start)
    return statistics.median(times)


def run(name: str, tools: list, queries: list[str], updates: int, freeze: bool) -> None:
    catalog = Catalog(tools, engine="rust")
    sessions = [catalog.session() for _ in range(10_000)]
    catalog.connect_server("reconnecting", server_tools(0))
    for session in sessions[:500]:
        session.search(queries[0], limit=3)
    gc.collect()
    full = full_collection_cpu()
    if freeze:
        gc.freeze()
        frozen = full_collection_cpu()
    # gc.collect(0) right after an update, alone: the young pass over the update's containers.
    alone = []
    for round_ in range(1, 6):
        catalog.index.search(queries[0])
        gc.collect()
        catalog.replace_server("reconnecting", server_tools(-round_))
        start = time.thread_time()
        gc.collect(0)
        alone.append(time.thread_time() - start)
    # One searching thread while the server reconnects: every automatic collection.
    pauses = Pauses()
    stop = threading.Event()
    latencies: list[float] = []

    def searcher() -> None:
        i = 0
        while not stop.is_set():
            start = time.perf_counter()
            sessions[i % len(sessions)].search(queries[i % len(queries)], limit=3)
            latencies.append(time.perf_counter() - start)
            i += 1

    thread = threading.Thread(target=searcher)
    gc.callbacks.append(pauses)
    try:
        thread.start()
        for round_ in range(1, updates + 1):
            catalog.replace_server("reconnecting", server_tools(round_))
            time.sleep(0.25)
    finally:
        stop.set()
        thread.join()
        gc.callbacks.remove(pauses)
    young = [(wall, cpu) for gen, wall, cpu in pauses.rows if gen == 0]
    older = [(wall, cpu) for gen, wall, cpu in pauses.rows if gen > 0]
    how = "after gc.freeze()" if freeze else "no freeze"
    print(f"\n### {name}: {len(tools):,} tools, {updates} reconnects, one searcher, {how}\n")
    print("| measurement | value |\n|---|---:|")
    print(
        f"| full gc.collect() with 10,000 sessions alive, CPU, median of 5 | {ms(full)}"
        + (f" (after gc.freeze(): {ms(frozen)})" if freeze else "")
        + " |"
    )
    print(
        f"| gc.collect(0) right after an update, CPU, median / max of 5 | "
        f"{ms(statistics.median(alone))} / {ms(max(alone))} |"
    )
    for label, rows in (("young (generation 0)", young), ("older (1 and 2)", older)):
        if rows:
            print(
                f"| automatic {label} collections: count, longest wall / longest CPU | "
                f"{len(rows)}, {ms(max(w for w, _ in rows))} / {ms(max(c for _, c in rows))} |"
            )
    print(
        f"| search p50 / p99 / max meanwhile | {statistics.median(latencies) * 1e6:.1f} µs / "
        f"{ms(sorted(latencies)[int(len(latencies) * 0.99)])} / {ms(max(latencies))} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="mcp_mixed,100k")
    parser.add_argument("--updates", type=int, default=12)
    parser.add_argument(
        "--gc-freeze", action="store_true", help="gc.freeze() once the catalogue is built"
    )
    args = parser.parse_args()
    for size in args.sizes.split(","):  # "mcp_mixed" or "100k", as bench_gateway.py reads them
        tools, queries = load(size)
        run(size, tools, queries, args.updates, args.gc_freeze)
        gc.unfreeze()


if __name__ == "__main__":
    main()
