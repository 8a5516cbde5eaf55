"""The dense and hybrid rankers of ``toolsift eval`` (``--ranker dense``, ``hybrid-minmax``,
``hybrid-rrf``): a :class:`~toolsift.hybrid.HybridIndex` over the catalogue, optionally fed the
lexical list of a :mod:`toolsift.evaluation.variants` variant.

Example:
    >>> from toolsift import Tool
    >>> make_eval_ranker("dense", [Tool(name="a", description="x")])
    Traceback (most recent call last):
    ...
    ImportError: ranker 'dense' needs an embedder (--embed minilm|wordllama)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._text.analysis import DEFAULT_PROFILE
from .._text.documents import FieldWeights
from ..errors import QueryError
from ..hybrid import _NO_QUERY_CAP, DEFAULT_DENSE_WEIGHT, Fusion, HybridIndex
from ..index import ToolIndex
from ..result import Match
from ..tools import Tool
from .variants import VariantIndex, parse_variant, top_k

__all__ = ["make_eval_ranker"]


def make_eval_ranker(
    spec: str, tools: Sequence[Tool], *, embedder: Any = None, **_ignored: Any
) -> Callable[[str, int], list[int]]:
    """A ranker for :mod:`toolsift.evaluate`: ``dense``,
    ``hybrid-minmax[=w][+pairs[=p]][@variant]`` or ``hybrid-rrf[=w][+pairs[=p]][@variant]``.

    ``w`` is the dense weight (default :data:`DEFAULT_DENSE_WEIGHT`). ``+pairs`` fuses the
    lexical list of an index with :attr:`~toolsift.FieldWeights.word_pairs` at ``p`` (0.1 by
    default). ``@variant`` takes the lexical list from a :mod:`toolsift.evaluation.variants`
    variant (e.g. ``@qdistinct+stop+stemx=0.5+cjk``) instead of the engine. Needs ``embedder``
    (``--embed``).
    """
    if embedder is None:
        raise ImportError(f"ranker {spec!r} needs an embedder (--embed minilm|wordllama)")
    head, _, variant_spec = spec.partition("@")
    head, plus, pairs_spec = head.partition("+pairs")
    if plus and pairs_spec and not pairs_spec.startswith("="):
        raise ValueError(f"unknown ranker {spec!r}")
    pairs = float(pairs_spec[1:] or 0.1) if plus else 0.0
    name, _, value = head.partition("=")
    w = float(value) if value else DEFAULT_DENSE_WEIGHT
    fusion: Fusion = "rrf" if name == "hybrid-rrf" else "minmax"
    if name == "dense":
        w = 1.0
    elif name not in ("hybrid-minmax", "hybrid-rrf"):
        raise ValueError(f"unknown ranker {spec!r}")
    weights = FieldWeights.for_profile(DEFAULT_PROFILE)
    if pairs:
        weights = dataclasses.replace(weights, word_pairs=pairs)
    index = ToolIndex(tools, field_weights=weights, semantic=False)  # its own dense side
    hybrid = HybridIndex(index, embed=embedder, fusion=fusion, dense_weight=w)
    pos = {t.name: i for i, t in enumerate(tools)}
    lexical_of: Callable[[str], list[Match]] | None = None
    if variant_spec:
        variant = VariantIndex(tools, parse_variant(variant_spec))
        name_rank = np.argsort(np.argsort([t.name for t in tools], kind="stable"))

        def variant_lexical(query: str) -> list[Match]:
            scores = variant.scores(variant.query_tokens(query))
            top = top_k(scores, hybrid.candidates, name_rank)
            return [Match(tools[d], float(scores[d]), "bm25") for d in top]

        lexical_of = variant_lexical

    def rank(query: str, k: int) -> list[int]:
        try:
            if name == "dense":
                vector, _ = hybrid._query_vector(query, None)
                return [d for d, _ in hybrid.dense_search(vector, k)] if vector is not None else []
            lexical = lexical_of(query) if lexical_of is not None else None
            # Uncapped, as the lexical list: the evaluation ranks k tools for the whole query.
            found = hybrid.search(
                query, k, lexical=lexical, max_limit=k, max_query_length=_NO_QUERY_CAP
            )
            return [pos[m.tool.name] for m in found]
        except QueryError:
            return []

    return rank
