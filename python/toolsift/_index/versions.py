"""A ``ToolIndex``'s other versions: its snapshot bytes and file (``to_bytes``, ``from_bytes``,
``save``, ``load``) and its copy-on-write updates (``with_tools``, ``replace_server``), the
public face of :mod:`toolsift._index.persist`. :class:`toolsift.ToolIndex` has these methods
from :class:`Versions`.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="a", description="alpha")])
    >>> [t.name for t in ToolIndex.from_bytes(index.to_bytes()).with_tools(remove=["a"])]
    []
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from .._engine.select import EngineName
from .._snapshot.tools_section import LazyTools
from .._text.documents import FieldWeights
from ..limits import MAX_SNAPSHOT_BYTES
from ..tools import Tool
from . import persist
from .lookups import NameLookups

if TYPE_CHECKING:
    from .._engine.protocol import EngineIndex
    from .._names.table import NameTable

__all__ = ["Versions"]

_V = TypeVar("_V", bound="Versions")


class Versions:
    """Snapshots and copy-on-write updates of an index (see the module docs); the index's
    class provides ``_from_parts`` and ``_parts``."""

    __slots__ = ()

    _tools: tuple[Tool, ...] | LazyTools
    _by_name: dict[str, int]
    _index: EngineIndex
    _lookups: NameLookups
    field_weights: FieldWeights

    if TYPE_CHECKING:

        @classmethod
        def _from_parts(cls: type[_V], parts: persist.Parts, table: NameTable | None = None) -> _V:
            raise NotImplementedError

        def _parts(self) -> persist.Parts:
            raise NotImplementedError

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
        return persist.to_bytes(self._tools, self._index, self.field_weights)

    @classmethod
    def from_bytes(cls: type[_V], data: bytes, *, engine: EngineName = "auto") -> _V:
        """Loads :meth:`to_bytes` output (written by either engine) without re-tokenizing.

        Raises:
            SnapshotError: the data is truncated, corrupted, of a newer format version, or not a
                ToolIndex snapshot; or its parts disagree (two tools with one name, field weights
                that are not numbers or differ from the index's own).
        """
        loaded = cls._from_parts(persist.from_bytes(data, engine))
        persist.check_unique(loaded._by_name, loaded._tools.names)  # type: ignore[union-attr]
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
        persist.write(path, self.to_bytes())

    @classmethod
    def load(
        cls: type[_V],
        path: str | os.PathLike[str],
        *,
        engine: EngineName = "auto",
        max_bytes: int = MAX_SNAPSHOT_BYTES,
    ) -> _V:
        """Reads a file written by :meth:`save` (by either engine).

        Arguments:
            path: the snapshot file.
            engine: as for :class:`~toolsift.ToolIndex`.
            max_bytes: the largest file read (default 4 GiB,
                :data:`toolsift.limits.MAX_SNAPSHOT_BYTES`).

        Raises:
            SnapshotError: the file is truncated, corrupted or of a newer format version, is
                not a regular file (a device, a FIFO), or is over ``max_bytes``.
            OSError: the file cannot be read.
        """
        return cls.from_bytes(persist.read(path, max_bytes), engine=engine)

    def with_tools(self: _V, add: Iterable[Tool] = (), remove: Iterable[str] = ()) -> _V:
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
        parts, new_ids, kept = persist.updated(self._parts(), self._by_name, add, remove)
        table = self._lookups.carried_table(parts.tools, new_ids, kept)
        return type(self)._from_parts(parts, table)

    def replace_server(self: _V, server: str, tools: Iterable[Tool]) -> _V:
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
        tools = persist.server_tools(server, tools)
        names = persist.tool_names(self._tools, self._by_name)
        old = [names[i] for i in self._lookups.server_ids(server)]
        return self.with_tools(add=tools, remove=old)
