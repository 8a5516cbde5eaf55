"""One item, one :class:`~toolsift.tools.Tool`: the source formats :mod:`toolsift.loaders` reads.

Each format has a converter ``(item, server, skip) -> Tool | None``: MCP ``tools/list`` items,
OpenAI function tools (Chat Completions, Responses, legacy ``functions``), Anthropic client tools
and toolsift records. :func:`_detect` picks one from an item's keys; errors name the source
format's field (``inputSchema``, ``function.parameters``, ...), not the Tool's.

Example:
    >>> item = {"type": "function", "function": {"name": "get_weather", "parameters": None}}
    >>> convert = _detect(item, None)
    >>> convert.__name__, convert(item, None, False).name
    ('_openai_item', 'get_weather')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Optional

from ..errors import ToolDefinitionError
from ..tools import Tool, _default_schema, _invalid, _kind, mcp_name, mcp_prefix

# This alias is evaluated at run time, so it keeps typing's spelling for Python 3.9.
_Converter = Callable[[Mapping[str, Any], Optional[str], bool], Optional[Tool]]

# Keys that only toolsift records have (Anthropic items share ``input_schema``).
_RECORD_KEYS = frozenset(
    {"input_schema", "server", "mcp_tool_name", "label", "summary", "search_hint", "source"}
)
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
        prefix = mcp_prefix(server)
        if raw.startswith(prefix) and len(raw) > len(prefix):  # already canonical
            if mcp_tool_name is None:
                mcp_tool_name = raw[len(prefix) :]
        else:
            name = mcp_name(server, raw)
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
