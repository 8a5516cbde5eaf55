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

Example:
    >>> from toolsift.loaders import load_tools
    >>> tools = load_tools({"tools": [{"name": "read_file", "inputSchema": {"type": "object"}}]},
    ...                    server="filesystem")
    >>> tools[0].name, tools[0].mcp_tool_name
    ('mcp__filesystem__read_file', 'read_file')
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Callable, NamedTuple, NoReturn, Optional, TypeVar, Union

from .errors import CatalogError, DuplicateToolError, ToolDefinitionError
from .tools import Tool, _default_schema, _invalid, _kind, _sanitize_part, mcp_name

__all__ = [
    "from_mcp",
    "from_openai",
    "from_anthropic",
    "from_records",
    "load_tools",
    "load_catalog",
    "load_catalogs",
]

# These aliases are evaluated at run time, so they keep typing's spelling for Python 3.9.
StrPath = Union[str, "os.PathLike[str]"]
_Path = tuple[Union[str, int], ...]  # a place in a JSON document: keys and indices
_Where = Union[int, "_Line", _Path]  # a JSONL line, a place in one, or a place in a JSON document
_Converter = Callable[[Mapping[str, Any], Optional[str], bool], Optional[Tool]]
_W = TypeVar("_W")

# Keys that only toolsift records have (Anthropic items share ``input_schema``).
_RECORD_KEYS = frozenset(
    {"input_schema", "server", "mcp_tool_name", "label", "summary", "search_hint", "source"}
)
# Keys that make an item a tool definition rather than a server entry.
_SCHEMA_KEYS = frozenset({"inputSchema", "input_schema", "parameters", "function"})
# Tool fields named differently in the source formats, so that errors name the source's field.
_MCP_FIELDS = {"input_schema": "inputSchema", "input_schema.properties": "inputSchema.properties"}
_MCP_ANNOTATED_FIELDS = {**_MCP_FIELDS, "title": "annotations.title"}
_RESPONSES_FIELDS = {
    "input_schema": "parameters",
    "input_schema.properties": "parameters.properties",
}
_CHAT_FIELDS = {
    "name": "function.name",
    "description": "function.description",
    "input_schema": "function.parameters",
    "input_schema.properties": "function.parameters.properties",
}
_NO_RENAMES: dict[str, str] = {}


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


# --- one item -> one Tool ----------------------------------------------------------------------


def _name_of(item: Mapping[str, Any], key: str = "name", shown: str | None = None) -> str:
    shown = shown or key
    value = item.get(key)
    if value is None:
        raise _invalid(None, shown, "is required")
    if not isinstance(value, str):
        raise _invalid(value, shown, f"must be a string, got {_kind(value)}")
    if not value or value.isspace():
        raise _invalid(value, shown, "must not be empty")
    return value


def _text(item: Mapping[str, Any], key: str) -> Any:
    value = item.get(key)
    return "" if value is None else value


def _schema(item: Mapping[str, Any], key: str) -> Any:
    value = item.get(key)
    return _default_schema() if value is None else value


def _build(renames: Mapping[str, str], **fields: Any) -> Tool:
    """``Tool(**fields)``, with errors naming the source format's field instead of the Tool's."""
    try:
        return Tool(**fields)
    except ToolDefinitionError as error:
        renamed = renames.get(error.field or "")
        if renamed is None:
            raise
        message = str(error).replace(f"field {error.field!r}", f"field {renamed!r}", 1)
        raise ToolDefinitionError(message, tool=error.tool, field=renamed) from None


def _unsupported(item: Mapping[str, Any], kind: Any, skip: bool) -> None:
    """Raise for a provider built-in tool, unless ``skip``."""
    if skip:
        return
    name = item.get("name")
    tool = name if isinstance(name, str) else None
    who = "A tool" if tool is None else f"Tool {tool!r}"
    raise ToolDefinitionError(
        f"{who} has type {kind!r}: it is not a function tool with an input schema, so it cannot "
        "be indexed (pass skip_unsupported=True to skip such tools).",
        tool=tool,
        field="type",
    )


def _identity(raw: str, server: str | None) -> dict[str, Any]:
    """The name fields of a tool named ``raw``: an MCP tool's when ``server`` is set."""
    if server is None:
        return {"name": raw}
    return {"name": mcp_name(server, raw), "server": server, "mcp_tool_name": raw}


def _mcp_item(item: Mapping[str, Any], server: str | None, skip: bool) -> Tool:
    raw = _name_of(item)
    if server is None:
        raise _invalid(raw, "server", "is required for an MCP tool (pass server=...)")
    title = item.get("title")
    renames = _MCP_FIELDS
    if title is None:
        annotations = item.get("annotations")
        if annotations is not None:
            if not isinstance(annotations, Mapping):
                problem = f"must be a JSON object, got {_kind(annotations)}"
                raise _invalid(raw, "annotations", problem)
            title = annotations.get("title")
            renames = _MCP_ANNOTATED_FIELDS
    return _build(
        renames,
        **_identity(raw, server),
        description=_text(item, "description"),
        input_schema=_schema(item, "inputSchema"),
        title=title,
    )


def _openai_item(item: Mapping[str, Any], server: str | None, skip: bool) -> Tool | None:
    kind = item.get("type")
    if kind == "function" and "function" in item:  # Chat Completions
        function = item["function"]
        if not isinstance(function, Mapping):
            raise _invalid(None, "function", f"must be a JSON object, got {_kind(function)}")
        name = _name_of(function, "name", "function.name")
        renames = _CHAT_FIELDS
    elif kind == "function" or kind is None:  # Responses API, or the legacy `functions` list
        function = item
        name = _name_of(item)
        renames = _RESPONSES_FIELDS
    else:
        _unsupported(item, kind, skip)
        return None
    return _build(
        renames,
        **_identity(name, server),
        description=_text(function, "description"),
        input_schema=_schema(function, "parameters"),
    )


def _anthropic_item(item: Mapping[str, Any], server: str | None, skip: bool) -> Tool | None:
    kind = item.get("type")
    if kind is not None and kind != "custom":  # a server tool such as web_search_20250305
        _unsupported(item, kind, skip)
        return None
    return _build(
        _NO_RENAMES,
        **_identity(_name_of(item), server),
        description=_text(item, "description"),
        input_schema=_schema(item, "input_schema"),
    )


def _record_item(item: Mapping[str, Any], server: str | None, skip: bool) -> Tool:
    raw = _name_of(item)
    if "server" in item:  # the record's own server wins over the document's, even when null
        server = item["server"]
    name = raw
    mcp_tool_name = item.get("mcp_tool_name")
    if server is not None:
        if not isinstance(server, str) or not server:
            raise _invalid(raw, "server", f"must be a non-empty string or null, got {server!r}")
        if mcp_tool_name is not None and not isinstance(mcp_tool_name, str):
            raise _invalid(
                raw, "mcp_tool_name", f"must be a string or None, got {_kind(mcp_tool_name)}"
            )
        prefix = f"mcp__{_sanitize_part(server)}__"
        if raw.startswith(prefix) and len(raw) > len(prefix):  # already canonical
            if mcp_tool_name is None:
                mcp_tool_name = raw[len(prefix) :]
        else:
            name = prefix + _sanitize_part(raw)
            if mcp_tool_name is None:
                mcp_tool_name = raw
            elif mcp_tool_name != raw:
                raise _invalid(
                    name,
                    "mcp_tool_name",
                    f"is {mcp_tool_name!r} but 'name' is {raw!r}: give the raw MCP name in both, "
                    "or the canonical name in 'name'",
                )
    return _build(
        _NO_RENAMES,
        name=name,
        description=_text(item, "description"),
        input_schema=_schema(item, "input_schema"),
        server=server,
        mcp_tool_name=mcp_tool_name,
        label=item.get("label"),
        title=item.get("title"),
        summary=item.get("summary"),
        search_hint=item.get("search_hint"),
        source=item.get("source"),
    )


def _unsupported_item(item: Mapping[str, Any], server: str | None, skip: bool) -> None:
    _unsupported(item, item.get("type"), skip)


def _detect(item: Mapping[str, Any], server: str | None) -> _Converter:
    """The format of one item, from its keys (see :func:`load_tools`)."""
    kind = item.get("type")
    if kind is not None and kind != "function":
        if kind == "custom" and "input_schema" in item:  # an Anthropic client tool
            return _anthropic_item
        return _unsupported_item  # a provider built-in, or an OpenAI grammar-based custom tool
    if "inputSchema" in item:
        return _mcp_item
    if kind == "function" or "parameters" in item:
        return _openai_item
    if not _RECORD_KEYS.isdisjoint(item.keys()):
        return _record_item  # also reads Anthropic items: same keys, same meaning
    return _mcp_item if server is not None else _record_item


# --- documents -> items ------------------------------------------------------------------------


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
) -> list[tuple[_W, Tool]]:
    """Convert every item; ``converter=None`` detects each item's format."""
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
        tools_list_result: The ``result`` of a ``tools/list`` call, or its ``tools`` list.
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
        obj: The parsed JSON document.
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
    try:
        located = _convert(_walk(obj, server), skip_unsupported)
    except _Located as exc:
        _reraise(exc, _jsonpath(exc.where))
    return _unique(located, _jsonpath)


# --- files -------------------------------------------------------------------------------------


def _parse_jsonl(file: str, text: str) -> list[tuple[int, Any]]:
    rows: list[tuple[int, Any]] = []
    loads = json.loads
    # Split on "\n" only: str.splitlines() would also split on U+2028 inside JSON strings.
    for number, line in enumerate(text.split("\n"), 1):
        if not line or line.isspace():
            continue
        try:
            rows.append((number, loads(line)))
        except json.JSONDecodeError as error:
            raise CatalogError(
                f"{file}:{number}: invalid JSON: {error.msg} (column {error.colno}).",
                path=file,
                line=number,
            ) from None
    return rows


def _parse(file: str, text: str) -> tuple[bool, Any]:
    """``(is_jsonl, rows or document)``, by content; the extension decides what is tried first."""
    if file.lower().endswith((".jsonl", ".ndjson")):
        try:
            return True, _parse_jsonl(file, text)
        except CatalogError as jsonl_error:
            try:
                return False, json.loads(text)
            except ValueError:
                raise jsonl_error from None
    try:
        return False, json.loads(text)
    except json.JSONDecodeError as error:
        if error.msg == "Extra data":  # several JSON values: JSON Lines
            return True, _parse_jsonl(file, text)
        raise CatalogError(
            f"{file}:{error.lineno}: invalid JSON: {error.msg} (column {error.colno}).",
            path=file,
            line=error.lineno,
        ) from None


def _load_file(
    path: StrPath, server: str | None, skip: bool
) -> list[tuple[tuple[str, _Where], Tool]]:
    file = os.fspath(path)
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise CatalogError(
            f"{file}:{line}: not valid UTF-8 ({error.reason} at byte {error.start}).",
            path=file,
            line=line,
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text or text.isspace():
        return []
    is_jsonl, parsed = _parse(file, text)
    entries: Iterable[tuple[_Where, Any, str | None]]
    if is_jsonl:
        entries = _jsonl_entries(parsed, server)
    else:
        entries = _walk(parsed, server)
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


def _line_number(where: _Where) -> int | None:
    if isinstance(where, _Line):
        return where.number
    return where if isinstance(where, int) else None


def _describe_place(place: tuple[str, _Where]) -> str:
    file, where = place
    if isinstance(where, _Line):
        return f"{file}:{where.number}:{_jsonpath(where.path)}"
    if isinstance(where, int):
        return f"{file}:{where}"
    return f"{file}:{_jsonpath(where)}"


def load_catalog(
    path: StrPath, *, server: str | None = None, skip_unsupported: bool = False
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

    Raises:
        CatalogError: The file is not UTF-8 or not JSON, or an item is invalid. The message
            starts with ``file:line:`` (JSONL, or a JSON syntax error), ``file:line:$.tools[i]:``
            (a server entry's tool in JSONL) or ``file:$.json.path:`` (JSON), and names the tool
            and field; ``path``, ``line`` (``None`` for a JSON path) and ``field`` are set.
        DuplicateToolError: Two tools in the file have the same canonical name.
        OSError: The file cannot be read.
    """
    if server is not None:
        _check_server_argument(server, "load_catalog")
    return _unique(_load_file(path, server, skip_unsupported), _describe_place)


def load_catalogs(paths: Iterable[StrPath], *, skip_unsupported: bool = False) -> list[Tool]:
    """Tools from several catalogue files, in order; see :func:`load_catalog`.

    Raises:
        CatalogError: As :func:`load_catalog`.
        DuplicateToolError: A canonical name appears twice, in one file or across files; the
            message names both places.
    """
    located: list[tuple[tuple[str, _Where], Tool]] = []
    for path in paths:
        located += _load_file(path, None, skip_unsupported)
    return _unique(located, _describe_place)
