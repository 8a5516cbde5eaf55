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

import dataclasses
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from . import _fallback, _keyword
from ._analysis import DEFAULT_PROFILE, ProfileName, check_profile
from ._documents import (
    FieldWeights,
    check_field_weights,
    default_delta,
    documents,
    scored_text,
)
from ._engines import EngineName, available_engines
from ._engines import select_engine as _select_engine
from ._index_explain import Explaining
from ._lazytools import LazyTools
from ._named import _NEW_MATCHES, DEFAULT_PREFIX_FRACTION, NamedLookups
from ._persist import SnapshotsAndUpdates
from ._regex_search import RegexLookups
from .errors import DuplicateToolError
from .names import NameTable
from .query import DEFAULT_MAX_QUERY_LENGTH, ParsedQuery, parse_query
from .result import Match, SearchResult
from .tools import Tool

if TYPE_CHECKING:
    from ._engine import EngineIndex, EngineKeywordIndex
    from ._fastbuild import RecordSource

__all__ = [
    "FieldWeights",
    "Match",
    "SearchResult",
    "ToolIndex",
    "EngineName",
    "available_engines",
]

Ranker = Literal["bm25", "keyword", "regex"]

DEFAULT_LIMIT = 8
#: A larger ``limit`` is clamped to this (seed 001's hard cap), and the result says so.
DEFAULT_MAX_LIMIT = 25


def _checked_limit(limit: int | None, ranker: str, max_limit: int, max_query_length: int) -> int:
    """The limit :meth:`ToolIndex.search` uses, after its call-level checks (in its order)."""
    if limit is None:
        limit = _keyword.DEFAULT_KEYWORD_LIMIT if ranker == "keyword" else DEFAULT_LIMIT
    _fallback.check_limit(limit)
    _fallback.check_limit(max_limit)
    if ranker not in ("bm25", "keyword", "regex"):
        raise ValueError(f"ranker must be 'bm25', 'keyword' or 'regex', got {ranker!r}")
    check_query_length(max_query_length)
    return limit


def check_query_length(max_query_length: object) -> int:
    """``max_query_length`` if it is an int (not a bool) >= 1, else a ``TypeError`` /
    ``ValueError`` (the search calls of :class:`ToolIndex` and ``HybridIndex`` share it).

    Example:
        >>> check_query_length(500)
        500
    """
    if isinstance(max_query_length, bool) or not isinstance(max_query_length, int):
        raise TypeError("max_query_length must be an int")
    if max_query_length < 1:
        raise ValueError(f"max_query_length must be a positive int, got {max_query_length}")
    return max_query_length


@dataclass
class _Request:
    """The validated options of one :meth:`ToolIndex.search` or ``search_many`` call."""

    limit: int
    max_limit: int
    notices: tuple[str, ...]
    clamped: bool
    max_query_length: int
    allowed: frozenset[int] | None
    excluded: frozenset[int]
    #: ``excluded`` sorted, as the engines take it (None when empty: nothing to convert).
    excluded_sorted: tuple[int, ...] | None
    ranker: str
    exact_names: bool
    prefix: dict[str, Any]
    include: tuple[int, ...] | None
    threshold: float
    relative_floor: float
    coverage: bool
    normalize: bool
    #: A ranked result's fields but the query's own (``SearchResult._from_fields``), when no gate
    #: acts on the whole result (the BM25+ ranker, no relative floor, no normalization): the
    #: common search's result is then these fields and three more, not a ``_finish`` pass.
    plain_fields: dict[str, Any] | None = None


# Validated requests of search() calls without exclude / servers, keyed by their options and the
# options' types: such a request does not depend on the index, and agents repeat their options,
# so validation runs once per distinct options rather than once per call. Requests are never
# mutated after construction. Bounded: cleared when full.
_REQUESTS: dict[tuple[Any, ...], _Request] = {}
_REQUEST_CACHE_SIZE = 64
# The same requests for calls that pass every option but the limit as the signature's default
# objects, keyed by the limit: found without building the options' key.
_DEFAULT_REQUESTS: dict[int | None, _Request] = {}


class ToolIndex(NamedLookups, Explaining, SnapshotsAndUpdates, RegexLookups):
    """A searchable, immutable index of tools.

    Arguments:
        tools: the tools to index; canonical names must be unique.
        engine: ``"rust"``, ``"python"``, or ``"auto"`` (Rust, falling back to Python with one
            ``RuntimeWarning`` when the extension cannot be loaded).
        k1, b, delta: BM25+ parameters (defaults 1.2, 0.75, and δ by profile:
            :func:`~toolsift._documents.default_delta`, 0.5 for ``"english"``, 1.0 for ``"seed"``).
        field_weights: per-field weights; defaults to the profile's,
            :meth:`FieldWeights.for_profile`.
        profile: the analysis profile (how text becomes terms; ``toolsift._analysis``):
            ``"english"`` (the default: CJK bigrams, half-weight Snowball-stemmed copies, query
            stop words, each distinct query term once) or ``"seed"`` (seed 000's ranking:
            the tokenizer's tokens only). Snapshots keep it; :attr:`profile` tells it.

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
        k1, b, delta = _fallback._validated_params(k1, b, delta)
        self._tools: tuple[Tool, ...] | LazyTools = tuple(tools)
        self._by_name: dict[str, int] = {}
        servers: dict[str, list[int]] = {}
        for i, tool in enumerate(self._tools):
            if not isinstance(tool, Tool):
                raise TypeError(f"tools[{i}] must be a toolsift.Tool, got {type(tool).__name__}")
            if tool.name in self._by_name:
                raise DuplicateToolError(
                    f"Duplicate tool name {tool.name!r} (tools[{self._by_name[tool.name]}] and "
                    f"tools[{i}]); tool names must be unique in an index.",
                    tool=tool.name,
                    field="name",
                )
            self._by_name[tool.name] = i
            if tool.server is not None:
                servers.setdefault(tool.server, []).append(i)
        self._servers: dict[str, list[int]] | None = servers
        self._name_table: NameTable | None = None
        self._keyword: EngineKeywordIndex | None = None
        self._name_lock = threading.Lock()
        self.field_weights = (
            field_weights if field_weights is not None else FieldWeights.for_profile(profile)
        )
        weights = self.field_weights.as_list()
        self.engine, cls = _select_engine(engine)
        self._index: EngineIndex = cls(
            [t.name for t in self._tools],
            documents(self._tools, weights),
            weights,
            k1=k1,
            b=b,
            delta=delta,
            profile=profile,
        )
        self.params = (k1, b, delta)

    @classmethod
    def from_records(
        cls,
        source: RecordSource,
        *,
        server: str | None = None,
        engine: EngineName = "auto",
        k1: float = 1.2,
        b: float = 0.75,
        delta: float | None = None,
        field_weights: FieldWeights | None = None,
        profile: ProfileName = DEFAULT_PROFILE,
    ) -> ToolIndex:
        """An index of raw tool definitions, parsed and indexed in Rust: the same index as
        ``ToolIndex(load_tools(source, server=server), ...)`` (or ``load_catalog(path)``), same
        rankings and scores, about 10x faster to build, and lighter: each :class:`Tool` is made
        only when a search returns it (or it is read).

        The Rust engine reads MCP ``tools/list`` items and toolsift records, as a list, JSON
        Lines, or a JSON list or ``{"tools": [...]}`` document; anything else (other formats,
        catalogues of servers, invalid definitions, ``engine="python"``) is loaded by the
        loaders, with their errors. Dicts are converted when their tool is first read: do not
        change them after the build.

        Arguments:
            source: a list of tool definitions (dicts) or any document :func:`load_tools`
                reads; ``bytes`` holding a JSON or JSON Lines catalogue; or the path of a
                ``.json`` / ``.jsonl`` file (read as :func:`load_catalog` reads it).
            server: the MCP server of every item that names none itself.
            engine, k1, b, delta, field_weights, profile: as for :class:`ToolIndex`.

        Raises:
            ToolDefinitionError: a definition is invalid (as :func:`load_tools`).
            CatalogError: the bytes or file are not a catalogue (as :func:`load_catalog`;
                bytes are named ``<bytes>``).
            DuplicateToolError: two tools share a canonical name.
            OSError: the file cannot be read.

        Example:
            >>> index = ToolIndex.from_records(
            ...     [{"name": "read_file", "description": "Read a file from disk"}], server="fs"
            ... )
            >>> [m.name for m in index.search("read a file")]
            ['mcp__fs__read_file']
        """
        from ._fastbuild import from_records

        options: dict[str, Any] = {"engine": engine, "k1": k1, "b": b, "delta": delta}
        options.update(field_weights=field_weights, profile=profile)
        return from_records(cls, source, server, options)

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
                ``ranker="keyword"``, seed 001's default). Above ``max_limit`` it is clamped, and
                the result says so.
            exclude: tool names to leave out (for example the already active ones); they are
                removed inside the engine before the cut, so the limit is still filled.
                ``select:`` ignores it (an explicit lookup).
            servers: only tools of these MCP servers (exact server names), applied inside the
                engine before the cut; a ``select:`` name outside them is ``missing``.
            ranker: ``"bm25"`` (BM25+) or ``"keyword"`` (seed 001's name-part scorer); both
                rank after the exact-name tier (``exact_names``). ``"regex"``: the query is a
                Python ``re``-style pattern (Anthropic ``tool_search_tool_regex``), searched
                case-insensitively in names, descriptions and parameters (see
                ``toolsift._regex_pattern`` for the syntax, ``_regex_search`` for the ranking);
                ``exclude``, ``servers``, ``threshold``, ``relative_floor`` and ``normalize``
                apply, the exact-name tier and the prefix options do not.
            exact_names: put the tools whose exact name the query contains first (seed 004),
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
                keys = self.names.keys if plain_ok else None
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
                return self._search_one(parse_query(query, max_length=max_query_length), request)
        if not isinstance(query, str):
            parse_query(query)  # raises the QueryError
        if ranker == "regex":  # a pattern, not a keyword query (``_regex_search``)
            limit = _checked_limit(limit, ranker, max_limit, max_query_length)
            return self._regex_result(
                query,
                self._request(
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
                return self._search_one(
                    parse_query(query, max_length=max(1, request.max_query_length)), request
                )
        asked = limit  # the cache keys below are the limit as the caller passed it (None too)
        limit = _checked_limit(limit, ranker, max_limit, max_query_length)
        parsed = parse_query(query, max_length=max(1, max_query_length))
        request = self._request(
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
        return self._search_one(parsed, request)

    def _request(
        self,
        limit: int,
        exclude: Iterable[str],
        servers: Iterable[str] | None,
        ranker: Ranker,
        exact_names: bool,
        prefix_fraction: float,
        prefix_min_len: int,
        max_expansions: int,
        threshold: float,
        relative_floor: float,
        coverage: bool,
        normalize: bool,
        max_limit: int,
        max_query_length: int,
    ) -> _Request:
        """The options of :meth:`search`, validated and resolved to tool ids once per call."""
        # Same checks and messages for both engines, whichever ranker runs; the engines get the
        # checked values (floats, capped counts, a bool), never what the caller passed.
        checked = _fallback._Options(
            None, None, None, prefix_fraction, prefix_min_len, max_expansions,
            threshold, relative_floor, coverage,
        )  # fmt: skip
        prefix_fraction = checked.prefix_fraction
        prefix_min_len = checked.prefix_min_len
        max_expansions = checked.max_expansions
        threshold = checked.threshold
        relative_floor = checked.relative_floor
        clamped = limit > max_limit
        allowed, include = self._allowed(servers)
        if isinstance(exclude, str):  # one name, as ``servers="slack"`` is one server
            exclude = (exclude,)
        excluded = frozenset(self._by_name[n] for n in exclude if n in self._by_name)
        notices = (f"limit {limit} clamped to {max_limit}",) if clamped else ()
        plain = ranker == "bm25" and not relative_floor and not normalize
        return _Request(
            limit=max_limit if clamped else limit,
            max_limit=max_limit,
            notices=notices,
            clamped=clamped,
            max_query_length=max_query_length,
            allowed=allowed,
            excluded=excluded,
            excluded_sorted=tuple(sorted(excluded)) or None,
            ranker=ranker,
            exact_names=exact_names,
            prefix={
                "prefix_fraction": prefix_fraction,
                "prefix_min_len": prefix_min_len,
                "max_expansions": max_expansions,
            },
            include=include,
            threshold=threshold,
            relative_floor=relative_floor,
            coverage=coverage,
            normalize=normalize,
            plain_fields=(
                SearchResult._keyword_fields(max_limit if clamped else limit, notices, clamped)
                if plain
                else None
            ),
        )

    def _search_one(self, parsed: ParsedQuery, request: _Request) -> SearchResult:
        """:meth:`search` for one parsed query: what :meth:`_search_parsed` does for a batch of
        one, without the batch bookkeeping (a few microseconds a call)."""
        notices = request.notices
        if parsed.truncated:
            notices = (*notices, f"query cut to {request.max_query_length} characters")
        if parsed.kind == "select":
            return self._select(
                parsed, request.limit, request.max_limit, request.allowed, list(notices),
                request.clamped,
            )  # fmt: skip
        if request.ranker == "keyword":
            return self._finish(parsed, self._keyword_matches(parsed, request), notices, request)
        matches, room, (exclude, required, floor) = self._tier(parsed, request)
        if room > 0:
            prefix = request.prefix
            # By position: keyword arguments cost the Rust binding ~0.1 µs each to match. The
            # engine builds the Match objects in the same call.
            matches += self._index.search_matches(
                self._tools,
                "bm25",
                scored_text(parsed.text, self.field_weights),
                room,
                exclude,
                request.include,
                required or None,
                prefix["prefix_fraction"],
                prefix["prefix_min_len"],
                prefix["max_expansions"],
                request.threshold,
                floor,
                request.coverage,
            )
        return self._finish(parsed, matches, notices, request)

    def _keyword_matches(self, parsed: ParsedQuery, request: _Request) -> list[Match]:
        """``ranker="keyword"``'s list before the gates: the exact-name tier (as for BM25+,
        scored in keyword points), then the keyword matches without the named tools, cut to the
        limit."""
        matches, tier = self._keyword_tier(parsed, request)
        room = request.limit - len(matches)
        if room <= 0:
            return matches
        excluded = request.excluded.union(tier) if tier else request.excluded
        hits = self._keyword_index().search(
            parsed.text,
            room,
            sorted(excluded),
            include=request.include,
            required=parsed.required,
        )
        return matches + _NEW_MATCHES[self.engine](self._tools, hits, "keyword")

    def _search_plain_many(
        self, queries: list[str], request: _Request, max_length: int
    ) -> list[SearchResult] | None:
        """:meth:`search_many`'s common call on the Rust engine (no filter, gate or threshold
        beyond the prefix options): one engine call parses, proves and searches every plain
        query in parallel (see :meth:`search`); the queries it declines take
        :meth:`_search_parsed`. ``None`` when the options need the general path."""
        keys = self.names.keys if self.engine == "rust" else None
        if (
            keys is None
            or self.field_weights.word_pairs  # the engine's call searches the text as written
            or request.plain_fields is None  # a gate acts on the whole result
            or not request.exact_names
            or request.allowed is not None
            or request.excluded
            or request.threshold
            or request.coverage
        ):
            return None
        prefix = request.prefix
        # (Only the Rust engine's index has search_plain_many: not in EngineIndex.)
        # The engine takes sizes as usize: a larger limit or length means the same as the cap.
        cap = _fallback.MAX_COUNT_OPTION
        results: list[SearchResult | None] = self._index.search_plain_many(  # type: ignore[attr-defined]
            self._tools, keys, request.plain_fields, queries, min(request.limit, cap),
            min(max_length, cap),
            prefix["prefix_fraction"], prefix["prefix_min_len"], prefix["max_expansions"],
        )  # fmt: skip
        declined = [i for i, result in enumerate(results) if result is None]
        if declined:
            parsed = [parse_query(queries[i], max_length=max_length) for i in declined]
            for i, result in zip(declined, self._search_parsed(parsed, request)):
                results[i] = result
        return results  # type: ignore[return-value]  # every None was replaced

    def _search_parsed(self, queries: list[ParsedQuery], request: _Request) -> list[SearchResult]:
        """One :class:`SearchResult` per parsed query, in order.

        The BM25+ searches that need the same engine call but for the query text (same room,
        exclusions and required terms: all queries without an exact-name tier or ``+term``, in
        the common case) go to the engine as one ``search_many`` batch, which the Rust engine
        runs in parallel with the GIL released. Each result equals the single search's.
        """
        results: list[SearchResult | None] = [None] * len(queries)
        ranked: dict[int, tuple[list[str], list[Match]]] = {}
        batches: dict[tuple[Any, ...], list[int]] = {}
        for i, parsed in enumerate(queries):
            notices = list(request.notices)
            if parsed.truncated:
                notices.append(f"query cut to {request.max_query_length} characters")
            if parsed.kind == "select":
                results[i] = self._select(
                    parsed, request.limit, request.max_limit, request.allowed, notices,
                    request.clamped,
                )  # fmt: skip
                continue
            if request.ranker == "keyword":
                ranked[i] = (notices, self._keyword_matches(parsed, request))
                continue
            matches, room, rest = self._tier(parsed, request)
            ranked[i] = (notices, matches)
            if room > 0:
                batches.setdefault((room, *rest), []).append(i)
        for (room, exclude, required, floor), members in batches.items():
            kwargs: dict[str, Any] = {
                "include": request.include,
                "required": list(required),
                **request.prefix,
                "threshold": request.threshold,
                "coverage": request.coverage,
                "relative_floor": floor,
            }
            texts = [scored_text(queries[i].text, self.field_weights) for i in members]
            if len(texts) == 1:
                lists = [self._index.search(texts[0], room, exclude, **kwargs)]
            else:
                lists = self._index.search_many(texts, room, exclude, **kwargs)
            for i, hits in zip(members, lists):
                ranked[i][1].extend(_NEW_MATCHES[self.engine](self._tools, hits, "bm25"))
        for i, (notices, matches) in ranked.items():
            results[i] = self._finish(queries[i], matches, notices, request)
        return [r for r in results if r is not None]

    def _finish(
        self,
        parsed: ParsedQuery,
        matches: list[Match],
        notices: Sequence[str],
        request: _Request,
    ) -> SearchResult:
        """The gates that act on the whole result, normalized scores, and the result itself."""
        fields = request.plain_fields
        if fields is not None and not parsed.truncated:  # no gate, no notice to add
            return SearchResult._from_fields(fields, parsed.query, tuple(matches), len(self._tools))
        if request.ranker != "bm25" and request.threshold:
            # Named (exact_name) tools stay, as the BM25+ engine keeps them.
            matches = [
                m for m in matches if m.reason == "exact_name" or m.score >= request.threshold
            ]
        if request.relative_floor and matches:
            # Relative to the best score of the whole result; named (exact_name) tools stay.
            best = max(m.score for m in matches)
            floor = request.relative_floor * best
            matches = [m for m in matches if m.reason == "exact_name" or m.score >= floor]
        if request.normalize and matches:
            best = max(m.score for m in matches)
            matches = [
                dataclasses.replace(m, normalized_score=m.score / best if best > 0 else 0.0)
                for m in matches
            ]
        return SearchResult._keyword(
            parsed.query,
            request.limit,
            tuple(matches),
            tuple(notices),
            request.clamped,
            parsed.truncated,
            len(self._tools),
        )

    # --- scale and concurrency (issue 6): batch search, snapshots, live updates ---

    def search_many(
        self,
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
            limit, exclude, servers, ranker, exact_names, prefix_fraction, prefix_min_len,
                max_expansions, threshold, relative_floor, coverage, normalize, max_limit,
                max_query_length: as for :meth:`search`, applied to every query (``exclude``
                and ``servers`` are read once).

        Raises:
            TypeError: ``queries`` is a single str.
            QueryError: a query is invalid (see :meth:`search`).
            LimitError: ``limit`` or ``max_limit`` is not a positive integer.
            ValueError: ``ranker`` is unknown, or a gate or prefix option is out of range.

        Example:
            >>> index = ToolIndex([Tool(name="get_weather", description="Weather for a city")])
            >>> [r[0].tool.name for r in index.search_many(["weather", "city weather"])]
            ['get_weather', 'get_weather']
        """
        if isinstance(queries, str):
            raise TypeError("queries must be an iterable of str, not a single str")
        queries = list(queries)
        if not queries:
            return []
        exclude = (exclude,) if isinstance(exclude, str) else tuple(exclude)
        if servers is not None and not isinstance(servers, str):
            servers = tuple(servers)
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
        try:
            for query in queries:
                if not isinstance(query, str):
                    parse_query(query)  # raises the QueryError
            checked = _checked_limit(limit, ranker, max_limit, max_query_length)
            length = max(1, max_query_length)
            request = self._request(checked, **options)
            if ranker == "regex":
                return self._regex_results(queries, request)
            plain = self._search_plain_many(queries, request, length)
            if plain is not None:
                return plain
            parsed = [parse_query(query, max_length=length) for query in queries]
            return self._search_parsed(parsed, request)
        except Exception:
            # Something is invalid. A loop of search() calls finds the error it would raise
            # first (say an earlier query's engine error before a later query's parse error);
            # errors are rare, so the loop's cost does not matter.
            for query in queries:
                self.search(query, limit, **options)
            raise


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
