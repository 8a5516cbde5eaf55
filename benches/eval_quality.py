"""Retrieval quality of toolsift beside its peers on the labeled sets of ../shared/data.

Run from the repository root (the labeled sets are not shipped; see ../shared/data/README.md):

    python benches/eval_quality.py                                  # default BM25+ and the peers
    python benches/eval_quality.py --rankers toolsift,peers,variants  # + the issue-5 variants
    python benches/eval_quality.py --embed minilm --rankers toolsift,dense,hybrid-minmax,hybrid-rrf
    python benches/eval_quality.py --sensitivity                    # field-weight sensitivity
    python benches/eval_quality.py --tune                           # tune weights on one split
    python benches/eval_quality.py --cjk-known-item                 # is Chinese text findable?
    python benches/eval_quality.py --latency --embed minilm         # hybrid latency per stage

It accepts every option of ``toolsift eval`` (``--datasets``, ``--rankers``, ``--limit-queries N``,
``--json``, ``--embed``); ``--sensitivity`` and ``--tune`` are this script's own.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import sys
from typing import Any

import toolsift
from toolsift import evaluate as ev
from toolsift.evaluation.variants import Variant, VariantIndex, parse_variant

#: Fields whose weight the sweeps move (search_hint/title/description are absent in these sets).
SWEPT = ("name", "label", "server", "mcp_tool_name", "summary", "schema_key")


def _ndcg(ds: ev.Dataset, variant: Variant) -> float:
    return ev.evaluate(ds, VariantIndex(ds.tools, variant).search)["nDCG@10"]


def sensitivity(datasets: list[ev.Dataset], base: Variant) -> dict[str, Any]:
    """nDCG@10 with one field weight halved, zeroed or doubled at a time."""
    out: dict[str, Any] = {"base": base.label, "rows": {}}
    out["rows"]["(base)"] = {ds.name: _ndcg(ds, base) for ds in datasets}
    for name, factor in itertools.product(SWEPT, (0.0, 0.5, 2.0)):
        w = getattr(base.weights, name)
        weights = dataclasses.replace(base.weights, **{name: w * factor})
        variant = dataclasses.replace(base, weights=weights)
        key = f"{name} {w:g}->{w * factor:g}"
        out["rows"][key] = {ds.name: _ndcg(ds, variant) for ds in datasets}
        print(
            f"  {key:<24} " + " ".join(f"{v:.3f}" for v in out["rows"][key].values()),
            file=sys.stderr,
        )
    return out


def _split(ds: ev.Dataset, part: int) -> ev.Dataset:
    return dataclasses.replace(ds, queries=ds.queries[part::2])


def tune(datasets: list[ev.Dataset], base: Variant, tune_on: str) -> dict[str, Any]:
    """Coordinate ascent over field weights on the even queries of ``tune_on``; reported on
    that set's odd queries and on every other set (never seen while tuning)."""
    by_name = {ds.name: ds for ds in datasets}
    train = _split(by_name[tune_on], 0)
    best, best_score = base, _ndcg(train, base)
    grid = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0)
    for _ in range(2):
        for name in SWEPT:
            for w in grid:
                cand = dataclasses.replace(
                    best, weights=dataclasses.replace(best.weights, **{name: w})
                )
                score = _ndcg(train, cand)
                if score > best_score + 1e-4:
                    best, best_score = cand, score
    report = {
        "tuned_on": f"{tune_on} (even queries)",
        "train nDCG@10": best_score,
        "weights": dataclasses.asdict(best.weights),
        "held_out": {},
    }
    for ds in datasets:
        held = _split(ds, 1) if ds.name == tune_on else ds
        report["held_out"][ds.name] = {"base": _ndcg(held, base), "tuned": _ndcg(held, best)}
    return report


def cjk_known_item(data_dir: Any, variants: list[str]) -> dict[str, Any]:
    """Known-item search over mcp_mixed's tools with Chinese descriptions (no labeled CJK queries
    exist): the query is four Han characters from the middle of the longest Han run of the
    tool's description, the relevant tool is that tool. Measures whether CJK text is findable."""
    import re

    ds = ev.load_dataset("mcp_mixed", data_dir, limit=1)
    han = re.compile(r"[\u4e00-\u9fff]+")
    queries = []
    for i, tool in enumerate(ds.tools):
        runs = han.findall(tool.description)
        longest = max(runs, key=len) if runs else ""
        if len(longest) >= 8:
            mid = len(longest) // 2
            queries.append(ev.Query(longest[mid - 2 : mid + 2], frozenset({i})))
    probe = dataclasses.replace(ds, queries=tuple(queries), note="CJK known-item")
    out: dict[str, Any] = {"queries": len(queries)}
    for spec in variants:
        out[spec] = ev.evaluate(probe, ev.make_ranker(spec, ds.tools))
    return out


def latency(data_dir: Any, embed_name: str, n: int = 200) -> dict[str, Any]:
    """Median and 90th-percentile milliseconds per query, on mcp_mixed (11,578 tools), of each
    stage of a hybrid search: the lexical search, the query embedding, the dense search and the
    whole ``HybridIndex.search`` (embedding included). Queries are the first ``n`` of the set."""
    import statistics
    import time

    from toolsift.embed import MiniLMEmbedder, get_embedder
    from toolsift.hybrid import HybridIndex, lexical_search

    ds = ev.load_dataset("mcp_mixed", data_dir)
    queries = [q.text for q in ds.queries[:n]]
    embedder = get_embedder(embed_name)
    hybrid = HybridIndex(toolsift.ToolIndex(ds.tools), embed=embedder)

    def timed(fn: Any, sample: list[str] = queries) -> dict[str, float]:
        fn(sample[0])  # warm up
        times = []
        for q in sample:
            start = time.perf_counter()
            fn(q)
            times.append(1000 * (time.perf_counter() - start))
        times.sort()
        return {"median": statistics.median(times), "p90": times[int(0.9 * (len(times) - 1))]}

    vectors = {q: embedder([q])[0] for q in queries}
    words = [len(q.split()) for q in queries]
    # The query on one onnxruntime thread (the default is two that sleep between operators).
    one_thread = MiniLMEmbedder(query_threads=1) if embed_name == "minilm" else embedder
    short = [q for q in queries if len(q.split()) <= 20] or queries
    return {
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
        "embed query, 1 thread": timed(lambda q: one_thread([q])),
        f"embed query of <= 20 words ({len(short)} queries)": timed(lambda q: embedder([q]), short),
        "queries": len(queries),
        "median words/query": statistics.median(words),
        "lexical top-100 (toolsift)": timed(lambda q: lexical_search(hybrid.index, q, 100)),
        "embed query": timed(lambda q: embedder([q])),
        "dense top-100": timed(lambda q: hybrid.dense_search(vectors[q], 100)),
        "hybrid search, vector given": timed(
            lambda q: hybrid.search(q, 10, query_vector=vectors[q])
        ),
        "hybrid search, embedding included": timed(lambda q: hybrid.search(q, 10)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ev.add_arguments(parser)
    parser.add_argument("--sensitivity", action="store_true", help="field-weight sensitivity")
    parser.add_argument(
        "--tune",
        metavar="SET",
        nargs="?",
        const="metatool",
        help="tune field weights on SET's even queries (default metatool)",
    )
    parser.add_argument("--base", default="base", help="variant the sweeps start from")
    parser.add_argument(
        "--cjk-known-item", action="store_true", help="CJK known-item probe on mcp_mixed"
    )
    parser.add_argument(
        "--latency", action="store_true", help="per-stage hybrid latency on mcp_mixed (--embed)"
    )
    args = parser.parse_args(argv)
    if args.latency:
        data_dir = ev.find_data_dir(args.data)
        if data_dir is None:
            print("eval_quality: ../shared/data not found", file=sys.stderr)
            return 2
        print(json.dumps(latency(data_dir, args.embed or "minilm"), indent=2))
        return 0
    if args.cjk_known_item:
        data_dir = ev.find_data_dir(args.data)
        if data_dir is None:
            print("eval_quality: ../shared/data not found", file=sys.stderr)
            return 2
        ranks = ["toolsift", "v:base", "v:cjk", f"v:{ev.RECOMMENDED_VARIANT}"]
        print(json.dumps(cjk_known_item(data_dir, ranks), indent=2))
        return 0
    if not (args.sensitivity or args.tune):
        return ev.main(args)
    data_dir = ev.find_data_dir(args.data)
    if data_dir is None:
        print(
            "eval_quality: ../shared/data not found (pass --data or TOOLSIFT_SHARED_DIR)",
            file=sys.stderr,
        )
        return 2
    names = [d for d in args.datasets.split(",") if d]
    datasets = [ev.load_dataset(n, data_dir, limit=args.limit_queries) for n in names]
    base = parse_variant(args.base)
    result = sensitivity(datasets, base) if args.sensitivity else tune(datasets, base, args.tune)
    if args.json:
        print(json.dumps(result, indent=2))
    elif args.sensitivity:
        print("| weights | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        for key, row in result["rows"].items():
            print(f"| {key} | " + " | ".join(f"{row[n]:.3f}" for n in names) + " |")
    else:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
