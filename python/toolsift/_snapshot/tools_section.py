"""The tools of a loaded snapshot, decoded one at a time on first use.

A gateway worker that loads a 100,000-tool snapshot needs every tool's name (to find tools by
name) and its server and raw MCP name (the name table), but only ever shows the handful of tools
its searches return. So :meth:`toolsift.ToolIndex.load` keeps each tool as its JSON record and
builds the :class:`~toolsift.Tool` the first time it is read: loading costs the index plus the
packed name columns (:mod:`toolsift._snapshot.name_columns`), not 100,000 JSON decodes and
validations (measured in BENCHMARKS.md).

Snapshot layout of the tool section (version 2), written by :func:`encode_tool_section`:
one header line of JSON (format, version, field weights, the server and raw MCP name of every
tool), then one line per tool, each that tool's :meth:`~toolsift.Tool.to_dict` record as compact
JSON. JSON escapes every control character, so a record never holds a raw newline.

Example:
    >>> from toolsift import Tool
    >>> header = {"format": "x", "version": 2}
    >>> blob = encode_tool_section([Tool(name="a", description="alpha")], header)
    >>> header, tools = decode_tool_section(blob, ["a"], "x", 2)
    >>> header["format"], tools[0].description
    ('x', 'alpha')
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Union, cast, overload

from ..errors import SnapshotError, ToolDefinitionError
from ..tools import Tool, tool_aliases
from .name_columns import Columns, name_columns, taken

__all__ = [
    "LazyTools",
    "NameView",
    "NameViews",
    "decode_tool_section",
    "encode_tool_section",
    "kept_columns",
]

_Item = Union[Tool, bytes]
_STR_OR_NONE = {str, type(None)}


def _corrupt(detail: str) -> SnapshotError:
    return SnapshotError(
        f"The ToolIndex snapshot's tool section is invalid ({detail}). Rebuild the index and "
        "save it again."
    )


def _record(tool: Tool) -> bytes:
    return json.dumps(tool.to_dict(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class NameView:
    """The name fields of one tool (what :class:`toolsift._names.table.NameTable` reads), without
    decoding the tool.

    Example:
        >>> NameView("mcp__fs__read_file", "fs", "read_file").aliases()[:2]
        ('mcp__fs__read_file', 'read_file')
    """

    __slots__ = ("name", "server", "mcp_tool_name")

    def __init__(self, name: str, server: str | None, mcp_tool_name: str | None) -> None:
        self.name = name
        self.server = server
        self.mcp_tool_name = mcp_tool_name

    def aliases(self) -> tuple[str, ...]:
        """The same forms as :meth:`toolsift.Tool.aliases`."""
        return tool_aliases(self.name, self.server, self.mcp_tool_name)


class NameViews(Sequence[NameView]):
    """A loaded index's name columns read as :class:`NameView` objects, each made when read:
    the sources of its name table, which keeps them across updates, so they hold no object per
    tool (a list of them cost an update 100,000 objects at 100,000 tools).

    Example:
        >>> names = ["mcp__fs__read_file", "plan"]
        >>> views = NameViews(name_columns(names, ["fs", None], ["read_file", None]))
        >>> len(views), views[0].server, [v.name for v in views]
        (2, 'fs', ['mcp__fs__read_file', 'plan'])
    """

    __slots__ = ("columns",)

    def __init__(self, columns: Columns) -> None:
        #: The columns read (the compiled name table build reads packed ones directly).
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns)

    @overload
    def __getitem__(self, i: int) -> NameView: ...

    @overload
    def __getitem__(self, i: slice) -> list[NameView]: ...

    def __getitem__(self, i: int | slice) -> NameView | list[NameView]:
        c = self.columns
        if isinstance(i, slice):
            return list(map(NameView, c.names[i], c.servers[i], c.mcp_tool_names[i]))
        return NameView(c.names[i], c.servers[i], c.mcp_tool_names[i])

    def __iter__(self) -> Iterator[NameView]:
        c = self.columns
        return map(NameView, c.names, c.servers, c.mcp_tool_names)


class LazyTools(Sequence[Tool]):
    """A read-only sequence of tools, each kept as its JSON record until first read.

    Reading a tool decodes and validates its record once and caches the :class:`Tool`;
    :attr:`names`, :attr:`servers` and :attr:`mcp_tool_names` never decode anything.

    Raises:
        SnapshotError: (on reading a tool) its record is not valid JSON, not a valid tool, or
            does not match the name, server and MCP name the snapshot lists for it.
    """

    __slots__ = ("_items", "columns")

    def __init__(self, items: list[_Item], columns: Columns) -> None:
        if len(items) != len(columns):
            raise _corrupt("its columns have different lengths")
        self._items = items
        #: Each tool's name, server and raw MCP name (:mod:`toolsift._snapshot.name_columns`).
        self.columns = columns

    @property
    def names(self) -> Sequence[str]:
        """The tools' names, in order."""
        return cast("Sequence[str]", self.columns.names)

    @property
    def servers(self) -> Sequence[str | None]:
        """The tools' servers, in order."""
        return cast("Sequence[str | None]", self.columns.servers)

    @property
    def mcp_tool_names(self) -> Sequence[str | None]:
        """The tools' raw MCP names, in order."""
        return cast("Sequence[str | None]", self.columns.mcp_tool_names)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, i: int) -> Tool: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Tool, ...]: ...

    def __getitem__(self, i: int | slice) -> Tool | tuple[Tool, ...]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        item = self._items[i]
        if type(item) is bytes:
            item = self._items[i] = self._decode(i, item)
        return item  # type: ignore[return-value]

    def __iter__(self) -> Iterator[Tool]:
        for i in range(len(self._items)):
            yield self[i]

    def _decode(self, i: int, raw: bytes) -> Tool:
        try:
            tool = Tool.from_dict(json.loads(raw))
        except (ValueError, ToolDefinitionError) as exc:
            raise _corrupt(f"tool {i}: {exc}") from None
        except RecursionError:  # nested deeper than Python's parser recurses
            raise _corrupt(f"tool {i}: its record is nested too deep to read") from None
        j = i % len(self._items)
        c = self.columns
        if (tool.name, tool.server, tool.mcp_tool_name) != (
            c.names[j],
            c.servers[j],
            c.mcp_tool_names[j],
        ):
            raise _corrupt(f"tool {j}'s record does not match its name, server or MCP name")
        return tool

    def name_views(self) -> NameViews:
        """One :class:`NameView` per tool, in order, each made when read (for the name table)."""
        return NameViews(self.columns)

    def records(self) -> Iterator[bytes]:
        """Every tool's JSON record, reusing the stored bytes of tools never read."""
        for item in self._items:
            yield item if type(item) is bytes else _record(item)  # type: ignore[arg-type,misc]

    def subset(self, keep: Iterable[int], add: Sequence[Tool] = ()) -> LazyTools:
        """The tools at positions ``keep`` (in that order), then ``add``; nothing is decoded."""
        keep = list(keep)
        items = self._items
        columns = kept_columns(self.columns, keep, add)
        return LazyTools([items[i] for i in keep] + list(add), columns)


def kept_columns(columns: Columns, keep: list[int], add: Sequence[Tool]) -> Columns:
    """The columns of the tools at ``keep``, then of ``add``."""
    names = [t.name for t in add]
    return taken(columns, keep, names, [t.server for t in add], [t.mcp_tool_name for t in add])


def encode_tool_section(tools: Sequence[Tool], header: Mapping[str, Any]) -> bytes:
    """The tool section: ``header`` plus the tools' servers and MCP names, then the records.

    Raises:
        SnapshotError: a tool holds what JSON in UTF-8 cannot store (a lone surrogate in a
            string, or a schema value such as ``bytes``); the message names the tool and field.
    """
    try:
        return _encode_tool_section(tools, header)
    except (UnicodeEncodeError, TypeError, ValueError, RecursionError) as exc:
        raise _unsavable(tools, header, exc) from exc


def _encode_tool_section(tools: Sequence[Tool], header: Mapping[str, Any]) -> bytes:
    if isinstance(tools, LazyTools):
        servers, mcp = list(tools.servers), list(tools.mcp_tool_names)
        records: Iterable[bytes] = tools.records()
    else:
        servers = [t.server for t in tools]
        mcp = [t.mcp_tool_name for t in tools]
        records = map(_record, tools)
    head = {**header, "servers": servers, "mcp_tool_names": mcp}
    lines = [json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode("utf-8")]
    lines.extend(records)
    return b"\n".join(lines)


def _unsavable(tools: Sequence[Tool], header: Mapping[str, Any], exc: Exception) -> SnapshotError:
    """The error of a tool section that cannot be written: the first tool (or header value)
    that JSON in UTF-8 cannot hold, found by walking the values again (only after a failure)."""
    # A loaded index's tools still in their record are stored JSON: only decoded ones can fail.
    items = tools._items if isinstance(tools, LazyTools) else tools
    for i, tool in enumerate(items):
        if isinstance(tool, Tool):
            try:
                found = _unstorable(tool.to_dict(), "")
            except RecursionError:  # nested deeper than Python recurses
                found = ("input_schema", "is nested too deeply")
            if found is not None:
                field, why = found
                return SnapshotError(
                    f"Cannot save the index: tool {tool.name!r} (tools[{i}]) cannot be stored, "
                    f"its field {field!r} {why}. Fix or remove that value, then save again."
                )
    found = _unstorable(dict(header), "")
    detail = f"header value {found[0]!r} {found[1]}" if found else f"{type(exc).__name__}: {exc}"
    return SnapshotError(f"Cannot save the index: its tool section cannot be written ({detail}).")


def _unstorable(value: Any, path: str) -> tuple[str, str] | None:
    """``(path, why)`` of the first part of ``value`` that ``_record`` cannot write, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return path, (
                f"holds a lone surrogate ({value[exc.start]!r}), which UTF-8 cannot encode"
            )
        return None
    if value is None or isinstance(value, (bool, int, float)):
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if not (key is None or isinstance(key, (str, int, float, bool))):
                return path or "(top level)", f"has a key of type {type(key).__name__}, not JSON"
            found = _unstorable(key, where) or _unstorable(item, where)
            if found is not None:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = _unstorable(item, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    return path or "(top level)", f"holds a {type(value).__name__} value, which is not JSON"


def decode_tool_section(
    blob: bytes, names: list[str], kind: str, version: int
) -> tuple[dict[str, Any], LazyTools]:
    """``(header, tools)`` of :func:`encode_tool_section`'s output; ``names`` are the index's
    document names (the tools' names, in order).

    Raises:
        SnapshotError: the header is not a ``kind`` header (say an engine-only snapshot), is of
            a version newer than ``version``, or the section does not hold one valid record per
            name.
    """
    end = blob.find(b"\n")
    head_bytes = blob if end < 0 else blob[:end]
    try:
        header = json.loads(head_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        header = None
    except RecursionError:  # nested deeper than Python's parser recurses
        raise _corrupt("its header is nested too deep to read") from None
    if not isinstance(header, dict) or header.get("format") != kind:
        raise SnapshotError(
            "This index snapshot holds no tools (it was saved by Index.save(), not "
            "ToolIndex.save()). Load it with toolsift._core.Index.load(), or save a ToolIndex."
        )
    got = header.get("version")
    if not isinstance(got, int) or got > version:
        raise SnapshotError(
            f"The ToolIndex snapshot has tool-section version {got!r}, newer than this toolsift "
            "reads. Upgrade toolsift, or rebuild the index and save it again."
        )
    if got < version:
        raise SnapshotError(
            f"The ToolIndex snapshot has tool-section version {got!r}, older than this toolsift "
            f"reads ({version}). Rebuild the index and save it again."
        )
    items = cast("list[_Item]", blob[end + 1 :].split(b"\n") if end >= 0 and names else [])
    servers, mcp = header.pop("servers", None), header.pop("mcp_tool_names", None)
    if not (isinstance(servers, list) and isinstance(mcp, list)):
        raise _corrupt("the server and MCP name columns are missing")
    if not set(map(type, servers)).union(map(type, mcp)) <= _STR_OR_NONE:
        raise _corrupt("a server or MCP name is not a string")
    if not len(items) == len(names) == len(servers) == len(mcp):
        raise _corrupt(f"it holds {len(items)} tools for {len(names)} indexed names")
    return header, LazyTools(items, name_columns(names, servers, mcp))
