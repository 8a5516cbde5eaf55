"""The checks of what a discovery session is given (tools, names, servers, summaries, modes,
budgets and flags): each raises a ``TypeError`` or ``ValueError`` naming the argument, before
the session changes.

Example:
    >>> _check_names(["read", "bash"], "activate() names")
    ['read', 'bash']
    >>> _check_mode("sometimes")
    Traceback (most recent call last):
    ...
    ValueError: mode must be one of 'off', 'all', 'mcp-only', 'auto', got 'sometimes'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..loaders import as_plain, from_mcp
from ..tools import Tool, _kind

_MODES = ("off", "all", "mcp-only", "auto")


def _as_tools(tools: Any, server: str) -> list[Tool]:
    """``tools`` as MCP tools of ``server``: Tool objects, or raw ``tools/list`` items (as JSON
    or as MCP SDK / FastMCP objects)."""
    tools = as_plain(tools)
    if isinstance(tools, Mapping):
        return from_mcp(tools, server)
    items = _listed(
        tools,
        "connect_server() tools",
        "a list of toolsift.Tool objects of this server or an MCP tools/list result "
        "({'tools': [...]}) or its list",
    )
    is_tool = [isinstance(t, Tool) for t in items]
    if not any(is_tool):
        return from_mcp(items, server)
    if not all(is_tool):
        i = is_tool.index(False)
        raise TypeError(
            f"connect_server() tools[{i}] is {_kind(items[i])} but tools[{is_tool.index(True)}] "
            "is a toolsift.Tool: pass either toolsift.Tool objects or raw MCP tool definitions, "
            "not both."
        )
    for tool in items:
        if tool.server is None:
            raise ValueError(
                f"Tool {tool.name!r} is not an MCP tool (server=None): connect_server() takes "
                f"tools of server {server!r}; add built-in tools with add_tools()."
            )
        if tool.server != server:
            raise ValueError(
                f"Tool {tool.name!r} belongs to server {tool.server!r}, not {server!r}."
            )
    return items


# What to tell a caller who passed something else than Tool objects.
_MAKE_TOOLS = (
    "build them with toolsift.Tool(...), or convert MCP, OpenAI or Anthropic definitions with "
    "toolsift.load_tools(...) (or toolsift.loaders.from_mcp / from_openai / from_anthropic), "
    "or read a catalogue file with toolsift.load_catalog(path)"
)


def _listed(items: object, what: str, expected: str, hint: str = "") -> list[Any]:
    """``items`` as a list; a string, a mapping, ``None`` or a non-iterable is a TypeError."""
    iterator = None
    if not isinstance(items, (str, bytes, Mapping)) and items is not None:
        try:
            iterator = iter(items)  # type: ignore[call-overload]
        except TypeError:
            pass
    if iterator is None:
        raise TypeError(f"{what} must be {expected}, got {_kind(items)}{hint}.")
    return list(iterator)  # a generator's own errors propagate as they are


def _check_tools(tools: object, what: str) -> list[Tool]:
    """``tools`` as a list of :class:`Tool` objects, or a TypeError saying how to make them."""
    items = _listed(tools, what, "a list of toolsift.Tool objects", f": {_MAKE_TOOLS}")
    for i, tool in enumerate(items):
        if not isinstance(tool, Tool):
            raise TypeError(
                f"{what}[{i}] must be a toolsift.Tool, got {_kind(tool)}: {_MAKE_TOOLS}."
            )
    return items


def _check_names(names: object, what: str) -> list[str]:
    """``names`` as a list of strings; a single ``str`` is one name (as ``exclude``, ``servers``
    and ``always_available`` take it), never a list of letters."""
    if isinstance(names, str):
        return [names]
    items = _listed(names, what, "a list of tool names")
    for i, name in enumerate(items):
        if not isinstance(name, str):
            raise TypeError(f"{what}[{i}] must be a tool name (str), got {_kind(name)}.")
    return items


def _check_server_name(name: object, caller: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{caller}() name must be a server name (str), got {_kind(name)}.")
    if not name:
        raise ValueError(f"{caller}() name must not be empty: pass the server name as configured.")
    return name


def _check_summary(summary: object, what: str) -> str:
    if not isinstance(summary, str):
        raise TypeError(f"{what} must be a one-line summary (str), got {_kind(summary)}.")
    return summary


def _check_summaries(summaries: object) -> dict[str, str]:
    if summaries is None:
        return {}
    if not isinstance(summaries, Mapping):
        raise TypeError(
            "summaries must be a mapping of server name to one-line summary, "
            f"got {_kind(summaries)}."
        )
    checked: dict[str, str] = {}
    for server, summary in summaries.items():
        if not isinstance(server, str):
            raise TypeError(f"summaries keys must be server names (str), got {_kind(server)}.")
        checked[server] = _check_summary(summary, f"summaries[{server!r}]")
    return checked


def _check_always(always_available: object) -> frozenset[str]:
    if isinstance(always_available, str):  # one name
        always_available = (always_available,)
    names = _listed(
        always_available,
        "always_available",
        "a list of tool or server names (pass () for none)",
    )
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise TypeError(
                f"always_available[{i}] must be a tool or server name (str), got {_kind(name)}."
            )
        if not name:
            raise ValueError(f"always_available[{i}] must not be empty.")
    return frozenset(names)


def _check_budget(value: object, what: str) -> int:
    """An auto-mode threshold: an int (not a bool) >= 0."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, got {_kind(value)}.")
    if value < 0:
        raise ValueError(f"{what} must be >= 0, got {value}.")
    return value


def _check_flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be True or False, got {_kind(value)}.")
    return value


def _check_mode(mode: object) -> None:
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(map(repr, _MODES))}, got {mode!r}")


def _check_meta_tool_name(name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"meta_tool_name must be a str, got {type(name).__name__}.")
    if not name:
        raise ValueError("meta_tool_name must not be empty.")
    return name
