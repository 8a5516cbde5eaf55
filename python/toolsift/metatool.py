"""The search meta-tool: its definition for every provider, and running a call to it.

The model sees one tool, ``search_tool_bm25`` by default, instead of every hidden schema. Its
description lists the discoverable servers with their tool counts and summaries. It
is built from the session's discoverable catalogue only, sorted, with no timestamps, so it stays
byte-identical, and prompt caches keep hitting, for as long as the catalogue does not change;
activation never changes it.

Example:
    >>> from toolsift import DiscoverySession
    >>> from toolsift.metatool import call_meta_tool, meta_tool
    >>> session = DiscoverySession.from_default_catalog()
    >>> meta_tool(session).to_openai_chat()["function"]["name"]
    'search_tool_bm25'
    >>> call = call_meta_tool(session, {"query": "weather forecast", "limit": 1})
    >>> call.result.activated, call.details["total_tools"]
    (('mcp__weather__get_forecast',), 221)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._options import limit_error
from .contract import search_tool_bm25_content, search_tool_bm25_details
from .errors import DiscoveryError, QueryError
from .index import DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, Ranker
from .query import check_query_text
from .session import UNAVAILABLE_MESSAGE, DiscoveryResult, DiscoverySession
from .tools import Tool

__all__ = [
    "meta_tool",
    "meta_tool_description",
    "regex_meta_tool",
    "call_meta_tool",
    "MetaToolCall",
    "REGEX_META_TOOL_NAME",
]

#: Built-in (server-less) tools are listed under this heading in the description.
BUILTIN_GROUP = "built-in"
#: How many servers the description lists at most (the ones with the most tools).
MAX_SERVERS_LISTED = 50
#: How many tool names a group without a summary lists.
_NAMES_LISTED = 8
#: Longest server summary in the description, in characters.
_SUMMARY_LEN = 160

_INTRO = (
    "Search the hidden tool-discovery index and activate the top matches for the current "
    "session.\n"
    "\n"
    "Most tools are hidden to save context. When you need a capability that none of your "
    "current tools provides, call this tool with a natural-language or keyword query (for "
    'example "create a github issue"). The best matches (up to `limit`, default {limit}) are '
    "activated at once: they become available before your next model call in this same turn, "
    "so call them directly after this search returns. Activated tools stay available for the "
    "rest of the session; search again for anything else.\n"
    "\n"
    'The result is JSON: {{"query","activated_tools","match_count","total_tools"}}. If no tool '
    "was activated, search again with other keywords."
)


def _input_schema(
    default_limit: int = DEFAULT_LIMIT, max_limit: int = DEFAULT_MAX_LIMIT
) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Natural-language or keyword query describing the capability "
                "you need.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": max_limit,
                "description": f"Maximum number of tools to activate (default {default_limit}, "
                f"at most {max_limit}).",
            },
        },
        "required": ["query"],
    }


def meta_tool_description(
    tools: tuple[Tool, ...] | list[Tool],
    summaries: Mapping[str, str] | None = None,
    *,
    max_servers: int = MAX_SERVERS_LISTED,
    default_limit: int = DEFAULT_LIMIT,
) -> str:
    """The meta-tool description for a discoverable catalogue.

    Servers are listed in code-point order of their names, each with its tool count and its
    summary (cut at 160 characters; lacking one, its first tool names); server-less tools come
    last, under ``built-in``. Past ``max_servers`` servers, the ones with the most tools are
    listed (ties by name) and one line counts the rest, so a gateway with hundreds of servers
    keeps a short description. The text depends only on the set of tools and the summaries,
    not on their order.

    Example:
        >>> from toolsift import Tool
        >>> print(meta_tool_description([Tool(name="x", server="s")], {"s": "Does s."})
        ...       .splitlines()[-2:])
        ['Discoverable tools: 1 on 1 server.', '- s (1 tool): Does s.']
    """
    summaries = summaries or {}
    groups: dict[str, list[str]] = {}
    for tool in tools:
        key = tool.server if tool.server is not None else ""
        groups.setdefault(key, []).append(tool.mcp_tool_name or tool.name)
    servers = sorted(k for k in groups if k)
    lines = [_INTRO.format(limit=default_limit), ""]
    count = sum(len(v) for v in groups.values())
    lines.append(
        f"Discoverable tools: {count} on {_plural(len(servers), 'server')}"
        + (f" and {len(groups[''])} built-in." if "" in groups else ".")
    )
    listed = servers
    if len(servers) > max_servers:
        largest = sorted(servers, key=lambda k: (-len(groups[k]), k))[:max_servers]
        listed = sorted(largest)
    for key in [*listed, *([""] if "" in groups else [])]:
        names = sorted(groups[key])
        label = key or BUILTIN_GROUP
        summary = " ".join(summaries.get(key, "").split()) if key else ""
        if len(summary) > _SUMMARY_LEN:
            summary = summary[: _SUMMARY_LEN - 3].rstrip() + "..."
        if not summary:
            summary = ", ".join(names[:_NAMES_LISTED]) + (", ..." if len(names) > 8 else "")
        lines.append(f"- {label} ({_plural(len(names), 'tool')}): {summary}")
    if len(listed) < len(servers):
        rest = [k for k in servers if k not in set(listed)]
        tools_left = sum(len(groups[k]) for k in rest)
        lines.append(
            f"- and {_plural(len(rest), 'more server')} with {_plural(tools_left, 'tool')}: "
            "search to find them."
        )
    return "\n".join(lines)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def meta_tool(
    session: DiscoverySession, *, name: str | None = None, max_servers: int = MAX_SERVERS_LISTED
) -> Tool:
    """The meta-tool definition for ``session``, as a :class:`~toolsift.Tool`.

    Call ``.to_mcp()``, ``.to_openai_chat()``, ``.to_openai_responses()`` or
    ``.to_anthropic()`` on it for each provider. The input schema is
    ``{query: string (required), limit: integer, 1 to the session's max_limit}``.

    Arguments:
        session: the session whose discoverable catalogue the description lists.
        name: the tool name; default the session's ``meta_tool_name`` (``search_tool_bm25``).
        max_servers: how many servers the description lists at most (default 50).

    Example:
        >>> from toolsift import DiscoverySession
        >>> meta_tool(DiscoverySession.from_default_catalog()).input_schema["required"]
        ['query']
    """
    tools, summaries = session._description_state()  # both of one state
    return Tool(
        name=name or session.meta_tool_name,
        description=meta_tool_description(
            tools, summaries, max_servers=max_servers, default_limit=session.default_limit
        ),
        input_schema=_input_schema(session.default_limit, session.max_limit),
    )


#: The name of the regex meta-tool (Anthropic's ``tool_search_tool_regex``).
REGEX_META_TOOL_NAME = "tool_search_tool_regex"


def regex_meta_tool(session: DiscoverySession, *, name: str = REGEX_META_TOOL_NAME) -> Tool:
    """The regex search meta-tool for ``session`` (Anthropic ``tool_search_tool_regex``-style):
    the model passes a Python ``re``-style ``pattern`` (at most 200 characters), searched
    case-insensitively in the hidden tools' names, descriptions and parameters, and the matches
    are activated as by :func:`meta_tool`'s search. Call it with :func:`call_meta_tool` and
    ``ranker="regex"`` (the pattern may come as ``pattern`` or ``query``).

    Example:
        >>> from toolsift import DiscoverySession
        >>> regex_meta_tool(DiscoverySession.from_default_catalog()).input_schema["required"]
        ['pattern']
    """
    schema = _input_schema(session.default_limit, session.max_limit)
    properties = dict(schema["properties"])
    del properties["query"]
    properties = {
        "pattern": {
            "type": "string",
            "maxLength": 200,
            "description": "A Python re-style regular expression (case-insensitive), e.g. "
            "'slack.*message' or '^get_', matched in tool names, descriptions and parameters.",
        },
        **properties,
    }
    return Tool(
        name=name,
        description="Search the hidden tools with a regular expression and activate the "
        "matches for the rest of the session: tools whose name matches come first, then those "
        "whose description or parameters match. "
        'The result is JSON: {"query","activated_tools","match_count","total_tools"}.',
        input_schema={**schema, "properties": properties, "required": ["pattern"]},
    )


@dataclass(frozen=True)
class MetaToolCall:
    """The outcome of one meta-tool call (OMP ``search_tool_bm25``'s ``AgentToolResult``).

    Attributes:
        content: the model-visible text (compact JSON).
        details: the runtime-only details for the renderer.
        result: the session's :class:`~toolsift.DiscoveryResult`.

    Example:
        >>> from toolsift import DiscoverySession
        >>> call = call_meta_tool(DiscoverySession.from_default_catalog(), {"query": "weather"})
        >>> call.details["limit"], call.content.startswith('{"query":"weather"')
        (8, True)
    """

    content: str
    details: dict[str, Any]
    result: DiscoveryResult


def _limit(value: Any, default: int = DEFAULT_LIMIT) -> int:
    if value is None:
        return default
    # JSON has one number type: 3.0 is the integer 3, as JavaScript's Number.isInteger says.
    if isinstance(value, float) and value.is_integer() and value >= 1:
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise limit_error(value)
    return value


def call_meta_tool(
    session: DiscoverySession | None, arguments: Mapping[str, Any], *, ranker: Ranker = "bm25"
) -> MetaToolCall:
    """Run a meta-tool call as OMP ``search_tool_bm25``'s ``execute()`` does: check, search,
    activate.

    Arguments:
        session: the session, or ``None`` where discovery is not wired in.
        arguments: the call's arguments: ``query`` (string) and optional ``limit``; with
            ``ranker="regex"`` (:func:`regex_meta_tool`) the pattern as ``pattern`` or ``query``.
        ranker: the session's ranker: ``"bm25"`` (default) or ``"regex"``.

    Raises:
        DiscoveryError: ``session`` is ``None`` ("Tool discovery is unavailable in this
            session.") or discovery is off ("Tool discovery is disabled. Enable
            tools.discoveryMode or mcp.discoveryMode to use search_tool_bm25.").
        QueryError: the query is missing, not a string, empty after trimming, or has no letter
            or number (the regex meta-tool's messages name its ``pattern`` argument).
        LimitError: ``limit`` is not a positive integer.

    Example:
        >>> call_meta_tool(None, {"query": "x"})
        Traceback (most recent call last):
        ...
        toolsift.errors.DiscoveryError: Tool discovery is unavailable in this session.
    """
    if session is None:
        raise DiscoveryError(UNAVAILABLE_MESSAGE)
    session.ensure_enabled()
    if not isinstance(arguments, Mapping):
        raise QueryError(f"Arguments must be a JSON object, got {type(arguments).__name__}.")
    query = arguments.get("query")
    what = "Query"
    if ranker == "regex" and query is None:
        query, what = arguments.get("pattern"), "Pattern"
    # The query is checked before the limit, as ``search_tool_bm25`` does (a missing one is empty).
    query = "" if query is None else query
    check_query_text(query, what)
    # A limit above the session's max_limit (default 25) is clamped to it by the search.
    limit = _limit(arguments.get("limit"), session.default_limit)
    result = session.search(query, limit, ranker=ranker)
    return MetaToolCall(
        content=search_tool_bm25_content(result),
        details=search_tool_bm25_details(result),
        result=result,
    )
