"""Type stubs and user-facing documentation of the compiled engine, ``toolsift._core``.

Most users want :class:`toolsift.ToolIndex`, which builds an ``Index`` from :class:`toolsift.Tool`
objects. ``Index`` is the raw engine: documents are lists of ``(field id, text)`` pairs.
"""

import os
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Sequence, ValuesView
from typing import Any, Literal, SupportsIndex, TypeVar, final, overload

from .result import Match, MatchReason, SearchResult
from .tools import Tool

_Match = TypeVar("_Match")
_T = TypeVar("_T")

__all__ = [
    "DenseMatrix",
    "Index",
    "KeywordIndex",
    "RegexIndex",
    "NameKeys",
    "NameMap",
    "NameColumns",
    "NameColumn",
    "NamePositions",
    "ViewFilter",
    "PlainSearch",
    "SourceItems",
    "tokenize",
    "analyze",
    "STOPWORDS_EN",
    "_set_scoring_mode",
    "_set_search_parts",
    "_set_updates_apart",
    "_set_update_tuning",
    "_new_matches",
    "_untracked",
    "_composed_ids",
    "_spliced",
    "_new_ids",
    "_build_records",
    "_build_tools",
    "_new_tools",
    "_tracked",
    "_update_tools",
    "_tool_document",
    "_tool_positions",
    "_build_name_table",
    "__version__",
]

__version__: str

#: The ``"english"`` profile's query stop words, sorted (``toolsift._analysis.STOPWORDS_EN``).
STOPWORDS_EN: list[str]

def analyze(text: str, *, profile: str = "english", query: bool = False) -> list[str]:
    """The terms an index with ``profile`` makes of ``text``: its query terms (``query=True``),
    or its document terms, each plain term followed by its stemmed copy where the profile makes
    one (see ``toolsift._analysis``).

    Raises:
        ProfileError: ``profile`` names no profile.

    Example:
        >>> analyze("How do I read files?", query=True)
        ['read', '§read', 'files', '§file']
    """

def tokenize(text: str) -> list[str]:
    """Splits text into search terms exactly as the index does.

    NFKD, drop combining marks, split acronym/camelCase and lower-or-digit→Upper boundaries,
    every non-letter/non-number is a separator, lowercase (Unicode 14.0 tables, in both engines).

    Example:
        >>> tokenize("getHTTPResponse_v2")
        ['get', 'http', 'response', 'v', '2']
    """

def _set_search_parts(parts: int) -> None:
    """Force every pruned search to be cut into ``parts`` document ranges, searched in parallel
    and merged (``0``, the default: ranges only for large searches, one per core).

    For tests and benches only: every choice returns identical results.

    >>> from toolsift._core import _set_search_parts
    >>> _set_search_parts(0)
    """

def _set_updates_apart(apart: bool) -> None:
    """Whether a live update's engine work (``ToolIndex.with_tools``, a catalogue update) runs
    in a pool of its own with half the threads (``True``, the default: the searches that overlap
    it keep a core) or in the pool of searches and builds, on every thread (``False``).

    For benches only: both return identical results.

    >>> from toolsift._core import _set_updates_apart
    >>> _set_updates_apart(True)
    """

def _untracked(tools: tuple[_T, ...]) -> tuple[_T, ...]:
    """``tools`` (a tuple), no longer tracked by Python's cyclic garbage collector, so that no
    collection walks its items: an updated index's tuple of tools
    (``toolsift._index.build.untracked_tuple``).

    Raises:
        TypeError: ``tools`` is not a tuple (a subclass neither).

    >>> import gc
    >>> from toolsift._core import _untracked
    >>> gc.is_tracked(_untracked(tuple([[], []])))
    False
    """

def _composed_ids(through: bytes, ids: bytes) -> bytes:
    """Two id translations composed, each the bytes of an ``array("q")``: for each id of
    ``ids``, ``through[id]``, and -1 for a -1. A name table's remap after a catalogue update
    (``toolsift._names.table.NameTable.remapped``), in one pass.

    Raises:
        ValueError: a length that is not a whole number of 64-bit ids, an id below -1, or one
            past the end of ``through``.

    >>> from array import array
    >>> from toolsift._core import _composed_ids
    >>> array("q", _composed_ids(array("q", [5, 6, 7]).tobytes(), array("q", [2, -1, 0]).tobytes()))
    array('q', [7, -1, 5])
    """

def _set_update_tuning(*, nice: int | None = None, release_apart: bool | None = None) -> int:
    """The nice value of the threads of live updates (clamped to 0..=19; 10 by default, or the
    environment variable ``TOOLSIFT_UPDATE_NICE`` read once), and whether an index of 8,192
    tools or more is freed on those threads (``release_apart=True``, the default) or on the
    thread that drops it; returns the nice value now in force. A value left ``None`` is kept.

    For benches only: the results are the same either way.

    >>> from toolsift._core import _set_update_tuning
    >>> 0 <= _set_update_tuning() <= 19
    True
    """

def _spliced(
    items: tuple[_T, ...], drop: list[int], add: tuple[_T, ...], chunk: int = ...
) -> tuple[_T, ...]:
    """``items`` without the positions ``drop`` (strictly ascending), then ``add``, in one pass
    and not tracked by Python's cyclic garbage collector: an updated index's tuple of tools
    (``toolsift._snapshot.positions.spliced``). Filled ``chunk`` items (4,096 by default) per
    hold of the GIL, the GIL handed to waiting threads between chunks (0: in one hold); the
    same tuple either way.

    Raises:
        ValueError: a position of ``drop`` out of range or out of order.

    >>> from toolsift._core import _spliced
    >>> _spliced(("a", "b", "c"), [1], ("d",))
    ('a', 'c', 'd')
    """

def _new_ids(n: int, drop: list[int]) -> bytes:
    """For each of ``n`` positions, its position once ``drop`` (strictly ascending) is removed,
    or -1 for a removed one, as the bytes of an ``array("q")``
    (``toolsift._snapshot.positions.new_id_array``).

    Raises:
        ValueError: a position of ``drop`` out of range or out of order.

    >>> from array import array
    >>> from toolsift._core import _new_ids
    >>> array("q", _new_ids(4, [1, 2])).tolist()
    [0, -1, -1, 1]
    """

def _new_matches(
    cls: type[_Match], tools: Sequence[Any], hits: Iterable[tuple[int, float]], reason: str
) -> list[_Match]:
    """``toolsift.result.new_matches`` in one call: for each ``(id, score)`` of ``hits``, an
    object of ``cls`` (``toolsift.Match``) made by ``object.__new__`` with its fields ``tool``
    (``tools[id]``), ``score``, ``reason`` and ``normalized_score`` (None) set as
    ``object.__setattr__`` sets them (``Match``'s slots; any class's instance attributes).

    For ``toolsift.ToolIndex``'s result path only.

    >>> from toolsift import Match, Tool
    >>> from toolsift._core import _new_matches
    >>> [m.name for m in _new_matches(Match, [Tool(name="a", description="")], [(0, 1.0)], "bm25")]
    ['a']
    """

def _build_records(
    source: list[Any] | bytes,
    server: str | None,
    jsonl_first: bool,
    field_weights: list[float],
    k1: float,
    b: float,
    delta: float,
    profile: str,
) -> tuple[Index, NameColumns, SourceItems | None, str | None] | None:
    """The engine index of raw tool definitions: ``source`` is a list of tool dicts or a JSON /
    JSON Lines catalogue's bytes (``jsonl_first``: the file is named ``.jsonl``), read by
    ``toolsift.Tool``'s and the loaders' rules (MCP ``tools/list`` items and toolsift records).

    Returns ``(index, columns, items, server)``: the index, each tool's name fields (a
    :class:`NameColumns`), each item's JSON text (a :class:`SourceItems`; ``None`` for a list)
    and the server the items belong to; or ``None`` when ``source`` must be loaded
    by the Python loaders (another format, an invalid or duplicate definition).

    For ``toolsift.ToolIndex.from_records`` only.

    >>> from toolsift._core import _build_records
    >>> built = _build_records([{"name": "a"}], None, False, [1.0] * 10, 1.2, 0.75, 1.0, "omp")
    >>> list(built[1].names)
    ['a']
    """

def _build_tools(
    tools: Sequence[Tool],
    field_weights: list[float],
    k1: float,
    b: float,
    delta: float,
    profile: str,
) -> tuple[Index, tuple[NameMap, NameMap, NameKeys] | None]:
    """The engine index of ``toolsift.Tool`` objects: each tool's attributes are read here (no
    Python code runs per tool) into the record ``_build_records`` reads from JSON, and its
    document is made by the same Rust field extraction; documents are tokenized on the thread
    pool while the next ones are read. With it, the tools' name table as
    ``_build_name_table(tools)`` makes it, made on the pool beside the index's last step
    (``None`` where it could not be: the first search makes it). For ``toolsift.ToolIndex``
    only.

    Raises:
        AttributeError: an item is not a ``Tool``.
        ValueError: a parameter or field weight is out of range.
        ProfileError: ``profile`` names no profile.

    >>> from toolsift import Tool
    >>> from toolsift._core import _build_tools
    >>> index, names = _build_tools([Tool(name="a")], [1.0] * 11, 1.2, 0.75, 1.0, "omp")
    >>> len(index), dict(names[0].items())
    (1, {'a': 0})
    """

def _new_tools(
    cls: type[Tool],
    items: list[Any],
    servers: list[str | None],
    format: Literal["detect", "mcp", "record"],
) -> list[Tool] | None:
    """``toolsift.Tool`` objects of plain tool dicts, made in one call as the loaders make them:
    ``format`` ``"detect"`` reads each item as ``toolsift.load_tools`` does, ``"mcp"`` as
    ``from_mcp`` and ``"record"`` as ``from_records``; ``servers[i]`` is item ``i``'s server.
    Returns ``None`` when any item must be converted by the Python loaders (another format, a
    value ``Tool`` would reject or change) or two tools have the same name.

    A schema of plain JSON values is stored frozen, as its JSON text (``bytes``), with
    ``schema_keys`` left ``None``; ``Tool`` decodes both on first read
    (``toolsift._tool.lazy``), and such a tool is not tracked by the cyclic collector until then.

    For ``toolsift.loaders`` only.

    >>> from toolsift import Tool
    >>> from toolsift._core import _new_tools
    >>> [t.name for t in _new_tools(Tool, [{"name": "a"}], ["fs"], "detect")]
    ['mcp__fs__a']
    """

def _tracked(tool: _T) -> _T:
    """``tool``, tracked again by Python's cyclic garbage collector if it was not (a tool of
    ``_new_tools`` whose frozen schema was just decoded). For ``toolsift._tool.lazy`` only.

    >>> import gc
    >>> from toolsift._core import _tracked
    >>> gc.is_tracked(_tracked([]))
    True
    """

def _update_tools(index: Index, tools: Sequence[Tool], remove: Iterable[int] | None) -> Index:
    """``index.updated`` with the documents of ``tools`` (read as ``_build_tools`` reads them)
    appended and the documents ``remove`` removed; ``index`` is not changed. For
    ``toolsift.ToolIndex.with_tools`` only.

    >>> from toolsift import Tool
    >>> from toolsift._core import _build_tools, _update_tools
    >>> index = _build_tools([Tool(name="a")], [1.0] * 11, 1.2, 0.75, 1.0, "omp")[0]
    >>> _update_tools(index, [Tool(name="b")], [0]).names
    ['b']
    """

def _tool_positions(
    tools: tuple[Any, ...], cls: type[Tool]
) -> tuple[dict[str, int], dict[str, list[int]]] | int:
    """``toolsift._index.build.checked_tools``' maps of ``tools``, made in one call: each
    tool's position by name, and each server's tools' positions. The position of the first
    item that is not a ``cls``, or whose name an earlier tool has, instead (the caller then
    raises its error). For ``toolsift.ToolIndex`` only.

    >>> from toolsift import Tool
    >>> from toolsift._core import _tool_positions
    >>> _tool_positions((Tool(name="a"), Tool(name="mcp__s__b", server="s")), Tool)
    ({'a': 0, 'mcp__s__b': 1}, {'s': [1]})
    >>> _tool_positions((Tool(name="a"), Tool(name="a")), Tool)
    1
    """

def _tool_document(tool: Tool, field_weights: list[float]) -> list[tuple[int, str]]:
    """One tool's document as the Rust engine indexes it, ``(field id, text)`` pairs: the
    test of the pure-Python twin (``toolsift._text.documents.document``) compares it.

    >>> from toolsift import Tool
    >>> from toolsift._core import _tool_document
    >>> _tool_document(Tool(name="a", description="x"), [1.0] * 11)
    [(0, 'a'), (1, 'a'), (4, 'x'), (7, 'x')]
    """

def _build_name_table(tools: Iterable[Any] | NameColumns) -> tuple[NameMap, NameMap, NameKeys]:
    """A name table's parts from its tools (objects with ``name``, ``server`` and
    ``mcp_tool_name``, or a :class:`NameColumns`, read without an object per tool; a tool's id
    is its position), in one call: the plain and qualified maps
    of normalised name form to tool id (or ascending list of ids), with the items of the dicts
    ``toolsift._names.table.built_in_python`` makes, and their key sets, identifier marks
    included. The columns of an index built by ``ToolIndex.from_records`` hold the table its
    build made beside the index: the first call takes it instead of building it.

    >>> from toolsift import Tool
    >>> from toolsift._core import _build_name_table
    >>> tool = Tool(name="mcp__fs__read_file", server="fs", mcp_tool_name="read_file")
    >>> [dict(m.items()) for m in _build_name_table([tool])[:2]]
    [{'readfile': 0}, {'fsreadfile': 0}]
    """

def _set_scoring_mode(mode: Literal["auto", "exhaustive", "pruned"]) -> None:
    """Set the scoring path of every thread: ``"auto"`` (the default: exact pruning for queries
    with many postings), ``"exhaustive"`` or ``"pruned"`` (always prune).

    For tests and benches only: every path returns identical results (pruning is exact).
    Raises ``ValueError`` for another mode.

    >>> from toolsift._core import _set_scoring_mode
    >>> _set_scoring_mode("auto")
    """

@final
class Index:
    """An immutable BM25+ index over weighted-field documents.

    Arguments:
        names: one name per document; ties in score break by name, ascending (code point order).
        documents: per document, a sequence of ``(field id, text)`` pairs.
        field_weights: ``field_weights[f]`` is the weight of field ``f`` (finite, >= 0; a field of
            weight 0 is not scored, but required terms still find its words).
        k1: BM25 term-frequency saturation (>= 0). Default 1.2.
        b: length normalisation (0..1). Default 0.75.
        delta: BM25+ lower bound for a matched term (>= 0). Default 1.0.
        profile: the analysis profile, ``"omp"`` (the default here: the tokenizer's tokens) or
            ``"english"`` (CJK bigrams, stemmed copies, query stop words, distinct query terms;
            see ``toolsift._analysis``). Queries are analysed with the same profile.

    Raises:
        ValueError: mismatched lengths, an unknown field id, or a parameter out of range.
        ProfileError: ``profile`` names no profile.
        TypeError: a document that is not a sequence of ``(int, str)`` pairs.

    Example:
        >>> idx = Index(["read_file", "fetch"], [[(0, "read_file")], [(0, "fetch")]], [6.0])
        >>> idx.search("read", 5)
        [(0, 2.0...)]
    """

    def __new__(
        cls,
        names: Iterable[str],
        documents: Iterable[Sequence[tuple[int, str]]],
        field_weights: Sequence[float],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        delta: float = 1.0,
        profile: Literal["omp", "english"] = "omp",
    ) -> Index: ...
    def search(
        self,
        query: str,
        limit: int,
        exclude: Iterable[int] | None = None,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
        threshold: float = 0.0,
        relative_floor: float = 0.0,
        coverage: bool = False,
    ) -> list[tuple[int, float]]:
        """The top ``limit`` ``(document id, score)`` pairs for ``query``.

        Scores are BM25+ over the matched query terms only, > 0, sorted descending, then by name.
        Every option is applied before the cut, so the limit is still filled. The GIL is
        released while searching.

        Arguments:
            query: the text to rank by (tokenized by the engine).
            limit: how many pairs at most.
            exclude: document ids never returned.
            include: when given, only these document ids can be returned.
            required: terms (already tokenized) that a document must contain in some field,
                weight-0 fields included; they filter and add nothing to the score.
            prefix_fraction: a query term with no exact index term matches the index terms that
                start with it (the first ``max_expansions`` in lexicographic order, if it has at
                least ``prefix_min_len`` characters) and adds, per document, this fraction of the
                largest term score among its expansions. 0.0 = off.
            threshold: drop documents scoring below this.
            relative_floor: drop documents scoring below this fraction of the best (0..1).
            coverage: with 4+ distinct known query terms, a document must match half of them.

        Raises:
            toolsift.QueryError: the query has no letter or number.
            toolsift.LimitError: ``limit`` is not a positive int.
            ValueError: an option is out of range.

        Example:
            >>> idx = Index(["a", "b"], [[(0, "screenshot")], [(0, "screen")]], [1.0])
            >>> [d for d, _ in idx.search("screensh", 5, prefix_fraction=0.5)]
            [0]
        """
    def score_documents(
        self,
        query: str,
        docs: Sequence[int],
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
    ) -> list[tuple[int, float]]:
        """``(document id, score)`` for each of ``docs`` that the filters keep, in that order.

        Scores may be 0.0 (and ``query`` may have no term); the gates do not apply. The
        exact-name tier of ``ToolIndex`` orders the tools of a name with it.

        Example:
            >>> idx = Index(["a", "b"], [[(0, "x")], [(0, "y")]], [1.0])
            >>> [(d, s > 0) for d, s in idx.score_documents("x", [1, 0])]
            [(1, False), (0, True)]
        """
    def explain(
        self,
        query: str,
        doc: int,
        document: Iterable[tuple[int, str]],
        *,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
    ) -> list[tuple[str, str, bool, float, float, float, float, float, list[tuple[int, float]]]]:
        """Per matched query term of ``doc``: ``(term, matched index term, prefix?, qtf, idf, tf,
        norm, contribution, fields)``, in query order. The contributions summed left to right
        from 0.0 equal the score exactly. ``fields`` is what each field of ``document`` (the
        ``(field id, text)`` pairs ``doc`` was built from, analysed again with the index's
        profile) brought to ``tf``: ``(field id, occurrences × the field's weight)``, a stemmed
        copy's occurrences at half the weight, in the order the fields first bring it (fields
        of weight 0 bring nothing).

        Raises:
            IndexError: ``doc`` is out of range.

        Example:
            >>> doc = [(0, "read file"), (1, "read")]
            >>> idx = Index(["a"], [doc], [1.0, 2.0], profile="omp")
            >>> [(t[0], t[1], t[8]) for t in idx.explain("read", 0, doc)]
            [('read', 'read', [(0, 1.0), (1, 2.0)])]
        """
    def document_frequency(self, term: str) -> int:
        """Number of documents that contain ``term`` (an already tokenized term)."""
    def __len__(self) -> int: ...
    @property
    def profile(self) -> str:
        """The analysis profile the index was built with (``"omp"`` or ``"english"``)."""
    @property
    def vocabulary_size(self) -> int:
        """Number of distinct indexed terms."""
    @property
    def average_length(self) -> float:
        """Average weighted document length (1.0 for an empty index)."""
    @property
    def memory_bytes(self) -> int:
        """Approximate heap bytes held by the index."""

    # --- scale and concurrency: batch search, snapshots, live updates ---

    def search_matches(
        self,
        tools: Sequence[Tool],
        reason: MatchReason,
        query: str,
        limit: int,
        exclude: Iterable[int] | None = None,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
        threshold: float = 0.0,
        relative_floor: float = 0.0,
        coverage: bool = False,
    ) -> list[Match]:
        """:meth:`search`'s hits as ``toolsift.result.Match`` objects of ``tools[id]`` with
        ``reason``, built in the same call (the ranked list of ``ToolIndex.search``)."""
    def search_plain(
        self,
        tools: Sequence[Tool],
        keys: NameKeys,
        fields: dict[str, Any],
        query: str,
        limit: int,
        max_length: int,
        prefix_fraction: float,
        prefix_min_len: int,
        max_expansions: int,
    ) -> SearchResult | None:
        """``ToolIndex.search`` with every option at its default, parse to result in one call:
        ``None`` when the query needs the Python layer (not plain ASCII text, a ``+`` word,
        ``select:``, a quote, over ``max_length``, or it may name a tool in ``keys``)."""
    def search_view(
        self,
        tools: Sequence[Tool],
        keys: NameKeys,
        query: str,
        limit: int,
        max_length: int,
        view: ViewFilter,
    ) -> (
        tuple[
            str,
            tuple[Match, ...],
            tuple[str, ...],
            tuple[Match, ...],
            tuple[str, ...],
            ViewFilter | None,
            int,
        ]
        | None
    ):
        """A session view's search of a plain query that names no tool (as
        :meth:`search_plain` accepts it), in one scoring pass: ``(trimmed query, fresh, their
        names, already_active, their names, view extended by the fresh ids or None, ids not
        in view)``: the top ``limit`` without ``view``'s ids, and the ids of ``view`` that the
        top ``limit`` without exclusion holds, in rank order. ``None`` when the query needs the
        general path."""
    def search_plain_many(
        self,
        tools: Sequence[Tool],
        keys: NameKeys,
        fields: dict[str, Any],
        queries: list[str],
        limit: int,
        max_length: int,
        prefix_fraction: float,
        prefix_min_len: int,
        max_expansions: int,
    ) -> list[SearchResult | None]:
        """:meth:`search_plain` for each query, the searches in parallel with the GIL released:
        ``None`` for each query that needs the Python layer."""
    def search_many(
        self,
        queries: Iterable[str],
        limit: int,
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
        threshold: float = 0.0,
        relative_floor: float = 0.0,
        coverage: bool = False,
    ) -> list[list[tuple[int, float]]]:
        """:meth:`search` for every query, run in parallel on all cores with the GIL released.

        Arguments:
            queries: the queries, an iterable of ``str`` (a single ``str`` is refused).
            limit: how many hits per query at most (a positive int).
            exclude, include, required, prefix_fraction, prefix_min_len, max_expansions,
                threshold, relative_floor, coverage: as for :meth:`search`, applied to every
                query.

        Returns:
            One hit list per query, in query order, each exactly what ``search`` returns.

        Raises:
            TypeError: ``queries`` is a ``str`` or holds a non-``str``.
            toolsift.LimitError: ``limit`` is not a positive int.
            toolsift.QueryError: a query has no letter or number (the first one, in order).
            ValueError: an option is out of range.

        Example:
            >>> idx = Index(["read_file", "fetch"], [[(0, "read_file")], [(0, "fetch")]], [6.0])
            >>> [[d for d, _ in hits] for hits in idx.search_many(["read", "fetch"], 5)]
            [[0], [1]]
        """
    def to_bytes(self, metadata: bytes | None = None) -> bytes:
        """The index as a snapshot: versioned, checksummed, little-endian bytes.

        The layout is documented in ``rust/snapshot.rs`` and ``toolsift._snapshot``; both
        engines write identical bytes and read each other's. ``metadata`` is stored verbatim.

        Example:
            >>> idx = Index(["a"], [[(0, "alpha")]], [1.0])
            >>> Index.from_bytes(idx.to_bytes()).search("alpha", 1)[0][0]
            0
        """
    @overload
    @staticmethod
    def from_bytes(data: bytes | bytearray | memoryview) -> Index: ...
    @overload
    @staticmethod
    def from_bytes(
        data: bytes | bytearray | memoryview, *, with_metadata: Literal[False]
    ) -> Index: ...
    @overload
    @staticmethod
    def from_bytes(
        data: bytes | bytearray | memoryview, *, with_metadata: Literal[True]
    ) -> tuple[Index, bytes]:
        """An index from :meth:`to_bytes` output (either engine's); with ``with_metadata=True``,
        ``(index, metadata)``. IDF, average length and norms are recomputed exactly.

        Raises:
            toolsift.SnapshotError: truncated, corrupted (checksum or structure), wrong magic
                bytes, or a newer format version; the message says what to do.

        Example:
            >>> idx, meta = Index.from_bytes(Index([], [], []).to_bytes(b"v1"), with_metadata=True)
            >>> len(idx), meta
            (0, b'v1')
        """
    def save(self, path: str | os.PathLike[str], metadata: bytes | None = None) -> None:
        """Writes :meth:`to_bytes` to ``path`` atomically (temporary file, then rename).

        Example:
            >>> import os, tempfile
            >>> path = os.path.join(tempfile.mkdtemp(), "idx.tsift")
            >>> Index(["a"], [[(0, "alpha")]], [1.0]).save(path)
        """
    @overload
    @staticmethod
    def load(path: str | os.PathLike[str]) -> Index: ...
    @overload
    @staticmethod
    def load(path: str | os.PathLike[str], *, with_metadata: Literal[False]) -> Index: ...
    @overload
    @staticmethod
    def load(path: str | os.PathLike[str], *, with_metadata: Literal[True]) -> tuple[Index, bytes]:
        """Reads a file written by :meth:`save` (by either engine), with the GIL released.

        Raises:
            toolsift.SnapshotError: see :meth:`from_bytes`.
            OSError: the file cannot be read.

        Example:
            >>> import os, tempfile
            >>> path = os.path.join(tempfile.mkdtemp(), "idx.tsift")
            >>> Index(["a"], [[(0, "alpha")]], [1.0]).save(path)
            >>> len(Index.load(path))
            1
        """
    def updated(
        self,
        names: Iterable[str] | None = None,
        documents: Iterable[Sequence[tuple[int, str]]] | None = None,
        *,
        remove: Iterable[int] | None = None,
    ) -> Index:
        """A new index without the documents ``remove`` and with ``documents`` appended.

        Copy-on-write: this index is unchanged. The kept documents keep their order (and get
        new, consecutive ids) and the added ones follow in the order given; the result ranks
        and scores exactly like ``Index(kept + added)``. Only the added documents are tokenized.

        Raises:
            ValueError: a ``remove`` id is out of range, or an added document is invalid.

        Example:
            >>> idx = Index(["a", "b"], [[(0, "alpha")], [(0, "beta")]], [1.0])
            >>> idx.updated(["c"], [[(0, "gamma")]], remove=[0]).names
            ['b', 'c']
        """
    @property
    def names(self) -> list[str]:
        """The document names, in document order."""
    @property
    def params(self) -> tuple[float, float, float]:
        """``(k1, b, delta)``."""
    def __reduce__(self) -> tuple[object, ...]:
        """Pickles through :meth:`to_bytes`, for ``multiprocessing``."""

@final
class KeywordIndex:
    """Claude Code ``ToolSearch``'s keyword scorer: name part 10 (12 for MCP), part substring 5
    (6), search hint +4, description +2 (per distinct query term); score 0 dropped; score
    descending, then name.

    Arguments:
        names: one name per tool; ties in score break by name, ascending.
        parts: per tool, its lowercased name parts (``toolsift._keyword.keyword_name_parts``).
        mcp: per tool, whether it is an MCP tool.
        hints: per tool, its search hint ("" for none); matched by token.
        descriptions: per tool, its full description; matched by token.

    Example:
        >>> idx = KeywordIndex(["FileEdit"], [["file", "edit"]], [False], [""], ["Edit a file"])
        >>> idx.search("edit", 5)
        [(0, 12.0)]
    """

    def __new__(
        cls,
        names: Iterable[str],
        parts: Iterable[Sequence[str]],
        mcp: Sequence[bool],
        hints: Iterable[str],
        descriptions: Iterable[str],
    ) -> KeywordIndex: ...
    def search(
        self,
        query: str,
        limit: int,
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
    ) -> list[tuple[int, float]]:
        """The top ``limit`` ``(tool id, points)`` pairs; filters apply before the cut."""
    def __len__(self) -> int: ...

@final
class RegexIndex:
    """The regex ranker's index (Anthropic ``tool_search_tool_regex``-compatible): per tool its
    name, description, parameter names and parameter descriptions, lowercased (Unicode simple
    lowercase, ``toolsift._text.case_fold``).

    A search runs a pattern in the Rust ``regex`` crate's syntax over the lowercased texts
    (``toolsift._text.regex_pattern.translate`` writes a checked pattern as
    ``Pattern.rust``), in time linear in the text, with bounded memory. A tool scores the points of
    its first field with a match (name 4, description 3, parameter names 2, parameter descriptions
    1) plus
    ``1 / (2 + c)``, ``c`` the character offset of the leftmost match there; tools with no match
    are left out; score descending, then name.

    Arguments:
        names: one name per tool; ties in score break by name, ascending.
        descriptions: per tool, its description.
        parameter_names: per tool, its parameter names.
        parameter_descriptions: per tool, its parameter descriptions.

    Example:
        >>> idx = RegexIndex(["get_weather"], ["Weather for a city"], [["city"]], [[]])
        >>> idx.search("weather", 5)
        [(0, 4.166666666666667)]
    """

    def __new__(
        cls,
        names: Iterable[str],
        descriptions: Iterable[str],
        parameter_names: Iterable[Sequence[str]],
        parameter_descriptions: Iterable[Sequence[str]],
    ) -> RegexIndex: ...
    def search(
        self,
        pattern: str,
        limit: int,
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
    ) -> list[tuple[int, float]]:
        """The top ``limit`` ``(tool id, score)`` pairs; filters apply before the cut.

        Raises:
            PatternError: the pattern does not compile, or would exceed the size limits.
            LimitError: ``limit`` is not a positive integer.
        """
    def __len__(self) -> int: ...

@final
class DenseMatrix:
    """Tool vectors for ``toolsift.hybrid``'s dense search, stored by column: each similarity is
    summed in float32 in dimension order (``toolsift.hybrid._DenseColumns`` is the numpy twin,
    bit for bit). Vectors cross as the bytes of native float32 arrays, ids as uint32 bytes.

    Example:
        >>> import numpy as np
        >>> m = DenseMatrix(np.eye(3, dtype=np.float32).tobytes(), 3, 3)
        >>> m.top_k(np.array([0.0, 1.0, 0.0], dtype=np.float32).tobytes(), 2)
        [(1, 1.0), (0, 0.0)]
    """

    def __new__(
        cls, data: bytes, rows: int, dim: int, dtype: Literal["float32", "float16"] = "float32"
    ) -> DenseMatrix:
        """``data``: a C-ordered ``rows x dim`` array's bytes of ``dtype``, every value finite
        (``"float16"`` values are kept as float16: half the memory, the same similarities)."""
    @property
    def rows(self) -> int: ...
    @property
    def dim(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    def similarities(self, vector: bytes) -> bytes:
        """The float32 similarities of ``vector`` with every row, as bytes."""
    def similarities_many(self, vectors: bytes) -> bytes:
        """The float32 similarities of each of ``vectors`` (``dim`` float32 values each) with
        every row, ``rows`` values per vector, as bytes: one pass over the matrix."""
    def top_k(
        self, vector: bytes, k: int, exclude: bytes | None = None, only: bytes | None = None
    ) -> list[tuple[int, float]]:
        """The ``k`` most similar rows as ``(row, similarity)``, best first, then by row;
        ``exclude`` and ``only`` (``None``: every row) are uint32 bytes."""

@final
class ViewFilter:
    """The ids a session view leaves out of its searches (its visible tools) and its prefix
    options, made once per session state for :meth:`Index.search_view`.

    Example:
        >>> len(ViewFilter([3, 1, 3], 0.5, 3, 16).extended([7]))
        3
    """

    def __new__(
        cls, ids: Sequence[int], prefix_fraction: float, prefix_min_len: int, max_expansions: int
    ) -> ViewFilter: ...
    def extended(self, ids: Sequence[int]) -> ViewFilter:
        """This filter with ``ids`` left out too."""
    def __len__(self) -> int:
        """How many distinct ids it leaves out."""

@final
class NameMap:
    """Normalised name forms → tool ids (an id, or an ascending list of ids), read-only: a name
    table's dict in compact form (the keys in one buffer, the ids as 32-bit integers).

    Example:
        >>> from toolsift import Tool
        >>> plain = _build_name_table([Tool(name="read_file"), Tool(name="readFile")])[0]
        >>> plain.get("readfile"), "send" in plain, len(plain)
        ([0, 1], False, 1)
    """

    def __len__(self) -> int: ...
    def __contains__(self, key: object, /) -> bool: ...
    def __getitem__(self, key: str, /) -> int | list[int]: ...
    def get(self, key: str, default: Any = None) -> int | list[int] | None:
        """The ids of ``key``, or ``default``."""
    def __iter__(self) -> Iterator[str]:
        """The keys, in the order they were added."""
    def keys(self) -> KeysView[str]: ...
    def items(self) -> ItemsView[str, int | list[int]]: ...
    def values(self) -> ValuesView[int | list[int]]: ...
    def __sizeof__(self) -> int:
        """The bytes held, the buffers included."""

@final
class NameColumns:
    """The name, server and raw MCP name of every tool of an index, packed in one buffer per
    column (each distinct server once; a raw MCP name that ends its tool's name as an offset),
    read as sequences that make a fresh ``str`` per read; see ``toolsift._snapshot.name_columns``.

    Example:
        >>> c = NameColumns(["mcp__fs__read_file", "plan"], ["fs", None], ["read_file", None])
        >>> c.mcp_tool_names[0], c.servers[-1], c.positions["plan"], len(c)
        ('read_file', None, 1, 2)

    Raises:
        IndexError: the columns have different lengths.
        UnicodeEncodeError: a string holds a lone surrogate.
    """

    def __new__(
        cls,
        names: Iterable[str],
        servers: Iterable[str | None],
        mcp_tool_names: Iterable[str | None],
    ) -> NameColumns: ...
    def __len__(self) -> int: ...
    def take(
        self,
        keep: Sequence[int],
        names: Iterable[str],
        servers: Iterable[str | None],
        mcp_tool_names: Iterable[str | None],
    ) -> NameColumns:
        """The tools at positions ``keep`` (in that order), then the tools given."""
    @property
    def names(self) -> NameColumn:
        """The names, by position."""
    @property
    def servers(self) -> NameColumn:
        """The servers (``str`` or ``None``), by position."""
    @property
    def mcp_tool_names(self) -> NameColumn:
        """The raw MCP names (``str`` or ``None``), by position."""
    @property
    def positions(self) -> NamePositions:
        """Name -> position (the last tool of that name)."""
    def __sizeof__(self) -> int:
        """The bytes held, the buffers included."""
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class NameColumn:
    """One column of a :class:`NameColumns`: a read-only sequence (``str``, or ``None`` for a
    tool with no server or raw MCP name); a slice is a ``list``.

    Example:
        >>> NameColumns(["a", "b"], [None, "s"], [None, None]).servers[:]
        [None, 's']
    """

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, i: SupportsIndex, /) -> Any: ...
    @overload
    def __getitem__(self, i: slice, /) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class NamePositions:
    """A :class:`NameColumns`' name -> position mapping, read-only, in name order (the hash
    table is made on the first lookup).

    Example:
        >>> NameColumns(["a", "b"], [None, None], [None, None]).positions.get("b")
        1
    """

    def __len__(self) -> int:
        """The number of distinct names."""
    def __contains__(self, key: object, /) -> bool: ...
    def __getitem__(self, key: str, /) -> int: ...
    def get(self, key: str, default: Any = None) -> Any:
        """The position of ``key``, or ``default``."""
    def __iter__(self) -> Iterator[str]:
        """The names, each once, in the order of their first tool."""
    def keys(self) -> KeysView[str]: ...
    def items(self) -> ItemsView[str, int]: ...
    def values(self) -> ValuesView[int]: ...

@final
class SourceItems:
    """The JSON text of each tool of an index built from a catalogue's bytes
    (``toolsift.ToolIndex.from_records``), kept compressed (zstd frames of 64 tools), so that
    a ``Tool`` is made from it only when read.

    Example:
        >>> from toolsift._core import _build_records
        >>> built = _build_records(b'{"name": "a"}\n{"name": "b"}', None, True, [1.0] * 10,
        ...                        1.2, 0.75, 1.0, "omp")
        >>> items = built[2]
        >>> len(items), items.item(1)
        (2, b'{"name": "b"}')
    """

    def __len__(self) -> int: ...
    def item(self, i: int) -> bytes:
        """The JSON text of item ``i``.

        Raises:
            IndexError: ``i`` is past the last item.
        """
    @property
    def nbytes(self) -> int:
        """The bytes held on the heap (the compressed blocks and where each ends)."""

@final
class NameKeys:
    """The normalised name forms of an index's tools (``plain``: names and raw MCP names;
    ``qualified``: server + tool), for the exact-name tier's common-case proof
    (``toolsift._names.find.NameFinder.names_none``).

    Example:
        >>> NameKeys(["search"], []).names_none("search the web for news and more words")
        ['search']
        >>> NameKeys(["readfile"], []).names_none("call read_file on it and more words")
    """

    def __new__(
        cls,
        plain: Iterable[str],
        qualified: Iterable[str],
        tools: Sequence[Any] | None = None,
    ) -> NameKeys:
        """``tools`` (objects with ``name`` and ``mcp_tool_name``; ``plain`` and ``qualified``
        then dicts of key to tool id or list of ids) marks the keys that may be squashed
        identifier names, for ``Index.search_plain``."""
    def names_none(self, text: str) -> list[str] | None:
        """``None`` when ``text`` may name a tool (non-ASCII text, the whole text is a name, or a
        word whose key is a name is written like an identifier); else the keys of at least 6
        characters it holds, which name no tool unless one is a squashed identifier name."""
    def with_tools(self, tools: Iterable[Any]) -> NameKeys:
        """These key sets with the name forms of ``tools`` added (objects with ``name``,
        ``server`` and ``mcp_tool_name``), identifier marks included, in time proportional to
        ``tools``: the new key sets share this one's (an updated name table's)."""
    def __len__(self) -> int:
        """The number of key hashes held (a key of the base and of the added layer twice)."""

@final
class PlainSearch:
    """:meth:`Index.search_plain` with one index's arguments bound (its tools and name keys,
    the query length cap and the prefix options), for ``ToolIndex.search``'s common call.

    Example:
        >>> from toolsift import Tool, ToolIndex
        >>> index = ToolIndex([Tool(name="get_weather", description="Current weather")])
        >>> fields = {"query": "", "query_kind": "keyword", "limit": 8, "matches": (),
        ...           "missing": (), "suggestions": {}, "notices": (), "clamped": False,
        ...           "truncated": False, "total_tools": 0, "confidence": None,
        ...           "abstained": False}
        >>> bound = PlainSearch(index._index, index._tools, index.names.keys, 500, 0.5, 3, 16)
        >>> bound.search(fields, "current weather in a city", 8).names
        ['get_weather']
    """

    def __new__(
        cls,
        index: Index,
        tools: Sequence[Tool],
        keys: NameKeys,
        max_length: int,
        prefix_fraction: float,
        prefix_min_len: int,
        max_expansions: int,
    ) -> PlainSearch: ...
    def search(self, fields: dict[str, Any], query: str, limit: int) -> SearchResult | None:
        """``index.search_plain(tools, keys, fields, query, limit, max_length, *prefix)``."""
