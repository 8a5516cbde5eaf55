"""``ToolIndex``: tools in, ranked matches out, on the Rust engine or its pure-Python twin (the
façade: each method hands its work to a part in ``toolsift._index``)."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ._engine.select import EngineName, available_engines
from ._engine.select import select_engine as _select_engine
from ._index import calls
from ._index.build import checked_tools, engine_index
from ._index.explain import explain
from ._index.records import RecordSource, build_records, load_records
from ._index.search import Ranker
from ._index.semantic import carried_state, check_min_confidence, semantic_state
from ._index.snapshots import Snapshots
from ._names.table import NameTable
from ._options import DEFAULT_LIMIT as DEFAULT_LIMIT
from ._options import DEFAULT_MAX_LIMIT as DEFAULT_MAX_LIMIT
from ._options import DEFAULT_PREFIX_FRACTION as DEFAULT_PREFIX_FRACTION
from ._options import check_bm25_params, keyword_options
from ._options import check_query_length as check_query_length
from ._snapshot.tools_section import LazyTools
from ._text.analysis import DEFAULT_PROFILE, ProfileName, check_profile
from ._text.documents import FieldWeights, check_field_weights, default_delta
from .explain import Explanation
from .query import DEFAULT_MAX_QUERY_LENGTH, parse_query
from .result import Match, SearchResult
from .semantic.model import Semantic, check_semantic, resolve
from .tools import Tool

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._index.calls import SearchOptions
    from ._index.records import IndexOptions

__all__ = ["FieldWeights", "Match", "SearchResult", "ToolIndex", "EngineName", "available_engines"]


class ToolIndex(Snapshots):
    """A searchable, immutable index of tools (threads share it without a lock).

    Arguments:
        tools: the tools to index; canonical names must be unique.
        engine: ``"rust"``, ``"python"``, or ``"auto"`` (Rust, falling back to Python with one
            ``RuntimeWarning`` when the extension cannot be loaded).
        k1, b, delta: BM25+ parameters (defaults 1.2, 0.75, and δ 0.5 for ``"english"``, 1.0
            for ``"omp"``); ``k1`` and ``delta`` between 0 and 1,000, ``b`` between 0 and 1.
        field_weights: per-field weights; defaults to :meth:`FieldWeights.for_profile`.
        profile: the analysis profile, how text becomes terms: ``"english"`` (the default:
            stemming, stop words, CJK bigrams) or ``"omp"`` (OMP ``search_tool_bm25``'s plain
            tokens). Snapshots keep it.
        semantic: semantic search (BM25+ fused with a static embedding model's similarity,
            with a confidence that lets a search abstain): ``True``, ``False``, or ``"auto"``
            (the default: on when the ``toolsift[semantic]`` extra is installed, unless
            ``$TOOLSIFT_SEMANTIC`` is ``off``; ``on`` forces it). A model that cannot load
            leaves the index on BM25+ with one :class:`~toolsift.errors.SemanticWarning`;
            :attr:`semantic` says which it is.

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
        semantic: Semantic = "auto",
    ) -> None:
        profile = check_profile(profile)
        semantic = check_semantic(semantic)
        field_weights = check_field_weights(field_weights)
        if delta is None:
            delta = default_delta(profile)
        # Checked here for both engines (a str is a TypeError in each), and passed on as floats.
        k1, b, delta = check_bm25_params(k1, b, delta)
        tools, by_name, servers = checked_tools(tools)
        if field_weights is None:
            field_weights = FieldWeights.for_profile(profile)
        name, cls = _select_engine(engine)
        params = (k1, b, delta)
        index, names = engine_index(name, cls, tools, field_weights.as_list(), params, profile)
        state = semantic_state(resolve(semantic), tools, name)
        self._wire(
            tools, by_name, name, index, field_weights, params, state,
            servers=servers, name_parts=names,
        )  # fmt: skip

    @property
    def semantic(self) -> bool:
        """Whether semantic search is on for this index (``semantic=`` asked for it and the
        model loaded).

        Example:
            >>> ToolIndex([Tool(name="a", description="alpha")], semantic=False).semantic
            False
        """
        return self._semantic is not None

    def _lexical(self) -> ToolIndex:
        """This index with semantic search off (the same parts, shared): the lexical side of a
        hybrid search or an evaluation."""
        if self._semantic is None:
            return self
        view = copy.copy(self)
        view._semantic = None
        return view

    @property
    def names(self) -> NameTable:
        """The name table of ``select:`` and the exact-name tier, built on first use."""
        return self._lookups.names

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickle_tool_index, (self.to_bytes(), self.engine, self.semantic))

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The indexed tools, in the order given. On an index from :meth:`load` this decodes
        every tool not read yet (about 15 µs each); iterating, ``len`` and :meth:`get` do not."""
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
        n, engine, profile = len(self._tools), self.engine, self.profile
        extra = ", semantic=True" if self._semantic is not None else ""
        return f"ToolIndex(tools={n}, engine={engine!r}, profile={profile!r}{extra})"

    @property
    def profile(self) -> ProfileName:
        """The analysis profile the index was built with: ``"english"`` or ``"omp"``.

        Example:
            >>> ToolIndex([Tool(name="a", description="x")], profile="omp").profile
            'omp'
        """
        return self._index.profile  # type: ignore[return-value]

    #: ``search``'s one-call path with this index's arguments bound (a ``PlainSearch``), made
    #: on the first default search; ``False`` where it does not apply. Indexes are immutable.
    _plain: Any = None

    def _bind_plain(self, max_query_length: int, *prefix: Any) -> Any:
        """``Index.search_plain`` bound to this index: :func:`toolsift._index.calls.bind_plain`."""
        return calls.bind_plain(
            self.engine, self.field_weights, self._lookups, self._index, self._tools,
            max_query_length, *prefix,
        )  # fmt: skip

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
        abstain: bool = False,
        min_confidence: float | None = None,
    ) -> SearchResult:
        """The best tools for ``query``, best first, as a :class:`SearchResult` (the query
        language, filters and gates: the "Query language" page of the documentation).

        Arguments:
            query: ``select:A,B`` to fetch tools by name, or a keyword query in which ``+term``
                words are required; trimmed, and cut to ``max_query_length`` (500) characters.
            limit: how many matches at most: default 8 (5 with ``ranker="keyword"``), clamped
                to ``max_limit`` (25), and the result says so.
            exclude, servers: tool names to leave out; only these MCP servers' tools. Both act
                inside the engine before the cut, so the limit is still filled.
            ranker: ``"bm25"`` (BM25+), ``"keyword"`` (Claude Code ``ToolSearch``'s name-part
                scorer) or ``"regex"`` (a pattern, Anthropic ``tool_search_tool_regex``).
            exact_names: tools whose exact name the query contains come first
                (``reason="exact_name"``), before the cut; ``False`` turns the tier off.
            prefix_fraction, prefix_min_len, max_expansions: an unknown query term of at least
                ``prefix_min_len`` characters matches up to ``max_expansions`` terms starting
                with it, at ``prefix_fraction`` of the score (0.0 = off).
            threshold, relative_floor, coverage, normalize: the gates (a minimum score, a share
                of the best score, half of 4+ terms matched); fill :attr:`Match.normalized_score`.
            abstain, min_confidence: with semantic search on (:attr:`semantic`), a search
                whose :attr:`SearchResult.confidence` is below ``min_confidence`` (default
                :data:`toolsift.semantic.DEFAULT_MIN_CONFIDENCE`) returns no match and says so
                (:attr:`SearchResult.abstained`) when ``abstain`` is true. A query that names a
                tool (``select:``, the exact-name tier) never abstains; on the lexical path
                there is no confidence and no abstention. With semantic search on, the BM25+
                ranker fuses words and meaning (``ranker="keyword"`` and ``"regex"`` stay
                lexical); ``threshold``, ``relative_floor`` and ``coverage`` gate its BM25+
                side.

        Raises:
            QueryError: the query is empty after trimming, has no letter or number, or is
                ``select:`` without a name.
            PatternError: (``ranker="regex"``) the pattern is refused; ``position`` says where.
            LimitError: ``limit`` or ``max_limit`` is not a positive integer.
            ValueError: ``ranker`` is unknown, or a gate or prefix option is out of range.

        Example:
            >>> index = ToolIndex([Tool(name="read_file", description="Read a file")])
            >>> [(m.name, m.reason) for m in index.search("select:read_file")]
            [('read_file', 'select')]
        """
        # Every option as the signature gives it (the agents' call): the request depends on the
        # limit alone. `is` lets no equal value of another type through (True for 1, 8.0 for 8).
        defaults = (
            servers is None and exclude is _NO_EXCLUDE and ranker is _BM25 and exact_names is True
            and prefix_fraction is _PREFIX_FRACTION and prefix_min_len is _PREFIX_MIN_LEN
            and max_expansions is _MAX_EXPANSIONS and threshold is _ZERO
            and relative_floor is _ZERO_FLOOR and coverage is False and normalize is False
            and max_limit is _MAX_LIMIT and max_query_length is _MAX_QUERY_LENGTH
            and type(query) is str and (limit is None or type(limit) is int)
        )  # fmt: skip
        semantic = self._semantic
        if semantic is not None or abstain is not False or min_confidence is not None:
            if not isinstance(abstain, bool):
                raise TypeError(f"abstain must be a bool, got {type(abstain).__name__}")
            min_confidence = check_min_confidence(min_confidence)
            if semantic is not None and ranker == "bm25":
                asked: tuple[Any, ...] = (
                    exclude, servers, ranker, exact_names, prefix_fraction, prefix_min_len,
                    max_expansions, threshold, relative_floor, coverage, normalize, max_limit,
                    max_query_length,
                )  # fmt: skip
                return semantic.search(query, limit, asked, abstain, min_confidence)
        if defaults:
            request = calls.DEFAULT_REQUESTS.get(limit)
            if request is not None:
                # A plain query (no name, nothing to parse but a trim) on the Rust engine without
                # word pairs: one call (search_plain, its index arguments bound once: `_plain`);
                # None: the general path.
                plain = self._plain
                if plain is None:
                    plain = self._plain = self._bind_plain(
                        max_query_length, prefix_fraction, prefix_min_len, max_expansions
                    )
                if plain:
                    result = plain.search(request.plain_fields, query, request.limit)
                    if result is not None:
                        return result
                parsed = parse_query(query, max_length=max_query_length)
                return self._searcher.search_one(parsed, request)
        options = (
            exclude, servers, ranker, exact_names, prefix_fraction, prefix_min_len, max_expansions,
            threshold, relative_floor, coverage, normalize, max_limit, max_query_length,
        )  # fmt: skip
        return calls.search(self._searcher, self._regex, query, limit, options, defaults)

    def search_many(
        self, queries: Iterable[str], limit: int | None = None, **options: Unpack[SearchOptions]
    ) -> list[SearchResult]:
        """:meth:`search` for many queries with the same options, in one call: in query order,
        each result equal to what :meth:`search` returns for it. On the Rust engine the
        searches run in parallel on all cores with the GIL released. If queries fail, the error
        a loop of :meth:`search` calls would raise first is raised.

        Arguments:
            queries: the queries (an iterable of str, not a single str).
            limit, options: :meth:`search`'s limit and keyword options (the same names and
                defaults), applied to every query (``exclude`` and ``servers`` are read once).
                With semantic search on, the queries run one after another.

        Raises:
            TypeError: ``queries`` is a single str, or an option is not one of :meth:`search`'s;
                else as :meth:`search`.

        Example:
            >>> index = ToolIndex([Tool(name="get_weather", description="Weather for a city")])
            >>> [r[0].tool.name for r in index.search_many(["weather", "city weather"])]
            ['get_weather', 'get_weather']
        """
        given = keyword_options(options, _SEARCH_DEFAULTS, "search_many")
        abstain, min_confidence = given.pop("abstain"), given.pop("min_confidence")
        if self._semantic is not None or abstain is not False or min_confidence is not None:
            if isinstance(queries, str):
                raise TypeError("queries must be an iterable of str, not a single str")
            queries = list(queries)
            for key in ("exclude", "servers"):
                if not (given[key] is None or isinstance(given[key], str)):
                    given[key] = tuple(given[key])  # read once
            given.update(abstain=abstain, min_confidence=min_confidence)
            return [self.search(query, limit, **given) for query in queries]
        return calls.search_many(self.search, self._searcher, self._regex, queries, limit, given)

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
        """The per-term, per-field parts of the BM25+ score of ``tool`` (a tool or its name)
        for ``query``, parsed as :meth:`search` parses it (``+required`` words and a ``select:``
        query add nothing), as an :class:`~toolsift.explain.Explanation` whose ``score`` equals
        the one :meth:`search` gives the tool with the same options.

        Raises:
            KeyError: no tool has this name.
            QueryError: the query is empty or has no letter or number.

        Example:
            >>> index = ToolIndex([Tool(name="read_file", description="Read a file")])
            >>> index.explain("read", "read_file").score == index.search("read")[0].score
            True
        """
        return explain(
            self._tools, self._by_name, self._index, self.field_weights, query, tool,
            prefix_fraction, prefix_min_len, max_expansions, max_query_length,
        )  # fmt: skip

    @classmethod
    def from_records(
        cls,
        source: RecordSource,
        *,
        server: str | None = None,
        **options: Unpack[IndexOptions],
    ) -> ToolIndex:
        """The index of ``ToolIndex(load_tools(source, server=server), ...)`` (or
        ``load_catalog(path)``), same rankings, scores and errors, parsed and indexed in Rust:
        each :class:`Tool` made only when it is read (from a file, several times faster than
        ``load_catalog``; from dicts, as fast as ``load_tools``, in half the memory). Other
        formats, catalogues of servers and ``engine="python"`` go through the loaders. Dicts
        are read when their tool is first read: do not change them after the build. Errors
        are the loaders' (:class:`ToolDefinitionError`, :class:`CatalogError`, ...).

        Arguments:
            source: a list of tool definitions (dicts) or any document :func:`load_tools`
                reads; ``bytes`` of a JSON or JSON Lines catalogue (errors name them
                ``<bytes>``); or the path of a ``.json`` / ``.jsonl`` file.
            server: the MCP server of every item that names none itself.
            options: :class:`ToolIndex`'s keyword options (``engine``, ``k1``, ``b``,
                ``delta``, ``field_weights``, ``profile``, ``semantic``), the same defaults.

        Example:
            >>> index = ToolIndex.from_records(
            ...     [{"name": "read_file", "description": "Read a file from disk"}], server="fs"
            ... )
            >>> [m.name for m in index.search("read a file")]
            ['mcp__fs__read_file']
        """
        given = keyword_options(options, _INIT_DEFAULTS, "from_records")
        semantic = check_semantic(given.pop("semantic"))
        parts = build_records(source, server, given)
        if parts is not None:
            state = semantic_state(resolve(semantic), parts.tools, parts.engine)
            return cls._from_parts(parts, semantic=state)
        return cls(load_records(source, server), **given, semantic=semantic)

    def _rebuilt(self, tools: Iterable[Tool]) -> ToolIndex:
        """``ToolIndex(tools)`` with this index's options (engine, profile, field weights,
        parameters); with semantic search on, the vectors of tools it already holds unchanged
        are carried over and only the others are embedded."""
        k1, b, delta = self.params
        rebuilt = ToolIndex(
            tools, engine=self.engine, k1=k1, b=b, delta=delta,  # type: ignore[arg-type]
            field_weights=self.field_weights, profile=self.profile, semantic=False,
        )  # fmt: skip
        state = carried_state(self._semantic, self._tools, self._by_name, rebuilt._tools)
        if state is None:
            return rebuilt
        return type(self)._from_parts(rebuilt._parts(), None, rebuilt._by_name, state)


# The constructor's keyword defaults, for from_records' options.
_INIT_DEFAULTS: dict[str, Any] = ToolIndex.__init__.__kwdefaults__ or {}
# The signature's default objects, for the identity checks of search()'s default-options path
# (and search_many's options).
_SEARCH_DEFAULTS: dict[str, Any] = ToolIndex.search.__kwdefaults__ or {}
(_NO_EXCLUDE, _BM25, _PREFIX_FRACTION, _PREFIX_MIN_LEN, _MAX_EXPANSIONS, _ZERO, _ZERO_FLOOR,
 _MAX_LIMIT, _MAX_QUERY_LENGTH) = map(_SEARCH_DEFAULTS.__getitem__, (
    "exclude", "ranker", "prefix_fraction", "prefix_min_len", "max_expansions", "threshold",
    "relative_floor", "max_limit", "max_query_length"))  # fmt: skip


def _unpickle_tool_index(data: bytes, engine: str, semantic: bool = False) -> ToolIndex:
    """Unpickles a :class:`ToolIndex` on its engine, semantic search on if it was (module
    level: pickle finds it by name)."""
    return ToolIndex.from_bytes(data, engine=engine, semantic=semantic)  # type: ignore[arg-type]
