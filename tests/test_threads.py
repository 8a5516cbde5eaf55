"""Threads: searches on a shared index while another thread builds and swaps in a new one.

The index is immutable and the GIL is released during build and search, so readers need no lock;
every result must come from exactly one index generation. Each generation's catalogue has a
marker tool that only it contains, and every result is compared with that generation's
single-threaded answer.
"""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "benches"))

from _synthetic import synthetic_queries, synthetic_tools  # noqa: E402
from toolsift import Tool, ToolIndex  # noqa: E402

GENERATIONS = 6
QUERIES = synthetic_queries(40)


def marker(gen: int) -> Tool:
    return Tool(
        name=f"generation_marker_{gen}", description=f"zebra{gen} unicorn generation marker"
    )


def catalogue(gen: int) -> list[Tool]:
    return synthetic_tools(1500, seed=100 + gen) + [marker(gen)]


def test_readers_see_exactly_one_generation_while_a_writer_swaps(engine):
    expected = {}
    for gen in range(GENERATIONS):
        index = ToolIndex(catalogue(gen), engine=engine)
        expected[gen] = {q: index.search(q, 5) for q in QUERIES + ["unicorn generation marker"]}
    current = {"gen": 0, "index": ToolIndex(catalogue(0), engine=engine)}
    stop = threading.Event()
    errors: list[str] = []
    checked = [0]

    def writer():
        for gen in range(1, GENERATIONS):
            index = ToolIndex(catalogue(gen), engine=engine)  # builds with the GIL released
            current.update(gen=gen, index=index)  # one reference swap; readers never lock
            time.sleep(0.01)
        stop.set()

    def reader(worker: int):
        i = worker
        while not stop.is_set() or i < worker + 50:
            index = current["index"]  # take one generation for the whole check
            hits = index.search("unicorn generation marker", 5)
            gens = {
                h.name.rsplit("_", 1)[1] for h in hits if h.name.startswith("generation_marker")
            }
            if len(gens) != 1:
                errors.append(f"markers of {gens} in one result")
                return
            gen = int(gens.pop())
            q = QUERIES[i % len(QUERIES)]
            if index.search(q, 5) != expected[gen][q]:
                errors.append(f"generation {gen}: wrong result for {q!r}")
            if i % 7 == 0:
                many = index.search_many(QUERIES[:8], 5)
                if many != [expected[gen][x] for x in QUERIES[:8]]:
                    errors.append(f"generation {gen}: wrong search_many")
            checked[0] += 1
            i += 1

    with ThreadPoolExecutor(max_workers=5) as pool:
        futures = [pool.submit(reader, w) for w in range(4)] + [pool.submit(writer)]
        for f in futures:
            f.result(timeout=300)
    assert not errors, errors[:5]
    assert checked[0] > 0


def test_concurrent_search_many_and_updates_on_a_shared_index(engine):
    base = ToolIndex(synthetic_tools(800, seed=5), engine=engine)
    expected = [base.search(q, 8) for q in QUERIES]

    def work(i: int):
        if i % 3 == 0:
            updated = base.with_tools(add=[marker(i)])
            assert updated.search("unicorn", 1)[0].name == f"generation_marker_{i}"
        assert base.search_many(QUERIES, 8) == expected
        return base.search(QUERIES[i % len(QUERIES)], 8) == expected[i % len(QUERIES)]

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(work, range(48)))
    assert "generation_marker_0" not in base
