"""Where the tool items of a parsed document are, and the server each belongs to.

A document is a tool, a list of tools, an MCP ``tools/list`` result (possibly inside a JSON-RPC
response), a catalogue ``{"servers": [...]}``, one catalogue entry ``{"name", "tools"}``, or a
mapping of server name to tools; a JSON Lines file is rows of tools or of catalogue entries
(see :func:`toolsift.loaders.load_tools`). Each item comes with its place (``_Where``), which
errors word as a JSONPath (``$.servers[1].tools[3]``) or a line number.

Example:
    >>> doc = {"servers": [{"name": "github", "tools": [{"name": "create_issue"}]}]}
    >>> [(_jsonpath(place), server) for place, _, server in _walk(doc, None)]
    [('$.servers[0].tools[0]', 'github')]
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple, Union

from ..errors import CatalogError, ToolDefinitionError
from ..tools import _kind

# These aliases are evaluated at run time, so they keep typing's spelling for Python 3.9.
_Path = tuple[Union[str, int], ...]  # a place in a JSON document: keys and indices
_Where = Union[int, "_Line", _Path]  # a JSONL line, a place in one, or a place in a JSON document

# Keys that make an item a tool definition rather than a server entry.
_SCHEMA_KEYS = frozenset({"inputSchema", "input_schema", "parameters", "function"})


class _Line(NamedTuple):
    """A place inside the JSON value on one line of a JSONL file."""

    number: int
    path: _Path


class _Located(Exception):
    """Internal: an error at a place in the input. The public functions word the place."""

    def __init__(self, where: Any, error: ToolDefinitionError | CatalogError):
        super().__init__(str(error))
        self.where = where
        self.error = error


def _jsonpath(path: _Path) -> str:
    parts = ["$"]
    for part in path:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif part.isidentifier():
            parts.append(f".{part}")
        else:
            parts.append(f"[{json.dumps(part, ensure_ascii=False)}]")
    return "".join(parts)


def _structure_error(where: _Where, message: str, field: str | None = None) -> _Located:
    return _Located(where, CatalogError(message, field=field))


def _tools_list(value: Any, path: _Path, what: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise _structure_error(path, f"{what} must be a list of tools, got {_kind(value)}.")
    return list(value)


def _server_name(value: Any, where: _Where) -> str:
    if not isinstance(value, str) or not value:
        raise _structure_error(
            where, f"The server name must be a non-empty string, got {value!r}.", field="name"
        )
    return value


def _is_server_entry(item: Mapping[str, Any]) -> bool:
    """``{"name", "tools": [...]}`` without a schema is a server with its tools, not a tool."""
    return isinstance(item.get("tools"), list) and _SCHEMA_KEYS.isdisjoint(item.keys())


def _jsonl_entries(
    rows: list[tuple[int, Any]], server: str | None
) -> Iterator[tuple[_Where, Any, str | None]]:
    """The tool items of a JSONL file: one per line, or a server entry's tools."""
    for number, item in rows:
        if type(item) is dict and "tools" in item and "name" in item and _is_server_entry(item):
            name = _server_name(item["name"], number)
            for index, tool in enumerate(item["tools"]):
                yield _Line(number, ("tools", index)), tool, name
        else:
            yield number, item, server


def _walk(doc: Any, server: str | None) -> Iterator[tuple[_Path, Any, str | None]]:
    """Every tool item of a document, with its place and the server it belongs to."""
    if isinstance(doc, (list, tuple)):
        for index, item in enumerate(doc):
            yield (index,), item, server
        return
    if not isinstance(doc, Mapping):
        raise _structure_error(
            (), f"Expected a tool, a list of tools or a JSON object, got {_kind(doc)}."
        )
    if "name" in doc and not isinstance(doc["name"], (list, tuple)):  # else a server "name"
        if _is_server_entry(doc):  # one catalogue entry: {"name", "tools": [...]}
            name = _server_name(doc["name"], ("name",))
            for index, item in enumerate(doc["tools"]):
                yield ("tools", index), item, name
        else:  # a single tool
            yield (), doc, server
        return
    base: _Path = ()
    result = doc.get("result")
    if isinstance(result, Mapping) and "tools" in result:  # a JSON-RPC response to tools/list
        doc, base = result, ("result",)
    if "servers" in doc:  # catalogue: {"servers": [{"name", "summary"?, "tools"}]}
        yield from _walk_servers(doc["servers"], (*base, "servers"))
    elif "tools" in doc:  # MCP tools/list result, optionally with its server
        if server is None and doc.get("server") is not None:
            server = _server_name(doc["server"], (*base, "server"))
        tools = _tools_list(doc["tools"], (*base, "tools"), "'tools'")
        for index, item in enumerate(tools):
            yield (*base, "tools", index), item, server
    else:  # {server name: tools list or tools/list result}
        yield from _walk_servers(doc, base)


def _walk_servers(servers: Any, path: _Path) -> Iterator[tuple[_Path, Any, str | None]]:
    entries: list[tuple[_Path, str, Any]] = []
    if isinstance(servers, Mapping):
        for key, value in servers.items():
            where: _Path = (*path, key)
            name = _server_name(key, where)
            if isinstance(value, Mapping) and "tools" in value:
                entries.append(((*where, "tools"), name, value["tools"]))
            else:
                entries.append((where, name, value))
    elif isinstance(servers, (list, tuple)):
        for index, entry in enumerate(servers):
            where = (*path, index)
            if not isinstance(entry, Mapping):
                raise _structure_error(
                    where, f"A server entry must be a JSON object, got {_kind(entry)}."
                )
            name = _server_name(entry.get("name"), (*where, "name"))
            entries.append(((*where, "tools"), name, entry.get("tools")))
    else:
        raise _structure_error(
            path, f"'servers' must be a list or a JSON object, got {_kind(servers)}."
        )
    for where, name, tools in entries:
        for index, item in enumerate(_tools_list(tools, where, f"The tools of server {name!r}")):
            yield (*where, index), item, name
