"""Hybrid search: BM25+ fused with dense retrieval over embeddings the user supplies.

:class:`HybridIndex` wraps a :class:`~toolsift.index.ToolIndex`. Per query it takes the lexical
top ``candidates`` (100) and the dense top ``candidates`` (cosine similarity of unit vectors) and
fuses the two lists with

* ``"minmax"`` (the default): each list's scores min-max normalised to 0..1 over that list, a
  tool absent from a list counting 0 there, then ``(1 - w)·lexical + w·dense`` with
  ``w = dense_weight`` (:data:`DEFAULT_DENSE_WEIGHT`, 0.35); or
* ``"rrf"``: reciprocal rank fusion (Cormack, Clarke & Büttcher 2009),
  ``Σ_lists weight / (k + rank)`` with ``k = 60``.

The evaluation (``benches/eval_quality.py --embed minilm``, BENCHMARKS.md) picked min-max at
w = 0.35: the largest weight of the grid (0.25 to 0.7) at which fusion beats the default lexical
search alone on every labeled set (nDCG@10 on mcp_mixed, metatool, gorilla_hf: 0.643 / 0.559 /
0.263 -> 0.649 / 0.651 / 0.303 with all-MiniLM-L6-v2). Larger weights score higher on the two
paraphrase-style sets but fall below lexical search on mcp_mixed (w = 0.4: 0.640); the better
the lexical side, the smaller the weight (it was 0.4 before the english profile's ranking
defaults). Equal-weight RRF falls below lexical search on mcp_mixed (0.587).

Scores are normalised so that the best fused tool has 1.0, at full precision (a 4-decimal
rounding of ``score / max_score`` is common; toolsift does not round: the scores are for ranking
and fusion, round them for display). Matches the lexical engine placed for another reason than BM25
(``Match.reason`` ``"select"`` or ``"exact_name"``) stay in front, in their order, with score 1.0.
A ``select:`` query returns the named tools only, never padded with ranked ones, and says which
names it did not find (``missing``). Without an embedding for the query (no embedder, no vectors,
or an embedder that raised: one :class:`~toolsift.errors.SemanticWarning`, never an error) the
search is keyword-only and the result says so (``mode="keyword"`` and a ``note``).

``servers=`` restricts a search to tools of these MCP servers (a namespace or ``directory`` filter),
as in :meth:`ToolIndex.search`: both lists are restricted before their top ``candidates`` are
taken, so the limit is still filled. :meth:`HybridIndex.search` has ``ToolIndex.search``'s caps
against abuse: a ``limit`` above ``max_limit`` (25) is clamped, a query longer than
``max_query_length`` (500 characters) is cut before it is embedded and searched, and the result
says so (``notices``, ``clamped``, ``truncated``). A ``limit`` below 1 is a ``LimitError``, not
silently raised to 1.

Example:
    >>> import numpy as np
    >>> from toolsift import Tool, ToolIndex
    >>> tools = [Tool(name="get_weather", description="Current weather for a city"),
    ...          Tool(name="create_issue", description="Open a bug report")]
    >>> vectors = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    >>> hybrid = HybridIndex(ToolIndex(tools), embeddings=vectors)
    >>> result = hybrid.search("file a bug", query_vector=np.array([0.1, 0.9]))
    >>> result.mode, [m.tool.name for m in result]
    ('hybrid', ['create_issue', 'get_weather'])
"""

# The dataclass fields keep ``Optional[...]`` as tools.py does: ``get_type_hints`` must evaluate
# them on Python 3.9.
# ruff: noqa: UP045

from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ._hybrid.arguments import _cut_query, _exclude_names, _server_names
from ._hybrid.fusion import _check_real
from ._hybrid.fusion import minmax_fuse as minmax_fuse
from ._hybrid.fusion import rrf_fuse as rrf_fuse
from ._hybrid.lexical import _NO_QUERY_CAP as _NO_QUERY_CAP
from ._hybrid.lexical import lexical_search as lexical_search
from ._hybrid.result import HybridMatch as HybridMatch
from ._hybrid.result import HybridReason
from ._hybrid.result import HybridResult as HybridResult
from ._hybrid.vectors import _dense_kernel, _embedded, _float_array, _unit_rows
from ._hybrid.vectors import _DenseColumns as _DenseColumns
from ._hybrid.vectors import _DenseRust as _DenseRust
from ._options import DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, check_limit, check_query_length
from .errors import QueryError
from .index import Match, SearchResult, ToolIndex
from .query import DEFAULT_MAX_QUERY_LENGTH
from .semantic.model import warn_once

if TYPE_CHECKING:
    from .embed import Embedder

__all__ = [
    "HybridIndex",
    "HybridMatch",
    "HybridResult",
    "Fusion",
    "rrf_fuse",
    "minmax_fuse",
]

Fusion = Literal["minmax", "rrf"]

#: Longest query text embedded, whatever ``max_query_length`` allows (hybrid tool searches cap
#: query length against abuse); :meth:`HybridIndex.search` first cuts the query to
#: ``max_query_length``.
MAX_QUERY_CHARS = 2000
#: ``Match.reason`` values of ranked lexical matches; any other reason (``select``,
#: ``exact_name``) is a tier that stays in front of the fused list.
RANKED_REASONS = frozenset({"bm25", "keyword"})
#: How deep each list goes before fusion.
DEFAULT_CANDIDATES = 100
#: The dense list's weight in the fusion (chosen by the evaluation; see the module docstring).
DEFAULT_DENSE_WEIGHT = 0.35


class HybridIndex:
    """A :class:`ToolIndex` plus one unit vector per tool, searched by fused BM25+ and cosine.

    Arguments:
        index: the lexical index; vectors align with ``index.tools``. Its analysis profile
            (``ToolIndex(tools, profile=...)``, :attr:`profile`) is the lexical side's.
        embeddings: a ``(len(index), dim)`` float matrix aligned with the tools, or ``None``.
        embed: a callable embedding a list of texts (for queries, and for the tools when
            ``embeddings`` is ``None``); e.g. :class:`toolsift.embed.MiniLMEmbedder`.
        fusion: ``"minmax"`` (default) or ``"rrf"``.
        dense_weight: the dense list's weight ``w`` (0.35); the lexical list gets ``1 - w``.
        rrf_k: RRF's ``k`` (60).
        candidates: how deep each list goes before fusion (100).
        cache_dir: where tool vectors computed by ``embed`` are cached (default
            :func:`toolsift.embed.cache_dir`); ``False`` turns the cache off. The cache needs
            ``embed.model_id`` (or ``model_id``).
        model_id: names the model in the cache key when ``embed`` has no ``model_id``.

    Raises:
        ValueError: the embeddings (or what ``embed`` returns) do not have one finite row per
            tool, or an option is out of range (``dense_weight`` outside 0..1, ``rrf_k`` < 0 or
            not finite, ``candidates`` < 1, an unknown ``fusion``).
        TypeError: an argument of the wrong type (``index`` not a ToolIndex, ``embed`` not
            callable, an option that is not a number).

    Example:
        >>> from toolsift import Tool, ToolIndex
        >>> HybridIndex(ToolIndex([Tool(name="a")])).search("a").mode
        'keyword'
    """

    def __init__(
        self,
        index: ToolIndex,
        *,
        embeddings: Any = None,
        embed: Embedder | None = None,
        fusion: Fusion = "minmax",
        dense_weight: float = DEFAULT_DENSE_WEIGHT,
        rrf_k: float = 60.0,
        candidates: int = DEFAULT_CANDIDATES,
        cache_dir: str | os.PathLike[str] | Literal[False] | None = None,
        model_id: str | None = None,
    ) -> None:
        if not isinstance(index, ToolIndex):
            raise TypeError(f"index must be a toolsift.ToolIndex, got {type(index).__name__}")
        if not isinstance(fusion, str) or fusion not in ("minmax", "rrf"):
            raise ValueError(f"fusion must be 'minmax' or 'rrf', got {fusion!r}")
        self.dense_weight = _check_real(dense_weight, "dense_weight", low=0.0, high=1.0)
        self.rrf_k = _check_real(rrf_k, "rrf_k", low=0.0)
        if isinstance(candidates, bool):
            raise TypeError("candidates must be an int, got bool")
        try:
            self.candidates = operator.index(candidates)
        except TypeError:
            raise TypeError(f"candidates must be an int, got {type(candidates).__name__}") from None
        if self.candidates < 1:
            raise ValueError(f"candidates must be >= 1, got {candidates!r}")
        if embed is not None and not callable(embed):
            raise TypeError(
                f"embed must be a callable that embeds a list of texts, got {type(embed).__name__}"
            )
        if model_id is not None and not isinstance(model_id, str):
            raise TypeError(f"model_id must be a str, got {type(model_id).__name__}")
        if not (
            cache_dir is None or cache_dir is False or isinstance(cache_dir, (str, os.PathLike))
        ):
            raise TypeError(
                f"cache_dir must be a path, False or None, got {type(cache_dir).__name__}"
            )
        self.index = index
        self.fusion: Fusion = fusion
        self.embed = embed
        self._pos = {t.name: i for i, t in enumerate(index.tools)}
        self._by_server: dict[str, list[int]] | None = None  # made on the first servers= search
        self._kernel: tuple[np.ndarray, _DenseColumns | _DenseRust] | None = None
        if embeddings is None and embed is not None:
            from .embed import cached_embeddings, tool_text

            texts = [tool_text(t) for t in index.tools]
            mid = model_id or getattr(embed, "model_id", None)
            if mid is not None and not isinstance(mid, str):
                raise TypeError(f"embed.model_id must be a str, got {type(mid).__name__}")
            if cache_dir is False:
                mid = None
            checked = embed

            def checked_embed(texts: Sequence[str]) -> np.ndarray:
                try:
                    out = checked(list(texts))
                except Exception as exc:
                    raise _EmbedderFailed(exc) from exc
                return _embedded(lambda _texts: out, list(texts))

            try:
                embeddings = cached_embeddings(checked_embed, texts, mid, cache_dir or None)
            except _EmbedderFailed as failed:
                _warn_failed(failed.__cause__)  # keyword-only: no tool vectors
                embeddings = None
        self.embeddings: np.ndarray | None = (
            None if embeddings is None else self._check(embeddings, len(index))
        )

    @property
    def profile(self) -> str:
        """The lexical index's analysis profile (``"english"`` or ``"omp"``).

        Example:
            >>> from toolsift import Tool, ToolIndex
            >>> HybridIndex(ToolIndex([Tool(name="a")], profile="omp")).profile
            'omp'
        """
        return self.index.profile

    @staticmethod
    def _check(embeddings: Any, n: int) -> np.ndarray:
        matrix = _float_array(embeddings, "embeddings")
        if matrix.ndim != 2 or matrix.shape[0] != n or matrix.shape[1] < 1:
            raise ValueError(
                f"embeddings must be a (tools, dim) matrix with {n} rows and dim >= 1, got "
                f"shape {matrix.shape}"
            )
        return _unit_rows(matrix)

    def _query_vector(self, query: str, query_vector: Any) -> tuple[np.ndarray | None, str | None]:
        if self.embeddings is None:
            return None, "no tool embeddings: keyword-only search"
        if query_vector is None:
            if self.embed is None:
                return None, "no query embedding and no embedder: keyword-only search"
            text = [query[:MAX_QUERY_CHARS]]
            try:
                out = self.embed(text)
            except Exception as exc:  # noqa: BLE001  # the embedder never breaks a search
                _warn_failed(exc)
                return None, "the embedder failed: keyword-only search"
            query_vector = _embedded(lambda _texts: out, text)[0]
        dim = self.embeddings.shape[1]
        try:
            vector = _float_array(query_vector, "query vector")
        except ValueError as exc:
            raise ValueError(f"{exc} (the tool embeddings have {dim} dimensions)") from None
        if vector.ndim == 2 and vector.shape[0] == 1:  # one row, as an embed callable returns
            vector = vector[0]
        if vector.shape != (dim,):
            raise ValueError(
                f"query vector must have {dim} finite values, got shape {vector.shape}"
            )
        vector = _unit_rows(vector)
        if not vector.any():
            return None, "zero query embedding: keyword-only search"
        return vector, None

    def _server_positions(self, names: frozenset[str]) -> np.ndarray:
        """The positions of the tools of these servers (exact names), ascending."""
        table = self._by_server
        if table is None:
            table = {}
            for i, tool in enumerate(self.index.tools):
                if tool.server is not None:
                    table.setdefault(tool.server, []).append(i)
            self._by_server = table  # a race makes the same dict twice: harmless
        ids = sorted({i for name in names for i in table.get(name, ())})
        return np.asarray(ids, dtype=np.intp)

    def dense_search(
        self,
        vector: np.ndarray,
        limit: int,
        exclude: Iterable[int] = (),
        *,
        servers: Iterable[str] | str | None = None,
    ) -> list[tuple[int, float]]:
        """The ``limit`` most similar tools to a unit ``vector`` as ``(position, cosine)``.

        ``exclude`` holds positions to leave out; ``servers`` restricts the search to the tools
        of these MCP servers (exact names, a ``str`` is one server, unknown servers match
        nothing) before the top ``limit`` is taken. ``limit`` is not capped (``max_limit`` is
        :meth:`search`'s): the list holds at most one entry per tool. Equal cosines are
        ordered by position. The cosines are summed in float32 in dimension order, by the Rust
        engine (one thread, the GIL released) or, for an index on the pure-Python engine, by
        numpy in the same order: both give the same lists and the same bits.

        Raises:
            ValueError: this index has no tool embeddings, or ``vector`` has the wrong length.
            IndexError: ``exclude`` holds a position that is not a tool's.
            LimitError: ``limit`` is not a positive integer.
            TypeError: ``servers`` is not a server name or an iterable of server names.
        """
        if self.embeddings is None:
            raise ValueError("dense_search needs tool embeddings (embeddings= or embed=)")
        check_limit(limit)
        names = _server_names(servers)
        vector = np.asarray(vector, dtype=np.float32).reshape(-1)
        if vector.shape[0] != self.embeddings.shape[1]:
            raise ValueError(
                f"vector must have {self.embeddings.shape[1]} values, got shape {vector.shape}"
            )
        if not np.all(np.isfinite(vector)):
            raise ValueError("vector must be finite (no NaN, no infinity)")
        # Only the servers' rows are scored when servers= is given; the others cannot be taken.
        only = None if names is None else self._server_positions(names)
        skip = np.asarray([operator.index(i) for i in exclude], dtype=np.intp)
        if len(skip) and (skip.min() < 0 or skip.max() >= len(self.embeddings)):
            raise IndexError(f"exclude holds a position outside 0..{len(self.embeddings) - 1}")
        return self._dense_kernel().top_k(vector, limit, skip, only)

    def __getstate__(self) -> dict[str, Any]:
        """Pickles without the dense kernel (a Rust object; made again on the first search)."""
        state = dict(self.__dict__)
        state["_kernel"] = None
        return state

    def _dense_kernel(self) -> _DenseColumns | _DenseRust:
        """The kernel over :attr:`embeddings`, made on the first dense search (and again if the
        attribute is replaced)."""
        kernel = self._kernel
        if kernel is None or kernel[0] is not self.embeddings:
            assert self.embeddings is not None
            kernel = (self.embeddings, _dense_kernel(self.embeddings, self.index.engine))
            self._kernel = kernel
        return kernel[1]

    def search(
        self,
        query: str,
        limit: int | None = DEFAULT_LIMIT,
        *,
        lexical: Sequence[Match] | None = None,
        query_vector: Any = None,
        exclude: Iterable[str] = (),
        servers: Iterable[str] | str | None = None,
        max_limit: int = DEFAULT_MAX_LIMIT,
        max_query_length: int = DEFAULT_MAX_QUERY_LENGTH,
    ) -> HybridResult:
        """The best ``limit`` tools for ``query`` by fused lexical and dense ranking.

        Arguments:
            query: the query text; longer than ``max_query_length`` characters (after trimming),
                it is cut to that length before it is embedded and searched.
            limit: how many matches at most, a positive int (``None``: the default, 8). Above
                ``max_limit`` it is clamped, and the result says so (``notices``, ``clamped``).
            lexical: the lexical engine's result for this query (e.g. from the query language's
                search, with ``select``/``exact_name`` matches); by default
                ``index.search(query, candidates, exclude=exclude, servers=servers)`` without
                its caps. With ``servers``, its matches of other servers are dropped.
            query_vector: the query's embedding; by default ``embed([query])``.
            exclude: tool names to leave out; a single ``str`` is one name.
            servers: only tools of these MCP servers (exact server names, as in
                :meth:`ToolIndex.search`; a single ``str`` is one server, unknown servers match
                nothing). Both lists are restricted before their top ``candidates`` are taken,
                so the limit is still filled.
            max_limit: the hard cap on ``limit`` (default 25, as :meth:`ToolIndex.search`).
            max_query_length: the query length cap in characters (default 500). The embedder
                never sees more than :data:`MAX_QUERY_CHARS` (2000) characters either way.

        Raises:
            QueryError: the query is not a string, is empty, or has no token and no embedding is
                available.
            LimitError: ``limit`` or ``max_limit`` is not a positive integer (as in
                :meth:`ToolIndex.search`; it is not silently raised to 1).
            TypeError: ``exclude`` is not a name or an iterable of names, ``servers`` not a
                server name or an iterable of server names, ``lexical`` holds something other
                than :class:`~toolsift.Match` objects, or ``max_query_length`` is not an int.
            ValueError: ``max_query_length`` is below 1, or the query vector (or the embed
                callable's output) is not a finite vector of the embeddings' dimension.
        """
        if not isinstance(query, str):
            raise QueryError(f"Query must be a string, got {type(query).__name__}.")
        if not query.strip():
            raise QueryError("Query must not be empty.")
        limit = DEFAULT_LIMIT if limit is None else check_limit(limit)
        check_limit(max_limit)
        max_query_length = check_query_length(max_query_length)
        clamped = limit > max_limit
        notices: tuple[str, ...] = (f"limit {limit} clamped to {max_limit}",) if clamped else ()
        if clamped:
            limit = max_limit
        query, truncated = _cut_query(query, max_query_length)
        if truncated:
            notices = (*notices, f"query cut to {max_query_length} characters")
        excluded = _exclude_names(exclude)
        names = _server_names(servers)
        select = lexical if isinstance(lexical, SearchResult) else None
        if lexical is not None:
            lexical = list(lexical)
            for i, m in enumerate(lexical):
                if not isinstance(m, Match):
                    raise TypeError(
                        f"lexical[{i}] must be a toolsift.Match, got {type(m).__name__}"
                    )
        vector, note = self._query_vector(query, query_vector)
        if lexical is None:
            options = {} if names is None else {"servers": tuple(sorted(names))}
            try:
                lexical = lexical_search(self.index, query, self.candidates, excluded, **options)
            except QueryError:
                if vector is None:  # nothing to rank with
                    raise
                lexical = []  # e.g. only punctuation or an unsupported script: dense alone
        if isinstance(lexical, SearchResult):
            select = lexical
        if select is not None and select.query_kind == "select":
            # Names asked for: exactly those tools (and which were missing), never padded.
            picked = [m for m in lexical if m.name not in excluded][:limit]
            if names is not None:
                picked = [m for m in picked if m.tool.server in names]
            return HybridResult(
                [HybridMatch(m.tool, 1.0, "select", m.score) for m in picked], "keyword",
                "select: the named tools only", notices, clamped, truncated, select.missing,
            )  # fmt: skip
        if names is not None:  # a caller's list (or an index without servers=) is filtered here
            lexical = [m for m in lexical if m.tool.server in names]
        front = [m for m in lexical if m.reason not in RANKED_REASONS and m.name not in excluded]
        taken = {m.tool.name for m in front} | excluded
        bm25 = [
            (self._pos[m.tool.name], m.score)
            for m in lexical
            if m.reason in RANKED_REASONS and m.name not in taken and m.name in self._pos
        ][: self.candidates]
        out = [HybridMatch(m.tool, 1.0, m.reason, m.score) for m in front[:limit]]  # type: ignore[arg-type]
        room = limit - len(out)
        tools = self.index.tools
        if vector is None:
            top = bm25[0][1] if bm25 else 1.0
            out += [
                HybridMatch(tools[d], s / top if top > 0 else 0.0, "bm25", s)
                for d, s in bm25[:room]
            ]
            return HybridResult(out, "keyword", note, notices, clamped, truncated)
        skip = [self._pos[n] for n in taken if n in self._pos]
        dense = self.dense_search(vector, self.candidates, skip, servers=names)
        w = self.dense_weight
        if self.fusion == "rrf":
            fused = rrf_fuse([[d for d, _ in bm25], [d for d, _ in dense]], [1 - w, w], self.rrf_k)
        else:
            fused = minmax_fuse([bm25, dense], [1 - w, w])
        lex_score, dense_score = dict(bm25), dict(dense)
        ranked = sorted(fused.items(), key=lambda item: (-item[1], tools[item[0]].name))
        best = ranked[0][1] if ranked and ranked[0][1] > 0 else 1.0
        for d, s in ranked[:room]:
            in_lex, in_dense = d in lex_score, d in dense_score
            reason: HybridReason = (
                "hybrid" if in_lex and in_dense else "bm25" if in_lex else "dense"
            )
            out.append(
                HybridMatch(tools[d], s / best, reason, lex_score.get(d), dense_score.get(d))
            )
        return HybridResult(out, "hybrid", None, notices, clamped, truncated)


class _EmbedderFailed(Exception):
    """The embed callable raised while the tools were embedded (its exception: ``__cause__``)."""


def _warn_failed(exc: BaseException | None) -> None:
    """One :class:`~toolsift.errors.SemanticWarning` per kind of embedder failure."""
    kind = type(exc).__name__
    warn_once(
        f"hybrid:{kind}",
        f"The hybrid search's embedder failed ({kind}: {exc}); searches use BM25+ alone until "
        "it works again.",
    )
