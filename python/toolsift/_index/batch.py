"""``ToolIndex.search_many``: many queries with the same options in one call, each result equal
to what ``search`` returns for it, and on an invalid query the error a loop of ``search``
calls would raise first.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="get_weather", description="Weather for a city")])
    >>> [r[0].name for r in index.search_many(["weather", "city"])]
    ['get_weather', 'get_weather']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Callable, Protocol

from .._options import DEFAULT_MAX_LIMIT, DEFAULT_PREFIX_FRACTION, check_names
from ..query import DEFAULT_MAX_QUERY_LENGTH, parse_query
from ..result import SearchResult
from .regex import RegexSearcher
from .request import _checked_limit
from .search import Ranker, Searcher

__all__ = ["BatchSearch", "search_many"]


def search_many(
    search: Callable[..., SearchResult],
    searcher: Searcher,
    regex: RegexSearcher,
    queries: Iterable[str],
    limit: int | None,
    options: dict[str, Any],
) -> list[SearchResult]:
    """The results of ``queries`` under ``options`` (``ToolIndex.search_many``'s keyword
    options, every one given); ``search`` is the index's own, for the error replay."""
    if isinstance(queries, str):
        raise TypeError("queries must be an iterable of str, not a single str")
    queries = list(queries)
    if not queries:
        return []
    options = dict(options)
    options["exclude"] = check_names(options["exclude"], "exclude")  # read once
    if options["servers"] is not None:
        options["servers"] = check_names(options["servers"], "servers")
    ranker, max_limit = options["ranker"], options["max_limit"]
    max_query_length = options["max_query_length"]
    try:
        for query in queries:
            if not isinstance(query, str):
                parse_query(query)  # raises the QueryError
        checked = _checked_limit(limit, ranker, max_limit, max_query_length)
        length = max(1, max_query_length)
        request = searcher.request(checked, **options)
        if ranker == "regex":
            return regex.results(queries, request)
        plain = searcher.search_plain_many(queries, request, length)
        if plain is not None:
            return plain
        parsed = [parse_query(query, max_length=length) for query in queries]
        return searcher.search_parsed(parsed, request)
    except Exception:
        # Something is invalid. A loop of search() calls finds the error it would raise
        # first (say an earlier query's engine error before a later query's parse error);
        # errors are rare, so the loop's cost does not matter.
        for query in queries:
            search(query, limit, **options)
        raise


class _Searching(Protocol):
    """What :class:`BatchSearch` needs of the index."""

    _searcher: Searcher
    _regex: RegexSearcher

    def search(self, query: str, limit: int | None = None, **options: Any) -> SearchResult: ...


class BatchSearch:
    """:meth:`search_many`, for :class:`toolsift.ToolIndex`."""

    __slots__ = ()

    def search_many(
        self: _Searching,
        queries: Iterable[str],
        limit: int | None = None,
        *,
        exclude: Iterable[str] = (),
        servers: Iterable[str] | None = None,
        ranker: Ranker = "bm25",
        exact_names: bool = True,
        prefix_fraction: float = DEFAULT_PREFIX_FRACTION,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
        threshold: float = 0.0,
        relative_floor: float = 0.0,
        coverage: bool = False,
        normalize: bool = False,
        max_limit: int = DEFAULT_MAX_LIMIT,
        max_query_length: int = DEFAULT_MAX_QUERY_LENGTH,
    ) -> list[SearchResult]:
        """:meth:`search` for many queries with the same options, in one call.

        The BM25+ searches run on the engine's ``search_many``: in parallel on all cores with
        the GIL released on the Rust engine (queries that need a different engine call, for
        their ``+required`` words or their exact-name tier, are batched by what they share).
        The results are in query order and each equals what :meth:`search` returns for that
        query with the same options; if queries fail, the error a loop of :meth:`search` calls
        would raise first is raised.

        Arguments:
            queries: the queries (an iterable of str, not a single str).
            limit: and every other option (``exclude``, ``servers``, ``ranker``,
                ``exact_names``, the prefix options, the gates, the caps): as for
                :meth:`search`, applied to every query (``exclude`` and ``servers`` are read
                once).

        Raises:
            TypeError: ``queries`` is a single str.
            QueryError: a query is invalid (see :meth:`search`).
            LimitError: ``limit`` or ``max_limit`` is not a positive integer.
            ValueError: ``ranker`` is unknown, or a gate or prefix option is out of range.

        Example:
            >>> from toolsift import Tool, ToolIndex
            >>> index = ToolIndex([Tool(name="get_weather", description="Weather for a city")])
            >>> [r[0].tool.name for r in index.search_many(["weather", "city weather"])]
            ['get_weather', 'get_weather']
        """
        options: dict[str, Any] = {
            "exclude": exclude,
            "servers": servers,
            "ranker": ranker,
            "exact_names": exact_names,
            "prefix_fraction": prefix_fraction,
            "prefix_min_len": prefix_min_len,
            "max_expansions": max_expansions,
            "threshold": threshold,
            "relative_floor": relative_floor,
            "coverage": coverage,
            "normalize": normalize,
            "max_limit": max_limit,
            "max_query_length": max_query_length,
        }
        return search_many(self.search, self._searcher, self._regex, queries, limit, options)
