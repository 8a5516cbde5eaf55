"""Query-aware fusion of the lexical (BM25+) and dense (cosine) rankings.

The candidates are the lexical top k and the dense top k. Each candidate gets a few features of
its place in both lists (normalised BM25+, cosine, ranks, gap to the best cosine, z-score of its
cosine within the catalogue), and each feature is weighted *by the query*: the same features
are multiplied by query features (share of identifiers, how few words, how strongly the words
matched, how much the two lists agree, the best cosine). A linear model over these products,
fitted listwise on the train splits (``scripts/fit_semantic.py``), gives each candidate its
score; a query of names leans on the words, a natural request on the meaning.

Example:
    >>> import numpy as np
    >>> from toolsift.semantic.route import route
    >>> cos = np.array([0.1, 0.8, 0.3], dtype=np.float32)
    >>> cand = Candidates.of([(0, 5.0), (2, 1.0)], cos, 2)
    >>> cand.positions.tolist()
    [0, 2, 1]
    >>> features(route("find the weather"), cand).shape
    (3, 60)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .route import Route

__all__ = [
    "Candidates",
    "features",
    "top_positions",
    "candidate_features",
    "query_features",
    "query_signals",
    "CANDIDATE_FEATURES",
    "QUERY_FEATURES",
    "N_FEATURES",
]

#: The per-candidate features, in column order; each rises with the evidence for the tool.
CANDIDATE_FEATURES = ("lex_in", "lex_norm", "lex_rank", "cos", "cos_z", "dense_rank")
#: The per-query features each candidate feature is multiplied by, in order: each query signal
#: ``q`` (0..1) and its complement ``1 - q``, so that with non-negative weights a feature's
#: weight can rise or fall with the signal while the score stays monotone in every candidate
#: feature (better in either list never ranks lower).
QUERY_FEATURES = (
    "identifiers",
    "no_identifiers",
    "few_words",
    "many_words",
    "lex_strong",
    "lex_weak",
    "agreement",
    "disagreement",
    "cos_high",
    "cos_low",
)
N_FEATURES = len(CANDIDATE_FEATURES) * len(QUERY_FEATURES)


@dataclass(frozen=True)
class Candidates:
    """The tools ranked for one query: the lexical top k then the dense top k not in it.

    Attributes:
        positions: tool positions (lexical ones first, in lexical order).
        lex_scores: BM25+ score (0 where not in the lexical list).
        lex_ranks: 0-based lexical rank (-1 where absent).
        dense_ranks: 0-based dense rank within the dense top k (-1 where absent).
        cos: the candidates' cosines.
        cos_top, cos_mean, cos_std: the best, mean and standard deviation of every tool's cosine.
    """

    positions: np.ndarray
    lex_scores: np.ndarray
    lex_ranks: np.ndarray
    dense_ranks: np.ndarray
    cos: np.ndarray
    cos_top: float
    cos_mean: float
    cos_std: float

    @classmethod
    def of(cls, lexical: Sequence[tuple[int, float]], cos: np.ndarray, k: int) -> Candidates:
        """Candidates of a lexical list (best first) and the cosines of every tool.

        Example:
            >>> Candidates.of([], np.array([0.2, 0.9], dtype=np.float32), 1).positions.tolist()
            [1]
        """
        n = cos.shape[0]
        low = float(cos.min()) if n else 0.0
        # a tool the search may not return has a cosine below -1 (BARRED): left out
        valid = cos[cos >= -1.0] if low < -1.0 else cos
        n_valid = valid.shape[0]
        if n_valid:
            # ufuncs, not BLAS: a multi-threaded BLAS dot over 10k+ values can stall for
            # milliseconds on a busy machine
            mean = float(valid.sum(dtype=np.float64)) / n_valid
            wide = valid.astype(np.float64)  # the squares of np.square(valid, dtype=float64)
            np.multiply(wide, wide, out=wide)
            var = float(wide.sum()) / n_valid - mean * mean
            var = max(var, 0.0)
        else:
            mean = var = 0.0
        # cosines that do not vary carry no ranking: no dense candidates then
        k = min(k, n_valid) if var > 1e-12 else 0
        top = top_positions(cos, k) if k > 0 else []
        if low < -1.0:
            top = [p for p in top if cos[p] >= -1.0]
        lex_pos = [p for p, _ in lexical]
        in_lex = set(lex_pos)
        extra = [p for p in top if p not in in_lex]
        positions = np.array(lex_pos + extra, dtype=np.int64)
        m, n_lex = positions.size, len(lex_pos)
        lex_scores = np.zeros(m)
        lex_scores[:n_lex] = [s for _, s in lexical]
        lex_ranks = np.full(m, -1, dtype=np.int64)
        lex_ranks[:n_lex] = np.arange(n_lex)
        rank_of = {p: i for i, p in enumerate(top)}
        dense_ranks = np.array([rank_of.get(p, -1) for p in positions.tolist()], dtype=np.int64)
        cos_top = float(cos[top[0]]) if top else (float(cos.max()) if n else 0.0)
        return cls(
            positions, lex_scores, lex_ranks, dense_ranks, cos[positions], cos_top, mean, var**0.5
        )


def top_positions(values: np.ndarray, k: int) -> list[int]:
    """The positions of the ``k`` highest ``values``, highest first, then the lower position.

    A strided sample's ``k``-th highest value bounds the cut from below, so only the few values
    above it are ordered. When values tie at the cut, the ones ``numpy.argpartition`` keeps over
    all the values are taken (the candidates the ranking was fitted with).

    Example:
        >>> top_positions(np.array([0.5, 0.9, 0.5, 0.1], dtype=np.float32), 3)
        [1, 0, 2]
    """
    n = values.shape[0]
    k = min(k, n)
    if k <= 0:
        return []
    step = n // (16 * k)
    if step > 1:
        sample = values[::step]  # at least 16·k values: its k-th highest is <= the cut
        bound = np.partition(sample, sample.shape[0] - k)[sample.shape[0] - k]
        ids = np.flatnonzero(values >= bound)
        near = values[ids]
        if ids.shape[0] > k:
            cut = np.partition(near, near.shape[0] - k)[near.shape[0] - k]
            above = np.flatnonzero(near > cut)
            if above.shape[0] + int(np.count_nonzero(near == cut)) == k:
                ids, near = ids[near >= cut], near[near >= cut]
            else:  # a tie at the cut: argpartition's pick
                ids = np.argpartition(values, n - k)[n - k :]
                near = values[ids]
    elif k < n:
        ids = np.argpartition(values, n - k)[n - k :]
        near = values[ids]
    else:
        ids = np.arange(n)
        near = values
    order = np.lexsort((ids, -near))
    top: list[int] = ids[order].tolist()
    return top


def query_signals(r: Route, cand: Candidates) -> tuple[float, float, float, float, float]:
    """The query's signals, each 0..1: share of identifiers, fewness of words (1 / count),
    lexical strength (top BM25+ score per content word, squashed), agreement of the two top 10s,
    and the best cosine.

    Example:
        >>> from toolsift.semantic.route import route
        >>> cos = np.array([0.5, 0.1], dtype=np.float32)
        >>> [round(v, 2) for v in query_signals(route("x"), Candidates.of([(0, 2.0)], cos, 1))]
        [0.0, 1.0, 0.52, 1.0, 0.5]
    """
    n_words = max(len(r.content_words), 1)
    ranks = cand.lex_ranks
    top_lex = float(cand.lex_scores[0]) if ranks.size and ranks[0] == 0 else 0.0
    strength = math.log1p(top_lex / n_words)
    pos = cand.positions.tolist()
    lex_top = {p for p, lr in zip(pos, ranks.tolist()) if 0 <= lr < 10}
    dense_top = {p for p, dr in zip(pos, cand.dense_ranks.tolist()) if 0 <= dr < 10}
    both = min(len(lex_top), len(dense_top))
    agreement = len(lex_top & dense_top) / both if both else 0.0
    cos_top = min(max(cand.cos_top, 0.0), 1.0)
    return r.identifier_fraction, 1.0 / n_words, strength / (1.0 + strength), agreement, cos_top


def query_features(r: Route, cand: Candidates) -> np.ndarray:
    """The query's features (:data:`QUERY_FEATURES`): each signal and its complement.

    Example:
        >>> from toolsift.semantic.route import route
        >>> cos = np.array([0.5, 0.1], dtype=np.float32)
        >>> query_features(route("x"), Candidates.of([(0, 2.0)], cos, 1)).round(2).tolist()
        [0.0, 1.0, 1.0, 0.0, 0.52, 0.48, 1.0, 0.0, 0.5, 0.5]
    """
    out = np.empty(len(QUERY_FEATURES))
    signals = query_signals(r, cand)
    out[0::2] = signals
    out[1::2] = 1.0 - out[0::2]
    return out


def candidate_features(cand: Candidates) -> np.ndarray:
    """The ``(candidates, len(CANDIDATE_FEATURES))`` matrix of the candidates' own features."""
    m = cand.positions.size
    in_lex = cand.lex_ranks >= 0
    top_lex = cand.lex_scores[0] if m and in_lex[0] else 0.0
    cf = np.empty((m, len(CANDIDATE_FEATURES)))
    cf[:, 0] = in_lex
    cf[:, 1] = cand.lex_scores / top_lex if top_lex > 0 else 0.0
    cf[:, 2] = np.where(in_lex, 1.0 / np.log2(np.maximum(cand.lex_ranks, 0) + 2.0), 0.0)
    cf[:, 3] = cand.cos
    sd = cand.cos_std if cand.cos_std > 1e-9 else 1.0
    cf[:, 4] = (cf[:, 3] - cand.cos_mean) / (sd * 10.0)
    in_dense = cand.dense_ranks >= 0
    cf[:, 5] = np.where(in_dense, 1.0 / np.log2(np.maximum(cand.dense_ranks, 0) + 2.0), 0.0)
    return cf


def features(r: Route, cand: Candidates) -> np.ndarray:
    """The ``(candidates, N_FEATURES)`` matrix: every candidate feature times every query
    feature (query-major). A weight vector ``w`` scores as
    ``candidate_features(cand) @ (query_features(r, cand) @ w.reshape(len(QUERY_FEATURES), -1))``.
    """
    cf = candidate_features(cand)
    qf = query_features(r, cand)
    return (qf[:, None, None] * cf[None, :, :]).transpose(1, 0, 2).reshape(cf.shape[0], -1)
