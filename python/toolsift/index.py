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
import json
import os
import threading
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from . import _fallback
from .errors import DuplicateToolError, EngineUnavailableError, LimitError, SnapshotError
from .names import NameTable
from .query import DEFAULT_MAX_QUERY_LENGTH, ParsedQuery, parse_query
from .result import Match, SearchResult
from .tools import Tool

if TYPE_CHECKING:
    from ._engine import EngineIndex

__all__ = [
    "FieldWeights",
    "Match",
    "SearchResult",
    "ToolIndex",
    "EngineName",
    "available_engines",
]

EngineName = Literal["auto", "rust", "python"]

DEFAULT_LIMIT = 8
#: A larger ``limit`` is clamped to this (seed 001's hard cap), and the result says so.
DEFAULT_MAX_LIMIT = 25


@dataclass(frozen=True)
class FieldWeights:
    """How much one token of each field adds to a tool's term frequency (seed 000's weights).

    A weight of 0 leaves the field out of the index. ``search_hint`` (seed 001's curated phrase)
    and ``description`` (whose first 200 characters are already the summary) are toolsift's own.

    Example:
        >>> FieldWeights(summary=3.0).summary
        3.0
    """

    name: float = 6.0
    label: float = 4.0
    server: float = 2.0
    mcp_tool_name: float = 4.0
    summary: float = 2.0
    schema_key: float = 1.0
    search_hint: float = 4.0
    description: float = 0.0
    title: float = 0.0

    def as_list(self) -> list[float]:
        return [float(getattr(self, f.name)) for f in dataclasses.fields(self)]


# Field ids: positions in FieldWeights, in the order the seed builds its document.
_NAME, _LABEL, _SERVER, _MCP, _SUMMARY, _KEY, _HINT, _DESCRIPTION, _TITLE = range(9)


def _document(tool: Tool, weights: list[float]) -> list[tuple[int, str]]:
    """A tool's indexed fields as ``(field id, text)`` pairs; weight-0 fields are left out."""
    fields: list[tuple[int, str]] = [(_NAME, tool.name), (_LABEL, tool.display_label)]
    if tool.server:
        fields.append((_SERVER, tool.server))
    if tool.server and tool.mcp_tool_name:
        fields.append((_MCP, tool.mcp_tool_name))
    fields.append((_SUMMARY, tool.display_summary))
    fields.extend((_KEY, key) for key in tool.schema_keys)
    if tool.search_hint:
        fields.append((_HINT, tool.search_hint))
    if weights[_DESCRIPTION]:
        fields.append((_DESCRIPTION, tool.description))
    if tool.title and weights[_TITLE]:
        fields.append((_TITLE, tool.title))
    return [(f, text) for f, text in fields if text and weights[f]]


_warned_fallback = False
_warn_lock = threading.Lock()


def _rust_index_class() -> type[EngineIndex] | None:
    try:
        from . import _core
    except ImportError:
        return None
    return _core.Index


def available_engines() -> list[str]:
    """The engines that can run here: ``["rust", "python"]``, or ``["python"]`` without Rust."""
    return ["rust", "python"] if _rust_index_class() is not None else ["python"]


def _select_engine(engine: str) -> tuple[str, type[EngineIndex]]:
    global _warned_fallback
    if engine == "python":
        return "python", _fallback.Index
    if engine not in ("auto", "rust"):
        raise ValueError(f"engine must be 'auto', 'rust' or 'python', got {engine!r}")
    cls = _rust_index_class()
    if cls is not None:
        return "rust", cls
    if engine == "rust":
        raise EngineUnavailableError(
            "The Rust engine (toolsift._core) cannot be loaded. Reinstall toolsift from a wheel, "
            "or build it with a Rust toolchain (`pip install .`), or pass engine='python'."
        )
    with _warn_lock:
        if not _warned_fallback:
            _warned_fallback = True
            warnings.warn(
                "toolsift: the Rust extension (toolsift._core) could not be loaded; using the "
                "pure-Python engine, which ranks identically but is about 100x slower.",
                RuntimeWarning,
                stacklevel=3,
            )
    return "python", _fallback.Index


class ToolIndex:
    """A searchable, immutable index of tools.

    Arguments:
        tools: the tools to index; canonical names must be unique.
        engine: ``"rust"``, ``"python"``, or ``"auto"`` (Rust, falling back to Python with one
            ``RuntimeWarning`` when the extension cannot be loaded).
        k1, b, delta: BM25+ parameters (defaults 1.2, 0.75, 1.0).
        field_weights: per-field weights; defaults to :class:`FieldWeights`.

    Raises:
        DuplicateToolError: two tools share a name.
        EngineUnavailableError: ``engine="rust"`` without the compiled extension.

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
        delta: float = 1.0,
        field_weights: FieldWeights | None = None,
    ) -> None:
        self._tools: tuple[Tool, ...] = tuple(tools)
        self._by_name: dict[str, int] = {}
        self._by_server: dict[str, list[int]] = {}
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
                self._by_server.setdefault(tool.server, []).append(i)
        self._name_table: NameTable | None = None
        self._name_lock = threading.Lock()
        self.field_weights = field_weights if field_weights is not None else FieldWeights()
        weights = self.field_weights.as_list()
        self.engine, cls = _select_engine(engine)
        self._index: EngineIndex = cls(
            [t.name for t in self._tools],
            [_document(t, weights) for t in self._tools],
            weights,
            k1=k1,
            b=b,
            delta=delta,
        )
        self.params = (float(k1), float(b), float(delta))

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The indexed tools, in the order given."""
        return self._tools

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
        return f"ToolIndex(tools={len(self._tools)}, engine={self.engine!r})"

    @property
    def names(self) -> NameTable:
        """The name table of ``select:`` and the exact-name tier, built on first use."""
        table = self._name_table
        if table is None:
            with self._name_lock:
                table = self._name_table
                if table is None:
                    table = self._name_table = NameTable(self._tools)
        return table

    def _allowed(self, servers: Iterable[str] | None) -> set[int] | None:
        """Tool ids on the given servers (``None``: no filter). Unknown servers match nothing."""
        if servers is None:
            return None
        if isinstance(servers, str):
            servers = (servers,)
        allowed: set[int] = set()
        for server in servers:
            allowed.update(self._by_server.get(server, ()))
        return allowed

    def search(
        self,
        query: str,
        limit: int = DEFAULT_LIMIT,
        *,
        exclude: Iterable[str] = (),
        servers: Iterable[str] | None = None,
        max_limit: int = DEFAULT_MAX_LIMIT,
        max_query_length: int = DEFAULT_MAX_QUERY_LENGTH,
    ) -> SearchResult:
        """The best tools for ``query``, best first, as a :class:`SearchResult`.

        Arguments:
            query: ``select:A,B`` to fetch tools by name, or a keyword query (``+term`` words
                are required); trimmed first, and cut to ``max_query_length`` characters.
            limit: how many matches at most (a positive int). Default 8. Above ``max_limit`` it
                is clamped, and the result says so.
            exclude: tool names to leave out (for example the already active ones); they are
                removed before the cut, so the limit is still filled. ``select:`` ignores it.
            servers: only tools of these MCP servers (exact server names), applied before the
                cut; a ``select:`` name outside them is ``missing``.
            max_limit: the hard cap on ``limit`` (default 25); ``select:`` returns at most this.
            max_query_length: the query length cap in characters (default 500).

        Raises:
            QueryError: the query is empty after trimming, has no letter or number, or is
                ``select:`` without a name.
            LimitError: ``limit`` or ``max_limit`` is not a positive integer.
        """
        if not isinstance(query, str):
            parse_query(query)  # raises the QueryError
        _fallback.check_limit(limit)
        _fallback.check_limit(max_limit)
        if isinstance(max_query_length, bool) or not isinstance(max_query_length, int):
            raise TypeError("max_query_length must be an int")
        parsed = parse_query(query, max_length=max(1, max_query_length))
        notices: list[str] = []
        clamped = limit > max_limit
        if clamped:
            notices.append(f"limit {limit} clamped to {max_limit}")
            limit = max_limit
        if parsed.truncated:
            notices.append(f"query cut to {max_query_length} characters")
        allowed = self._allowed(servers)
        if parsed.kind == "select":
            return self._select(parsed, limit, max_limit, allowed, notices, clamped)
        excluded = {self._by_name[n] for n in exclude if n in self._by_name}
        if allowed is not None:
            excluded.update(i for i in range(len(self._tools)) if i not in allowed)
        hits = self._index.search(parsed.text, limit, sorted(excluded) or None)
        tools = self._tools
        return SearchResult(
            query=parsed.query,
            query_kind="keyword",
            limit=limit,
            matches=tuple(Match(tools[doc], score, "bm25") for doc, score in hits),
            notices=tuple(notices),
            clamped=clamped,
            truncated=parsed.truncated,
            total_tools=len(tools),
        )

    def _select(
        self,
        parsed: ParsedQuery,
        limit: int,
        max_limit: int,
        allowed: set[int] | None,
        notices: list[str],
        clamped: bool,
    ) -> SearchResult:
        table = self.names
        tools = self._tools
        seen: set[int] = set()
        matches: list[Match] = []
        missing: list[str] = []
        suggestions: dict[str, tuple[str, ...]] = {}
        for name in parsed.names:
            ids = [i for i in table.lookup(name) if allowed is None or i in allowed]
            if not ids:
                missing.append(name)
                suggestions[name] = self._suggest(name, allowed)
                continue
            for i in ids:
                if i not in seen:
                    seen.add(i)
                    matches.append(Match(tools[i], 0.0, "select"))
        if len(matches) > max_limit:
            notices.append(f"select: {len(matches)} tools found, returned the first {max_limit}")
            del matches[max_limit:]
        return SearchResult(
            query=parsed.query,
            query_kind="select",
            limit=limit,
            matches=tuple(matches),
            missing=tuple(missing),
            suggestions=suggestions,
            notices=tuple(notices),
            clamped=clamped,
            truncated=parsed.truncated,
            total_tools=len(tools),
        )

    def _suggest(self, name: str, allowed: set[int] | None) -> tuple[str, ...]:
        """Up to three "did you mean" names for a ``select:`` name that matched nothing."""
        try:
            hits = self._index.search(name, 20)
        except LimitError:  # pragma: no cover - 20 is a valid limit
            hits = []
        except ValueError:  # the name has no letter or number: no candidates from the engine
            hits = []
        candidates = [doc for doc, _ in hits if allowed is None or doc in allowed]
        suggestions = self.names.suggest(name, candidates)
        if allowed is not None:
            suggestions = tuple(
                s for s in suggestions if any(i in allowed for i in self.names.lookup(s))
            )
        return suggestions

    # --- scale and concurrency (issue 6): batch search, snapshots, live updates ---

    def search_many(
        self,
        queries: Iterable[str],
        limit: int = DEFAULT_LIMIT,
        *,
        exclude: Iterable[str] = (),
        servers: Iterable[str] | None = None,
        max_limit: int = DEFAULT_MAX_LIMIT,
        max_query_length: int = DEFAULT_MAX_QUERY_LENGTH,
    ) -> list[SearchResult]:
        """:meth:`search` for many queries with the same options, in one call.

        The keyword queries run on the engine's ``search_many``: in parallel on all cores with
        the GIL released on the Rust engine. The results are in query order and each equals
        what :meth:`search` returns for that query; if queries fail, the error a loop of
        :meth:`search` calls would raise first is raised.

        Arguments:
            queries: the queries (an iterable of str, not a single str).
            limit, exclude, servers, max_limit, max_query_length: as for :meth:`search`.

        Raises:
            QueryError: a query is invalid (see :meth:`search`).
            LimitError: ``limit`` or ``max_limit`` is not a positive integer.

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
        if not isinstance(queries[0], str):
            parse_query(queries[0])  # raises the QueryError, as search() would first
        _fallback.check_limit(limit)
        _fallback.check_limit(max_limit)
        if isinstance(max_query_length, bool) or not isinstance(max_query_length, int):
            raise TypeError("max_query_length must be an int")
        parsed: list[ParsedQuery] = []
        failure: Exception | None = None
        for query in queries:
            try:
                parsed.append(parse_query(query, max_length=max(1, max_query_length)))
            except Exception as exc:  # raised after the earlier queries' engine errors
                failure = exc
                break
        clamped = limit > max_limit
        base_notices = [f"limit {limit} clamped to {max_limit}"] if clamped else []
        if clamped:
            limit = max_limit
        allowed = self._allowed(servers)
        excluded = {self._by_name[n] for n in exclude if n in self._by_name}
        if allowed is not None:
            excluded.update(i for i in range(len(self._tools)) if i not in allowed)
        keyword = [p.text for p in parsed if p.kind != "select"]
        hits = iter(self._index.search_many(keyword, limit, sorted(excluded) or None))
        if failure is not None:
            raise failure
        tools = self._tools
        results: list[SearchResult] = []
        for p in parsed:
            notices = list(base_notices)
            if p.truncated:
                notices.append(f"query cut to {max_query_length} characters")
            if p.kind == "select":
                results.append(self._select(p, limit, max_limit, allowed, notices, clamped))
                continue
            results.append(
                SearchResult(
                    query=p.query,
                    query_kind="keyword",
                    limit=limit,
                    matches=tuple(Match(tools[doc], score, "bm25") for doc, score in next(hits)),
                    notices=tuple(notices),
                    clamped=clamped,
                    truncated=p.truncated,
                    total_tools=len(tools),
                )
            )
        return results

    @classmethod
    def _from_parts(
        cls,
        tools: tuple[Tool, ...],
        engine: str,
        index: EngineIndex,
        field_weights: FieldWeights,
        params: tuple[float, float, float],
    ) -> ToolIndex:
        self = cls.__new__(cls)
        self._tools = tools
        self._by_name = {tool.name: i for i, tool in enumerate(tools)}
        self._by_server = {}
        for i, tool in enumerate(tools):
            if tool.server is not None:
                self._by_server.setdefault(tool.server, []).append(i)
        self._name_table = None
        self._name_lock = threading.Lock()
        self.field_weights = field_weights
        self.engine = engine
        self._index = index
        self.params = params
        return self

    def to_bytes(self) -> bytes:
        """The index, its tools, parameters and field weights as snapshot bytes.

        The bytes are the engine snapshot (see ``toolsift._snapshot``) with the tools stored as
        JSON in its metadata section; both engines read and write the same format.

        Example:
            >>> index = ToolIndex([Tool(name="get_weather", description="Weather for a city")])
            >>> ToolIndex.from_bytes(index.to_bytes()).search("weather")[0].name
            'get_weather'
        """
        meta = {
            "format": _SNAPSHOT_KIND,
            "version": 1,
            "field_weights": dataclasses.asdict(self.field_weights),
            "tools": [tool.to_dict() for tool in self._tools],
        }
        blob = json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return self._index.to_bytes(blob)

    @classmethod
    def from_bytes(cls, data: bytes, *, engine: EngineName = "auto") -> ToolIndex:
        """Loads :meth:`to_bytes` output (written by either engine) without re-tokenizing.

        Raises:
            SnapshotError: the data is truncated, corrupted, of a newer format version, or not a
                ToolIndex snapshot.
        """
        name, engine_cls = _select_engine(engine)
        loader: Any = engine_cls  # from_bytes is static (Rust) or a class method (Python)
        index, blob = loader.from_bytes(data, with_metadata=True)
        try:
            meta = json.loads(bytes(blob).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            meta = None
        if not isinstance(meta, dict) or meta.get("format") != _SNAPSHOT_KIND:
            raise SnapshotError(
                "This index snapshot holds no tools (it was saved by Index.save(), not "
                "ToolIndex.save()). Load it with toolsift._core.Index.load(), or save a ToolIndex."
            )
        if not isinstance(meta.get("version"), int) or meta["version"] > 1:
            raise SnapshotError(
                f"The ToolIndex snapshot has tool-section version {meta.get('version')!r}, "
                "newer than this toolsift reads. Upgrade toolsift, or rebuild the index and save "
                "it again."
            )
        try:
            tools = tuple(Tool.from_dict(record) for record in meta["tools"])
            weights = FieldWeights(**meta["field_weights"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SnapshotError(
                f"The ToolIndex snapshot's tool section is invalid ({exc}). Rebuild the index "
                "and save it again."
            ) from None
        if len(tools) != len(index) or any(t.name != n for t, n in zip(tools, index.names)):
            raise SnapshotError(
                "The ToolIndex snapshot's tools do not match its index. Rebuild the index and "
                "save it again."
            )
        return cls._from_parts(tools, name, index, weights, tuple(index.params))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes :meth:`to_bytes` to ``path`` atomically (a temporary file, then a rename), so a
        gateway can build once and every worker :meth:`load` s it in milliseconds.

        Example:
            >>> import os, tempfile
            >>> path = os.path.join(tempfile.mkdtemp(), "tools.tsift")
            >>> ToolIndex([Tool(name="get_weather", description="Weather")]).save(path)
            >>> len(ToolIndex.load(path))
            1
        """
        from ._snapshot import write_atomic

        write_atomic(path, self.to_bytes())

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, engine: EngineName = "auto") -> ToolIndex:
        """Reads a file written by :meth:`save` (by either engine).

        Raises:
            SnapshotError: the file is truncated, corrupted or of a newer format version.
            OSError: the file cannot be read.
        """
        with open(path, "rb") as fh:
            data = fh.read()
        return cls.from_bytes(data, engine=engine)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickle_tool_index, (self.to_bytes(), self.engine))

    def with_tools(self, add: Iterable[Tool] = (), remove: Iterable[str] = ()) -> ToolIndex:
        """A new index with ``add`` added and the tools named in ``remove`` removed; this one is
        not changed (copy-on-write), so searches running on other threads are unaffected.

        A tool in ``add`` whose name is already indexed replaces that tool. The new index lists
        the kept tools in their previous order, then ``add`` in the order given, and ranks
        exactly like ``ToolIndex(kept + add)`` (same IDF, average length and scores); only the
        added tools are tokenized.

        Raises:
            KeyError: a name in ``remove`` is not indexed.
            DuplicateToolError: two tools in ``add`` share a name.

        Example:
            >>> index = ToolIndex([Tool(name="a", description="alpha")])
            >>> [t.name for t in index.with_tools(add=[Tool(name="b", description="beta")])]
            ['a', 'b']
        """
        add = tuple(add)
        seen: dict[str, int] = {}
        for i, tool in enumerate(add):
            if not isinstance(tool, Tool):
                raise TypeError(f"add[{i}] must be a toolsift.Tool, got {type(tool).__name__}")
            if tool.name in seen:
                raise DuplicateToolError(
                    f"Duplicate tool name {tool.name!r} (add[{seen[tool.name]}] and add[{i}]); "
                    "tool names must be unique in an index.",
                    tool=tool.name,
                    field="name",
                )
            seen[tool.name] = i
        drop = set()
        for name in remove:
            if name not in self._by_name:
                raise KeyError(name)
            drop.add(self._by_name[name])
        drop.update(self._by_name[t.name] for t in add if t.name in self._by_name)
        weights = self.field_weights.as_list()
        index = self._index.updated(
            [t.name for t in add], [_document(t, weights) for t in add], remove=sorted(drop)
        )
        tools = tuple(t for i, t in enumerate(self._tools) if i not in drop) + add
        return ToolIndex._from_parts(tools, self.engine, index, self.field_weights, self.params)

    def replace_server(self, server: str, tools: Iterable[Tool]) -> ToolIndex:
        """A new index in which ``server``'s tools are exactly ``tools`` (an MCP server
        connected, changed its tool list, or disconnected with ``tools=[]``).

        Equivalent to ``with_tools(add=tools, remove=[names of server's current tools])``.

        Example:
            >>> index = ToolIndex([Tool(name="mcp__s__a", server="s", mcp_tool_name="a")])
            >>> [t.name for t in index.replace_server("s", [])]
            []
        """
        tools = tuple(tools)
        for i, tool in enumerate(tools):
            if isinstance(tool, Tool) and tool.server != server:
                raise ValueError(
                    f"tools[{i}] ({tool.name!r}) belongs to server {tool.server!r}, not {server!r}"
                )
        old = [t.name for t in self._tools if t.server == server]
        return self.with_tools(add=tools, remove=old)


_SNAPSHOT_KIND = "toolsift.ToolIndex"


def _unpickle_tool_index(data: bytes, engine: str) -> ToolIndex:
    """Unpickles a :class:`ToolIndex` on the engine it was pickled from (module level: pickle
    finds it by name)."""
    return ToolIndex.from_bytes(data, engine=engine)  # type: ignore[arg-type]
