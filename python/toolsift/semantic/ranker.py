"""The semantic ranking's entry point: :class:`SemanticRanker` ranks a query from the lexical
(BM25+) list and the dense cosines, with the weights fitted by ``scripts/fit_semantic.py``
(shipped as ``semantic/data/weights.json``).

A query of names or keywords keeps the lexical order (tools that only the meaning finds come
after the lexical ones); a natural request is ranked by the fused model
(:mod:`toolsift.semantic.fusion`); a whole task ranks each of its steps and merges them so that
every step has tools in the first results (:mod:`toolsift.semantic.tasks`). Every ranking gets
a calibrated confidence of its best match (:mod:`toolsift.semantic.confidence`).

Example:
    >>> import numpy as np
    >>> ranker = SemanticRanker(load_weights())
    >>> cos = np.array([0.1, 0.9, 0.2], dtype=np.float32)
    >>> ranked = ranker.rank("read_file", 2, lambda text, k: [(2, 7.5)], lambda text: cos)
    >>> ranked.positions
    [2, 1]
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from .confidence import SIGNALS, Calibration, signals_of
from .fusion import (
    CANDIDATE_FEATURES,
    N_FEATURES,
    QUERY_FEATURES,
    Candidates,
    candidate_features,
    query_features,
)
from .route import Route, route
from .tasks import cover, split_intents

__all__ = [
    "SemanticRanker", "Ranked", "load_weights", "Lexical", "Dense", "DenseMany", "WEIGHTS_FILE",
]  # fmt: skip

#: ``lexical(text, k)``: the BM25+ top ``k`` as ``(tool position, score)``, best first.
Lexical = Callable[[str, int], Sequence[tuple[int, float]]]
#: ``dense(text)``: the cosine of the text's vector with every tool vector, ``(n_tools,)``.
Dense = Callable[[str], np.ndarray]
#: ``dense_many(texts)``: ``dense`` of each text, computed together (one pass over the tools).
DenseMany = Callable[[Sequence[str]], Sequence[np.ndarray]]
#: The fitted weights shipped with the package.
WEIGHTS_FILE = "weights.json"
#: The keys of the weights file (``scripts/fit_semantic.py`` writes them; a test checks both).
WEIGHT_KEYS = ("version", "model", "candidates", "fusion", "tasks", "confidence", "train")


@dataclass(frozen=True)
class Ranked:
    """One ranking: tool positions best first, their scores, the confidence of the best one."""

    positions: list[int]
    scores: list[float]
    confidence: float


def load_weights(path: str | None = None) -> dict[str, Any]:
    """The weights file (the shipped one when ``path`` is ``None``), checked for its keys.

    Raises:
        ValueError: the file lacks a key or its feature lists do not match this code.

    Example:
        >>> sorted(load_weights())[:3]
        ['candidates', 'confidence', 'fusion']
    """
    if path is None:
        text = resources.files("toolsift.semantic.data").joinpath(WEIGHTS_FILE).read_text("utf-8")
    else:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    weights: dict[str, Any] = json.loads(text)
    check_weights(weights)
    return weights


def check_weights(weights: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` unless ``weights`` has every key and the feature lists of this code."""
    missing = [k for k in WEIGHT_KEYS if k not in weights]
    if missing:
        raise ValueError(f"the semantic weights lack {', '.join(missing)}")
    fusion = weights["fusion"]
    if (
        tuple(fusion["candidate_features"]) != CANDIDATE_FEATURES
        or tuple(fusion["query_features"]) != QUERY_FEATURES
        or len(fusion["weights"]) != N_FEATURES
    ):
        raise ValueError("the semantic weights were fitted for other fusion features")
    if tuple(weights["confidence"]["signals"]) != SIGNALS:
        raise ValueError("the semantic weights were fitted for other confidence signals")
    if len(weights["confidence"]["weights"]) != len(SIGNALS):
        raise ValueError("the semantic weights have one confidence weight per signal")


@dataclass
class _Scored:
    route: Route
    cand: Candidates
    scores: np.ndarray  # the fused model's score of each candidate
    query: np.ndarray  # the query features


_DEFAULT: SemanticRanker | None = None


class SemanticRanker:
    """Rank with the fitted weights (see the module docstring).

    Arguments:
        weights: the content of a weights file (:func:`load_weights`).
    """

    def __init__(self, weights: Mapping[str, Any]) -> None:
        check_weights(weights)
        self.weights = weights
        self._w = np.asarray(weights["fusion"]["weights"], dtype=np.float64).reshape(
            len(QUERY_FEATURES), len(CANDIDATE_FEATURES)
        )
        self._lexical_k = int(weights["candidates"]["lexical_k"])
        self._dense_k = int(weights["candidates"]["dense_k"])
        tasks = weights["tasks"]
        self._intent_k = int(tasks["intent_k"])
        self._part_weight = float(tasks["part_weight"])
        self._covered_weight = float(tasks["covered_weight"])
        self._tasks_on = bool(tasks["enabled"])
        conf = weights["confidence"]
        self.calibration = Calibration(
            tuple(conf["weights"]), float(conf["bias"]), float(conf["min_confidence"])
        )

    @classmethod
    def default(cls) -> SemanticRanker:
        """The ranker of the shipped weights (one per process).

        Example:
            >>> SemanticRanker.default() is SemanticRanker.default()
            True
        """
        global _DEFAULT
        if _DEFAULT is None:
            _DEFAULT = cls(load_weights())
        return _DEFAULT

    @property
    def min_confidence(self) -> float:
        """The fitted threshold (``toolsift.semantic.DEFAULT_MIN_CONFIDENCE``)."""
        return self.calibration.threshold

    def score(self, text: str, r: Route, lexical: Lexical, dense: Dense, k: int) -> _Scored:
        """The fused model's scores of one text's candidates."""
        lex = lexical(text, max(self._lexical_k, k))
        cos = np.asarray(dense(text), dtype=np.float32)
        cand = Candidates.of(lex, cos, max(self._dense_k, k))
        q = query_features(r, cand)
        # the linear model over (query feature x candidate feature), factored
        return _Scored(r, cand, candidate_features(cand) @ (q @ self._w), q)

    def rank(
        self,
        query: str,
        limit: int,
        lexical: Lexical,
        dense: Dense,
        dense_many: DenseMany | None = None,
    ) -> Ranked:
        """The ``limit`` best tools for ``query`` and the confidence of the first.

        ``dense_many``, when given, computes the cosines of a whole task and of its steps
        together (the same values as ``dense``, in one pass over the tool vectors).

        Example:
            >>> import numpy as np
            >>> ranker = SemanticRanker(load_weights())
            >>> cos = np.array([0.9, 0.1], dtype=np.float32)
            >>> r = ranker.rank("open the thing", 5, lambda t, k: [], lambda t: cos)
            >>> r.positions, 0.0 <= r.confidence <= 1.0
            ([0, 1], True)
        """
        r = route(query)
        intents = split_intents(query) if r.kind == "task" and self._tasks_on else []
        if intents and dense_many is not None:
            texts = [query, *intents]
            known = dict(zip(texts, dense_many(texts)))
            one = dense

            def dense(text: str) -> np.ndarray:
                got = known.get(text)
                return one(text) if got is None else got

        whole = self.score(query, r, lexical, dense, limit)
        order = self._order(whole)
        if intents:
            order = self._cover(intents, order, limit, lexical, dense)
        positions: list[int] = []
        scores: list[float] = []
        for p, s in order[:limit]:  # a merged task's tail may score above its head: clip
            positions.append(p)
            scores.append(min(s, scores[-1]) if scores else s)
        return Ranked(positions, scores, self._confidence(whole))

    def _order(self, s: _Scored) -> list[tuple[int, float]]:
        """Tool positions with their scores, best first."""
        if s.route.kind in ("names", "keyword"):
            n_lex = int((s.cand.lex_ranks >= 0).sum())  # lexical candidates first, in order
            rest = n_lex + np.argsort(-s.scores[n_lex:], kind="stable")
            idx = np.concatenate([np.arange(n_lex), rest])
        else:
            idx = np.argsort(-s.scores, kind="stable")
        positions = s.cand.positions[idx].tolist()
        return list(zip(positions, s.scores[idx].tolist()))

    def _cover(
        self,
        intents: Sequence[str],
        order: list[tuple[int, float]],
        limit: int,
        lexical: Lexical,
        dense: Dense,
    ) -> list[tuple[int, float]]:
        """The coverage merge of the whole request's ranking and its intents' rankings."""
        k = self._intent_k
        top = order[0][1] if order else 0.0
        whole_p = {p: math.exp(s - top) for p, s in order[: max(limit, k) * 2]}
        parts = []
        for intent in intents:
            part = self._order(self.score(intent, route(intent), lexical, dense, k))[:k]
            if part:
                ptop = part[0][1]
                parts.append({p: math.exp(s - ptop) for p, s in part})
        merged = cover(whole_p, parts, limit, self._part_weight, self._covered_weight)
        seen = {p for p, _ in merged}
        return merged + [o for o in order if o[0] not in seen]

    def _confidence(self, s: _Scored) -> float:
        return self.calibration(self.signals(s)) if s.scores.size else 0.0

    def signals(self, s: _Scored) -> tuple[float, ...]:
        """The confidence signals (:data:`~toolsift.semantic.confidence.SIGNALS`) of a ranking."""
        if not s.scores.size:
            return signals_of(
                p_top=0,
                margin=0,
                cos_top=0,
                cos_z=0,
                lex_strength=0,
                agreement=0,
                kind=s.route.kind,
            )
        top2 = np.sort(s.scores)[-2:][::-1]
        p = np.exp(s.scores - top2[0])
        margin = float(top2[0] - top2[1]) if top2.size > 1 else 5.0
        c = s.cand
        sd = c.cos_std if c.cos_std > 1e-9 else 1.0
        return signals_of(
            p_top=float(1.0 / p.sum()),
            margin=margin,
            cos_top=c.cos_top,
            cos_z=(c.cos_top - c.cos_mean) / sd,
            lex_strength=float(s.query[QUERY_FEATURES.index("lex_strong")]),
            agreement=float(s.query[QUERY_FEATURES.index("agreement")]),
            kind=s.route.kind,
        )
