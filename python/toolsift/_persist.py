"""Snapshots and live updates of a ``ToolIndex``: ``save``/``load``, bytes, pickling,
``with_tools`` and ``replace_server`` (a base class of :class:`toolsift.ToolIndex`).

A snapshot is the engine's snapshot (``toolsift._snapshot``) with the tools in its metadata
section (``toolsift._lazytools``). An update is copy-on-write: the engine patches its postings
(``updated``), and the name table is carried over rather than rebuilt.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="a", description="alpha")])
    >>> ToolIndex.from_bytes(index.to_bytes()).search("alpha")[0].name
    'a'
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ._documents import FieldWeights, documents
from ._engines import EngineName, select_engine
from ._fallback import new_ids, without
from ._lazytools import LazyTools, decode_tool_section, encode_tool_section
from .errors import DuplicateToolError, SnapshotError
from .names import NameTable
from .tools import Tool

if TYPE_CHECKING:
    from ._engine import EngineIndex, EngineKeywordIndex

__all__ = ["SnapshotsAndUpdates"]

_Index = TypeVar("_Index", bound="SnapshotsAndUpdates")


class SnapshotsAndUpdates:
    """The snapshot and update methods of :class:`toolsift.ToolIndex`, over its state."""

    _tools: tuple[Tool, ...] | LazyTools
    _by_name: dict[str, int]
    _servers: dict[str, list[int]] | None
    _name_table: NameTable | None
    _keyword: EngineKeywordIndex | None
    _name_lock: threading.Lock
    _index: EngineIndex
    field_weights: FieldWeights
    engine: str
    params: tuple[float, float, float]

    def _server_ids(self, server: str) -> Sequence[int]:
        raise NotImplementedError  # NamedLookups._server_ids

    def _names(self) -> Sequence[str]:
        """The tools' names in order, without decoding a loaded index's tools."""
        tools = self._tools
        # `_by_name` holds every name once, inserted in tool order: its keys are the names.
        return tools.names if isinstance(tools, LazyTools) else list(self._by_name)

    @classmethod
    def _from_parts(
        cls: type[_Index],
        tools: tuple[Tool, ...] | LazyTools,
        engine: str,
        index: EngineIndex,
        field_weights: FieldWeights,
        params: tuple[float, float, float],
        names: Sequence[str] | None = None,
    ) -> _Index:
        """An index of parts already made; ``names``: the tools' names, if known."""
        self = cls.__new__(cls)
        self._tools = tools
        if names is None:
            names = tools.names if isinstance(tools, LazyTools) else [t.name for t in tools]
        self._by_name = dict(zip(names, range(len(names))))
        self._servers = None  # tool ids by server: made on first use (`_server_ids`)
        # Derived from the tools alone, so not stored in a snapshot: the name table (select:,
        # the exact-name tier) and the keyword ranker's index are rebuilt on first use.
        self._name_table = None
        self._keyword = None
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
            >>> from toolsift import Tool, ToolIndex
            >>> index = ToolIndex([Tool(name="get_weather", description="Weather for a city")])
            >>> ToolIndex.from_bytes(index.to_bytes()).search("weather")[0].name
            'get_weather'
        """
        header = {
            "format": _SNAPSHOT_KIND,
            "version": _TOOL_SECTION_VERSION,
            "field_weights": dataclasses.asdict(self.field_weights),
        }
        return self._index.to_bytes(encode_tool_section(self._tools, header))

    @classmethod
    def from_bytes(cls: type[_Index], data: bytes, *, engine: EngineName = "auto") -> _Index:
        """Loads :meth:`to_bytes` output (written by either engine) without re-tokenizing.

        Raises:
            SnapshotError: the data is truncated, corrupted, of a newer format version, or not a
                ToolIndex snapshot.
        """
        name, engine_cls = select_engine(engine)
        loader: Any = engine_cls  # from_bytes is static (Rust) or a class method (Python)
        index, blob = loader.from_bytes(data, with_metadata=True)
        meta, tools = decode_tool_section(
            bytes(blob), list(index.names), _SNAPSHOT_KIND, _TOOL_SECTION_VERSION
        )
        try:
            weights = FieldWeights(**meta["field_weights"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SnapshotError(
                f"The ToolIndex snapshot's tool section is invalid ({exc}). Rebuild the index "
                "and save it again."
            ) from None
        return cls._from_parts(tools, name, index, weights, tuple(index.params))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes :meth:`to_bytes` to ``path`` atomically (a temporary file, then a rename), so a
        gateway can build once and every worker :meth:`load` s it in milliseconds.

        Example:
            >>> import os, tempfile
            >>> from toolsift import Tool, ToolIndex
            >>> path = os.path.join(tempfile.mkdtemp(), "tools.tsift")
            >>> ToolIndex([Tool(name="get_weather", description="Weather")]).save(path)
            >>> len(ToolIndex.load(path))
            1
        """
        from ._snapshot import write_atomic

        write_atomic(path, self.to_bytes())

    @classmethod
    def load(
        cls: type[_Index], path: str | os.PathLike[str], *, engine: EngineName = "auto"
    ) -> _Index:
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

    def with_tools(self: _Index, add: Iterable[Tool] = (), remove: Iterable[str] = ()) -> _Index:
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
            >>> from toolsift import Tool, ToolIndex
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
        by_name = self._by_name
        drop_set = set()
        for name in remove:
            if name not in by_name:
                raise KeyError(name)
            drop_set.add(by_name[name])
        drop_set.update(by_name[t.name] for t in add if t.name in by_name)
        drop = sorted(drop_set)
        weights = self.field_weights.as_list()
        index = self._index.updated([t.name for t in add], documents(add, weights), remove=drop)
        # Kept tools by slices between the dropped positions: C-level copies, so an update
        # that changes a few tools of a large index does no per-tool Python work.
        old_tools = self._tools
        tools: tuple[Tool, ...] | LazyTools
        if isinstance(old_tools, LazyTools):  # a loaded index stays lazy: decode no kept tool
            tools = old_tools.subset(without(range(len(old_tools)), drop), add)
            names: list[str] | None = None
        else:
            tools = (*without(old_tools, drop), *add)
            names = [*without(self._names(), drop), *(t.name for t in add)]
        updated = type(self)._from_parts(
            tools, self.engine, index, self.field_weights, self.params, names=names
        )
        table = self._name_table
        if table is not None:  # carry the name table over instead of re-reading every tool
            updated._name_table = table.remapped(
                _name_source(tools), new_ids(len(old_tools), drop), len(tools) - len(add)
            )
        return updated

    def replace_server(self: _Index, server: str, tools: Iterable[Tool]) -> _Index:
        """A new index in which ``server``'s tools are exactly ``tools`` (an MCP server
        connected, changed its tool list, or disconnected with ``tools=[]``).

        Equivalent to ``with_tools(add=tools, remove=[names of server's current tools])``.

        Example:
            >>> from toolsift import Tool, ToolIndex
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
        names = self._names()
        old = [names[i] for i in self._server_ids(server)]
        return self.with_tools(add=tools, remove=old)


_SNAPSHOT_KIND = "toolsift.ToolIndex"
# 2: a header line with the server and MCP-name columns, then one JSON record per tool, so that
# load() decodes a tool only when it is read (toolsift._lazytools). 1 (one JSON document) is
# refused with a "rebuild" message.
_TOOL_SECTION_VERSION = 2


def _name_source(tools: Sequence[Tool] | LazyTools) -> Sequence[Any]:
    """What the name table reads: the tools, or a loaded index's name columns (no decoding)."""
    return tools.name_views() if isinstance(tools, LazyTools) else tools


def _unpickle_tool_index(data: bytes, engine: str) -> Any:
    """Unpickles a :class:`ToolIndex` on the engine it was pickled from (module level: pickle
    finds it by name)."""
    from .index import ToolIndex

    return ToolIndex.from_bytes(data, engine=engine)  # type: ignore[arg-type]
