"""The caps on untrusted input, in one place: a tool, a catalogue, a file and a snapshot.

Catalogues come from MCP servers nobody here controls, so every input is bounded before work is
done on it: a tool past a cap is a :class:`~toolsift.errors.ToolDefinitionError`, a file past
its size or not a regular file (a device, a FIFO) a :class:`~toolsift.errors.CatalogError` or
:class:`~toolsift.errors.SnapshotError`, each naming what is wrong.

| cap | default | where a gateway can change it |
|---|---|---|
| tool name, server, MCP tool name (characters) | 1,024 | fixed: `MAX_NAME_LENGTH` |
| description, other text fields (characters) | 1,000,000 | fixed: `MAX_DESCRIPTION_LENGTH` |
| `input_schema` nesting depth | 64 | fixed: `MAX_SCHEMA_DEPTH` |
| `input_schema` size (JSON values) | 100,000 | fixed: `MAX_SCHEMA_NODES` |
| catalogue file (bytes) | 256 MiB | `load_catalog(..., max_bytes=)` |
| snapshot file (bytes) | 4 GiB | `ToolIndex.load(..., max_bytes=)` |
| a search's `limit` | 25 | `search(..., max_limit=)`; in a session and the meta-tool: fixed |
| BM25+ `k1`, `delta` | 0 to 1,000 | `ToolIndex(..., k1=, delta=)` within the range |
| a field weight | 0, or 1e-6 to 1e30 | `FieldWeights` within the range |

A cyclic `input_schema` (a dict that contains itself) is refused at `Tool` creation, and a
catalogue file must be a regular file (not a device or a FIFO). Words longer than 64 characters
are indexed but not stemmed, in both engines, so a build stays linear in its input. A `select:`
name longer than 8,192 characters gets no "did you mean" suggestions (none could be close).

Example:
    >>> import toolsift
    >>> try:
    ...     toolsift.Tool(name="a" * (MAX_NAME_LENGTH + 1))
    ... except toolsift.ToolDefinitionError as exc:
    ...     print(exc.field)
    name
"""

from __future__ import annotations

import os
import stat
from typing import Any

__all__ = [
    "MAX_NAME_LENGTH",
    "MAX_DESCRIPTION_LENGTH",
    "MAX_SCHEMA_DEPTH",
    "MAX_SCHEMA_NODES",
    "MAX_CATALOG_BYTES",
    "MAX_SNAPSHOT_BYTES",
    "read_regular_file",
    "schema_problem",
]

#: The longest tool name (and MCP tool name, server name), in characters.
MAX_NAME_LENGTH = 1_024
#: The longest tool description (and other text field), in characters.
MAX_DESCRIPTION_LENGTH = 1_000_000
#: The deepest nesting of objects and arrays in an ``input_schema``.
MAX_SCHEMA_DEPTH = 64
#: The most JSON values (objects, arrays, strings, numbers...) in an ``input_schema``.
MAX_SCHEMA_NODES = 100_000
#: The largest catalogue file ``load_catalog`` reads by default, in bytes.
MAX_CATALOG_BYTES = 256 * 1024 * 1024
#: The largest snapshot file ``ToolIndex.load`` reads by default, in bytes.
MAX_SNAPSHOT_BYTES = 4 * 1024 * 1024 * 1024


#: Values that hold no other value: a schema made of them needs no further walk.
_LEAF_TYPES = frozenset((str, int, float, bool, type(None)))


def schema_problem(schema: Any) -> str | None:
    """What is wrong with ``schema``'s shape (a cycle, too deep, too large), or ``None``.

    A first walk only decides whether anything is wrong (no paths, no per-leaf work); the rare
    schema that fails it is walked again to name the place.

    Example:
        >>> d = {"type": "object", "properties": {}}
        >>> d["properties"]["self"] = d
        >>> schema_problem(d)
        'contains itself (a cycle at properties.self)'
    """
    if _fits(schema):
        return None
    return _located_problem(schema)


def _fits(schema: Any) -> bool:
    """Whether ``schema`` has no cycle, no nesting past ``MAX_SCHEMA_DEPTH`` and at most
    ``MAX_SCHEMA_NODES`` values: exactly when :func:`_located_problem` finds nothing."""
    nodes = 1
    on_path: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(schema, 1, False)]
    while stack:
        value, depth, leaving = stack.pop()
        if leaving:
            on_path.discard(id(value))
            continue
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, (list, tuple)):
            children = value
        elif hasattr(value, "items") and hasattr(value, "__getitem__"):
            children = [v for _, v in value.items()]
        else:
            continue
        if id(value) in on_path or depth > MAX_SCHEMA_DEPTH:
            return False
        nodes += len(children)
        if nodes > MAX_SCHEMA_NODES:
            return False
        on_path.add(id(value))
        stack.append((value, depth, True))
        for child in children:
            if type(child) not in _LEAF_TYPES:
                stack.append((child, depth + 1, False))
    return True


def _located_problem(schema: Any) -> str | None:
    """:func:`schema_problem` naming the place: the first problem in walk order."""
    nodes = 0
    on_path: set[int] = set()
    # Iterative, so no depth reaches Python's recursion limit: (value, depth, path, leaving).
    stack: list[tuple[Any, int, str, bool]] = [(schema, 1, "", False)]
    while stack:
        value, depth, path, leaving = stack.pop()
        if leaving:
            on_path.discard(id(value))
            continue
        nodes += 1
        if nodes > MAX_SCHEMA_NODES:
            return f"is too large: more than {MAX_SCHEMA_NODES:,} JSON values"
        if len(path) > 60:  # a deep path is named by its end (the message stays short)
            path = "..." + path[-60:]
        if isinstance(value, (dict, list, tuple)) or (
            hasattr(value, "items") and hasattr(value, "__getitem__")
        ):
            if id(value) in on_path:
                return f"contains itself (a cycle at {path or 'the top'})"
            if depth > MAX_SCHEMA_DEPTH:
                return f"is nested too deep: more than {MAX_SCHEMA_DEPTH} levels at {path}"
            on_path.add(id(value))
            stack.append((value, depth, path, True))
            if isinstance(value, (list, tuple)):
                children = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
            else:
                children = [(f"{path}.{k}" if path else str(k), v) for k, v in value.items()]
            for child_path, child in reversed(children):
                stack.append((child, depth + 1, child_path, False))
    return None


def read_regular_file(path: Any, max_bytes: int, what: str) -> tuple[bytes | None, str]:
    """``(data, problem)``: the bytes of the regular file at ``path`` (``None`` and what is
    wrong if it is not a regular file or is larger than ``max_bytes``); reads at most
    ``max_bytes + 1`` bytes, so a file that grows meanwhile is caught too. ``what`` names the
    kind of file in the problem ("catalogue", "snapshot").

    Raises:
        OSError: the file does not exist or cannot be read.

    Example:
        >>> read_regular_file("/dev/zero", 10, "catalogue")[1]
        'is not a regular file (a device, a FIFO or a socket): not a catalogue'
    """
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "a device, a FIFO or a socket"
        return None, f"is not a regular file ({kind}): not a {what}"
    if info.st_size > max_bytes:
        return None, f"is {info.st_size:,} bytes, over the {what} size cap of {max_bytes:,}"
    # O_NONBLOCK: a file swapped for a FIFO between the stat and the open never blocks it.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None, f"is not a regular file: not a {what}"
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        return None, f"is over the {what} size cap of {max_bytes:,} bytes"
    return data, ""
