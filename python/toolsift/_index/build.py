"""``ToolIndex(tools)``'s build: the tools checked once, then handed to the engine in one call.

The Rust engine reads each :class:`~toolsift.Tool`'s attributes itself and makes its document
with the same Rust field extraction as :meth:`~toolsift.ToolIndex.from_records`
(``toolsift._core._build_tools``, ``rust/bindings/tools.rs``, ``rust/build/records.rs``): no
Python code runs per tool during the build, and the tools' name table is made on the engine's
pool beside the index's last step, for the first search. The pure-Python twin makes its
documents with :func:`toolsift._text.documents.document`, proven equal to the Rust extraction.

Example:
    >>> from toolsift import Tool
    >>> tools, by_name, servers = checked_tools([Tool(name="a", server="s", mcp_tool_name="a")])
    >>> by_name, servers
    ({'a': 0}, {'s': [0]})
"""

from __future__ import annotations

import gc
import os
import re
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, TypeVar

from .._text.analysis import ProfileName
from .._text.documents import document
from ..errors import DuplicateToolError
from ..tools import Tool

if TYPE_CHECKING:
    from .._engine.protocol import EngineIndex, EngineIndexClass
    from .._names.table import NameParts

__all__ = ["checked_tools", "engine_index", "untracked_tuple", "updated_index"]

_T = TypeVar("_T")


def untracked_tuple(items: tuple[_T, ...]) -> tuple[_T, ...]:
    """``items`` (a tuple the caller made), no longer tracked by Python's cyclic garbage
    collector when the compiled extension is built (``toolsift._core._untracked``), so that no
    collection walks its items: an updated index's tuple of tools is a young container of up to
    100,000 references, and the next young-generation pass would visit each of them with the
    GIL held (10 to 50 ms at 100,000 tools: the worst search while a catalogue updates). The
    tools are held as before; only a reference cycle through the tuple (a tool whose fields
    reach the index) could no longer be collected.

    Example:
        >>> import gc
        >>> tools = untracked_tuple((Tool(name="a", description="alpha"),))
        >>> [t.name for t in tools], gc.is_tracked(tools) == (_untracked is None)
        (['a'], True)
    """
    return items if _untracked is None else _untracked(items)


try:
    from .._core import _tool_positions, _untracked
except ImportError:  # the pure-Python engine alone: the collector tracks the tuple
    _tool_positions = None  # type: ignore[assignment]
    _untracked = None  # type: ignore[assignment]


def checked_tools(
    tools: Iterable[Tool],
) -> tuple[tuple[Tool, ...], dict[str, int], dict[str, list[int]]]:
    """``tools`` as a tuple, each tool's position by name, and each server's tools' positions.

    Raises:
        TypeError: an item is not a :class:`~toolsift.Tool`.
        DuplicateToolError: two tools share a name.
    """
    checked = tuple(tools)
    if _tool_positions is not None:  # the same maps, made in one call
        with collector_paused():  # (its lists of positions would start collections)
            made = _tool_positions(checked, Tool)
        if not isinstance(made, int):
            return checked, made[0], made[1]
        # (else an item is refused: the loop below raises its error)
    by_name: dict[str, int] = {}
    servers: dict[str, list[int]] = {}
    for i, tool in enumerate(checked):
        if not isinstance(tool, Tool):
            raise TypeError(f"tools[{i}] must be a toolsift.Tool, got {type(tool).__name__}")
        if tool.name in by_name:
            raise DuplicateToolError(
                f"Duplicate tool name {tool.name!r} (tools[{by_name[tool.name]}] and "
                f"tools[{i}]); tool names must be unique in an index.",
                tool=tool.name,
                field="name",
            )
        by_name[tool.name] = i
        if tool.server is not None:
            servers.setdefault(tool.server, []).append(i)
    return checked, by_name, servers


def engine_index(
    engine: str,
    cls: EngineIndexClass,
    tools: Sequence[Tool],
    weights: list[float],
    params: tuple[float, float, float],
    profile: ProfileName,
) -> tuple[EngineIndex, NameParts | None]:
    """The engine index of ``tools`` (checked by :func:`checked_tools`) under ``weights``, and
    the parts of their name table when the engine made them during the build (the Rust
    engine's, on its pool beside the index's last step; ``None``: made on first use)."""
    k1, b, delta = params
    if engine == "rust":
        from .._core import _build_tools

        with collector_paused():
            return _build_tools(tools, weights, k1, b, delta, profile)
    docs = [document(tool, weights) for tool in tools]
    index = cls([t.name for t in tools], docs, weights, k1=k1, b=b, delta=delta, profile=profile)
    return index, None


def updated_index(
    engine: str, index: EngineIndex, add: Sequence[Tool], weights: list[float], drop: list[int]
) -> EngineIndex:
    """``index`` without the documents ``drop`` (ascending ids) and with ``add``'s documents
    appended (copy-on-write: ``index`` is not changed)."""
    if engine == "rust":
        from .._core import Index, _update_tools

        assert isinstance(index, Index)  # the Rust engine's index
        warn_if_update_nice_refused()
        with collector_paused():
            return _update_tools(index, add, drop)
    docs = [document(tool, weights) for tool in add]
    return index.updated([t.name for t in add], docs, remove=drop)


@cache
def warn_if_update_nice_refused() -> None:
    """Warns once a process (``RuntimeWarning``) when ``TOOLSIFT_UPDATE_NICE`` is set to
    anything but a whole number from 0 to 19: the engine then runs its updates at the default
    nice value, 10 (``rust/pool.rs`` reads the variable the same way)."""
    given = os.environ.get("TOOLSIFT_UPDATE_NICE")
    if given is None:
        return
    plain = given.strip()
    if re.fullmatch(r"[+-]?[0-9]+", plain, re.ASCII) and 0 <= int(plain) <= 19:
        return
    warnings.warn(
        f"TOOLSIFT_UPDATE_NICE={given!r} is not a whole number from 0 to 19; catalogue "
        "updates run at the default nice value, 10",
        RuntimeWarning,
        stacklevel=2,
    )


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a build reads or wraps every tool: the
    engine reading a schema that is not a plain ``dict`` makes small objects (a method call's
    arguments), a catalogue makes one entry a tool, and the collections they trigger would
    walk every object alive, the tools and their schemas included (a fifth of a 100k-tool
    index build, an eighth of a catalogue's). Restored on exit, errors included; left alone
    if it was off (a nested pause leaves it to the outer one)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
