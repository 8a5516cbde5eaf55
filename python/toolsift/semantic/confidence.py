"""The calibrated confidence of the best match: a logistic model over a few signals of the
ranking (the fused model's probability of its top tool, the margin to the second, the best
cosine and its z-score within the catalogue, how strongly the words matched, how much the word
and meaning lists agree), fitted on the train splits with the authored no-tool requests as
negatives. :data:`DEFAULT_MIN_CONFIDENCE` is the threshold below which a search that may abstain
answers that no tool matches.

Example:
    >>> c = Calibration(weights=(0.0,) * len(SIGNALS), bias=0.0, threshold=0.5)
    >>> c(signals_of(p_top=0.9, margin=2.0, cos_top=0.7, cos_z=8.0, lex_strength=1.0,
    ...              agreement=0.5, kind="natural"))
    0.5
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

__all__ = ["Calibration", "SIGNALS", "KINDS", "signals_of", "DEFAULT_MIN_CONFIDENCE"]

#: The confidence model's inputs, in order.
SIGNALS = (
    "p_top",
    "margin",
    "cos_top",
    "cos_z",
    "lex_strength",
    "agreement",
    "names",
    "keyword",
    "task",
)
#: The signals that say what kind of query it is (the others are evidence for the best match,
#: fitted with non-negative weights: a clearer best match never lowers the confidence).
KINDS = ("names", "keyword", "task")


def _fitted_threshold() -> float:
    """The ``min_confidence`` of the shipped ``semantic/data/weights.json``."""
    text = resources.files("toolsift.semantic.data").joinpath("weights.json").read_text("utf-8")
    return float(json.loads(text)["confidence"]["min_confidence"])


#: The default minimum confidence of a search that may abstain: fitted on the train splits so
#: that at most 10 % of requests no tool can serve are answered (``scripts/fit_semantic.py``).
DEFAULT_MIN_CONFIDENCE = _fitted_threshold()


def signals_of(
    *,
    p_top: float,
    margin: float,
    cos_top: float,
    cos_z: float,
    lex_strength: float,
    agreement: float,
    kind: str,
) -> tuple[float, ...]:
    """The :data:`SIGNALS` vector of one ranking (``cos_z`` is scaled by 1/10, ``margin`` is
    clipped to 0..5).

    Example:
        >>> signals_of(p_top=1, margin=9, cos_top=0.5, cos_z=5, lex_strength=0, agreement=0,
        ...            kind="names")
        (1.0, 5.0, 0.5, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0)
    """
    return (
        float(p_top),
        min(max(float(margin), 0.0), 5.0),
        float(cos_top),
        float(cos_z) / 10.0,
        float(lex_strength),
        float(agreement),
        1.0 if kind == "names" else 0.0,
        1.0 if kind == "keyword" else 0.0,
        1.0 if kind == "task" else 0.0,
    )


@dataclass(frozen=True)
class Calibration:
    """``sigmoid(bias + weights · signals)``: the probability that the best match is right.

    Attributes:
        weights: one per :data:`SIGNALS`.
        bias: the intercept.
        threshold: the fitted minimum confidence (answers below it abstain when asked to).
    """

    weights: Sequence[float]
    bias: float
    threshold: float

    def __call__(self, signals: Sequence[float]) -> float:
        z = self.bias + sum(w * s for w, s in zip(self.weights, signals))
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)
