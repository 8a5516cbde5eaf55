"""Loaders: build :class:`~toolsift.tools.Tool` lists from the formats agents already use.

=====================  ==========================================================================
format                 one item looks like
=====================  ==========================================================================
MCP ``tools/list``     ``{"name", "title"?, "description"?, "inputSchema", "annotations"?}``
OpenAI Chat            ``{"type": "function", "function": {"name", "description"?, "parameters"?}}``
OpenAI Responses       ``{"type": "function", "name", "description"?, "parameters"?}``
Anthropic              ``{"name", "description"?, "input_schema", "type"?: "custom"}``
toolsift record        ``{"name", "description", "input_schema", "server"?, "mcp_tool_name"?,
                       "label"?, "title"?, "summary"?, "search_hint"?, "source"?}``
=====================  ==========================================================================

Rules shared by every loader:

* An MCP tool's name becomes ``mcp__<server>__<tool>`` (:func:`~toolsift.tools.mcp_name`) and
  its raw name is kept in ``mcp_tool_name``.
* JSON ``null`` counts as absent for optional fields: no description becomes ``""`` and no
  schema becomes ``{"type": "object", "properties": {}}``.
* Provider built-in tools (OpenAI ``web_search``, Anthropic ``web_search_20250305``, ...) have no
  schema to index. They raise :class:`~toolsift.errors.ToolDefinitionError` (field ``type``)
  unless ``skip_unsupported=True``, which drops them.
* A canonical name seen twice in one load raises :class:`~toolsift.errors.DuplicateToolError`
  naming both places; nothing is overwritten.
* Errors name the place as a JSONPath (``$.servers[1].tools[3]``) or, in a JSONL file, the line.

This module holds the public functions; the private modules beside it convert one item per
format (``_loaders.formats``), find the items of a document (``_loaders.walk``) and read files
(``_loaders.files``).

Example:
    >>> from toolsift.loaders import load_tools
    >>> tools = load_tools({"tools": [{"name": "read_file", "inputSchema": {"type": "object"}}]},
    ...                    server="filesystem")
    >>> tools[0].name, tools[0].mcp_tool_name
    ('mcp__filesystem__read_file', 'read_file')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Callable, NoReturn, TypeVar

from ._loaders.compiled import compiled_tools
from ._loaders.files import StrPath as StrPath
from ._loaders.files import (
    _describe_place,
    _file_entries,
    _line_number,
    bytes_entries,
    check_path,
)
from ._loaders.formats import (
    _anthropic_item,
    _Converter,
    _detect,
    _mcp_item,
    _openai_item,
    _record_item,
)
from ._loaders.walk import _jsonpath, _Located, _walk, _Where
from ._options import check_max_bytes
from .errors import CatalogError, DuplicateToolError, ToolDefinitionError
from .limits import MAX_CATALOG_BYTES
from .tools import Tool, _kind

__all__ = [
    "as_plain",
    "from_mcp",
    "from_openai",
    "from_anthropic",
    "from_records",
    "load_tools",
    "load_catalog",
    "load_catalogs",
]

_W = TypeVar("_W")


def _dump_sdk(obj: Any) -> Any:
    to_mcp_tool = getattr(obj, "to_mcp_tool", None)  # a FastMCP tool: its MCP wire form
    if callable(to_mcp_tool):
        obj = to_mcp_tool()
    model_dump = getattr(obj, "model_dump", None)  # a pydantic model of the MCP SDK
    if callable(model_dump):
        return model_dump(mode="json", by_alias=True, exclude_none=True)
    return obj


def as_plain(obj: Any) -> Any:
    """``obj`` as plain JSON values when it holds MCP SDK or FastMCP objects, else unchanged.

    Takes an ``mcp.types.ListToolsResult``, an ``mcp.types.Tool``, a FastMCP tool (through its
    ``to_mcp_tool()``), or a list or tuple of them, and returns what their ``model_dump`` gives
    in the MCP wire format (``inputSchema``, not ``input_schema``). Neither ``mcp`` nor
    ``fastmcp`` is imported: the objects are recognised by their methods.

    Example:
        >>> as_plain([{"name": "a"}])
        [{'name': 'a'}]
    """
    if isinstance(obj, (list, tuple)):
        if set(map(type, obj)) <= {dict}:  # plain JSON (map and set run in C: ~20 ns an item)
            return obj
        if any(callable(getattr(o, "model_dump", None)) for o in obj):
            return [_dump_sdk(o) for o in obj]
        return obj
    if isinstance(obj, (str, bytes, Mapping)):
        return obj
    return _dump_sdk(obj)


def _check_server_argument(server: Any, caller: str) -> None:
    if not isinstance(server, str):
        raise TypeError(f"{caller}() server must be a string, got {_kind(server)}.")
    if not server:
        raise ValueError(f"{caller}() server must not be empty.")


def _items_of(obj: Any, caller: str) -> list[Any]:
    """The items given to a ``from_*`` function: a list, or a ``{"tools": [...]}`` object."""
    if isinstance(obj, Mapping):
        if "tools" not in obj:
            raise TypeError(f"{caller}() expects a list of tools or {{'tools': [...]}}.")
        obj = obj["tools"]
    if isinstance(obj, (str, bytes)) or not isinstance(obj, Iterable):
        raise TypeError(f"{caller}() expects a list of tools, got {_kind(obj)}.")
    return list(obj)


# --- items -> Tools ----------------------------------------------------------------------------


def _convert(
    entries: Iterable[tuple[_W, Any, str | None]],
    skip: bool,
    converter: _Converter | None = None,
    compiled: bool = True,
) -> list[tuple[_W, Tool]]:
    """Convert every item; ``converter=None`` detects each item's format.

    The items are made by the compiled loader when it takes them all (plain MCP items and
    records; ``compiled=False``: not tried), else converted here one by one, which raises the
    first item's error. A document's structure error (raised while ``entries`` is walked) comes
    after the errors of the items before it, as when each item is converted as it is walked.
    """
    listed: list[tuple[_W, Any, str | None]] = []
    try:
        listed.extend(entries)
    except Exception:
        _convert_each(listed, skip, converter)  # an earlier item's error comes first
        raise
    tools = None
    if compiled:
        tools = compiled_tools([e[1] for e in listed], [e[2] for e in listed], converter)
    if tools is not None:
        return [(entry[0], tool) for entry, tool in zip(listed, tools)]
    return _convert_each(listed, skip, converter)


def _convert_each(
    entries: Iterable[tuple[_W, Any, str | None]],
    skip: bool,
    converter: _Converter | None = None,
) -> list[tuple[_W, Tool]]:
    """:func:`_convert` in Python, item by item."""
    located: list[tuple[_W, Tool]] = []
    for where, item, server in entries:
        if type(item) is not dict and not isinstance(item, Mapping):
            raise _Located(
                where,
                ToolDefinitionError(f"A tool definition must be a JSON object, got {_kind(item)}."),
            )
        convert = converter or _detect(item, server)
        try:
            tool = convert(item, server, skip)
        except ToolDefinitionError as error:
            raise _Located(where, error) from None
        if tool is not None:
            located.append((where, tool))
    return located


def _unique(located: Iterable[tuple[_W, Tool]], describe: Callable[[_W], str]) -> list[Tool]:
    seen: dict[str, _W] = {}
    tools: list[Tool] = []
    for where, tool in located:
        if tool.name in seen:
            raise DuplicateToolError(
                f"Duplicate tool name {tool.name!r} at {describe(seen[tool.name])} "
                f"and {describe(where)}.",
                tool=tool.name,
                field="name",
            )
        seen[tool.name] = where
        tools.append(tool)
    return tools


def _describe_item(where: Any) -> str:
    return _jsonpath(where) if isinstance(where, tuple) else f"$[{where}]"


def _reraise(located: _Located, place: str) -> NoReturn:
    error = located.error
    if isinstance(error, CatalogError):
        raise CatalogError(
            f"{place}: {error}", path=error.path, line=error.line, field=error.field
        ) from None
    raise type(error)(f"{place}: {error}", tool=error.tool, field=error.field) from None


def _load_items(
    obj: Any, caller: str, converter: _Converter, server: str | None, skip: bool
) -> list[Tool]:
    items = _items_of(obj, caller)
    try:
        located = _convert(((i, item, server) for i, item in enumerate(items)), skip, converter)
    except _Located as exc:
        _reraise(exc, _describe_item(exc.where))
    return _unique(located, _describe_item)


def from_mcp(
    tools_list_result: Mapping[str, Any] | Iterable[Mapping[str, Any]], server: str
) -> list[Tool]:
    """Tools from an MCP ``tools/list`` result (``{"tools": [...]}``) or a list of MCP tools.

    Arguments:
        tools_list_result: The ``result`` of a ``tools/list`` call, or its ``tools`` list; MCP
            SDK objects (``ListToolsResult``, ``mcp.types.Tool``) and FastMCP tools are taken
            as they are (see :func:`as_plain`).
        server: The server name as configured; each tool is named ``mcp__<server>__<tool>``.

    Returns:
        One :class:`Tool` per item, in order, with ``server`` and the raw ``mcp_tool_name``.
        ``title`` comes from ``title`` or else ``annotations.title``.

    Raises:
        ToolDefinitionError: An item is invalid; the message names its index, tool and field.
        DuplicateToolError: Two items have the same canonical name.
        TypeError: ``server`` is not a string or the argument is not a list of tools.
    """
    _check_server_argument(server, "from_mcp")
    tools_list_result = as_plain(tools_list_result)
    return _load_items(tools_list_result, "from_mcp", _mcp_item, server, False)


def from_openai(
    items: Iterable[Mapping[str, Any]] | Mapping[str, Any], *, skip_unsupported: bool = False
) -> list[Tool]:
    """Tools from OpenAI function tools: Chat Completions, Responses API or legacy ``functions``.

    Arguments:
        items: A list of tools, or a request body with a ``tools`` list.
        skip_unsupported: Drop built-in tools (``web_search``, ``file_search``, ``mcp``, custom
            grammar tools, ...) instead of raising.

    Raises:
        ToolDefinitionError: An item is invalid or (without ``skip_unsupported``) not a
            function tool.
        DuplicateToolError: Two items have the same name.
    """
    return _load_items(items, "from_openai", _openai_item, None, skip_unsupported)


def from_anthropic(
    items: Iterable[Mapping[str, Any]] | Mapping[str, Any], *, skip_unsupported: bool = False
) -> list[Tool]:
    """Tools from Anthropic client tools (``name``, ``description``, ``input_schema``).

    Arguments:
        items: A list of tools, or a request body with a ``tools`` list.
        skip_unsupported: Drop server tools (any ``type`` other than ``"custom"``, e.g.
            ``web_search_20250305``) instead of raising.

    Raises:
        ToolDefinitionError: An item is invalid or (without ``skip_unsupported``) a server tool.
        DuplicateToolError: Two items have the same name.
    """
    return _load_items(items, "from_anthropic", _anthropic_item, None, skip_unsupported)


def from_records(items: Iterable[Mapping[str, Any]] | Mapping[str, Any]) -> list[Tool]:
    """Tools from toolsift records, the ``*.tools.jsonl`` format of ``shared/data``.

    A record with a non-null ``server`` becomes an MCP tool: ``name`` is taken as the raw MCP
    name and canonicalised, unless it already starts with ``mcp__<sanitised server>__``, in
    which case it is kept and ``mcp_tool_name`` (if absent) is the part after that prefix.
    Unknown keys (``metadata``, ``group``, ...) are ignored.

    Raises:
        ToolDefinitionError: A record is invalid; the message names its index, tool and field.
        DuplicateToolError: Two records have the same canonical name.
    """
    return _load_items(items, "from_records", _record_item, None, False)


def load_tools(
    obj: Any, *, server: str | None = None, skip_unsupported: bool = False
) -> list[Tool]:
    """Tools from any supported document, detecting the format of each item.

    ``obj`` may be a single tool; a list of tools (formats may mix); an MCP ``tools/list`` result
    ``{"tools": [...]}`` (its server is ``server``, else its own ``"server"`` key), optionally
    inside a JSON-RPC response (``{"result": {"tools": [...]}}``); a catalogue
    ``{"servers": [{"name", "summary"?, "tools": [...]}]}``; or a mapping of server name to its
    tools list; or one catalogue entry ``{"name", "tools": [...]}`` (an object with a ``tools``
    list and no schema key is a server, not a tool). In the mapping form, servers named
    ``tools`` or ``servers`` cannot be told from the other forms and are read as those; use the
    catalogue form for them. Server summaries are not part of a :class:`Tool` and are not
    returned.

    An item is a provider built-in if it has a ``type`` other than ``"function"`` (or
    ``"custom"`` with an ``input_schema``: an Anthropic client tool); else MCP if it has
    ``inputSchema``; OpenAI if ``type`` is ``"function"`` or it has ``parameters``; a record (or
    Anthropic tool, which reads the same) if it has ``input_schema`` or a record-only key; and
    otherwise MCP when a server is known, else a record. Whatever its format, an item belongs to
    the server of its context (its catalogue entry, else ``server``, else the ``tools/list``
    document's ``"server"`` key) and becomes an MCP tool of it, unless it is a record with a
    ``"server"`` key of its own (``null`` keeps it a plain tool).

    Arguments:
        obj: The parsed JSON document, or MCP SDK / FastMCP objects (see :func:`as_plain`).
        server: The MCP server of every item that names none itself (catalogue entries
            name their own); such items become MCP tools of that server.
        skip_unsupported: Drop provider built-in tools instead of raising.

    Raises:
        ToolDefinitionError: An item is invalid; the message names its JSONPath, tool and field.
        DuplicateToolError: Two items have the same canonical name.
        CatalogError: The document's structure is not one of the above.
    """
    if server is not None:
        _check_server_argument(server, "load_tools")
    obj = as_plain(obj)
    listed = type(obj) is list
    if listed:  # the usual document: the compiled loader needs no places
        tools = compiled_tools(obj, [server] * len(obj))
        if tools is not None:
            return tools  # (it gives up on a name seen twice: no _unique needed)
    try:
        located = _convert(_walk(obj, server), skip_unsupported, compiled=not listed)
    except _Located as exc:
        _reraise(exc, _jsonpath(exc.where))
    return _unique(located, _jsonpath)


# --- files -------------------------------------------------------------------------------------


def _load_file(
    path: StrPath, server: str | None, skip: bool, max_bytes: int = MAX_CATALOG_BYTES
) -> list[tuple[tuple[str, _Where], Tool]]:
    file, entries = _file_entries(path, server, max_bytes)
    return _located_tools(file, entries, skip)


def _located_tools(
    file: str, entries: Iterable[tuple[_Where, Any, str | None]], skip: bool
) -> list[tuple[tuple[str, _Where], Tool]]:
    try:
        located = _convert(entries, skip)
    except _Located as exc:
        message = str(exc.error)
        message = message[:1].lower() + message[1:]
        where = exc.where
        raise CatalogError(
            f"{_describe_place((file, where))}: {message}",
            path=file,
            line=_line_number(where),
            field=exc.error.field,
        ) from None
    return [((file, where), tool) for where, tool in located]


def _load_bytes(data: bytes, file: str = "catalogue.json") -> list[Tool]:
    """:func:`load_catalog` of a file's bytes already in memory (``file`` names it in errors
    and its extension decides which parse is tried first), for the fuzz campaign."""
    return _unique(_located_tools(file, bytes_entries(data, file, None), False), _describe_place)


def load_catalog(
    path: StrPath,
    *,
    server: str | None = None,
    skip_unsupported: bool = False,
    max_bytes: int = MAX_CATALOG_BYTES,
) -> list[Tool]:
    """Tools from a ``.json`` or ``.jsonl`` file in any format :func:`load_tools` reads.

    The file is UTF-8 (a BOM is allowed). JSON Lines holds one tool per line, or one server
    entry ``{"name", "tools": [...]}`` per line; blank lines are allowed. The extension only
    decides which parse is tried first: a ``.json`` file that holds several values is read as
    JSON Lines, and a ``.jsonl`` file holding one document as JSON. An empty file holds no tools.

    Arguments:
        path: The file.
        server: The MCP server of every item that names none itself (catalogue entries
            name their own); such items become MCP tools of that server.
        skip_unsupported: Drop provider built-in tools instead of raising.
        max_bytes: The largest file read (default 256 MiB,
            :data:`toolsift.limits.MAX_CATALOG_BYTES`); each tool is also capped
            (:mod:`toolsift.limits`).

    Raises:
        CatalogError: The file is not a regular file (a device, a FIFO), is over ``max_bytes``,
            is not UTF-8 or not JSON, or an item is invalid. The message
            starts with ``file:line:`` (JSONL, or a JSON syntax error), ``file:line:$.tools[i]:``
            (a server entry's tool in JSONL) or ``file:$.json.path:`` (JSON), and names the tool
            and field; ``path``, ``line`` (``None`` for a JSON path) and ``field`` are set.
        DuplicateToolError: Two tools in the file have the same canonical name.
        OSError: The file cannot be read.
    """
    path = check_path(path, "load_catalog")
    max_bytes = check_max_bytes(max_bytes)
    if server is not None:
        _check_server_argument(server, "load_catalog")
    return _unique(_load_file(path, server, skip_unsupported, max_bytes), _describe_place)


def load_catalogs(paths: Iterable[StrPath], *, skip_unsupported: bool = False) -> list[Tool]:
    """Tools from several catalogue files, in order; see :func:`load_catalog`.

    Raises:
        CatalogError: As :func:`load_catalog`.
        DuplicateToolError: A canonical name appears twice, in one file or across files; the
            message names both places.
    """
    if isinstance(paths, (str, bytes)) or hasattr(type(paths), "__fspath__"):
        raise TypeError(
            "load_catalogs: paths must be an iterable of paths, not a single path "
            "(use load_catalog for one file)"
        )
    located: list[tuple[tuple[str, _Where], Tool]] = []
    for path in paths:
        located += _load_file(check_path(path, "load_catalogs"), None, skip_unsupported)
    return _unique(located, _describe_place)
