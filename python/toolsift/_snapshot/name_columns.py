"""The name columns of an index's tools: each tool's name, server and raw MCP name, and the
name -> position map, without a :class:`~toolsift.Tool`.

An index whose tools stay in their source form (a loaded snapshot, ``ToolIndex.from_records``)
still needs every tool's name (to find tools by name) and its server and raw MCP name (the name
table). With the compiled extension they are one ``toolsift._core.NameColumns`` (packed in
Rust: a name costs its bytes plus a few, a server a number, a raw MCP name that ends its
tool's name an offset; about a quarter of the memory of three lists of ``str`` and a dict),
read as sequences that make a fresh ``str`` per read. Without it, or for a name that UTF-8
cannot hold (a lone surrogate), :class:`ListColumns`: the same interface over plain lists.

Example:
    >>> columns = name_columns(["mcp__fs__read_file", "plan"], ["fs", None], ["read_file", None])
    >>> list(columns.mcp_tool_names), columns.positions["plan"]
    (['read_file', None], 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from .._core import NameColumns

try:
    from .._core import NameColumn, NamePositions
    from .._core import NameColumns as _Packed
except ImportError:  # a pure-Python install: lists
    _Packed = None  # type: ignore[assignment,misc]
else:  # the compiled columns are read-only lists and dicts
    Sequence.register(NameColumn)
    Mapping.register(NamePositions)

__all__ = ["Columns", "ListColumns", "name_columns", "taken"]


class ListColumns:
    """The name columns as lists (the interface of ``toolsift._core.NameColumns``).

    Example:
        >>> ListColumns(["a", "b"], [None, "s"], [None, "b"]).positions
        {'a': 0, 'b': 1}
    """

    __slots__ = ("names", "servers", "mcp_tool_names")

    def __init__(
        self, names: list[str], servers: list[str | None], mcp_tool_names: list[str | None]
    ) -> None:
        self.names = names
        self.servers = servers
        self.mcp_tool_names = mcp_tool_names

    def __len__(self) -> int:
        return len(self.names)

    @property
    def positions(self) -> dict[str, int]:
        """Name -> position (the last tool of that name), made when read."""
        return dict(zip(self.names, range(len(self.names))))

    def take(
        self,
        keep: Sequence[int],
        names: Iterable[str],
        servers: Iterable[str | None],
        mcp_tool_names: Iterable[str | None],
    ) -> ListColumns:
        """The tools at positions ``keep`` (in that order), then the ones given."""
        return ListColumns(
            [self.names[i] for i in keep] + list(names),
            [self.servers[i] for i in keep] + list(servers),
            [self.mcp_tool_names[i] for i in keep] + list(mcp_tool_names),
        )


#: Either form of the columns.
Columns = Union["NameColumns", ListColumns]


def name_columns(
    names: Iterable[str], servers: Iterable[str | None], mcp_tool_names: Iterable[str | None]
) -> Columns:
    """The columns of these names (sequences of the same length): packed in Rust where the
    extension loads and every string is UTF-8, else lists.

    Raises:
        IndexError: the columns have different lengths (packed form).
    """
    if _Packed is not None:
        try:
            return _Packed(names, servers, mcp_tool_names)
        except UnicodeEncodeError:  # a lone surrogate: kept as Python strings
            pass
    return ListColumns(list(names), list(servers), list(mcp_tool_names))


def taken(
    columns: Columns,
    keep: Iterable[int],
    names: Sequence[str],
    servers: Sequence[str | None],
    mcp_tool_names: Sequence[str | None],
) -> Columns:
    """``columns.take(...)``: the tools at ``keep``, then the ones given (as lists when a given
    string is not UTF-8)."""
    keep = list(keep)
    try:
        return columns.take(keep, names, servers, mcp_tool_names)
    except UnicodeEncodeError:
        old = ListColumns(list(columns.names), list(columns.servers), list(columns.mcp_tool_names))
        return old.take(keep, names, servers, mcp_tool_names)
