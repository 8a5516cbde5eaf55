"""Snapshots and live updates of a ``ToolIndex``: ``save``/``load``, bytes, pickling,
``with_tools`` and ``replace_server`` of :class:`toolsift.ToolIndex`, as functions over its
parts (the index's methods are their public face).

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
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from .._engine.select import EngineName, select_engine
from .._options import check_max_bytes
from .._overlay import PositionMap
from .._snapshot.format import stored_field_weights, write_atomic
from .._snapshot.positions import spliced, without
from .._snapshot.tools_section import LazyTools, decode_tool_section, encode_tool_section
from .._text.documents import FieldWeights
from ..errors import DuplicateToolError, SnapshotError
from ..limits import MAX_SNAPSHOT_BYTES, read_regular_file
from ..tools import Tool
from .build import untracked_tuple, updated_index

if TYPE_CHECKING:
    from .._engine.protocol import EngineIndex

__all__ = [
    "Parts",
    "check_unique",
    "from_bytes",
    "read",
    "server_tools",
    "to_bytes",
    "name_at",
    "positions",
    "tool_names",
    "updated",
    "write",
]


def to_bytes(
    tools: Sequence[Tool] | LazyTools,
    index: EngineIndex,
    weights: FieldWeights,
    semantic: Mapping[str, Any] | None = None,
) -> bytes:
    """The snapshot bytes of an index of ``tools`` (see :meth:`toolsift.ToolIndex.to_bytes`);
    ``semantic``: the tool vectors' header entry (an optional section: a snapshot without it
    loads, and a toolsift that does not know it ignores it)."""
    header: dict[str, Any] = {
        "format": _SNAPSHOT_KIND,
        "version": _TOOL_SECTION_VERSION,
        # as floats: a weight given as an int (or a numpy number) is stored as the engine's
        "field_weights": dict(zip(_WEIGHT_NAMES, weights.as_list())),
    }
    if semantic is not None:
        header["semantic"] = semantic
    return index.to_bytes(encode_tool_section(tools, header))


def from_bytes(data: bytes, engine: EngineName) -> Parts:
    """The parts of the index in snapshot ``data`` (see :meth:`toolsift.ToolIndex.from_bytes`)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"snapshot data must be bytes, got {type(data).__name__}")
    name, engine_cls = select_engine(engine)
    loader: Any = engine_cls  # from_bytes is static (Rust) or a class method (Python)
    index, blob = loader.from_bytes(data, with_metadata=True)
    meta, tools = decode_tool_section(
        bytes(blob), list(index.names), _SNAPSHOT_KIND, _TOOL_SECTION_VERSION
    )
    weights = _checked_weights(meta.get("field_weights"), stored_field_weights(data))
    parts = Parts(tools, name, index, weights, tuple(index.params), tools.names)
    return dataclasses.replace(parts, semantic=meta.get("semantic"))


def check_unique(by_name: Mapping[str, int], names: Collection[str]) -> None:
    """``SnapshotError`` if a loaded index's ``names`` hold one twice (``by_name`` is shorter)."""
    if len(by_name) != len(names):  # the name -> id dict kept one id per name
        raise _invalid(f"the tool name {_first_duplicate(names)!r} appears twice")


def write(path: str | os.PathLike[str], data: bytes) -> None:
    """Writes snapshot ``data`` to ``path`` atomically (a temporary file, then a rename)."""
    write_atomic(path, data)


def read(path: str | os.PathLike[str], max_bytes: int = MAX_SNAPSHOT_BYTES) -> bytes:
    """The bytes of the snapshot file at ``path``: a regular file of at most ``max_bytes``
    (:func:`toolsift.limits.read_regular_file`), else a :class:`SnapshotError`."""
    file = os.fsdecode(path)
    data, problem = read_regular_file(file, check_max_bytes(max_bytes), "snapshot")
    if data is None:
        raise SnapshotError(f"{file}: {problem}.")
    return data


def updated(
    parts: Parts, by_name: Mapping[str, int], add: Iterable[Tool], remove: Iterable[str]
) -> tuple[Parts, Mapping[str, int], list[int], int]:
    """The parts of :meth:`toolsift.ToolIndex.with_tools`'s new index (copy-on-write: ``parts``
    are not changed), its name -> id map, the old ids dropped (ascending), and how many tools
    were kept (the added ones follow them).

    The Python work is proportional to the change, not to the index: the name -> id map is a
    :class:`~toolsift._overlay.PositionMap` over the previous one (no dict of every name is
    made), and the engine's update runs with the GIL released. The one whole-index step is the
    tuple of tools, a C-level copy of its references (no Python code per tool), which the
    cyclic collector does not track (:func:`~toolsift._index.build.untracked_tuple`).
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
    dropped: dict[int, str] = {}
    for name in _name_iter(remove, "remove"):
        if not isinstance(name, str):
            raise TypeError(f"remove must hold tool names (str), got {type(name).__name__}")
        gone = by_name.get(name)
        if gone is None:
            raise KeyError(name)
        dropped[gone] = name
    for tool in add:
        replaced = by_name.get(tool.name)
        if replaced is not None:
            dropped[replaced] = tool.name
    drop = sorted(dropped)
    weights = parts.field_weights.as_list()
    index = updated_index(parts.engine, parts.index, add, weights, drop)
    # Kept tools by slices between the dropped positions: C-level copies, so an update
    # that changes a few tools of a large index does no per-tool Python work.
    old_tools = parts.tools
    tools: tuple[Tool, ...] | LazyTools
    if isinstance(old_tools, LazyTools):  # a loaded index stays lazy: decode no kept tool
        tools = old_tools.subset(without(range(len(old_tools)), drop), add)
    else:
        tools = untracked_tuple(spliced(old_tools, drop, add))
    ids = PositionMap.of(by_name).updated(dropped.values(), [t.name for t in add])
    if isinstance(ids, dict) and isinstance(tools, LazyTools):
        # Folded: the new columns' own map, not a dict of every name.
        ids = cast("dict[str, int]", tools.columns.positions)
    new = Parts(tools, parts.engine, index, parts.field_weights, parts.params, ids)
    return new, ids, drop, len(tools) - len(add)


def server_tools(server: object, tools: Iterable[Tool]) -> tuple[Tool, ...]:
    """``tools`` for :meth:`toolsift.ToolIndex.replace_server`, each checked to be ``server``'s."""
    if not isinstance(server, str):
        raise TypeError(f"server must be a str, got {type(server).__name__}")
    checked = _tool_tuple(tools, "tools")
    for i, tool in enumerate(checked):
        if tool.server != server:
            raise ValueError(
                f"tools[{i}] ({tool.name!r}) belongs to server {tool.server!r}, not {server!r}"
            )
    return checked


def positions(parts: Parts) -> Mapping[str, int]:
    """The name -> id map of an index of ``parts`` (a lazy index's: its packed columns' own)."""
    if isinstance(parts.tools, LazyTools):
        return cast("Mapping[str, int]", parts.tools.columns.positions)
    names = parts.names
    return dict(zip(names, range(len(names))))


def tool_names(tools: Sequence[Tool] | LazyTools, by_name: Mapping[str, int]) -> Sequence[str]:
    """The tools' names in order, without decoding a loaded index's tools."""
    # `by_name` holds every name once, in tool order: its keys are the names.
    return tools.names if isinstance(tools, LazyTools) else list(by_name)


def name_at(tools: Sequence[Tool] | LazyTools, i: int) -> str:
    """The name of tool ``i``, without decoding a loaded index's tool."""
    return tools.names[i] if isinstance(tools, LazyTools) else tools[i].name


@dataclasses.dataclass(frozen=True)
class Parts:
    """What an index is made of: a snapshot's or an update's result, before it is wired."""

    tools: tuple[Tool, ...] | LazyTools
    engine: str
    index: EngineIndex
    field_weights: FieldWeights
    params: tuple[float, float, float]
    #: the tools' names in order (an update's: its name -> id map, whose keys are in order)
    names: Collection[str]
    #: a snapshot's ``semantic`` header entry (the tool vectors), if it has one
    semantic: Any = None


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


def _first_duplicate(names: Iterable[str]) -> str:
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
