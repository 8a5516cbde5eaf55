"""The rankers ``toolsift eval`` compares: toolsift's own (``TOOLSIFT_RANKERS``), the peers
(``peers``), the BM25+ variants (``v:``, ``variants``) and the dense/hybrid ones
(``hybrid_rankers``), each a function of (query, k) to ranked tool positions.

Example:
    >>> from toolsift import Tool
    >>> rank = make_ranker("toolsift", [Tool(name="read_file", description="Read a file")])
    >>> rank("read a file", 5)
    [0]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from .._text.analysis import DEFAULT_PROFILE, PROFILE_ALIASES, check_profile
from .._text.documents import FieldWeights
from ..errors import ToolsiftError
from ..index import ToolIndex
from ..tools import Tool
from .peers import Ranker, _bm25s_ranker, _rank_bm25_ranker, _ratel_ranker

#: toolsift's default ranker and the peers run over the same tokens.
DEFAULT_RANKERS = (
    "toolsift",
    "toolsift-plain",
    "toolsift@omp",
    "toolsift-plain@omp",
    "rank_bm25-okapi",
    "rank_bm25-plus",
    "bm25s",
    "bm25s-bm25+",
)
#: The variants measured for issue 5 (see ``toolsift.evaluation.variants.parse_variant``).
VARIANT_RANKERS = (
    # one change at a time from the engine's ranking
    "v:base",
    "v:qdistinct",
    "v:stop",
    "v:stem",
    "v:stemx=0.5",
    "v:cjk",
    "v:bm25f",
    "v:idf=plus",
    "v:desc=0.25",
    "v:desc=1",
    "v:propdesc=0.25",
    "v:propdesc=1",
    # combinations, ending with the recommended default (RECOMMENDED_VARIANT)
    "v:qdistinct+stop",
    "v:qdistinct+stop+stem",
    "v:qdistinct+stop+stemx=0.5",
    "v:qdistinct+stop+stemx=0.5+cjk+bm25f",
    "v:qdistinct+stop+stemx=0.5+cjk+desc=0.25",
    "v:qdistinct+stop+stemx=0.5+cjk+propdesc=0.25",
    "v:qdistinct+stop+stemx=0.5+cjk+k1=2+delta=0.5",
    "v:qdistinct+stop+stemx=0.5+cjk",
    "v:qdistinct+stop+stemx=0.5+cjk+summary=1",
    "v:qdistinct+stop+stemx=0.5+cjk+summary=1+desc=0.25",
    "v:qdistinct+stop+stemx=0.5+cjk+summary=1+desc=0.25+propdesc=0.25",
    "v:qdistinct+stop+stemx=0.5+cjk+summary=1+desc=0.25+propdesc=0.25+delta=0.5",
    "v:qdistinct+stop+stemx=0.5+cjk+summary=1+desc=0.25+propdesc=0.25+delta=0.5+stemq=2",
)
#: The variant the english profile's defaults reproduce (``ToolIndex(tools)`` ranks and scores
#: as this variant; see BENCHMARKS.md).
RECOMMENDED_VARIANT = (
    "qdistinct+stop+stemx=0.5+cjk+summary=1+desc=0.25+propdesc=0.25+delta=0.5+stemq=2"
)


TOOLSIFT_RANKERS: dict[str, dict[str, Any]] = {
    "toolsift": {},  # the defaults: BM25+, exact-name tier, prefix matching
    "toolsift-plain": {"exact_names": False, "prefix_fraction": 0.0},  # OMP's BM25+ alone
    "toolsift-coverage": {"coverage": True},
    "toolsift-keyword": {"ranker": "keyword"},  # Claude Code ``ToolSearch``'s name-part scorer
}


def _toolsift_ranker(
    tools: Sequence[Tool],
    engine: str,
    options: dict[str, Any],
    profile: str = DEFAULT_PROFILE,
    word_pairs: float = 0.0,
) -> Ranker:
    weights = FieldWeights.for_profile(profile)
    if word_pairs:
        weights = dataclasses.replace(weights, word_pairs=word_pairs)
    # the lexical ranking: no tool vectors to build
    index = ToolIndex(tools, engine=engine, profile=profile, field_weights=weights, semantic=False)  # type: ignore[arg-type]
    pos = {t.name: i for i, t in enumerate(tools)}

    from ..hybrid import lexical_search

    def rank(query: str, k: int) -> list[int]:
        try:  # the whole query and 100 results, as the peers get (no agent-facing caps)
            return [pos[m.tool.name] for m in lexical_search(index, query, k, **options)]
        except ToolsiftError:  # a query with no letter or digit ranks nothing
            return []

    return rank


def _semantic_ranker(tools: Sequence[Tool], profile: str) -> Ranker:
    """``ToolIndex(tools, semantic=True).search`` (no abstention), the whole query, ``k`` tools."""
    index = ToolIndex(tools, profile=profile, semantic=True)  # type: ignore[arg-type]
    if not index.semantic:
        raise ImportError("the semantic model did not load (pip install 'toolsift[semantic]')")
    pos = {t.name: i for i, t in enumerate(tools)}

    def rank(query: str, k: int) -> list[int]:
        try:
            found = index.search(query, k, max_limit=k, max_query_length=1_000_000)
        except ToolsiftError:  # a query with no letter or digit ranks nothing
            return []
        return [pos[m.tool.name] for m in found]

    return rank


def ranker_name(spec: str) -> str:
    """``spec`` with a former profile name in its ``@PROFILE`` suffix (see
    ``toolsift._text.analysis.PROFILE_ALIASES``) replaced by the profile's own name, so that
    results never show the former one; other names as they are.

    Example:
        >>> ranker_name("toolsift@omp"), ranker_name("bm25s")
        ('toolsift@omp', 'bm25s')
    """
    base, at, profile = spec.partition("@")
    if spec.startswith("toolsift") and profile in PROFILE_ALIASES:
        return f"{base}{at}{PROFILE_ALIASES[profile]}"
    return spec


def make_ranker(spec: str, tools: Sequence[Tool], **options: Any) -> Ranker:
    """A ``(query, k) -> [tool positions]`` function for one ranker name.

    Names: ``toolsift`` (``ToolIndex.search`` as it ships), ``toolsift-plain`` (BM25+ alone, no
    exact-name tier or prefix matching), ``toolsift-coverage``, ``toolsift-keyword`` (see
    :data:`TOOLSIFT_RANKERS`), ``toolsift-semantic`` (the semantic ranking,
    ``ToolIndex(tools, semantic=True)``), ``toolsift-python`` (the pure-Python twin), each with an
    optional ``@PROFILE`` suffix for another analysis profile (``toolsift-plain@omp``: OMP
    ``search_tool_bm25``'s ranking),
    ``toolsift+pairs[=w]`` (``toolsift`` with :attr:`~toolsift.FieldWeights.word_pairs` at ``w``,
    0.1 by default),
    ``rank_bm25-okapi``, ``rank_bm25-plus``, ``bm25s`` (Lucene), ``bm25s-bm25+``, ``ratel``
    (ratel-ai's own analysis and BM25, an end-to-end peer), ``v:<variant>``
    (:func:`toolsift.evaluation.variants.parse_variant`), and with an ``embedder`` option ``dense``,
    ``hybrid-minmax[=w]`` and ``hybrid-rrf``.
    """
    base, _, profile = spec.partition("@")
    if spec.startswith("toolsift") and profile:
        profile = check_profile(profile)
    profile = profile or DEFAULT_PROFILE
    if base in TOOLSIFT_RANKERS:
        return _toolsift_ranker(tools, "auto", TOOLSIFT_RANKERS[base], profile)
    if base == "toolsift-semantic":
        return _semantic_ranker(tools, profile)
    if base == "toolsift+pairs" or base.startswith("toolsift+pairs="):
        try:
            weight = float(base.partition("=")[2] or 0.1)
        except ValueError:
            raise ValueError(
                f"ranker {spec!r}: the word-pairs weight must be a number (toolsift+pairs=0.1)"
            ) from None
        return _toolsift_ranker(tools, "auto", {}, profile, word_pairs=weight)
    if base == "toolsift-python":
        return _toolsift_ranker(tools, "python", {}, profile)
    if spec.startswith("rank_bm25-"):
        return _rank_bm25_ranker(tools, spec.split("-", 1)[1])
    if spec in ("bm25s", "bm25s-bm25+"):
        return _bm25s_ranker(tools, "bm25+" if spec.endswith("+") else "lucene")
    if spec == "ratel":
        return _ratel_ranker(tools)
    if spec.startswith("v:"):
        from .variants import VariantIndex, parse_variant

        return VariantIndex(tools, parse_variant(spec[2:])).search
    if spec == "dense" or spec.startswith("hybrid"):
        from .hybrid_rankers import make_eval_ranker

        return make_eval_ranker(spec, tools, **options)
    raise ValueError(f"unknown ranker {spec!r}")


# --- the run --------------------------------------------------------------------------------
