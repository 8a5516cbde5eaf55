"""A :class:`toolsift.ToolIndex` as snapshot bytes and files: ``to_bytes``, ``from_bytes``,
``save`` and ``load`` (``ToolIndex`` inherits them; the work is ``toolsift._index.persist``'s,
the semantic state's ``toolsift._index.semantic``'s).

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> data = ToolIndex([Tool(name="a", description="alpha")]).to_bytes()
    >>> [t.name for t in ToolIndex.from_bytes(data)]
    ['a']
"""

from __future__ import annotations

import os
from typing import TypeVar

from .._engine.select import EngineName
from ..limits import MAX_SNAPSHOT_BYTES
from ..semantic.model import Semantic, check_semantic, resolve
from . import persist
from .assembly import Assembly
from .semantic import semantic_state

__all__ = ["Snapshots"]

_Index = TypeVar("_Index", bound="Snapshots")


class Snapshots(Assembly):
    """Snapshot bytes and files of an index (a base of :class:`toolsift.ToolIndex`)."""

    def to_bytes(self) -> bytes:
        """The index, its tools, parameters and field weights as snapshot bytes (the same bytes
        from both engines; each reads the other's).

        Example:
            >>> from toolsift import Tool, ToolIndex
            >>> index = ToolIndex([Tool(name="get_weather", description="Weather for a city")])
            >>> ToolIndex.from_bytes(index.to_bytes()).search("weather")[0].name
            'get_weather'
        """
        sem = self._semantic
        entry = None if sem is None else sem.vectors.to_header()
        return persist.to_bytes(self._tools, self._index, self.field_weights, entry)

    @classmethod
    def from_bytes(
        cls: type[_Index], data: bytes, *, engine: EngineName = "auto", semantic: Semantic = "auto"
    ) -> _Index:
        """Loads :meth:`to_bytes` output (written by either engine) without re-tokenizing.
        ``semantic`` as for :class:`ToolIndex`: the snapshot's tool vectors are used when it
        has them (from the same model), else the tools are embedded now.

        Raises:
            SnapshotError: the data is truncated, corrupted, of a newer version, not a ToolIndex
                snapshot, or its parts disagree (a name twice, other field weights).

        Example:
            >>> from toolsift import Tool, ToolIndex
            >>> data = ToolIndex([Tool(name="a", description="alpha")]).to_bytes()
            >>> ToolIndex.from_bytes(data, engine="python").get("a").description
            'alpha'
        """
        semantic = check_semantic(semantic)
        parts = persist.from_bytes(data, engine)
        state = semantic_state(resolve(semantic), parts.tools, parts.engine, parts.semantic)
        loaded = cls._from_parts(parts, semantic=state)
        persist.check_unique(loaded._by_name, parts.names)
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
        cls: type[_Index],
        path: str | os.PathLike[str],
        *,
        engine: EngineName = "auto",
        max_bytes: int = MAX_SNAPSHOT_BYTES,
        semantic: Semantic = "auto",
    ) -> _Index:
        """Reads a file written by :meth:`save` (by either engine); ``max_bytes``: the largest
        file read (default 4 GiB, :data:`toolsift.limits.MAX_SNAPSHOT_BYTES`); ``semantic``:
        as for :meth:`from_bytes`.

        Raises:
            SnapshotError: the file is truncated, corrupted or of a newer format version, is
                not a regular file (a device, a FIFO), or is over ``max_bytes``.
            OSError: the file cannot be read.

        Example:
            >>> import os, tempfile
            >>> from toolsift import Tool, ToolIndex
            >>> path = os.path.join(tempfile.mkdtemp(), "tools.tsift")
            >>> ToolIndex([Tool(name="a", description="alpha")]).save(path)
            >>> ToolIndex.load(path, engine="python").search("alpha")[0].name
            'a'
        """
        data = persist.read(path, max_bytes)
        return cls.from_bytes(data, engine=engine, semantic=semantic)
