"""The JSON contracts a search result is handed on in, byte-compatible with the originals.

=================================  ===========================================================
function                           contract
=================================  ===========================================================
:func:`search_tool_bm25_content`   OMP ``search_tool_bm25``'s model-visible ``content`` text
:func:`search_tool_bm25_details`   OMP ``search_tool_bm25``'s ``details`` (the renderer's input)
:func:`tool_search_response`       Claude Code ``ToolSearch``'s response
:func:`anthropic_tool_result`      an Anthropic ``tool_result`` of ``tool_reference`` blocks
:func:`anthropic_deferred_tools`   Anthropic tool definitions with ``defer_loading: true``
:func:`openai_deferred_tools`      OpenAI Responses function tools with ``defer_loading: true``
=================================  ===========================================================

:func:`dumps` writes JSON exactly as JavaScript's ``JSON.stringify(value)`` does (compact,
non-ASCII kept, ``3`` rather than ``3.0``, ``1e-7`` rather than ``1e-07``), so the bytes match
original TypeScript implementation.

Example:
    >>> from toolsift import DiscoverySession
    >>> from toolsift.contract import search_tool_bm25_content
    >>> session = DiscoverySession.from_default_catalog()
    >>> print(search_tool_bm25_content(session.search("weather", limit=2)))
    {"query":"weather","activated_tools":[...],"match_count":2,"total_tools":221}
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .session import NO_MATCH_MESSAGE, DiscoveryResult
from .tools import Tool, provider_name

__all__ = [
    "dumps",
    "round_score",
    "search_tool_bm25_content",
    "search_tool_bm25_details",
    "tool_search_response",
    "anthropic_tool_result",
    "anthropic_deferred_tools",
    "openai_deferred_tools",
]

_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def round_score(score: float) -> float:
    """A score rounded to 6 decimals as OMP's ``Math.round(score * 1e6) / 1e6`` does
    (halves round up, not to even).

    Example:
        >>> round_score(1.23456749), round_score(0.0000005)
        (1.234567, 1e-06)
    """
    return math.floor(score * 1e6 + 0.5) / 1e6


def _number(value: float) -> str:
    """ECMAScript's Number::toString: shortest round-trip digits, JS exponent rules."""
    if not math.isfinite(value):
        return "null"  # JSON.stringify(NaN) and of ±Infinity
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    text = repr(abs(value))  # the shortest round-trip digits, as ECMAScript requires
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    point = len(whole) + int(exp or 0)  # value = 0.<digits> * 10**point
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        head = digits[0] + ("." + digits[1:] if k > 1 else "")
        out = f"{head}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + out


def _string(value: str) -> str:
    text = json.dumps(value, ensure_ascii=False)
    if _LONE_SURROGATE.search(text):  # well-formed JSON.stringify escapes lone surrogates
        text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def dumps(value: Any) -> str:
    """``value`` as JavaScript's ``JSON.stringify(value)`` writes it: compact, keys in order.

    Floats that are whole numbers print without ``.0``, exponents follow ECMAScript
    (``1e-7``, ``1e+21``), non-ASCII characters are kept and lone surrogates are escaped.

    Raises:
        TypeError: a value that is not JSON (a set, an object...).

    Example:
        >>> dumps({"a": [1.0, 0.5, "é"], "b": None})
        '{"a":[1,0.5,"é"],"b":null}'
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_string(str(k))}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# --- OMP search_tool_bm25 ----------------------------------------------------------------------


def search_tool_bm25_content(result: DiscoveryResult, *, already_active: bool = True) -> str:
    """OMP ``search_tool_bm25``'s model-visible ``content`` text:
    ``{"query","activated_tools","match_count","total_tools"}`` as compact JSON.

    ``already_active_tools`` is appended (toolsift's one extension) only when the query matched
    tools that are already active, so that the model does not conclude they are missing;
    otherwise the bytes are exactly the original's. ``already_active=False`` never appends it.
    A search that abstained ("nothing fits", :attr:`DiscoveryResult.abstained`) ends with
    ``"no_match":true``, its ``"confidence"`` and a ``"message"`` telling the model to rephrase
    or go on without a tool.

    Example:
        >>> from toolsift import DiscoverySession
        >>> session = DiscoverySession.from_default_catalog()
        >>> search_tool_bm25_content(session.search("zzyzx"))
        '{"query":"zzyzx","activated_tools":[],"match_count":0,"total_tools":221}'
    """
    content: dict[str, Any] = {
        "query": result.query,
        "activated_tools": list(result.activated),
        "match_count": len(result.matches),
        "total_tools": result.total_tools,
    }
    if already_active and result.already_active:
        content["already_active_tools"] = list(result.already_active)
    _no_match(content, result)
    return dumps(content)


def _no_match(out: dict[str, Any], result: DiscoveryResult) -> None:
    """ "Nothing fits": ``"no_match":true``, the ``confidence`` and the message to the model,
    appended only to an answer that abstained (any other keeps its original bytes)."""
    if result.abstained:
        out["no_match"] = True
        if result.confidence is not None:
            out["confidence"] = round_score(result.confidence)
        out["message"] = NO_MATCH_MESSAGE


def _match_details(tool: Tool, score: float) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": tool.name,
        "label": tool.display_label,
        "description": tool.display_summary,
    }
    if tool.server is not None:
        entry["server_name"] = tool.server
    if tool.mcp_tool_name is not None:
        entry["mcp_tool_name"] = tool.mcp_tool_name
    entry["schema_keys"] = list(tool.schema_keys)
    entry["score"] = round_score(score)
    return entry


def search_tool_bm25_details(
    result: DiscoveryResult, *, already_active: bool = True
) -> dict[str, Any]:
    """OMP ``search_tool_bm25``'s runtime-only ``details``: ``{query, limit, total_tools,
    activated_tools, active_selected_tools, tools: [{name, label, description, server_name?,
    mcp_tool_name?, schema_keys, score}]}``, with ``description`` the tool's summary and
    ``score`` rounded to 6 decimals. ``already_active_tools`` is appended only when non-empty,
    as in the content, and never with ``already_active=False``.

    Example:
        >>> from toolsift import DiscoverySession
        >>> session = DiscoverySession.from_default_catalog()
        >>> details = search_tool_bm25_details(session.search("weather forecast", limit=1))
        >>> details["tools"][0]["label"], details["tools"][0]["server_name"]
        ('weather/get_forecast', 'weather')
    """
    details: dict[str, Any] = {
        "query": result.query,
        "limit": result.limit,
        "total_tools": result.total_tools,
        "activated_tools": list(result.activated),
        "active_selected_tools": list(result.selected),
        "tools": [_match_details(m.tool, m.score) for m in result.matches],
    }
    if already_active and result.already_active:
        details["already_active_tools"] = list(result.already_active)
    _no_match(details, result)
    return details


# --- Claude Code ToolSearch -------------------------------------------------------------------


def tool_search_response(result: DiscoveryResult) -> dict[str, Any]:
    """Claude Code ``ToolSearch``'s response: ``{"query", "query_kind", "total_deferred_tools",
    "matches": [{name, score?, description, parameters}], "missing"?}``.

    ``score`` (rounded to 6 decimals) is left out of ``select`` responses, and ``missing`` is
    present in ``select`` responses only. ``parameters`` is the full JSON Schema. A ``select``
    response lists every requested tool the session has: the ones it activated, then those
    already active (``already_active_matches``), whose schemas the model asked for too; a
    keyword response lists the fresh matches only. ``total_deferred_tools`` is the number of
    hidden tools the search ran over (``search_tool_bm25``'s ``total_tools``), so it falls as
    tools are activated.

    Example:
        >>> from toolsift import DiscoverySession
        >>> session = DiscoverySession.from_default_catalog()
        >>> response = tool_search_response(session.search("select:get_forecast,nope"))
        >>> [m["name"] for m in response["matches"]], response["missing"]
        (['mcp__weather__get_forecast'], ['nope'])
    """
    select = result.query_kind == "select"
    matches = []
    listed = (*result.matches, *result.already_active_matches) if select else result.matches
    for match in listed:
        entry: dict[str, Any] = {"name": match.tool.name}
        if not select:
            entry["score"] = round_score(match.score)
        entry["description"] = match.tool.description
        entry["parameters"] = match.tool.to_anthropic()["input_schema"]
        matches.append(entry)
    response: dict[str, Any] = {
        "query": result.query,
        "query_kind": result.query_kind,
        "total_deferred_tools": result.total_tools,
        "matches": matches,
    }
    if select:
        response["missing"] = list(result.missing)
    _no_match(response, result)
    return response


# --- provider adapters ------------------------------------------------------------------------


def anthropic_tool_result(result: DiscoveryResult, tool_use_id: str) -> dict[str, Any]:
    """An Anthropic ``tool_result`` block answering a client-side tool search call.

    Each activated tool becomes a ``{"type": "tool_reference", "tool_name": ...}`` block; the
    API then loads that tool's definition, which must be in the request's ``tools`` with
    ``defer_loading: true`` (:func:`anthropic_deferred_tools`). With no match the content is
    one text block saying so, since a ``tool_result`` needs content.

    Example:
        >>> from toolsift import DiscoverySession
        >>> s = DiscoverySession.from_default_catalog()
        >>> anthropic_tool_result(s.search("weather forecast", 1), "toolu_01")["content"]
        [{'type': 'tool_reference', 'tool_name': 'mcp__weather__get_forecast'}]
    """
    content: list[dict[str, Any]] = [
        {"type": "tool_reference", "tool_name": provider_name(name)} for name in result.activated
    ]
    if not content:
        text = NO_MATCH_MESSAGE if result.abstained else "No matching tools found."
        content = [{"type": "text", "text": text}]
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}


def anthropic_deferred_tools(tools: Iterable[Tool]) -> list[dict[str, Any]]:
    """Anthropic tool definitions marked ``defer_loading: true``: sent with the request but
    kept out of the model's context until a ``tool_reference`` names them.

    Example:
        >>> anthropic_deferred_tools([Tool(name="ping")])[0]
        {'name': 'ping', 'description': '', 'input_schema': {...}, 'defer_loading': True}
    """
    return [{**tool.to_anthropic(), "defer_loading": True} for tool in tools]


def openai_deferred_tools(tools: Iterable[Tool]) -> list[dict[str, Any]]:
    """OpenAI Responses API function tools marked ``defer_loading: true``, for a request that
    also carries OpenAI's ``tool_search`` tool.

    Example:
        >>> openai_deferred_tools([Tool(name="ping")])[0]["defer_loading"]
        True
    """
    return [{**tool.to_openai_responses(), "defer_loading": True} for tool in tools]
