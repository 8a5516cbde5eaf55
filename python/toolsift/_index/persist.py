"""Snapshots and live updates of a ``ToolIndex``: ``save``/``load``, bytes, pickling,
``with_tools`` and ``replace_server`` (a base class of :class:`toolsift.ToolIndex`).

A snapshot is the engine's snapshot (``toolsift._snapshot.format``) with the tools in its
metadata section (``toolsift._snapshot.tools_section``). An update is copy-on-write: the engine
patches its postings (``updated``), and the name table is carried over rather than rebuilt.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="a", description="alpha")])
    >>> ToolIndex.from_bytes(index.to_bytes()).search("alpha")[0].name
    'a'
"""

from __future__ import annotations

import dataclasses
import math
import os
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .._engine.select import EngineName, select_engine
from .._names.table import NameTable
from .._snapshot.format import stored_field_weights
from .._snapshot.positions import new_ids, without
from .._snapshot.tools_section import LazyTools, decode_tool_section, encode_tool_section
from .._text.documents import FieldWeights, documents
from ..errors import DuplicateToolError, SnapshotError
from ..tools import Tool

if TYPE_CHECKING:
    from .._engine.protocol import EngineIndex, EngineKeywordIndex

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

        The bytes are the engine snapshot (see ``toolsift._snapshot.format``) with the tools
        stored as JSON in its metadata section; both engines read and write the same format.

        Example:
            >>> from toolsift import Tool, ToolIndex
            >>> index = ToolIndex([Tool(name="get_weather", description="Weather for a city")])
            >>> ToolIndex.from_bytes(index.to_bytes()).search("weather")[0].name
            'get_weather'
        """
        header = {
            "format": _SNAPSHOT_KIND,
            "version": _TOOL_SECTION_VERSION,
            # as floats: a weight given as an int (or a numpy number) is stored as the engine's
            "field_weights": dict(zip(_WEIGHT_NAMES, self.field_weights.as_list())),
        }
        return self._index.to_bytes(encode_tool_section(self._tools, header))

    @classmethod
    def from_bytes(cls: type[_Index], data: bytes, *, engine: EngineName = "auto") -> _Index:
        """Loads :meth:`to_bytes` output (written by either engine) without re-tokenizing.

        Raises:
            SnapshotError: the data is truncated, corrupted, of a newer format version, or not a
                ToolIndex snapshot; or its parts disagree (two tools with one name, field weights
                that are not numbers or differ from the index's own).
        """
        name, engine_cls = select_engine(engine)
        loader: Any = engine_cls  # from_bytes is static (Rust) or a class method (Python)
        index, blob = loader.from_bytes(data, with_metadata=True)
        meta, tools = decode_tool_section(
            bytes(blob), list(index.names), _SNAPSHOT_KIND, _TOOL_SECTION_VERSION
        )
        weights = _checked_weights(meta.get("field_weights"), stored_field_weights(data))
        loaded = cls._from_parts(tools, name, index, weights, tuple(index.params))
        if len(loaded._by_name) != len(tools):  # the name -> id dict kept one id per name
            raise _invalid(f"the tool name {_first_duplicate(tools.names)!r} appears twice")
        return loaded

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
        from .._snapshot.format import write_atomic

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

    def with_tools(self: _Index, add: Iterable[Tool] = (), remove: Iterable[str] = ()) -> _Index:
        """A new index with ``add`` added and the tools named in ``remove`` removed; this one is
        not changed (copy-on-write), so searches running on other threads are unaffected.

        A tool in ``add`` whose name is already indexed replaces that tool. The new index lists
        the kept tools in their previous order, then ``add`` in the order given, and ranks
        exactly like ``ToolIndex(kept + add)`` (same IDF, average length and scores); only the
        added tools are tokenized.

        ``remove`` is an iterable of tool names; a single ``str`` is one name.

        Raises:
            KeyError: a name in ``remove`` is not indexed.
            DuplicateToolError: two tools in ``add`` share a name.
            TypeError: ``add`` is not an iterable of :class:`~toolsift.Tool`, or ``remove`` is not
                a name or an iterable of names.

        Example:
            >>> from toolsift import Tool, ToolIndex
            >>> index = ToolIndex([Tool(name="a", description="alpha")])
            >>> [t.name for t in index.with_tools(add=[Tool(name="b", description="beta")])]
            ['a', 'b']
        """
        add = _tool_tuple(add, "add")
        seen: dict[str, int] = {}
        for i, tool in enumerate(add):
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
        for name in _name_iter(remove, "remove"):
            if not isinstance(name, str):
                raise TypeError(f"remove must hold tool names (str), got {type(name).__name__}")
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

        Raises:
            TypeError: ``server`` is not a str, or ``tools`` is not an iterable of
                :class:`~toolsift.Tool`.
            ValueError: a tool in ``tools`` belongs to another server.

        Example:
            >>> from toolsift import Tool, ToolIndex
            >>> index = ToolIndex([Tool(name="mcp__s__a", server="s", mcp_tool_name="a")])
            >>> [t.name for t in index.replace_server("s", [])]
            []
        """
        if not isinstance(server, str):
            raise TypeError(f"server must be a str, got {type(server).__name__}")
        tools = _tool_tuple(tools, "tools")
        for i, tool in enumerate(tools):
            if tool.server != server:
                raise ValueError(
                    f"tools[{i}] ({tool.name!r}) belongs to server {tool.server!r}, not {server!r}"
                )
        names = self._names()
        old = [names[i] for i in self._server_ids(server)]
        return self.with_tools(add=tools, remove=old)


_SNAPSHOT_KIND = "toolsift.ToolIndex"
# 2: a header line with the server and MCP-name columns, then one JSON record per tool, so that
# load() decodes a tool only when it is read (toolsift._snapshot.tools_section). 1 (one JSON
# document) is refused with a "rebuild" message.
_TOOL_SECTION_VERSION = 2


_WEIGHT_NAMES = tuple(f.name for f in dataclasses.fields(FieldWeights))


def _invalid(detail: str) -> SnapshotError:
    return SnapshotError(
        f"The ToolIndex snapshot is invalid: {detail}. Rebuild the index and save it again."
    )


def _checked_weights(raw: object, stored: list[float]) -> FieldWeights:
    """The index's field weights: the ``stored`` weights the engine was built with, which the
    tool section's must match (an object of known names and finite numbers >= 0).

    A weight the tool section leaves out is the stored one. A snapshot written before a field
    existed stores fewer weights: the missing fields were not indexed, so their weight is 0.
    """
    if not isinstance(raw, dict):
        raise _invalid("its tool section has no field weights object")
    for key, value in raw.items():
        if key not in _WEIGHT_NAMES:
            raise _invalid(f"its tool section names an unknown field weight {key!r}")
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not (math.isfinite(value) and value >= 0)
        ):
            raise _invalid(f"the field weight {key!r} is {value!r}, not a finite number >= 0")
    if len(stored) > len(_WEIGHT_NAMES):
        raise _invalid(
            f"the index stores {len(stored)} field weights, more than the {len(_WEIGHT_NAMES)} "
            "fields this toolsift knows"
        )
    weights: dict[str, float] = {}
    for i, field in enumerate(_WEIGHT_NAMES):
        engine = stored[i] if i < len(stored) else 0.0
        value = float(raw.get(field, engine))
        if value != engine:
            where = (
                f"{engine!r} in the index"
                if i < len(stored)
                else f"the index stores only {len(stored)} field weights"
            )
            raise _invalid(
                f"the field weight {field!r} is {value!r} in its tool section but {where}"
            )
        weights[field] = value
    return FieldWeights(**weights)


def _first_duplicate(names: Sequence[str]) -> str:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    raise AssertionError("no duplicate name")  # pragma: no cover - called only with one


def _tool_tuple(tools: Any, what: str) -> tuple[Tool, ...]:
    """``tools`` as a tuple, each item a :class:`Tool` (``TypeError`` naming ``what`` if not)."""
    if isinstance(tools, (str, bytes, Tool)) or not isinstance(tools, Iterable):
        hint = " (wrap a single tool in a list)" if isinstance(tools, Tool) else ""
        raise TypeError(
            f"{what} must be an iterable of toolsift.Tool, got {type(tools).__name__}{hint}"
        )
    out = tuple(tools)
    for i, tool in enumerate(out):
        if not isinstance(tool, Tool):
            raise TypeError(f"{what}[{i}] must be a toolsift.Tool, got {type(tool).__name__}")
    return out


def _name_iter(names: Any, what: str) -> Iterable[Any]:
    """The tool names of a ``what`` argument: one ``str`` is one name."""
    if isinstance(names, str):
        return (names,)
    if isinstance(names, bytes) or not isinstance(names, Iterable):
        raise TypeError(
            f"{what} must be a tool name or an iterable of tool names, got {type(names).__name__}"
        )
    return names


def _name_source(tools: Sequence[Tool] | LazyTools) -> Sequence[Any]:
    """What the name table reads: the tools, or a loaded index's name columns (no decoding)."""
    return tools.name_views() if isinstance(tools, LazyTools) else tools
