"""Retrieval quality on labeled tool sets: Recall@1/5/10, MRR and nDCG@10, toolsift beside peers.

The labeled sets are not shipped with toolsift (``--data DIR``, or ``$TOOLSIFT_SHARED_DIR``):
``mcp_mixed`` (11,578 MCP tools, 1,243 queries, scored strictly on server + name), ``metatool``
(199 tools, 21,041 queries) and ``gorilla_hf`` (907 tools, 911 queries). Every ranker sees the
same tools and the same tokens: the peers (``rank_bm25``, ``bm25s``) index toolsift's
weighted-field documents with each field's tokens repeated by its weight.

Metrics, per query, averaged over queries (``R`` = the relevant tools, binary gain):

* Recall@k = ``|R ∩ top k| / |R|``;
* MRR = ``1 / rank`` of the first relevant tool in the top 100 (0 when none);
* nDCG@10 = ``Σ_{relevant i ≤ 10} 1/log2(i+1)`` over the ideal ``Σ_{i ≤ min(|R|,10)} 1/log2(i+1)``.

Wiring ``toolsift eval`` into the CLI (``cli.py``)::

    evaluate.add_arguments(sub.add_parser("eval", help="retrieval quality on labeled sets"))
    ...
    if args.command == "eval":
        return evaluate.main(args)

The full table is ``python benches/eval_quality.py --rankers toolsift,peers,variants`` (or
``toolsift eval`` with the same options); it needs ``pip install 'toolsift[eval]'``.

Example:
    >>> from toolsift.evaluate import Query, ndcg_at, recall_at
    >>> q = Query("read a file", frozenset({3}))
    >>> recall_at([5, 3], q.relevant, 1), round(ndcg_at([5, 3], q.relevant, 10), 3)
    (0.0, 0.631)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Callable

from .errors import ToolsiftError
from .evaluation.datasets import DATASETS as DATASETS
from .evaluation.datasets import DEPTH as DEPTH
from .evaluation.datasets import Dataset as Dataset
from .evaluation.datasets import Query as Query
from .evaluation.datasets import find_data_dir as find_data_dir
from .evaluation.datasets import load_dataset as load_dataset
from .evaluation.metrics import evaluate as evaluate
from .evaluation.metrics import ndcg_at as ndcg_at
from .evaluation.metrics import recall_at as recall_at
from .evaluation.metrics import reciprocal_rank as reciprocal_rank
from .evaluation.rankers import DEFAULT_RANKERS as DEFAULT_RANKERS
from .evaluation.rankers import RECOMMENDED_VARIANT as RECOMMENDED_VARIANT
from .evaluation.rankers import TOOLSIFT_RANKERS as TOOLSIFT_RANKERS
from .evaluation.rankers import VARIANT_RANKERS as VARIANT_RANKERS
from .evaluation.rankers import make_ranker as make_ranker
from .evaluation.rankers import ranker_name
from .evaluation.splits import sample_queries, split_dataset

__all__ = [
    "Dataset",
    "Query",
    "DATASETS",
    "load_dataset",
    "find_data_dir",
    "make_ranker",
    "evaluate",
    "recall_at",
    "reciprocal_rank",
    "ndcg_at",
    "add_arguments",
    "main",
]


def _positive_int(text: str) -> int:
    """An argparse ``type``: an int >= 1 (a usage error, exit code 2, otherwise)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``toolsift eval``'s options to ``parser``."""
    parser.add_argument(
        "--data",
        metavar="DIR",
        help="folder with the labeled sets, NAME.tools.jsonl and NAME.queries.jsonl (default: "
        "$TOOLSIFT_SHARED_DIR/data, else shared/data in or beside the current folder)",
    )
    parser.add_argument(
        "--datasets",
        default=",".join(DATASETS),
        help=f"comma-separated sets (default: {','.join(DATASETS)})",
    )
    parser.add_argument(
        "--rankers",
        default=",".join(DEFAULT_RANKERS),
        help="comma-separated rankers; 'variants' adds the analysis variants that were measured, "
        "'peers' the peers; a toolsift ranker takes an analysis profile as a suffix "
        "(toolsift@omp: the plain profile) "
        f"(default: {','.join(DEFAULT_RANKERS)})",
    )
    parser.add_argument(
        "--limit-queries",
        type=_positive_int,
        metavar="N",
        help="evaluate a deterministic sample of at most N queries per set (every n-th)",
    )
    parser.add_argument(
        "--split",
        choices=["all", "train", "test"],
        default="all",
        help="evaluate one split of each set (toolsift.evaluation.splits.split_of; default: all "
        "queries); --limit-queries then samples that split",
    )
    parser.add_argument(
        "--lenient", action="store_true", help="mcp_mixed: score by tool name, not server + name"
    )
    parser.add_argument(
        "--embed",
        choices=["minilm", "wordllama"],
        help="embedder for the dense and hybrid rankers (pip install 'toolsift[embed]')",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _expand(rankers: str) -> list[str]:
    out: list[str] = []
    for name in filter(None, (r.strip() for r in rankers.split(","))):
        if name == "variants":
            out.extend(VARIANT_RANKERS)
        elif name == "peers":
            out.extend(r for r in DEFAULT_RANKERS if not r.startswith("toolsift"))
            if importlib.util.find_spec("ratel_ai") is not None:
                out.append("ratel")
        else:
            out.append(ranker_name(name))
    return list(dict.fromkeys(out))


def format_table(results: dict[str, Any]) -> str:
    """One Markdown table: a row per set and ranker."""
    head = "| set | ranker | R@1 | R@5 | R@10 | MRR | nDCG@10 | ms/query |"
    lines = [head, "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, res in results["datasets"].items():
        for ranker, m in res["rankers"].items():
            if "error" in m:
                lines.append(f"| {name} | {ranker} | {m['error']} | | | | | |")
                continue
            lines.append(
                f"| {name} | {ranker} | {m['R@1']:.3f} | {m['R@5']:.3f} | {m['R@10']:.3f} | "
                f"{m['MRR']:.3f} | {m['nDCG@10']:.3f} | {m['ms/query']:.2f} |"
            )
    return "\n".join(lines)


class _MemoEmbedder:
    """An embedder that remembers query vectors, so several hybrid rankers embed each query once.

    The per-query embedding cost is measured separately (``embed ms/query``), unbatched.
    """

    def __init__(self, embed: Callable[[list[str]], Any]) -> None:
        self._embed = embed
        self.model_id = getattr(embed, "model_id", None)
        self._memo: dict[str, Any] = {}

    def prime(self, texts: Sequence[str]) -> float:
        """Embed ``texts`` in batches; return the unbatched milliseconds per text (first 100)."""
        sample = list(dict.fromkeys(texts))[:100]
        start = time.perf_counter()
        for text in sample:
            self._embed([text])
        per_query = 1000.0 * (time.perf_counter() - start) / max(len(sample), 1)
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        for t, v in zip(todo, self._embed(todo)):
            self._memo[t] = v
        return per_query

    def __call__(self, texts: list[str]) -> Any:
        import numpy as np

        if len(texts) == 1 and texts[0] in self._memo:
            return np.asarray([self._memo[texts[0]]])
        return self._embed(texts)


def format_summary(results: dict[str, Any], metric: str = "nDCG@10") -> str:
    """One Markdown table: a row per ranker, a column per set, each cell ``metric`` (Δ vs the
    first ranker)."""
    names = list(results["datasets"])
    rankers: list[str] = []
    for res in results["datasets"].values():
        rankers += [r for r in res["rankers"] if r not in rankers]
    lines = [f"| {metric} | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for ranker in rankers:
        cells = []
        for name in names:
            ranked = results["datasets"][name]["rankers"]
            m, first = ranked.get(ranker, {}), next(iter(ranked.values()))
            if metric not in m:
                cells.append("–")
            elif ranker == next(iter(ranked)):
                cells.append(f"{m[metric]:.3f}")
            else:
                cells.append(f"{m[metric]:.3f} ({m[metric] - first[metric]:+.3f})")
        lines.append(f"| {ranker} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    """Evaluate every requested ranker on every requested set; the JSON-ready results."""
    options: dict[str, Any] = {}
    memo: _MemoEmbedder | None = None
    if getattr(args, "embed", None):
        from .embed import get_embedder

        memo = _MemoEmbedder(get_embedder(args.embed))
        options["embedder"] = memo
    results: dict[str, Any] = {"datasets": {}}
    for name in filter(None, (d.strip() for d in args.datasets.split(","))):
        split: str = getattr(args, "split", "all")
        if split not in ("train", "test"):
            ds = load_dataset(name, data_dir, strict=not args.lenient, limit=args.limit_queries)
        else:
            full = load_dataset(name, data_dir, strict=not args.lenient)
            ds = split_dataset(full, "test" if split == "test" else "train")
            ds = sample_queries(ds, args.limit_queries)
        res: dict[str, Any] = {"tools": len(ds.tools), "queries": len(ds.queries), "note": ds.note}
        if memo is not None:
            res["embed ms/query"] = memo.prime([q.text for q in ds.queries])
        res["rankers"] = {}
        for spec in _expand(args.rankers):
            try:
                ranker = make_ranker(spec, ds.tools, dataset=name, **options)
            except ImportError as exc:
                res["rankers"][spec] = {"error": f"unavailable: {exc}"}
                continue
            res["rankers"][spec] = evaluate(ds, ranker)
            if not getattr(args, "json", False):
                m = res["rankers"][spec]
                print(f"  {name:<10} {spec:<40} nDCG@10 {m['nDCG@10']:.3f}", file=sys.stderr)
        results["datasets"][name] = res
    return results


def main(args: argparse.Namespace) -> int:
    """``toolsift eval``: print the quality table (or JSON); 2 when the data is missing or wrong.

    Errors are printed as ``toolsift: error: ...``, except a :class:`~toolsift.ToolsiftError` (a
    malformed labeled set: :class:`~toolsift.CatalogError`), which is raised for the caller to
    report (``toolsift`` prints it the same way, with exit code 2).
    """
    data_dir = find_data_dir(getattr(args, "data", None))
    if data_dir is None:
        print(
            "toolsift: error: the labeled sets were not found. Pass --data DIR (a folder with "
            "NAME.tools.jsonl and NAME.queries.jsonl) or set TOOLSIFT_SHARED_DIR; they are not "
            "shipped with toolsift.",
            file=sys.stderr,
        )
        return 2
    try:
        results = run(args, data_dir)
    except ToolsiftError:
        raise
    except OSError as exc:
        where = exc.filename if exc.filename is not None else "the labeled sets"
        print(f"toolsift: error: cannot read {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (ValueError, ImportError) as exc:
        print(f"toolsift: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, res in results["datasets"].items():
            line = f"{name}: {res['tools']} tools, {res['queries']} queries ({res['note']})"
            if "embed ms/query" in res:
                line += f"; query embedding {res['embed ms/query']:.1f} ms (not in ms/query)"
            print(line)
        print(format_table(results))
        print()
        print(format_summary(results))
    return 0
