"""What a search returns: :class:`Match` (one ranked tool) and :class:`SearchResult` (the list).

A :class:`SearchResult` is an immutable sequence of matches, so ``result[0].tool``,
``len(result)`` and ``for match in result`` work as on a list, and it also says how the query was
understood: its kind (``select`` or ``keyword``), the effective limit, the names a ``select:``
query could not find (with suggestions), and human-readable notices when a cap was applied.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="read_file", description="Read a file")], engine="python")
    >>> result = index.search("select:read_file,reed_file")
    >>> [m.tool.name for m in result], result.missing, dict(result.suggestions)
    (['read_file'], ('reed_file',), {'reed_file': ('read_file',)})
"""

# ruff: noqa: UP007, UP045

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import FrozenInstanceError, dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal, Optional, TypeVar, Union, overload

from .tools import Tool

__all__ = ["Match", "MatchReason", "QueryKind", "SearchResult"]

_new = object.__new__

MatchReason = Literal["select", "exact_name", "bm25", "keyword", "regex", "semantic"]
QueryKind = Literal["select", "keyword"]

_Frozen = TypeVar("_Frozen", bound=type)


def _slotted(cls: _Frozen) -> _Frozen:
    """A frozen dataclass remade with ``__slots__`` for its fields (and ``__weakref__``) and no
    instance ``__dict__``, as ``dataclass(frozen=True, slots=True)`` remakes it on Python 3.10+
    (the package supports 3.9): a smaller object, made and freed faster, with the same fields,
    ``dataclasses`` functions, equality, hash, repr and frozen errors. It pickles through its
    constructor, and still reads pickles of the class made with an instance ``__dict__``.

    Example:
        >>> @_slotted
        ... @dataclass(frozen=True)
        ... class Pair:
        ...     left: int
        ...     right: int = 0
        >>> pair = Pair(1)
        >>> pair, hasattr(pair, "__dict__"), [f.name for f in fields(pair)]
        (Pair(left=1, right=0), False, ['left', 'right'])
    """
    names = tuple(f.name for f in fields(cls))
    body = {k: v for k, v in cls.__dict__.items() if k not in names + ("__dict__", "__weakref__")}
    body["__slots__"] = (*names, "__weakref__")

    def __setattr__(self: Any, name: str, value: Any) -> None:
        # The dataclass's own (made for the class without slots) names that class.
        if type(self) is slotted or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is slotted or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    def __reduce__(self: Any) -> tuple[Any, ...]:
        return (type(self), tuple(getattr(self, name) for name in names))

    def __setstate__(self: Any, state: Any) -> None:
        # A pickle of the class with an instance dict: ``{field: value}``.
        for name, value in state.items():
            object.__setattr__(self, name, value)

    for method in (__setattr__, __delattr__, __reduce__, __setstate__):
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        body[method.__name__] = method
    slotted: Any = type(cls)(cls.__name__, cls.__bases__, body)
    slotted.__qualname__ = cls.__qualname__
    return slotted  # type: ignore[no-any-return]


@_slotted
@dataclass(frozen=True)
class Match:
    """One ranked tool: a frozen dataclass whose fields are slots (no instance ``__dict__``).

    Attributes:
        tool: the matched tool.
        score: its score for the whole query: BM25+ for ``bm25`` and ``exact_name`` matches,
            Claude Code ``ToolSearch``'s keyword points for ``keyword`` matches, the regex
            ranker's field points plus ``1 / (2 + offset)`` for ``regex`` matches, the fused
            score (higher is better) for ``semantic`` matches, 0.0 for ``select`` matches.
        reason: why it is in the list: ``"select"`` (asked for by name in a ``select:`` query),
            ``"exact_name"`` (the query names it exactly), ``"bm25"``, ``"keyword"``,
            ``"regex"`` or ``"semantic"`` (ranked; ``"semantic"``: BM25+ fused with dense
            similarity, by an index with semantic search on).
        normalized_score: ``score`` divided by the best score of the result (the best is 1.0), when
            the search was made with ``normalize=True``; otherwise ``None``.
    """

    tool: Tool
    score: float
    reason: MatchReason = "bm25"
    normalized_score: Optional[float] = None

    @property
    def name(self) -> str:
        """The tool's canonical name."""
        return self.tool.name


# Each field's slot setter (its member descriptor's ``__set__``, as ``object.__setattr__``
# finds it, without the lookup).
_SET_TOOL, _SET_SCORE, _SET_REASON, _SET_NORMALIZED = (
    Match.__dict__[name].__set__ for name in ("tool", "score", "reason", "normalized_score")
)


def new_match(tool: Tool, score: float, reason: MatchReason) -> Match:
    """``Match(tool, score, reason)`` without the frozen dataclass's ``__init__`` (which sets each
    field through ``object.__setattr__``): the same object, built in about 60 % of the time.
    The search path makes one per ranked tool.

    Example:
        >>> tool = Tool(name="read_file", description="Read a file")
        >>> new_match(tool, 1.5, "bm25") == Match(tool, 1.5, "bm25")
        True
    """
    match = _new(Match)
    _SET_TOOL(match, tool)
    _SET_SCORE(match, score)
    _SET_REASON(match, reason)
    _SET_NORMALIZED(match, None)
    return match


def new_matches(
    tools: Sequence[Tool], hits: Iterable[tuple[int, float]], reason: MatchReason
) -> list[Match]:
    """``[new_match(tools[d], score, reason) for d, score in hits]``: a ranked list's matches.

    Example:
        >>> tool = Tool(name="read_file", description="Read a file")
        >>> [(m.name, m.score, m.reason) for m in new_matches([tool], [(0, 1.5)], "bm25")]
        [('read_file', 1.5, 'bm25')]
    """
    return [new_match(tools[d], score, reason) for d, score in hits]


def _frozen_suggestions(value: Mapping[str, tuple[str, ...]]) -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType({k: tuple(v) for k, v in value.items()})


@dataclass(frozen=True)
class SearchResult(Sequence[Match]):
    """The matches of one search, best first, and how the query was understood.

    It is an immutable ``Sequence[Match]``: index it, slice it (a tuple of matches), iterate it,
    take its ``len``; it compares equal to another result with the same fields.

    Attributes:
        query: the query as searched: trimmed, and cut to the query length cap.
        query_kind: ``"select"`` for a ``select:A,B`` lookup, else ``"keyword"``.
        limit: the effective limit, after clamping to the hard cap.
        matches: the ranked matches.
        missing: for a ``select:`` query, the asked names that match no tool, in the order asked.
        suggestions: for each missing name, up to three close tool names (may be empty; only
            the first five missing names of a query get any, the others ``()``).
        notices: human-readable remarks, e.g. ``"limit 100 clamped to 25"``.
        clamped: the requested limit was above the hard cap and was lowered.
        truncated: the query was longer than the query length cap and was cut.
        total_tools: how many tools the index holds.
        confidence: with semantic search on, how sure the search is that its best match fits
            the query, a calibrated 0..1 (1.0 when the query names a tool); ``None`` on the
            lexical path.
        abstained: the search was made with ``abstain=True`` and ``confidence`` was below the
            threshold (``min_confidence``): the result holds no matches.
    """

    query: str
    query_kind: QueryKind
    limit: int
    matches: tuple[Match, ...] = ()
    missing: tuple[str, ...] = ()
    suggestions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    notices: tuple[str, ...] = ()
    clamped: bool = False
    truncated: bool = False
    total_tools: int = 0
    confidence: Optional[float] = None
    abstained: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "matches", tuple(self.matches))
        object.__setattr__(self, "missing", tuple(self.missing))
        object.__setattr__(self, "notices", tuple(self.notices))
        object.__setattr__(self, "suggestions", _frozen_suggestions(self.suggestions))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles through the constructor (the suggestions as a plain dict: a read-only
        mapping proxy cannot be pickled), so results cross process boundaries
        (``multiprocessing``, ``concurrent.futures``)."""
        fields = dict(self.__dict__)
        fields["suggestions"] = dict(self.suggestions)
        return (_rebuild_result, (type(self), fields))

    @classmethod
    def _keyword(
        cls,
        query: str,
        limit: int,
        matches: tuple[Match, ...],
        notices: tuple[str, ...],
        clamped: bool,
        truncated: bool,
        total_tools: int,
    ) -> SearchResult:
        """A keyword query's result, built as ``SearchResult(...)`` builds it (same fields, no
        ``missing`` or ``suggestions``) without its ``__init__``/``__post_init__``: the arguments
        are already tuples."""
        fields = cls._keyword_fields(limit, notices, clamped)
        fields["truncated"] = truncated
        return cls._from_fields(fields, query, matches, total_tools)

    @staticmethod
    def _keyword_fields(limit: int, notices: tuple[str, ...], clamped: bool) -> dict[str, Any]:
        """A keyword query's result fields, in field order, with placeholders for the query's
        own (``query``, ``matches``, ``total_tools``; ``truncated`` False): for
        :meth:`_from_fields`, once per set of search options.

        Example:
            >>> fields = SearchResult._keyword_fields(8, (), False)
            >>> SearchResult._from_fields(fields, "read a file", (), 3).total_tools
            3
        """
        return {
            "query": "",
            "query_kind": "keyword",
            "limit": limit,
            "matches": (),
            "missing": (),
            "suggestions": MappingProxyType({}),
            "notices": notices,
            "clamped": clamped,
            "truncated": False,
            "total_tools": 0,
            "confidence": None,
            "abstained": False,
        }

    @classmethod
    def _from_fields(
        cls, fields: dict[str, Any], query: str, matches: tuple[Match, ...], total_tools: int
    ) -> SearchResult:
        """The result :meth:`_keyword` builds from the same values, from ``fields``
        (:meth:`_keyword_fields`) and the query's own: one dict copy and three stores (the
        search path makes one per query)."""
        result = _new(cls)
        values = result.__dict__
        values.update(fields)
        values["query"] = query
        values["matches"] = matches
        values["total_tools"] = total_tools
        return result

    @overload
    def __getitem__(self, index: int) -> Match: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Match, ...]: ...
    def __getitem__(self, index: Union[int, slice]) -> Union[Match, tuple[Match, ...]]:
        return self.matches[index]

    def __len__(self) -> int:
        return len(self.matches)

    def __iter__(self) -> Iterator[Match]:
        return iter(self.matches)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SearchResult):
            return (
                self.query,
                self.query_kind,
                self.limit,
                self.matches,
                self.missing,
                dict(self.suggestions),
                self.notices,
                self.clamped,
                self.truncated,
                self.total_tools,
                self.confidence,
                self.abstained,
            ) == (
                other.query,
                other.query_kind,
                other.limit,
                other.matches,
                other.missing,
                dict(other.suggestions),
                other.notices,
                other.clamped,
                other.truncated,
                other.total_tools,
                other.confidence,
                other.abstained,
            )
        if isinstance(other, (list, tuple)):
            # Lets existing code keep comparing a result with a list of matches (or ``== []``).
            return list(self.matches) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    @property
    def names(self) -> list[str]:
        """The canonical names of the matched tools, best first."""
        return [m.tool.name for m in self.matches]


def _rebuild_result(cls: type[SearchResult], fields: dict[str, Any]) -> SearchResult:
    """Unpickles a :class:`SearchResult` (see ``SearchResult.__reduce__``)."""
    return cls(**fields)
