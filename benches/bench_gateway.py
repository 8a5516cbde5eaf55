"""Gateway scale: many conversations over one catalogue, private sessions beside Catalog views.

    TOOLSIFT_SHARED_DIR=/path/to/shared python benches/bench_gateway.py [--sizes mcp_mixed,100k]

For each catalogue (mcp_mixed, 11,578 real tools, and 100,000 synthetic ones from
``benches/_synthetic.py``), on the Rust engine, in one run so the rows are side by side:

- a private ``DiscoverySession(tools)`` (OMP-exact, ``rebuild_on_activation=True``): creation,
  RSS, first search, search after an activation;
- ``catalog.session()`` views: creation and RSS per session over 10,000 sessions, a bare
  ``ToolIndex.search`` beside a view's search + activate cycle (one thread), the same cycles
  across the 10,000 sessions from 8 threads and from 1,000 asyncio tasks (p50 / p99);
- one 20-tool server reconnecting every second (``replace_server``) while 8 threads search:
  how long an update takes to publish (every session sees it at its next call), and the search
  latency p50 / p99 / max meanwhile, beside the same 8 threads with no reconnect; the 8 threads
  both flat out (a closed loop: each waits behind the 7 others for the GIL) and as a gateway's
  traffic arrives (an open loop of ``PACED_RATE`` searches a second, latency from when each was
  due); and one searching thread (an asyncio gateway's event loop). The open loop is also run
  with nothing searched (the pacing's own floor: a thread's wake-up, late) and reports each
  search's own time beside its latency; during reconnects it runs four times, the update's
  engine work on its own pool (the default) and on every thread of the search pool (what it
  did before), in turn, with the updating thread's CPU (its GIL-held work) for both.

``--parts reconnect`` runs only the reconnect rows; ``--switch-interval S`` (Python's GIL
switch interval, an interpreter-wide setting a gateway operator may choose) and ``--gc-freeze``
(``gc.freeze()`` once the catalogue and sessions are built) measure what those settings change.

Prints a Markdown table (ratios first). Timings are wall-clock on a shared machine.

``--parts catalog`` times only the catalogue's build (``Catalog(tools)`` beside a bare
``ToolIndex(tools)``, CPU). ``--parts view`` runs only the one-thread cycle, three times, each
time through a view's one-call search (a plain query with the default options:
``Index.search_view``) and through its general path (what a ``select:``, a named tool or a
threshold takes, and every search took before the one call), back to back.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).parent))

from _measure import rss, trimmed_rss  # noqa: E402, F401 - trimmed_rss: _grown's child
from _synthetic import synthetic_queries, synthetic_tools  # noqa: E402
from _windows import gil_probe, paced_window, search_window  # noqa: E402
from toolsift import Catalog, DiscoverySession, Tool, ToolIndex, load_catalog  # noqa: E402
from toolsift._core import _set_updates_apart  # noqa: E402

#: The open-loop windows' traffic, searches a second from the 8 threads together: 1,000
#: conversations each searching every half second.
PACED_RATE = 2_000
SESSIONS = 10_000
TASKS = 1_000
FREEZE = False  # --gc-freeze


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:,.2f} ms"


def load(name: str) -> tuple[list[Tool], list[str]]:
    if name == "100k":
        return synthetic_tools(100_000), synthetic_queries(400)
    shared = Path(os.environ.get("TOOLSIFT_SHARED_DIR", Path(__file__).parents[2] / "shared"))
    data = shared / "data"
    tools = load_catalog(data / "mcp_mixed.tools.jsonl")
    with (data / "mcp_mixed.queries.jsonl").open(encoding="utf-8") as fh:
        queries = [json.loads(line)["query"] for line in fh][:400]
    return tools, queries


def server_tools(round_: int) -> list[Tool]:
    words = ["deploy", "rollback", "status", "logs", "metrics", "alert", "scale", "restart"]
    return [
        Tool(
            name=f"mcp__reconnecting__tool_{i}",
            server="reconnecting",
            description=f"{words[i % 8]} {words[(i + round_) % 8]} service number {i}",
        )
        for i in range(20)
    ]


def timed(fn, *args, **kwargs) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def private_rows(tools: list[Tool], queries: list[str]) -> dict[str, float]:
    gc.collect()
    before = rss()
    start = time.perf_counter()
    session = DiscoverySession(tools, engine="rust", rebuild_on_activation=True)
    create = time.perf_counter() - start
    first = timed(session.search, queries[0])
    memory = rss() - before
    after = [timed(session.search, q) for q in queries[1:10]]  # each follows an activation
    del session
    return {
        "create": create,
        "rss": memory,
        "first": first,
        "after": statistics.median(after),
    }


def cycle_rows(catalog: Catalog, queries: list[str], search=None) -> dict[str, float]:
    """A bare ``ToolIndex.search`` beside a view's search + activate cycle, one thread;
    ``search``: the view's search method to call (``DiscoverySession.search``: the general
    path, which every query that the engine's one call declines takes)."""
    out: dict[str, float] = {}
    catalog.session().search(queries[0])  # warm the shared index's lazy parts
    index = catalog.index
    bare = []
    for q in queries[:200]:
        start = time.perf_counter()
        index.search(q)
        bare.append(time.perf_counter() - start)
    out["bare_p50"] = statistics.median(bare)
    cycle, firsts, later = [], [], []
    for i, q in enumerate(queries[:300]):
        if i % 10 == 0:  # conversations of ten turns
            one = catalog.session()
        start = time.perf_counter()
        if search is None:
            one.search(q)  # searches and activates: the next search excludes more tools
        else:
            search(one, q)
        took = time.perf_counter() - start
        cycle.append(took)
        (firsts if i % 10 == 0 else later).append(took)
    out["view_p50"] = statistics.median(cycle)
    out["view_p99"] = pct(cycle, 0.99)
    out["view_first"] = statistics.median(firsts)
    out["view_after"] = statistics.median(later)
    return out


def _grown(name: str, kind: str) -> float:
    """RSS growth (bytes) of one ``Catalog(tools)`` (``kind="catalog"``) or ``ToolIndex(tools)``
    and its first search, in a fresh process, the catalogue ``name`` loaded first."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import bench_gateway as b\n"
        "tools, queries = b.load(sys.argv[2])\n"
        "before = b.trimmed_rss()\n"
        "build = b.Catalog if sys.argv[3] == 'catalog' else b.ToolIndex\n"
        "kept = build(tools, engine='rust')\n"
        "(kept.index if sys.argv[3] == 'catalog' else kept).search(queries[0])\n"
        "print(b.trimmed_rss() - before)\n"
    )
    here = str(Path(__file__).parent)
    out = subprocess.run(
        [sys.executable, "-c", code, here, name, kind], check=True, capture_output=True, text=True
    )
    return float(out.stdout.split()[-1])


def catalog_build_rows(
    name: str, tools: list[Tool], queries: list[str], rounds: int = 3
) -> dict[str, float]:
    """CPU seconds (every thread; median of ``rounds``) of a ``Catalog(tools)`` and its first
    search, beside a bare ``ToolIndex(tools)`` and its first search: what the catalogue adds."""

    def cpu(build: Callable[[], Any]) -> float:
        times = []
        for _ in range(rounds):
            gc.collect()
            start = time.process_time()
            build().search(queries[0])
            times.append(time.process_time() - start)
        return statistics.median(times)

    return {
        "catalog_cpu": cpu(lambda: Catalog(tools, engine="rust").index),
        "index_cpu": cpu(lambda: ToolIndex(tools, engine="rust")),
        "catalog_rss": _grown(name, "catalog"),
        "index_rss": _grown(name, "index"),
    }


def view_rows(tools: list[Tool], queries: list[str]) -> dict[str, float]:
    catalog = Catalog(tools, engine="rust")
    out = cycle_rows(catalog, queries)

    gc.collect()
    before = rss()
    start = time.perf_counter()
    sessions = [catalog.session() for _ in range(SESSIONS)]
    out["create"] = (time.perf_counter() - start) / SESSIONS
    out["rss"] = (rss() - before) / SESSIONS

    # 8 threads, search + activate cycles spread over every session.
    lat: list[float] = []
    lock = threading.Lock()

    def worker(offset: int) -> None:
        mine = []
        for i in range(offset, SESSIONS, 8):
            q = queries[i % len(queries)]
            start = time.perf_counter()
            sessions[i].search(q, limit=3)
            mine.append(time.perf_counter() - start)
        with lock:
            lat.extend(mine)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(worker, range(8)))
    out["t8_p50"], out["t8_p99"] = statistics.median(lat), pct(lat, 0.99)
    gc.collect()
    out["rss_active"] = (rss() - before) / SESSIONS  # with 3 activations per session

    # 1,000 asyncio tasks, each 5 search + activate cycles on its own session.
    async def task(i: int, sink: list[float]) -> None:
        session = sessions[i]
        for k in range(5):
            start = time.perf_counter()
            await session.asearch(queries[(i * 5 + k) % len(queries)], limit=3)
            sink.append(time.perf_counter() - start)
            await asyncio.sleep(0)

    async def many() -> list[float]:
        sink: list[float] = []
        await asyncio.gather(*(task(i, sink) for i in range(TASKS)))
        return sink

    alat = asyncio.run(many())
    out["a_p50"], out["a_p99"] = statistics.median(alat), pct(alat, 0.99)

    out.update(reconnect_rows(catalog, sessions, queries))
    return out


def update_breakdown(catalog: Catalog, queries: list[str]) -> dict[str, float]:
    """Where one 20-tool reconnect's time goes, no search running (median of 5 after 2 warm-up
    updates): the engine's copy-on-write update (``_core._update_tools``, GIL released), the
    name table's remap (GIL held) and the rest (GIL held), timed around those internal calls;
    and the updating thread's CPU time, which is its GIL-held work (while the engine works on
    the pool, it waits asleep): unlike wall times, a measure other jobs on the machine leave
    alone."""
    import toolsift._index.lookups as lookups
    import toolsift._index.persist as persist

    spent = {"engine": 0.0, "names": 0.0}
    patched = [
        (persist, "updated_index", "engine"),
        (lookups.NameLookups, "carried_table", "names"),
    ]
    saved = [getattr(owner, attr) for owner, attr, _ in patched]

    def timing(fn, key):
        def call(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] += time.perf_counter() - start

        return call

    for (owner, attr, key), fn in zip(patched, saved):
        setattr(owner, attr, timing(fn, key))
    rows = []
    try:
        for round_ in range(1, 8):
            spent["engine"] = spent["names"] = 0.0
            gc.collect()
            cpu = time.thread_time()
            wall = timed(catalog.replace_server, "reconnecting", server_tools(100 + round_))
            rows.append((wall, spent["engine"], spent["names"], time.thread_time() - cpu))
            catalog.session().search(queries[round_], limit=3)
    finally:
        for (owner, attr, _), fn in zip(patched, saved):
            setattr(owner, attr, fn)
    rows = rows[2:]
    wall, engine, names, cpu = (statistics.median(r[i] for r in rows) for i in range(4))
    return {
        "b_wall": wall,
        "b_engine": engine,
        "b_names": names,
        "b_rest": wall - engine - names,
        "b_cpu": cpu,
    }


def reconnect_rows(catalog: Catalog, sessions: list, queries: list[str]) -> dict[str, float]:
    """One 20-tool server reconnecting every second while 8 threads search, beside the same 8
    threads with no reconnect (the GIL convoy of 8 threads on the machine's cores alone)."""
    out: dict[str, float] = {}
    catalog.connect_server("reconnecting", server_tools(0))
    # An update's engine work on its own pool of half the threads (the default) and, for the
    # comparison, on the pool of searches and builds, every thread (what it did before).
    _set_updates_apart(False)
    out.update({f"every_{k}": v for k, v in update_breakdown(catalog, queries).items()})
    _set_updates_apart(True)
    out.update(update_breakdown(catalog, queries))
    # Alone (no search running): each update's wall time and the GIL it holds, by a probe;
    # the probe's own waits over as long with no update, subtracted.
    probes = []
    for round_ in range(1, 6):
        catalog.index.search(queries[0])  # the index's lazy parts, as a search would make them
        probes.append(gil_probe(catalog.replace_server, "reconnecting", server_tools(-round_)))
    idle = [gil_probe(time.sleep, wall) for wall, _, _ in probes]
    held = [p[1] - i[1] for p, i in zip(probes, idle)]
    out["alone_wall"] = statistics.median(p[0] for p in probes)
    out["alone_held"] = statistics.median(held)
    out["alone_longest"] = max(p[2] for p in probes)
    out["idle_longest"] = max(i[2] for i in idle)
    for session in sessions[:: max(1, len(sessions) // 200)]:
        session.search(queries[0], limit=3)  # warm: every search below is a steady-state one
    quiet = search_window(sessions, queries, 5.5)
    out["quiet_p50"], out["quiet_p99"], out["quiet_max"] = (
        statistics.median(quiet), pct(quiet, 0.99), max(quiet)
    )  # fmt: skip
    stop = threading.Event()
    updates: list[float] = []

    def reconnect() -> None:
        round_ = 1
        while not stop.is_set():
            updates.append(timed(catalog.replace_server, "reconnecting", server_tools(round_)))
            round_ += 1
            stop.wait(1.0)

    busy = search_window(sessions, queries, 5.5, during=_Stopping(reconnect, stop))
    out["update_p50"], out["update_max"] = statistics.median(updates), max(updates)
    out["churn_p50"], out["churn_p99"], out["churn_max"] = (
        statistics.median(busy), pct(busy, 0.99), max(busy)
    )  # fmt: skip
    # One searching thread (an asyncio gateway's event loop), with no reconnect and during them:
    # what the update costs a search, without 8 searching threads queueing for the GIL.
    one = search_window(sessions, queries, 5.5, threads=1)
    out["one_quiet_p50"], out["one_quiet_p99"], out["one_quiet_max"] = (
        statistics.median(one), pct(one, 0.99), max(one)
    )  # fmt: skip
    stop.clear()
    one = search_window(sessions, queries, 5.5, during=_Stopping(reconnect, stop), threads=1)
    out["one_churn_p50"], out["one_churn_p99"], out["one_churn_max"] = (
        statistics.median(one), pct(one, 0.99), max(one)
    )  # fmt: skip
    # 8 threads as a gateway's traffic arrives (open loop, PACED_RATE searches a second in all),
    # with no reconnect and during them: the wait for the GIL is now behind the searches that
    # are actually due, not behind 7 threads that never pause.
    # The pacing's own floor: the same open loop with nothing to do (a thread's wake-up from
    # its sleep, late by the scheduler, counts in every open-loop latency below).
    paced = paced_window([_Idle()], queries, 5.5, PACED_RATE)
    out["paced_floor_p50"], out["paced_floor_p99"], out["paced_floor_max"] = (
        statistics.median(paced), pct(paced, 0.99), max(paced)
    )  # fmt: skip
    own: list[float] = []  # each search's own time, from its start (not when it was due)
    paced = paced_window(sessions, queries, 5.5, PACED_RATE, own=own)
    out["paced_quiet_p50"], out["paced_quiet_p99"], out["paced_quiet_max"] = (
        statistics.median(paced), pct(paced, 0.99), max(paced)
    )  # fmt: skip
    out["paced_own_p50"], out["paced_own_p99"], out["paced_own_max"] = (
        statistics.median(own), pct(own, 0.99), max(own)
    )  # fmt: skip
    # During reconnects, the update's engine work on its own pool and on every thread, in turn.
    for apart, key in ((True, "churn"), (False, "every"), (True, "churn2"), (False, "every2")):
        _set_updates_apart(apart)
        stop.clear()
        paced = paced_window(sessions, queries, 5.5, PACED_RATE, during=_Stopping(reconnect, stop))
        out[f"paced_{key}_p50"], out[f"paced_{key}_p99"], out[f"paced_{key}_max"] = (
            statistics.median(paced), pct(paced, 0.99), max(paced)
        )  # fmt: skip
    _set_updates_apart(True)
    for session in sessions:  # every session is on the last generation at its next call
        session.search(queries[0], limit=1)
        assert session._gen is catalog._core.current  # noqa: SLF001
    assert catalog.generation >= 2 and len(updates) >= 1
    out["updates"] = len(updates)
    return out


class _Idle:
    """A session whose search does nothing: the open loop's own floor."""

    def search(self, query: str, limit: int) -> None:
        return None


class _Stopping(threading.Thread):
    """A thread running ``target`` whose ``join`` first sets ``stop``."""

    def __init__(self, target, stop: threading.Event) -> None:
        super().__init__(target=target)
        self._stop_event = stop

    def join(self, timeout: float | None = None) -> None:
        self._stop_event.set()
        super().join(timeout)


def reconnect_only(tools: list[Tool], queries: list[str]) -> dict[str, float]:
    catalog = Catalog(tools, engine="rust")
    sessions = [catalog.session() for _ in range(SESSIONS)]
    if FREEZE:  # what a gateway operator may do once its catalogue is built
        gc.collect()
        gc.freeze()
    return reconnect_rows(catalog, sessions, queries)


def print_reconnect(v: dict[str, float]) -> None:
    print(
        f"| 20-tool reconnect alone: whole / engine update (GIL released) / name table remap / "
        f"the rest (GIL held), p50 of 5 | {us(v['b_wall'])} / {us(v['b_engine'])} / "
        f"{us(v['b_names'])} / {us(v['b_rest'])} |"
    )
    print(
        f"| the same, the engine update on every thread (the search pool) | "
        f"{us(v['every_b_wall'])} / {us(v['every_b_engine'])} / {us(v['every_b_names'])} / "
        f"{us(v['every_b_rest'])} |"
    )
    print(
        f"| 20-tool reconnect alone: the updating thread's CPU (its GIL-held work), p50 of 5, "
        f"update on its own pool / on every thread | {us(v['b_cpu'])} / "
        f"{us(v['every_b_cpu'])} |"
    )
    print(
        f"| 20-tool reconnect alone: wall / GIL held (probe), p50 of 5 / longest hold | "
        f"{us(v['alone_wall'])} / {us(v['alone_held'])} / {us(v['alone_longest'])} "
        f"(probe's longest wait with no update: {us(v['idle_longest'])}) |"
    )
    print(
        f"| 20-tool server reconnect: publish (all sessions see it), p50 / max "
        f"({v['updates']:.0f} updates in 5.5 s) | "
        f"{us(v['update_p50'])} / {us(v['update_max'])} |"
    )
    print(
        f"| search p50 / p99 / max, 8 threads, no reconnect | {us(v['quiet_p50'])} / "
        f"{us(v['quiet_p99'])} / {us(v['quiet_max'])} |"
    )
    print(
        f"| search p50 / p99 / max during reconnects (8 threads) | {us(v['churn_p50'])} / "
        f"{us(v['churn_p99'])} / {us(v['churn_max'])} |"
    )
    print(
        f"| search p50 / p99 / max, 1 thread (an event loop), no reconnect | "
        f"{us(v['one_quiet_p50'])} / {us(v['one_quiet_p99'])} / {us(v['one_quiet_max'])} |"
    )
    print(
        f"| search p50 / p99 / max during reconnects, 1 thread | {us(v['one_churn_p50'])} / "
        f"{us(v['one_churn_p99'])} / {us(v['one_churn_max'])} |"
    )
    labels = (
        ("floor", "nothing searched (the pacing's own lateness)"),
        ("quiet", "no reconnect"),
        ("own", "no reconnect, each search's own time (from its start, not when due)"),
        ("churn", "during reconnects (update on its own pool)"),
        ("every", "during reconnects (update on every thread)"),
        ("churn2", "during reconnects (update on its own pool), again"),
        ("every2", "during reconnects (update on every thread), again"),
    )
    for part, label in labels:
        print(
            f"| search p50 / p99 / max, 8 threads at {PACED_RATE:,} searches/s in all (open "
            f"loop), {label} | {us(v[f'paced_{part}_p50'])} / {us(v[f'paced_{part}_p99'])} / "
            f"{us(v[f'paced_{part}_max'])} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="mcp_mixed,100k")
    parser.add_argument(
        "--parts",
        default="all",
        choices=["all", "view", "reconnect", "catalog"],
        help="view: only the one-thread bare search and view search + activate cycle; "
        "reconnect: only the reconnect rows; catalog: only the catalogue's build",
    )
    parser.add_argument(
        "--switch-interval", type=float, default=None,
        help="sys.setswitchinterval for this run, in seconds (an operator's setting)",
    )  # fmt: skip
    parser.add_argument("--gc-freeze", action="store_true", help="gc.freeze() after each build")
    args = parser.parse_args()
    if args.switch_interval is not None:
        sys.setswitchinterval(args.switch_interval)
    global FREEZE
    FREEZE = args.gc_freeze
    print(f"switch interval {sys.getswitchinterval() * 1e3:g} ms, gc.freeze: {args.gc_freeze}")
    for name in args.sizes.split(","):
        tools, queries = load(name)
        if args.parts == "view":
            catalog = Catalog(tools, engine="rust")
            for run in range(3):  # the one-call path and the general one, run after run
                for path, search in (("one call", None), ("general", DiscoverySession.search)):
                    c = cycle_rows(catalog, queries, search)
                    print(
                        f"{name} ({len(tools):,} tools), run {run + 1}, {path} path: bare p50 "
                        f"{us(c['bare_p50'])}, view search + activate p50 / p99 "
                        f"{us(c['view_p50'])} / {us(c['view_p99'])} "
                        f"({c['view_p50'] / c['bare_p50']:.2f}× bare); first "
                        f"{us(c['view_first'])}, turns 2-10 {us(c['view_after'])}; "
                        f"load {os.getloadavg()[0]:.1f}"
                    )
                    sys.stdout.flush()
            continue
        if args.parts in ("all", "catalog"):
            c = catalog_build_rows(name, tools, queries)
            print(
                f"\n{name}: {len(tools):,} tools: build + first search, CPU (median of 3): "
                f"Catalog(tools) {c['catalog_cpu'] * 1e3:,.0f} ms, ToolIndex(tools) "
                f"{c['index_cpu'] * 1e3:,.0f} ms ({c['catalog_cpu'] / c['index_cpu']:.2f}×); "
                f"RSS growth {c['catalog_rss'] / 2**20:,.1f} MiB and "
                f"{c['index_rss'] / 2**20:,.1f} MiB"
            )
            if args.parts == "catalog":
                continue
        if args.parts == "reconnect":
            print(f"\n### {name}: {len(tools):,} tools (Rust engine), reconnects\n")
            print("| measurement | value |\n|---|---:|")
            print_reconnect(reconnect_only(tools, queries))
            sys.stdout.flush()
            continue
        p = private_rows(tools, queries)
        v = view_rows(tools, queries)
        print(f"\n### {name}: {len(tools):,} tools (Rust engine)\n")
        print(
            "| | private `DiscoverySession(tools)`, exact scores (the previous default) "
            "| `catalog.session()` view | ratio |"
        )
        print("|---|---:|---:|---:|")
        rows = [
            ("create a session", p["create"], v["create"]),
            ("first search (p50 of 30 views)", p["first"], v["view_first"]),
            ("search after an activation, p50 (turns 2-10)", p["after"], v["view_after"]),
        ]
        for label, a, b in rows:
            print(f"| {label} | {us(a)} | {us(b)} | {a / b:,.0f}× |")
        print(
            f"| RSS per session | {p['rss'] / 2**20:,.1f} MiB | {v['rss'] / 1024:,.2f} KiB "
            f"({v['rss_active'] / 1024:,.2f} KiB with 3 activations) | "
            f"{p['rss'] / max(v['rss'], 1):,.0f}× |"
        )
        print("\n| view measurement | value |\n|---|---:|")
        print(f"| bare `ToolIndex.search`, p50 | {us(v['bare_p50'])} |")
        print(
            f"| view search + activate, one thread, p50 / p99 | {us(v['view_p50'])} / "
            f"{us(v['view_p99'])} ({v['view_p50'] / v['bare_p50']:.2f}× bare) |"
        )
        print(f"| {SESSIONS:,} views: create, per session | {us(v['create'])} |")
        print(f"| 8 threads over {SESSIONS:,} views, p50 / p99 | {us(v['t8_p50'])} / "
              f"{us(v['t8_p99'])} |")  # fmt: skip
        print(f"| {TASKS:,} asyncio tasks (`asearch`), p50 / p99 | {us(v['a_p50'])} / "
              f"{us(v['a_p99'])} |")  # fmt: skip
        print_reconnect(v)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
