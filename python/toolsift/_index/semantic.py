"""The semantic search of one :class:`toolsift.ToolIndex` (a collaborator it holds when its
``semantic`` switch is on): ``select:`` and the exact-name tier first, as on the lexical path,
then the semantic ranker's fusion of BM25+ and dense similarity, with a confidence that lets a
search abstain.

The fusion is shared Python over the engine's BM25+ lists and the dense kernel's cosines, both
the same on either engine, so both engines give the same ranked lists and scores.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="read_file", description="Read a file")], semantic=False)
    >>> index._semantic is None
    True
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._snapshot.tools_section import LazyTools
from .._text.documents import FieldWeights, scored_text
from ..query import ParsedQuery, parse_query
from ..result import SearchResult, new_match
from ..semantic.model import StaticEncoder, warn_once
from ..tools import Tool
from .lookups import NameLookups
from .request import _checked_limit, _Request
from .search import Searcher

if TYPE_CHECKING:
    import numpy as np

    from .._engine.protocol import EngineIndex
    from ..semantic.vectors import ToolVectors

__all__ = [
    "SemanticSearcher", "check_min_confidence", "default_min_confidence", "positions_kept",
    "carried_state", "semantic_state", "updated_state",
]  # fmt: skip

#: How deep the lexical list of the fallback fusion goes.
_CANDIDATES = 100
#: The dense list's weight in the fallback fusion (``toolsift.hybrid``'s measured default).
_DENSE_WEIGHT = 0.35
#: Validated requests remembered per searcher (cleared when full).
_REQUEST_CACHE_SIZE = 64
#: How many query texts' cosines a semantic index keeps for the searches that follow.
_RECENT_TEXTS = 16
#: Below every cosine: the dense score of a tool the search may not return (excluded, or not
#: on the servers asked for).
_BARRED = -2.0


def default_min_confidence() -> float:
    """:data:`toolsift.semantic.DEFAULT_MIN_CONFIDENCE` (read when a search needs it)."""
    from ..semantic import DEFAULT_MIN_CONFIDENCE

    return DEFAULT_MIN_CONFIDENCE


def check_min_confidence(value: object) -> float | None:
    """``min_confidence`` checked: ``None`` or a real number from 0 to 1.

    Example:
        >>> check_min_confidence(0.25), check_min_confidence(None)
        (0.25, None)
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"min_confidence must be a number or None, got {type(value).__name__}")
    value = float(value)
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"min_confidence must be between 0 and 1, got {value!r}")
    return value


@dataclass(frozen=True)
class _Ranked:
    """The fallback fusion's answer, shaped as the semantic ranker's."""

    positions: list[int]
    scores: list[float]
    confidence: float


class _MinMaxRanker:
    """The fusion used when :mod:`toolsift.semantic.ranker` is not installed: each list min-max
    normalised, ``(1 - w)·lexical + w·dense``; the confidence is the best cosine."""

    def rank(
        self,
        query: str,
        limit: int,
        lexical: Callable[[str, int], list[tuple[int, float]]],
        dense: Callable[[str], np.ndarray],
        dense_many: Any = None,
    ) -> _Ranked:
        import numpy as np

        lex = lexical(query, _CANDIDATES)
        sims = dense(query)
        k = min(_CANDIDATES, len(sims))
        top = np.argpartition(-sims, k - 1)[:k] if k else np.zeros(0, dtype=np.intp)
        dense_list = [(int(i), float(sims[i])) for i in top if sims[i] > _BARRED]
        fused: dict[int, float] = {}
        for hits, weight in ((lex, 1.0 - _DENSE_WEIGHT), (dense_list, _DENSE_WEIGHT)):
            if not hits:
                continue
            low, high = min(s for _, s in hits), max(s for _, s in hits)
            span = high - low
            for d, s in hits:
                fused[d] = fused.get(d, 0.0) + weight * ((s - low) / span if span > 0 else 1.0)
        ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:limit]
        best = float(sims.max()) if len(sims) else 0.0
        return _Ranked([d for d, _ in ranked], [s for _, s in ranked], min(1.0, max(0.0, best)))


_RANKER: list[Any] = []


def _ranker() -> Any:
    """The semantic ranker with the shipped weights (made once): :mod:`toolsift.semantic.ranker`'s,
    else (its weights unreadable: one warning) a plain min-max fusion."""
    if _RANKER:
        return _RANKER[0]
    try:
        module = importlib.import_module("toolsift.semantic.ranker")
        ranker = module.SemanticRanker(module.load_weights())
    except Exception as exc:  # noqa: BLE001  # a broken install must not break the index
        warn_once(
            "ranker",
            f"The semantic ranking's weights could not be loaded ({type(exc).__name__}: {exc}); "
            "semantic search fuses BM25+ and similarity with fixed weights.",
        )
        ranker = _MinMaxRanker()
    _RANKER.append(ranker)
    return ranker


class SemanticSearcher:
    """Runs :meth:`toolsift.ToolIndex.search` with the semantic stage on.

    Arguments:
        searcher: the index's lexical searcher (its requests, ``select:``, the gates).
        lookups: the index's name-driven parts (the exact-name tier).
        index: the engine index (BM25+ lists).
        tools: the index's tools.
        field_weights: the index's field weights.
        encoder: the query encoder.
        vectors: the tool vectors, in index order.
    """

    def __init__(
        self,
        searcher: Searcher,
        lookups: NameLookups,
        index: EngineIndex,
        tools: Sequence[Tool] | LazyTools,
        field_weights: FieldWeights,
        encoder: StaticEncoder,
        vectors: ToolVectors,
    ) -> None:
        self._searcher = searcher
        self._lookups = lookups
        self._index = index
        self._tools = tools
        self._field_weights = field_weights
        self.encoder = encoder
        self.vectors = vectors
        self._ranker = _ranker()
        self._requests: dict[tuple[Any, ...], _Request] = {}
        #: The cosines of the latest query texts (before any filter): a session's search asks
        #: twice (without and with its active tools), a whole task once per step and again.
        self._recent: dict[str, np.ndarray] = {}

    def _similarities(self, text: str) -> np.ndarray:
        """Every tool's cosine with ``text`` (read-only; shared by the latest searches)."""
        sims = self._recent.get(text)
        if sims is None:
            sims = self._similarities_many([text])[0]
        return sims

    def _similarities_many(self, texts: Sequence[str]) -> list[np.ndarray]:
        """:meth:`_similarities` of each text; the texts not seen lately scored together, in
        one pass over the tool vectors."""
        recent = self._recent
        got: dict[str, np.ndarray] = {}
        for text in texts:
            sims = recent.get(text)
            if sims is not None:
                got[text] = sims
        fresh = [t for t in dict.fromkeys(texts) if t not in got]
        if fresh:
            import numpy as np

            encode = self.encoder.encode_one
            if len(fresh) == 1:
                rows = [self.vectors.similarities(encode(fresh[0]))]
            else:
                rows = list(self.vectors.similarities_many(np.stack([encode(t) for t in fresh])))
            if len(recent) + len(fresh) > _RECENT_TEXTS:
                recent.clear()  # a plain dict: safe to share between threads under the GIL
            for text, sims in zip(fresh, rows):
                sims.setflags(write=False)
                recent[text] = got[text] = sims
        return [got[t] for t in texts]

    def search(
        self,
        query: str,
        limit: int | None,
        options: tuple[Any, ...],
        abstain: bool,
        min_confidence: float | None,
    ) -> SearchResult:
        """``ToolIndex.search`` with the BM25+ ranker: ``options`` are its keyword options in
        signature order, from ``exclude`` to ``max_query_length``."""
        max_limit, max_query_length = options[-2:]
        if not isinstance(query, str):
            parse_query(query)  # raises the QueryError
        request = None
        exclude, servers = options[:2]
        key: tuple[Any, ...] | None = None
        if servers is None and type(exclude) is tuple and not exclude:
            # Validated once per distinct options, as on the lexical path (``calls.REQUESTS``).
            cached = (limit, *options[2:])
            key = (*cached, *map(type, cached))
            try:
                request = self._requests.get(key)
            except TypeError:  # an unhashable option: validated below, not cached
                key = None
        if request is None:
            checked = _checked_limit(limit, "bm25", max_limit, max_query_length)
            request = self._searcher.request(checked, *options)
            if key is not None:
                if len(self._requests) >= _REQUEST_CACHE_SIZE:
                    self._requests.clear()
                self._requests[key] = request
        parsed = parse_query(query, max_length=max(1, request.max_query_length))
        threshold = default_min_confidence() if min_confidence is None else min_confidence
        return self.search_one(parsed, request, abstain, threshold)

    def search_one(
        self, parsed: ParsedQuery, request: _Request, abstain: bool, threshold: float
    ) -> SearchResult:
        """One parsed query under a validated request."""
        if parsed.kind == "select":  # names, never padded: `missing` says what was not found
            return self._searcher.search_one(parsed, request)
        notices = request.notices
        if parsed.truncated:
            notices = (*notices, f"query cut to {request.max_query_length} characters")
        matches, room, (exclude, required, floor) = self._lookups.tier(parsed, request)
        confidence = 1.0 if matches else None
        if room > 0:
            try:
                ranked = self._rank(parsed, request, room, exclude, required, floor)
            except Exception as exc:  # noqa: BLE001  # the model never breaks a search
                warn_once(
                    f"search:{type(exc).__name__}",
                    f"Semantic search failed ({type(exc).__name__}: {exc}); this search and "
                    "any other that fails the same way use BM25+ alone.",
                )
                return self._searcher.search_one(parsed, request)
            tools = self._tools
            matches += [new_match(tools[d], s, "semantic") for d, s in zip(ranked[0], ranked[1])]
            if confidence is None:
                confidence = ranked[2]
        abstained = abstain and confidence is not None and confidence < threshold
        if abstained:
            matches = []
        elif request.normalize and matches:
            best = max(m.score for m in matches)
            matches = [
                dataclasses.replace(m, normalized_score=m.score / best if best > 0 else 0.0)
                for m in matches
            ]
        result = SearchResult._keyword(
            parsed.query, request.limit, tuple(matches), tuple(notices), request.clamped,
            parsed.truncated, len(self._tools),
        )  # fmt: skip
        values = result.__dict__
        values["confidence"] = confidence
        values["abstained"] = abstained
        return result

    def _rank(
        self,
        parsed: ParsedQuery,
        request: _Request,
        room: int,
        exclude: tuple[int, ...] | None,
        required: Sequence[str],
        floor: float,
    ) -> tuple[list[int], list[float], float]:
        """The ranker's top ``room`` (positions, scores) and its confidence, with the
        request's filters: excluded tools and tools off the servers asked for never appear."""
        prefix = request.prefix
        fields = self._field_weights
        engine = self._index
        barred = set(exclude or ())
        allowed = request.allowed

        def lexical(text: str, k: int) -> list[tuple[int, float]]:
            return engine.search(
                scored_text(text, fields), k, exclude, include=request.include,
                required=list(required) if text == parsed.text else None,
                prefix_fraction=prefix["prefix_fraction"],
                prefix_min_len=prefix["prefix_min_len"],
                max_expansions=prefix["max_expansions"], threshold=request.threshold,
                relative_floor=floor, coverage=request.coverage,
            )  # fmt: skip

        cache: dict[str, np.ndarray] = {}

        def filtered(sims: np.ndarray) -> np.ndarray:
            if barred or allowed is not None:
                sims = sims.copy()
                if allowed is not None:
                    keep = sims[list(allowed)] if allowed else sims[:0]
                    sims[:] = _BARRED
                    if allowed:
                        sims[list(allowed)] = keep
                if barred:
                    sims[list(barred)] = _BARRED
            return sims

        def dense(text: str) -> np.ndarray:
            sims = cache.get(text)
            if sims is None:
                sims = cache[text] = filtered(self._similarities(text))
            return sims

        def dense_many(texts: Sequence[str]) -> list[np.ndarray]:
            missing = [t for t in texts if t not in cache]
            if missing:
                for text, sims in zip(missing, self._similarities_many(missing)):
                    cache[text] = filtered(sims)
            return [cache[t] for t in texts]

        n = len(self._tools)
        ask = room
        while True:
            ranked = self._ranker.rank(parsed.text, ask, lexical, dense, dense_many)
            pairs = [
                (d, s)
                for d, s in zip(ranked.positions, ranked.scores)
                if d not in barred and (allowed is None or d in allowed)
            ]
            if len(pairs) >= room or len(ranked.positions) < ask or ask >= n:
                break
            ask = min(n, ask * 4)
        pairs = pairs[:room]
        return [d for d, _ in pairs], [float(s) for _, s in pairs], float(ranked.confidence)


def positions_kept(n: int, drop: Sequence[int]) -> list[int]:
    """The old positions an update keeps, in order (all of ``range(n)`` but ``drop``).

    Example:
        >>> positions_kept(4, [1, 2])
        [0, 3]
    """
    dropped = set(drop)
    return [i for i in range(n) if i not in dropped]


def semantic_state(
    encoder: StaticEncoder | None,
    tools: Sequence[Tool] | LazyTools,
    engine: str,
    entry: object = None,
) -> tuple[StaticEncoder, ToolVectors] | None:
    """The encoder and tool vectors of an index of ``tools``: a snapshot's stored vectors
    (``entry``, its ``semantic`` header entry) when they are the encoder's, else the tools
    embedded now; ``None`` when there is no encoder, or (with one warning) when embedding
    fails.

    Raises:
        SnapshotError: ``entry`` is malformed.
    """
    if encoder is None:
        return None
    from ..errors import SnapshotError
    from ..semantic.vectors import ToolVectors

    if entry is not None:
        try:
            vectors = ToolVectors.from_header(entry, len(tools), engine)
        except (ValueError, TypeError) as exc:
            raise SnapshotError(
                f"The ToolIndex snapshot's semantic section is invalid ({exc}). Rebuild the "
                "index and save it again."
            ) from None
        if vectors.model_id == encoder.model_id:
            return encoder, vectors
    try:
        return encoder, ToolVectors.build(encoder.encode, tools, encoder.model_id, engine)
    except Exception as exc:  # noqa: BLE001  # the model never breaks an index
        warn_once(
            f"build:{type(exc).__name__}",
            f"Semantic search is off for this index (BM25+ only): embedding its tools failed "
            f"({type(exc).__name__}: {exc}).",
        )
        return None


def updated_state(
    searcher: SemanticSearcher | None, tools: Sequence[Tool] | LazyTools, drop: Sequence[int],
    kept: int, old_n: int,
) -> tuple[StaticEncoder, ToolVectors] | None:  # fmt: skip
    """The encoder and vectors of an update of an index whose semantic searcher is
    ``searcher``: the kept tools' rows, then only the added tools (``tools[kept:]``) embedded."""
    if searcher is None:
        return None
    encoder = searcher.encoder
    added = [tools[i] for i in range(kept, len(tools))]
    try:
        vectors = searcher.vectors.updated(positions_kept(old_n, drop), added, encoder.encode)
    except Exception as exc:  # noqa: BLE001  # the model never breaks an update
        warn_once(
            f"update:{type(exc).__name__}",
            f"Semantic search is off for the updated index (BM25+ only): embedding the added "
            f"tools failed ({type(exc).__name__}: {exc}).",
        )
        return None
    return encoder, vectors


def carried_state(
    searcher: SemanticSearcher | None,
    old_tools: Sequence[Tool] | LazyTools,
    old_by_name: Mapping[str, int],
    tools: Sequence[Tool] | LazyTools,
) -> tuple[StaticEncoder, ToolVectors] | None:
    """The encoder and vectors of a rebuild over ``tools`` of an index whose semantic searcher
    is ``searcher``: a tool it held with the same text keeps its row; only the others are
    embedded."""
    if searcher is None:
        return None
    import numpy as np

    from ..embed import tool_text
    from ..semantic.vectors import ToolVectors

    encoder, old = searcher.encoder, searcher.vectors
    rows: list[int] = []
    fresh: list[int] = []
    for i, tool in enumerate(tools):
        j = old_by_name.get(tool.name)
        if j is not None and tool_text(old_tools[j]) == tool_text(tool):
            rows.append(i)
        else:
            fresh.append(i)
    try:
        embedded = ToolVectors(np.zeros((0, old.matrix.shape[1]), np.float16), "", "python")
        embedded = embedded.updated(None, [tools[i] for i in fresh], encoder.encode)
    except Exception as exc:  # noqa: BLE001  # the model never breaks a rebuild
        warn_once(
            f"update:{type(exc).__name__}",
            f"Semantic search is off for the rebuilt index (BM25+ only): embedding its new "
            f"tools failed ({type(exc).__name__}: {exc}).",
        )
        return None
    matrix = np.empty((len(tools), old.matrix.shape[1]), dtype=np.float16)
    if rows:
        sources = [old_by_name[tools[i].name] for i in rows]
        matrix[rows] = old.matrix[sources]
    if fresh:
        matrix[fresh] = embedded.matrix
    return encoder, ToolVectors(matrix, old.model_id, old.engine)
