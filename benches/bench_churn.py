"""Search tail latency while a catalogue changes, phase by phase of each update.

    TOOLSIFT_SHARED_DIR=/path/to/shared python benches/bench_churn.py [--sizes mcp_mixed,100k]

For each catalogue (mcp_mixed, 11,578 real tools; 100,000 synthetic ones), on the Rust engine:
a ``Catalog`` and 10,000 sessions; 8 threads searching as a gateway's traffic arrives (an open
loop of 2,000 searches a second in all, latency from when each search was due) while a 20-tool
MCP server reconnects every second (``replace_server``). Every search's due time and return,
every update's phases and every collection of Python's cyclic collector (``gc.callbacks``) are
timestamped, and each search is counted in the phase it overlaps:

- ``engine``: the index's copy-on-write update, in the engine with the GIL released;
- ``tail``: the rest of the update, up to its publication (the tuple of tools, the name table's
  remap, the new generation), GIL held in steps;
- ``after``: the 100 ms after a publication (the first searches on the new generation, the
  previous generation freed by whichever thread lets it go);
- ``quiet``: no update running nor just published.

Each configuration runs ``--pairs`` times, alternating in one process (the machine is shared,
its load drifts): ``before`` (the tuple of tools spliced in one hold of the GIL, a large index
freed by the thread that drops it), ``after`` (spliced in chunks, the GIL handed over between
them; freed on the update pool), and ``after nice 0`` (the same, the update threads at the
searches' priority instead of nice 10) and ``after every thread`` (the engine work on every
thread of the search pool, at nice 0, as before updates had a pool of their own: two threads on
a 2-core machine instead of one). It also reports, per configuration, the publication
time of the updates (p50 / max) and, with no search running, the longest hold of the GIL by an
update (a probe thread's longest wait past its 0.1 ms sleeps, the median and the longest of 5
updates; the probe's own longest wait with no update, on the same machine, beside it).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _windows import gil_probe, phase_window  # noqa: E402
from bench_gateway import load, pct, server_tools, us  # noqa: E402
from toolsift import Catalog  # noqa: E402
from toolsift._core import _set_update_tuning, _set_updates_apart  # noqa: E402
from toolsift._index import persist  # noqa: E402
from toolsift._session import generation  # noqa: E402
from toolsift._snapshot import positions  # noqa: E402

RATE = 2_000
UPDATER = "updater"  # the name of phase_window's updating thread
SESSIONS = 10_000
PHASES = ("quiet", "engine", "tail", "after")
#: name -> (splice chunk, large index freed on the update pool, update threads' nice value,
#: engine work on the update pool rather than on every thread of the search pool)
CONFIGS = {
    "before": (0, False, 10, True),
    "after": (positions.SPLICE_CHUNK, True, 10, True),
    "after nice 0": (positions.SPLICE_CHUNK, True, 0, True),
    "after every thread": (positions.SPLICE_CHUNK, True, 10, False),
}


class Phases:
    """Each update's (start, engine start, engine end, publication), and every collection's
    (start, end, generation, whether the updating thread ran it), timed by wrapping the
    update's internal steps and by ``gc.callbacks``."""

    def __init__(self) -> None:
        self.updates: list[tuple[float, float, float, float]] = []
        self.collections: list[tuple[float, float, int, bool]] = []
        self._engine: list[float] = []
        self._gc_start: dict[int, float] = {}
        self._saved = (persist.updated_index, generation.CatalogCore._publish)

    def __enter__(self) -> Phases:
        engine_fn, publish_fn = self._saved
        engine = self._engine

        def updated_index(*args, **kwargs):
            engine.append(time.perf_counter())
            try:
                return engine_fn(*args, **kwargs)
            finally:
                engine.append(time.perf_counter())

        def publish(core, *args, **kwargs):
            start = time.perf_counter()
            engine.clear()
            publish_fn(core, *args, **kwargs)
            first, last = (engine[0], engine[-1]) if engine else (start, start)
            self.updates.append((start, first, last, time.perf_counter()))

        persist.updated_index = updated_index
        generation.CatalogCore._publish = publish
        gc.callbacks.append(self._collection)
        return self

    def __exit__(self, *exc: object) -> None:
        persist.updated_index, generation.CatalogCore._publish = self._saved
        gc.callbacks.remove(self._collection)

    def _collection(self, phase: str, info: dict) -> None:
        me = threading.get_ident()
        if phase == "start":
            self._gc_start[me] = time.perf_counter()
        elif me in self._gc_start:
            start = self._gc_start.pop(me)
            updater = threading.current_thread().name == UPDATER
            self.collections.append((start, time.perf_counter(), info["generation"], updater))

    def phase_of(self, due: float, end: float) -> str:
        """The phase a search from ``due`` to ``end`` overlaps (the update's GIL-held tail
        first, then its engine work, then the time just after a publication)."""
        found = "quiet"
        for start, _first, last, published in self.updates:
            if due < published and end > last:
                return "tail"
            if due < last and end > start:
                found = "engine"
            elif found == "quiet" and due < published + 0.1 and end > published:
                found = "after"
        return found


def configure(name: str) -> None:
    chunk, apart, nice, pool_apart = CONFIGS[name]
    positions.SPLICE_CHUNK = chunk
    _set_update_tuning(nice=nice, release_apart=apart)
    _set_updates_apart(pool_apart)


def churn_window(catalog: Catalog, sessions: list, queries: list[str], seconds: float) -> dict:
    """The open loop while the server reconnects every second: p99 / max per phase, the
    publication times and the collections meanwhile."""
    stop = threading.Event()
    rounds = iter(range(1, 1_000_000))

    def reconnect() -> None:
        while not stop.is_set():
            catalog.replace_server("reconnecting", server_tools(next(rounds)))
            stop.wait(1.0)

    with Phases() as phases:
        searches = phase_window(sessions, queries, seconds, RATE, reconnect, stop)
    by_phase: dict[str, list[float]] = {p: [] for p in PHASES}
    for due, end in searches:
        by_phase[phases.phase_of(due, end)].append(end - due)
    out = {"all": sorted(end - due for due, end in searches)}
    out.update(by_phase)
    out["publish"] = [u[3] - u[0] for u in phases.updates]
    out["collections"] = phases.collections
    return out


def longest_hold(catalog: Catalog, rounds: int = 5) -> tuple[float, float, float]:
    """With no search running, ``rounds`` updates, each beside a probe thread: the median over
    the updates of the probe's longest wait past its sleeps (an update's longest hold of the
    GIL, plus the scheduler's wake-up latency), the longest over all of them, and the median
    of the probe's own longest wait over as long with no update (the machine's floor)."""
    held, idle = [], []
    for round_ in range(rounds):
        catalog.index.search("warm")  # the lazy parts, as a search would make them
        wall, _, longest = gil_probe(
            catalog.replace_server, "reconnecting", server_tools(-round_ - 1)
        )
        held.append(longest)
        idle.append(gil_probe(time.sleep, wall)[2])
    return statistics.median(held), max(held), statistics.median(idle)


def report(name: str, runs: dict[str, list[dict]], holds: dict[str, list]) -> None:
    print(f"\n### {name}\n")
    print(
        "| configuration | all p99 / max | "
        + " | ".join(f"{p} p99 / max (n)" for p in PHASES)
        + " | publish p50 / max | GIL hold alone, p50 / max of 5 (idle) | gc passes (full) |"
    )
    print("|---|" + "---:|" * (len(PHASES) + 4))
    for config, windows in runs.items():
        for run, w in enumerate(windows):
            cells = [f"{us(pct(w['all'], 0.99))} / {us(max(w['all']))}"]
            for p in PHASES:
                v = w[p]
                cells.append(f"{us(pct(v, 0.99))} / {us(max(v))} ({len(v)})" if v else "-")
            pub = w["publish"]
            cells.append(f"{us(statistics.median(pub))} / {us(max(pub))}" if pub else "-")
            held, most, idle = holds[config][run]
            cells.append(f"{us(held)} / {us(most)} ({us(idle)})")
            full = [c for c in w["collections"] if c[2] == 2]
            cells.append(
                f"{len(w['collections'])} ({len(full)}; {sum(c[3] for c in full)} by the update)"
            )
            print(f"| {config}, run {run + 1} | " + " | ".join(cells) + " |")
    print(f"\nload average after: {os.getloadavg()[0]:.1f} (2 cores)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="mcp_mixed,100k")
    parser.add_argument("--pairs", type=int, default=3, help="runs of each configuration")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each window")
    parser.add_argument("--configs", default=",".join(CONFIGS), help=f"among: {', '.join(CONFIGS)}")
    args = parser.parse_args()
    configs = [c.strip() for c in args.configs.split(",")]
    print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores)")
    for name in args.sizes.split(","):
        tools, queries = load(name)
        catalog = Catalog(tools, engine="rust")
        sessions = [catalog.session() for _ in range(SESSIONS)]
        catalog.connect_server("reconnecting", server_tools(0))
        for session in sessions[::50]:
            session.search(queries[0], limit=3)
        runs: dict[str, list[dict]] = {c: [] for c in configs}
        holds: dict[str, list] = {c: [] for c in configs}
        for _ in range(args.pairs):
            for config in configs:
                configure(config)
                holds[config].append(longest_hold(catalog))
                runs[config].append(churn_window(catalog, sessions, queries, args.seconds))
        configure("after")
        report(f"{name}: {len(tools):,} tools, {SESSIONS:,} sessions", runs, holds)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
