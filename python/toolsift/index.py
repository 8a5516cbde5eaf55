"""``ToolIndex``: tools in, ranked matches out, on the Rust engine or its pure-Python twin.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([
    ...     Tool(name="create_issue", description="Open a new issue in a repository"),
    ...     Tool(name="send_message", description="Send a chat message to a channel"),
    ... ])
    >>> [m.tool.name for m in index.search("open an issue")]
    ['create_issue']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ._engine.select import EngineName, available_engines
from ._engine.select import select_engine as _select_engine
from ._index import persist
from ._index.batch import BatchSearch
from ._index.build import checked_tools, engine_index
from ._index.explain import explain
from ._index.lookups import NameLookups
from ._index.records import FromRecords
from ._index.regex import RegexSearcher
from ._index.request import _checked_limit, _Request
from ._index.search import Ranker, Searcher
from ._index.versions import Versions
from ._names.table import NameTable
from ._options import DEFAULT_LIMIT as DEFAULT_LIMIT
from ._options import DEFAULT_MAX_LIMIT as DEFAULT_MAX_LIMIT
from ._options import DEFAULT_PREFIX_FRACTION as DEFAULT_PREFIX_FRACTION
from ._options import (
    check_bm25_params,
)
from ._options import check_query_length as check_query_length
from ._snapshot.tools_section import LazyTools
from ._text.analysis import DEFAULT_PROFILE, ProfileName, check_profile
from ._text.documents import FieldWeights, check_field_weights, default_delta
from .explain import Explanation
from .query import DEFAULT_MAX_QUERY_LENGTH, parse_query
from .result import Match, SearchResult
from .tools import Tool

if TYPE_CHECKING:
    from ._engine.protocol import EngineIndex

__all__ = [
    "FieldWeights",
    "Match",
    "SearchResult",
    "ToolIndex",
    "EngineName",
    "available_engines",
]

# Validated requests of search() calls without exclude / servers, keyed by their options and the
# options' types: such a request does not depend on the index, and agents repeat their options,
# so validation runs once per distinct options rather than once per call. Requests are never
# mutated after construction. Bounded: cleared when full.
_REQUESTS: dict[tuple[Any, ...], _Request] = {}
_REQUEST_CACHE_SIZE = 64
# The same requests for calls that pass every option but the limit as the signature's default
# objects, keyed by the limit: found without building the options' key.
_DEFAULT_REQUESTS: dict[int | None, _Request] = {}


class ToolIndex(FromRecords, Versions, BatchSearch):
    """A searchable, immutable index of tools.

    Arguments:
        tools: the tools to index; canonical names must be unique.
        engine: ``"rust"``, ``"python"``, or ``"auto"`` (Rust, falling back to Python with one
            ``RuntimeWarning`` when the extension cannot be loaded).
        k1, b, delta: BM25+ parameters (defaults 1.2, 0.75, and δ by profile:
            :func:`~toolsift._text.documents.default_delta`, 0.5 for ``"english"``, 1.0 for
            ``"seed"``); ``k1`` and ``delta`` between 0 and 1,000, ``b`` between 0 and 1, so
            that every score is finite (see :mod:`toolsift.limits` for every cap).
        field_weights: per-field weights (each 0, or between 1e-6 and 1e30); defaults to the
            profile's, :meth:`FieldWeights.for_profile`.
        profile: the analysis profile (how text becomes terms; ``toolsift._text.analysis``):
            ``"english"`` (the default: CJK bigrams, half-weight Snowball-stemmed copies, query
            stop words, each distinct query term once) or ``"seed"`` (the plain profile of OMP
            ``search_tool_bm25``: the tokenizer's tokens only). Snapshots keep it; :attr:`profile`
            tells it.

    Raises:
        DuplicateToolError: two tools share a name.
        EngineUnavailableError: ``engine="rust"`` without the compiled extension.
        ProfileError: ``profile`` names no profile.

    Example:
        >>> index = ToolIndex([Tool(name="get_weather", description="Current weather for a city")])
        >>> index.search("weather in Paris")[0].tool.name
        'get_weather'
    """

    def __init__(
        self,
        tools: Iterable[Tool],
        *,
        engine: EngineName = "auto",
        k1: float = 1.2,
        b: float = 0.75,
        delta: float | None = None,
        field_weights: FieldWeights | None = None,
        profile: ProfileName = DEFAULT_PROFILE,
    ) -> None:
        profile = check_profile(profile)
        field_weights = check_field_weights(field_weights)
        if delta is None:
            delta = default_delta(profile)
        # Checked here for both engines (a str is a TypeError in each), and passed on as floats.
        k1, b, delta = check_bm25_params(k1, b, delta)
        tools, self._by_name, servers = checked_tools(tools)
        self._tools: tuple[Tool, ...] | LazyTools = tools
        self.field_weights = (
            field_weights if field_weights is not None else FieldWeights.for_profile(profile)
        )
        self.engine, cls = _select_engine(engine)
        weights = self.field_weights.as_list()
        self._index: EngineIndex = engine_index(
            self.engine, cls, tools, weights, (k1, b, delta), profile
        )
        self.params = (k1, b, delta)
        self._wire(
            NameLookups(self._tools, self.engine, self._index, self.field_weights, servers=servers)
        )

    @classmethod
    def _from_parts(cls, parts: persist.Parts, table: NameTable | None = None) -> ToolIndex:
        """An index of parts already made (a snapshot's, an update's); ``table``: its name
        table, if known (derived from the tools alone, so never stored: rebuilt on first use)."""
        self = cls.__new__(cls)
        self._tools = parts.tools
        self._by_name = dict(zip(parts.names, range(len(parts.names))))
        self.field_weights = parts.field_weights
        self.engine = parts.engine
        self._index = parts.index
        self.params = parts.params
        self._wire(
            NameLookups(parts.tools, parts.engine, parts.index, parts.field_weights, table=table)
        )
        return self

    def _parts(self) -> persist.Parts:
        names = persist.tool_names(self._tools, self._by_name)
        return persist.Parts(
            self._tools, self.engine, self._index, self.field_weights, self.params, names
        )

    def _wire(self, lookups: NameLookups) -> None:
        """Holds the collaborators: the name-driven lookups and the searcher that uses them."""
        self._lookups = lookups
        self._searcher = Searcher(
            self._tools, self._by_name, self.engine, self._index, self.field_weights, lookups
        )
        self._regex = RegexSearcher(self._tools, self.engine, self._searcher)

    @property
    def names(self) -> NameTable:
        """The name table of ``select:`` and the exact-name tier, built on first use."""
        return self._lookups.names

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickle_tool_index, (self.to_bytes(), self.engine))

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The indexed tools, in the order given.

        On an index from :meth:`load` this decodes every tool not read yet (about 15 µs each);
        iterating the index, ``len`` and :meth:`get` do not need all of them.
        """
        tools = self._tools
        if isinstance(tools, LazyTools):
            tools = self._tools = tuple(tools)
        return tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def get(self, name: str) -> Tool | None:
        """The tool with this canonical name, or ``None``."""
        i = self._by_name.get(name)
        return None if i is None else self._tools[i]

    def __repr__(self) -> str:
        return (
            f"ToolIndex(tools={len(self._tools)}, engine={self.engine!r}, profile={self.profile!r})"
        )

    @property
    def profile(self) -> ProfileName:
        """The analysis profile the index was built with: ``"english"`` or ``"seed"``.

        Example:
            >>> ToolIndex([Tool(name="a", description="x")], profile="seed").profile
            'seed'
        """
        return self._index.profile  # type: ignore[return-value]

    def search(
        self,
        query: str,
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
    ) -> SearchResult:
        """The best tools for ``query``, best first, as a :class:`SearchResult`.

        Arguments:
            query: ``select:A,B`` to fetch tools by name, or a keyword query in which ``+term``
                words are required; trimmed first, and cut to ``max_query_length`` characters.
            limit: how many matches at most (a positive int). Default 8 (5 with
                ``ranker="keyword"``, Claude Code ``ToolSearch``'s default). Above ``max_limit`` it
                is clamped, and the result says so.
            exclude: tool names to leave out (for example the already active ones); they are
                removed inside the engine before the cut, so the limit is still filled.
                ``select:`` ignores it (an explicit lookup).
            servers: only tools of these MCP servers (exact server names), applied inside the
                engine before the cut; a ``select:`` name outside them is ``missing``.
            ranker: ``"bm25"`` (BM25+) or ``"keyword"`` (Claude Code ``ToolSearch``'s name-part
                scorer); both rank after the exact-name tier (``exact_names``). ``"regex"``: the
                query is a Python ``re``-style pattern (Anthropic ``tool_search_tool_regex``),
                searched case-insensitively in names, descriptions and parameters;
                ``exclude``, ``servers``, ``threshold``, ``relative_floor`` and ``normalize``
                apply, the exact-name tier and the prefix options do not.
            exact_names: put the tools whose exact name the query contains first,
                ``reason="exact_name"``, in query order, before the ranked matches and the cut
                to ``limit``; for either ranker, with the same tools. Their score is the
                ranker's own: BM25+ score, or keyword points (0.0 when the name matches none of
                the tool's name parts, as ``searchgraph``). ``False`` turns the tier off.
            prefix_fraction: a query term that is not in the index matches the terms that start
                with it, scored at this fraction of an exact match (0.0 turns it off).
            prefix_min_len: the shortest query term that is expanded (characters).
            max_expansions: the most index terms one query term expands to.
            threshold: drop ranked matches scoring below this (0.0 = off); also applies to the
                keyword ranker's points. Named (exact_name) tools are never dropped by a gate.
            relative_floor: drop ranked matches scoring below this fraction of the best score
                of the result (0.0 = off).
            coverage: with 4 or more distinct known query terms, a ranked match must match at
                least half of them (BM25+ ranker only).
            normalize: fill :attr:`Match.normalized_score` (score / best score, the best is 1.0).
            max_limit: the hard cap on ``limit`` (default 25); ``select:`` returns at most this.
            max_query_length: the query length cap in characters (default 500).

        Raises:
            QueryError: the query is empty after trimming, has no letter or number, or is
                ``select:`` without a name.
            PatternError: (``ranker="regex"``) the pattern is empty, longer than 200
                characters, or outside the accepted syntax; ``position`` says where.
            LimitError: ``limit`` or ``max_limit`` is not a positive integer.
            ValueError: ``ranker`` is unknown, or a gate or prefix option is out of range.
        """
        # Every option as the signature gives it (the call agents make): the validated request
        # depends on the limit alone. `is` never lets an equal value of another type through
        # (True for 1, 8.0 for 8); such calls take the checked path below.
        defaults = (
            servers is None
            and exclude is _NO_EXCLUDE
            and ranker is _BM25
            and exact_names is True
            and prefix_fraction is _PREFIX_FRACTION
            and prefix_min_len is _PREFIX_MIN_LEN
            and max_expansions is _MAX_EXPANSIONS
            and threshold is _ZERO
            and relative_floor is _ZERO_FLOOR
            and coverage is False
            and normalize is False
            and max_limit is _MAX_LIMIT
            and max_query_length is _MAX_QUERY_LENGTH
            and type(query) is str
            and (limit is None or type(limit) is int)
        )
        if defaults:
            request = _DEFAULT_REQUESTS.get(limit)
            if request is not None:
                # The Rust engine's one call searches the query as written: not with pairs.
                plain_ok = self.engine == "rust" and not self.field_weights.word_pairs
                keys = self._lookups.names.keys if plain_ok else None
                if keys is not None:
                    # The Rust engine answers a plain query (no name in it, nothing for the
                    # parser to do but trim it) in one call, parse to SearchResult; None: the
                    # query needs the path below, which gives the same result for every query.
                    # (Only the Rust engine's index has search_plain: not in EngineIndex.)
                    result = self._index.search_plain(  # type: ignore[attr-defined]
                        self._tools, keys, request.plain_fields, query, request.limit,
                        max_query_length, prefix_fraction, prefix_min_len, max_expansions,
                    )  # fmt: skip
                    if result is not None:
                        return result
                return self._searcher.search_one(
                    parse_query(query, max_length=max_query_length), request
                )
        if not isinstance(query, str):
            parse_query(query)  # raises the QueryError
        if ranker == "regex":  # a pattern, not a keyword query (``_index.regex``)
            limit = _checked_limit(limit, ranker, max_limit, max_query_length)
            return self._regex.result(
                query,
                self._searcher.request(
                    limit, exclude, servers, ranker, exact_names, prefix_fraction, prefix_min_len,
                    max_expansions, threshold, relative_floor, coverage, normalize, max_limit,
                    max_query_length,
                ),
            )  # fmt: skip
        key: tuple[Any, ...] | None = None
        if servers is None and type(exclude) is tuple and not exclude:
            options = (
                limit, ranker, exact_names, prefix_fraction, prefix_min_len, max_expansions,
                threshold, relative_floor, coverage, normalize, max_limit, max_query_length,
            )  # fmt: skip
            key = (*options, *map(type, options))
            try:
                request = _REQUESTS.get(key)
            except TypeError:  # an unhashable option: validated below, not cached
                key = request = None
            if request is not None:  # these options passed every check before
                if defaults and len(_DEFAULT_REQUESTS) < _REQUEST_CACHE_SIZE:
                    _DEFAULT_REQUESTS[limit] = request  # (if it was dropped when full)
                return self._searcher.search_one(
                    parse_query(query, max_length=max(1, request.max_query_length)), request
                )
        asked = limit  # the cache keys below are the limit as the caller passed it (None too)
        limit = _checked_limit(limit, ranker, max_limit, max_query_length)
        parsed = parse_query(query, max_length=max(1, max_query_length))
        request = self._searcher.request(
            limit, exclude, servers, ranker, exact_names, prefix_fraction, prefix_min_len,
            max_expansions, threshold, relative_floor, coverage, normalize, max_limit,
            max_query_length,
        )  # fmt: skip
        if key is not None:
            if len(_REQUESTS) >= _REQUEST_CACHE_SIZE:
                _REQUESTS.clear()
            if _REQUEST_CACHE_SIZE:
                _REQUESTS[key] = request
                if defaults:
                    if len(_DEFAULT_REQUESTS) >= _REQUEST_CACHE_SIZE:
                        _DEFAULT_REQUESTS.clear()
                    _DEFAULT_REQUESTS[asked] = request
        return self._searcher.search_one(parsed, request)

    def explain(
        self,
        query: str,
        tool: str | Tool,
        *,
        prefix_fraction: float = DEFAULT_PREFIX_FRACTION,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
        max_query_length: int = DEFAULT_MAX_QUERY_LENGTH,
    ) -> Explanation:
        """The per-term, per-field parts of ``tool``'s BM25+ score for ``query``.

        Arguments:
            query: a keyword query, parsed as :meth:`search` parses it (``+required`` words are
                left out: they add nothing to the score). A ``select:`` query scores nothing.
            tool: the tool or its canonical name.
            prefix_fraction, prefix_min_len, max_expansions: as in :meth:`search`.

        Returns:
            An :class:`~toolsift.explain.Explanation` whose ``score`` equals the ``score`` that
            :meth:`search` gives the tool with the same options.

        Raises:
            KeyError: no tool has this name.
            QueryError: the query is empty or has no letter or number.
        """
        return explain(
            self._tools, self._by_name, self._index, self.field_weights, query, tool,
            prefix_fraction, prefix_min_len, max_expansions, max_query_length,
        )  # fmt: skip


# The signature's default objects, for the identity checks of search()'s default-options path.
_SEARCH_DEFAULTS: dict[str, Any] = ToolIndex.search.__kwdefaults__ or {}
_NO_EXCLUDE = _SEARCH_DEFAULTS["exclude"]
_BM25 = _SEARCH_DEFAULTS["ranker"]
_PREFIX_FRACTION = _SEARCH_DEFAULTS["prefix_fraction"]
_PREFIX_MIN_LEN = _SEARCH_DEFAULTS["prefix_min_len"]
_MAX_EXPANSIONS = _SEARCH_DEFAULTS["max_expansions"]
_ZERO = _SEARCH_DEFAULTS["threshold"]
_ZERO_FLOOR = _SEARCH_DEFAULTS["relative_floor"]
_MAX_LIMIT = _SEARCH_DEFAULTS["max_limit"]
_MAX_QUERY_LENGTH = _SEARCH_DEFAULTS["max_query_length"]


def _unpickle_tool_index(data: bytes, engine: str) -> ToolIndex:
    """Unpickles a :class:`ToolIndex` on the engine it was pickled from (module level: pickle
    finds it by name)."""
    return ToolIndex.from_bytes(data, engine=engine)  # type: ignore[arg-type]
