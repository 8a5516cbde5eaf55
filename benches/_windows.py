"""Search windows for the gateway benches: threads searching through many sessions for a while,
every search's latency kept.

* :func:`search_window` is a closed loop: each thread starts its next search as soon as the last
  one returns, so the threads keep the interpreter saturated and a search's latency is mostly
  its wait for the GIL behind the others (8 threads: about 8 searches' time at the median).
* :func:`paced_window` is an open loop, as a gateway's traffic arrives: the threads together
  start ``rate`` searches a second at random (Poisson) times, and a search's latency runs from
  when it was due, so a thread that falls behind counts its lateness too.
* :func:`phase_window` is the open loop with every search's due time and return kept, for a
  bench that sets them against the phases of what ran meanwhile.
* :func:`gil_probe` measures how long a call holds the GIL, by a thread that sleeps meanwhile.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Callable


def search_window(
    sessions: list,
    queries: list[str],
    seconds: float,
    during: threading.Thread | None = None,
    threads: int = 8,
) -> list[float]:
    """``threads`` threads searching through ``sessions`` for ``seconds`` (while ``during``
    runs, if given): every search's latency."""
    stop = threading.Event()
    lat: list[float] = []
    lock = threading.Lock()

    def searcher(offset: int) -> None:
        mine, i = [], offset
        while not stop.is_set():
            start = time.perf_counter()
            sessions[i % len(sessions)].search(queries[i % len(queries)], limit=3)
            mine.append(time.perf_counter() - start)
            i += threads
        with lock:
            lat.extend(mine)

    _run(searcher, threads, during, lambda: (time.sleep(seconds), stop.set()))
    return lat


def _arrivals(
    offset: int, threads: int, rate: float, begin: float, seconds: float
) -> Iterator[tuple[int, float]]:
    """Searcher ``offset``'s share of an open loop of ``rate`` searches a second over
    ``threads`` threads (Poisson arrivals from ``begin`` for ``seconds``): each search's number
    (``offset``, ``offset + threads``, ...) and due time, yielded once that time has come."""
    draw = random.Random(offset).expovariate
    i, due = offset, begin
    while True:
        due += draw(rate / threads)
        if due - begin > seconds:
            return
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        yield i, due
        i += threads


def paced_window(
    sessions: list,
    queries: list[str],
    seconds: float,
    rate: float,
    during: threading.Thread | None = None,
    threads: int = 8,
    own: list[float] | None = None,
) -> list[float]:
    """``threads`` threads together starting ``rate`` searches a second at Poisson-distributed
    times for ``seconds`` (while ``during`` runs, if given): every search's latency from the
    time it was due to its return; ``own``, if given, receives each search's own time, from
    its start to its return (the rest of the latency is the thread's wake-up, late)."""
    lat: list[float] = []
    lock = threading.Lock()
    begin = time.perf_counter() + 0.05

    def searcher(offset: int) -> None:
        mine, started = [], []
        for i, due in _arrivals(offset, threads, rate, begin, seconds):
            start = time.perf_counter()
            sessions[i % len(sessions)].search(queries[i % len(queries)], limit=3)
            end = time.perf_counter()
            mine.append(end - due)
            started.append(end - start)
        with lock:
            lat.extend(mine)
            if own is not None:
                own.extend(started)

    _run(searcher, threads, during, lambda: None)
    return lat


def phase_window(
    sessions: list,
    queries: list[str],
    seconds: float,
    rate: float,
    during: Callable[[], None],
    stop: threading.Event,
    threads: int = 8,
) -> list[tuple[float, float]]:
    """:func:`paced_window` while ``during()`` runs on a thread of its own (it returns once
    ``stop`` is set, which happens when the searches end; the thread is named ``updater``):
    every search's ``(due, end)``, in ``time.perf_counter`` seconds."""
    out: list[tuple[float, float]] = []
    lock = threading.Lock()
    begin = time.perf_counter() + 0.05

    def searcher(offset: int) -> None:
        mine = []
        for i, due in _arrivals(offset, threads, rate, begin, seconds):
            sessions[i % len(sessions)].search(queries[i % len(queries)], limit=3)
            mine.append((due, time.perf_counter()))
        with lock:
            out.extend(mine)

    stop.clear()
    updater = threading.Thread(target=during, name="updater")
    _run(searcher, threads, None, lambda: updater.start())
    stop.set()
    updater.join()
    return out


def _run(
    searcher: Callable[[int], None],
    threads: int,
    during: threading.Thread | None,
    meanwhile: Callable[[], object],
) -> None:
    """``threads`` threads running ``searcher(k)``, and ``during`` beside them, until
    ``meanwhile()`` returns and the searchers end; ``during`` is joined after its start (a
    ``_Stopping`` thread stops itself when joined)."""
    workers = [threading.Thread(target=searcher, args=(k,)) for k in range(threads)]
    for t in workers:
        t.start()
    if during is not None:
        during.start()
    meanwhile()
    for t in workers:
        t.join()
    if during is not None:
        during.join()


def gil_probe(fn, *args) -> tuple[float, float, float]:
    """``fn(*args)`` while a probe thread sleeps 0.1 ms at a time: its wall time, how long the
    probe waited past its sleeps (about the time ``fn`` held the GIL, plus the scheduler's
    wake-up latency), and the longest such wait (the longest hold: at most the switch interval
    while Python code runs, longer inside a C call that keeps the GIL)."""
    done = threading.Event()
    late: list[float] = []

    def probe() -> None:
        while not done.is_set():
            start = time.perf_counter()
            time.sleep(0.0001)
            late.append(time.perf_counter() - start - 0.0001)

    thread = threading.Thread(target=probe)
    thread.start()
    time.sleep(0.01)
    late.clear()
    start = time.perf_counter()
    fn(*args)
    wall = time.perf_counter() - start
    done.set()
    thread.join()
    return wall, sum(late), max(late, default=0.0)
