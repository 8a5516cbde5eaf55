"""A ``ToolIndex.search`` call with options other than the signature's defaults, and
``ToolIndex.search_many``: the options validated once per distinct options (cached), then the
run by the index's :class:`~toolsift._index.search.Searcher` (or its regex searcher).

``search_many`` gives, for each query, what ``search`` returns for it, and on an invalid query
the error a loop of ``search`` calls would raise first.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="get_weather", description="Weather for a city")])
    >>> [r[0].name for r in index.search_many(["weather", "city"])]
    ['get_weather', 'get_weather']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Callable, TypedDict

from .._options import check_names
from ..query import parse_query
from ..result import SearchResult
from .regex import RegexSearcher
from .request import _checked_limit, _Request
from .search import Ranker, Searcher

if TYPE_CHECKING:
    from .._text.documents import FieldWeights
    from .lookups import NameLookups

__all__ = [
    "DEFAULT_REQUESTS", "REQUESTS", "REQUEST_CACHE_SIZE", "SearchOptions", "bind_plain",
    "search", "search_many",
]  # fmt: skip


class SearchOptions(TypedDict, total=False):
    """The keyword options of ``ToolIndex.search``, for ``ToolIndex.search_many``'s
    ``**options`` (their defaults and meaning: ``search``'s signature and docstring, the one
    place they are written)."""

    exclude: Iterable[str]
    servers: Iterable[str] | None
    ranker: Ranker
    exact_names: bool
    prefix_fraction: float
    prefix_min_len: int
    max_expansions: int
    threshold: float
    relative_floor: float
    coverage: bool
    normalize: bool
    max_limit: int
    max_query_length: int
    abstain: bool
    min_confidence: float | None


#: Validated requests of search() calls without exclude / servers, keyed by their options and
#: the options' types: such a request does not depend on the index, and agents repeat their
#: options, so validation runs once per distinct options rather than once per call. Requests
#: are never mutated after construction. Bounded: cleared when full.
REQUESTS: dict[tuple[Any, ...], _Request] = {}
REQUEST_CACHE_SIZE = 64
#: The same requests for calls that pass every option but the limit as the signature's default
#: objects, keyed by the limit: ``ToolIndex.search`` finds them without building the key.
DEFAULT_REQUESTS: dict[int | None, _Request] = {}


def search(
    searcher: Searcher,
    regex: RegexSearcher,
    query: str,
    limit: int | None,
    options: tuple[Any, ...],
    defaults: bool,
) -> SearchResult:
    """``ToolIndex.search(query, limit, ...)`` once its default-options path did not answer:
    ``options`` are its keyword options in signature order, from ``exclude`` to
    ``max_query_length``; ``defaults``: each is the signature's default object."""
    exclude, servers, ranker = options[:3]
    max_limit, max_query_length = options[-2:]
    if not isinstance(query, str):
        parse_query(query)  # raises the QueryError
    if ranker == "regex":  # a pattern, not a keyword query (``_index.regex``)
        checked = _checked_limit(limit, ranker, max_limit, max_query_length)
        return regex.result(query, searcher.request(checked, *options))
    key: tuple[Any, ...] | None = None
    if servers is None and type(exclude) is tuple and not exclude:
        cached = (limit, *options[2:])
        key = (*cached, *map(type, cached))
        try:
            request = REQUESTS.get(key)
        except TypeError:  # an unhashable option: validated below, not cached
            key = request = None
        if request is not None:  # these options passed every check before
            if defaults and len(DEFAULT_REQUESTS) < REQUEST_CACHE_SIZE:
                DEFAULT_REQUESTS[limit] = request  # (if it was dropped when full)
            return searcher.search_one(
                parse_query(query, max_length=max(1, request.max_query_length)), request
            )
    checked = _checked_limit(limit, ranker, max_limit, max_query_length)
    parsed = parse_query(query, max_length=max(1, max_query_length))
    request = searcher.request(checked, *options)
    if key is not None:
        if len(REQUESTS) >= REQUEST_CACHE_SIZE:
            REQUESTS.clear()
        if REQUEST_CACHE_SIZE:
            REQUESTS[key] = request
            if defaults:
                if len(DEFAULT_REQUESTS) >= REQUEST_CACHE_SIZE:
                    DEFAULT_REQUESTS.clear()
                DEFAULT_REQUESTS[limit] = request  # the limit as the caller passed it
    return searcher.search_one(parsed, request)


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


def bind_plain(
    engine: str,
    field_weights: FieldWeights,
    lookups: NameLookups,
    index: Any,
    tools: Any,
    max_query_length: int,
    *prefix: Any,
) -> Any:
    """``Index.search_plain`` bound to an index's tools and name keys and the default length cap
    and prefix options (a ``PlainSearch``): the Rust engine without word pairs, else ``False``."""
    if engine != "rust" or field_weights.word_pairs:
        return False
    keys = lookups.names.keys
    if keys is None:
        return False
    from .._core import Index, PlainSearch

    if type(index) is not Index:  # an engine of another kind: the general path
        return False
    return PlainSearch(index, tools, keys, max_query_length, *prefix)
