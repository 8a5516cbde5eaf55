"""The retrieval metrics of ``toolsift eval``, per query, averaged over queries (``R`` = the
relevant tools, binary gain): Recall@k, MRR (first relevant tool in the top 100) and nDCG@10.

Example:
    >>> recall_at([5, 3], frozenset({3}), 1), round(ndcg_at([5, 3], frozenset({3}), 10), 3)
    (0.0, 0.631)
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from .datasets import DEPTH, Dataset
from .peers import Ranker


def recall_at(ranked: Sequence[int], relevant: frozenset[int], k: int) -> float:
    """Share of the relevant tools found in the first ``k``."""
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def reciprocal_rank(ranked: Sequence[int], relevant: frozenset[int]) -> float:
    """``1 / rank`` of the first relevant tool, 0 when there is none."""
    for i, doc in enumerate(ranked, 1):
        if doc in relevant:
            return 1.0 / i
    return 0.0


def ndcg_at(ranked: Sequence[int], relevant: frozenset[int], k: int) -> float:
    """Binary-gain nDCG@k."""
    dcg = sum(1.0 / math.log2(i + 1) for i, doc in enumerate(ranked[:k], 1) if doc in relevant)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(relevant), k) + 1))
    return dcg / ideal


# --- rankers --------------------------------------------------------------------------------


#: ``ToolIndex.search`` options of the named toolsift rankers (dropped where unsupported).
def evaluate(dataset: Dataset, ranker: Ranker) -> dict[str, float]:
    """Mean Recall@1/5/10, MRR, nDCG@10 and milliseconds per query of ``ranker`` on ``dataset``."""
    sums = dict.fromkeys(("R@1", "R@5", "R@10", "MRR", "nDCG@10"), 0.0)
    start = time.perf_counter()
    rankings = [ranker(q.text, DEPTH) for q in dataset.queries]
    elapsed = time.perf_counter() - start
    for q, ranked in zip(dataset.queries, rankings):
        rel = q.relevant
        sums["R@1"] += recall_at(ranked, rel, 1)
        sums["R@5"] += recall_at(ranked, rel, 5)
        sums["R@10"] += recall_at(ranked, rel, 10)
        sums["MRR"] += reciprocal_rank(ranked, rel)
        sums["nDCG@10"] += ndcg_at(ranked, rel, 10)
    n = max(len(dataset.queries), 1)
    out = {key: value / n for key, value in sums.items()}
    out["ms/query"] = 1000.0 * elapsed / n
    return out
