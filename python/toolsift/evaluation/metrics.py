"""The retrieval metrics of ``toolsift eval``, per query, averaged over queries (``R`` = the
relevant tools, binary gain): Recall@k, MRR (first relevant tool in the top 100) and nDCG@10;
for whole tasks (every needed tool, each need met by any of its acceptable tools) the share of
needs met in the top k and whether all are; for abstention, the share of requests answered.

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


def needs_met_at(ranked: Sequence[int], needs: Sequence[frozenset[int]], k: int) -> float:
    """Share of a whole task's needs met in the first ``k`` (recall@k of all needed tools); a
    need is met when any of its acceptable tools is there.

    Example:
        >>> needs_met_at([4, 1, 9], [frozenset({1}), frozenset({2, 9}), frozenset({7})], 3)
        0.6666666666666666
    """
    top = set(ranked[:k])
    return sum(1 for need in needs if need & top) / len(needs)


def all_met_at(ranked: Sequence[int], needs: Sequence[frozenset[int]], k: int) -> float:
    """1.0 when every need of a whole task is met in the first ``k`` (all@k), else 0.0.

    Example:
        >>> needs = [frozenset({1}), frozenset({9})]
        >>> all_met_at([4, 1, 9], needs, 3), all_met_at([4, 1], needs, 3)
        (1.0, 0.0)
    """
    return 1.0 if needs_met_at(ranked, needs, k) == 1.0 else 0.0


def hit_at(ranked: Sequence[int], relevant: frozenset[int], k: int) -> float:
    """1.0 when a relevant tool is in the first ``k`` (hit@k), else 0.0; an abstained search
    ranks nothing, so it misses.

    Example:
        >>> hit_at([5, 3], frozenset({3}), 5), hit_at([], frozenset({3}), 5)
        (1.0, 0.0)
    """
    return 1.0 if relevant.intersection(ranked[:k]) else 0.0


def answered_rate(answers: Sequence[Sequence[int]]) -> float:
    """Share of searches that returned at least one tool (did not abstain); 0.0 for none.

    Example:
        >>> answered_rate([[3, 1], [], [], [2]])
        0.5
    """
    if not answers:
        return 0.0
    return sum(1 for ranked in answers if ranked) / len(answers)


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
