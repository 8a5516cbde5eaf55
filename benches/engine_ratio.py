"""The Rust engine beside the pure-Python engine on one synthetic catalogue: build time, median
single-query search, their ratio, and a check that both rank every query alike.

    python benches/engine_ratio.py 100000 --profile english --queries 80

The pure-Python engine takes seconds to build a large catalogue and tens of milliseconds a query,
so it runs each query once (the Rust engine five times); the scale report
(``benches/scale_report.py``) leaves it out for that reason.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synthetic import profile_setup, synthetic_documents, synthetic_queries  # noqa: E402
from toolsift._core import Index  # noqa: E402
from toolsift._pyengine.index import Index as PythonIndex  # noqa: E402


def median_us(index, queries: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        for q in queries:
            t = time.perf_counter()
            index.search(q, 8)
            times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int)
    parser.add_argument("--profile", default="omp", choices=["omp", "english"])
    parser.add_argument("--queries", type=int, default=80)
    args = parser.parse_args()
    weights, delta, description = profile_setup(args.profile)
    names, docs = synthetic_documents(args.n, description=description)
    queries = synthetic_queries(400)[: args.queries]
    t = time.perf_counter()
    rust = Index(names, docs, weights, delta=delta, profile=args.profile)
    rust_build = time.perf_counter() - t
    t = time.perf_counter()
    python = PythonIndex(names, docs, weights, delta=delta, profile=args.profile)
    python_build = time.perf_counter() - t
    for q in queries:
        a, b = rust.search(q, 8), python.search(q, 8)
        same = [d for d, _ in a] == [d for d, _ in b]
        if not same or any(abs(x - y) > 1e-9 for (_, x), (_, y) in zip(a, b)):
            raise SystemExit(f"the engines differ on {q!r}")
    r, p = median_us(rust, queries, 5), median_us(python, queries, 1)
    print(
        f"{args.profile} {args.n}: build rust {rust_build:.2f} s, python {python_build:.1f} s; "
        f"search median rust {r:.1f} us, python {p:.0f} us, "
        f"ratio {p / r:.0f}x ({len(queries)} queries, same rankings)"
    )


if __name__ == "__main__":
    main()
