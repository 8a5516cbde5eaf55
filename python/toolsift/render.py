"""OMP ``search_tool_bm25``'s text view of a search: a status line and up to 5 collapsed matches.

Each match shows its label (cut at 72 columns), its server name, its score to 3 decimals and its
description (cut at 96 columns). On a terminal the view is drawn with ``rich``; into a pipe, a
file, or with ``NO_COLOR`` set, it is plain text.

Example:
    >>> from toolsift import DiscoverySession
    >>> from toolsift.contract import search_tool_bm25_details
    >>> from toolsift.render import render_text
    >>> session = DiscoverySession.from_default_catalog()
    >>> details = search_tool_bm25_details(session.search("weather forecast", limit=1))
    >>> print(render_text(details).splitlines()[0])
    Activated 1 of 221 discoverable tools for "weather forecast"
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import IO, Any

__all__ = [
    "render_text",
    "print_details",
    "COLLAPSED_MATCH_LIMIT",
    "MATCH_LABEL_LEN",
    "MATCH_DESCRIPTION_LEN",
    "NO_TOOLS_LOADED",
    "NO_MATCHES",
]

#: OMP ``search_tool_bm25``'s renderer limits.
COLLAPSED_MATCH_LIMIT = 5
MATCH_LABEL_LEN = 72
MATCH_DESCRIPTION_LEN = 96
#: OMP ``search_tool_bm25``'s two empty states.
NO_TOOLS_LOADED = "No discoverable tools are currently loaded."
NO_MATCHES = "No matching tools found."
NO_DETAILS = "Tool search returned no details to show."


def _cut(text: str, width: int) -> str:
    """``text`` on one line, at most ``width`` characters, ending in ``…`` when cut."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _status(details: Mapping[str, Any], found: bool = False) -> str:
    tools = details.get("tools") or []
    total = int(details.get("total_tools") or 0)
    if not tools:
        line = NO_TOOLS_LOADED if total == 0 else NO_MATCHES
        if details.get("no_match") and details.get("message"):  # nothing fits (abstained)
            line = str(details["message"])
    elif found:
        query = _quoted(details.get("query", ""))
        line = f"Found {len(tools)} of {_plural(total, 'tool')} for {query}"
    else:
        activated = len(details.get("activated_tools") or [])
        line = (
            f"Activated {activated} of {_plural(total, 'discoverable tool')} "
            f"for {_quoted(details.get('query', ''))}"
        )
    already = details.get("already_active_tools") or []
    if already:
        line += f" ({len(already)} already active: {', '.join(already)})"
    return line


def _quoted(text: str) -> str:
    return '"' + str(text).replace('"', '\\"') + '"'


_Row = tuple[str, str, str, str, str]


def _rows(details: Mapping[str, Any], expanded: bool, names: bool) -> tuple[list[_Row], int]:
    """The shown matches as (label, server, score, name, description), and how many are left
    out; ``name`` is empty unless ``names`` is set and it differs from the label."""
    tools = list(details.get("tools") or [])
    shown = tools if expanded else tools[:COLLAPSED_MATCH_LIMIT]
    rows = []
    for t in shown:
        name = str(t.get("name", ""))
        label = str(t.get("label") or name)
        rows.append(
            (
                _cut(label, MATCH_LABEL_LEN),
                str(t.get("server_name") or ""),
                f"{float(t.get('score', 0.0)):.3f}",
                name if names and name != label else "",
                _cut(t.get("description") or "", MATCH_DESCRIPTION_LEN),
            )
        )
    return rows, len(tools) - len(shown)


def render_text(
    details: Mapping[str, Any] | None,
    *,
    expanded: bool = False,
    names: bool = False,
    found: bool = False,
) -> str:
    """The plain-text view of the ``details`` of a search.

    ``details`` is what :func:`~toolsift.contract.search_tool_bm25_details` returns.

    Arguments:
        details: the details, or ``None``, which gives the fallback warning line.
        expanded: show every match rather than the first 5.
        names: also show each tool's canonical name (what the model calls) after its score.
        found: a one-off search that activates nothing: the status line reads
            ``Found 3 of 221 tools for "..."`` instead of ``Activated 3 of 221 discoverable
            tools for "..."``.

    Example:
        >>> render_text({"query": "x", "total_tools": 0, "tools": []})
        'No discoverable tools are currently loaded.'
    """
    if details is None:
        return NO_DETAILS
    lines = [_status(details, found)]
    rows, more = _rows(details, expanded, names)
    for label, server, score, name, description in rows:
        head = f"- {label}" + (f"  [{server}]" if server else "") + f"  {score}"
        lines.append(head + (f"  {name}" if name else ""))
        if description:
            lines.append(f"  {description}")
    if more:
        lines.append(f"  ... {more} more")
    return "\n".join(lines)


def _use_rich(file: IO[str]) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(file, "isatty", None)
    return bool(isatty and isatty())


def print_details(
    details: Mapping[str, Any] | None,
    file: IO[str] | None = None,
    *,
    expanded: bool = False,
    names: bool = False,
    color: bool | None = None,
    found: bool = False,
) -> None:
    """Print the view of ``details``: with ``rich`` on a terminal, else as :func:`render_text`.

    Arguments:
        details: a search's ``details``, or ``None``.
        file: where to print; default ``sys.stdout``.
        expanded: show every match rather than the first 5.
        names: also show each tool's canonical name after its score.
        found: a one-off search: "Found N of M tools" instead of "Activated ...".
        color: force ``rich`` on (``True``) or off (``False``); default: on for a terminal
            without ``NO_COLOR``.

    Example:
        >>> print_details({"query": "x", "total_tools": 3, "tools": []}, color=False)
        No matching tools found.
    """
    out = file if file is not None else sys.stdout
    if not (color if color is not None else _use_rich(out)):
        print(render_text(details, expanded=expanded, names=names, found=found), file=out)
        return
    from rich.console import Console
    from rich.text import Text
    from rich.tree import Tree

    console = Console(file=out, highlight=False, force_terminal=bool(color) or None)
    if details is None:
        console.print(Text(NO_DETAILS, style="yellow"))
        return
    tree = Tree(Text(_status(details, found), style="bold"), guide_style="dim")
    rows, more = _rows(details, expanded, names)
    for label, server, score, name, description in rows:
        item = Text()
        item.append(label, style="bold cyan")
        if server:
            item.append(f"  {server}", style="magenta")
        item.append(f"  {score}", style="green")
        if name:
            item.append(f"  {name}")
        if description:
            item.append(f"\n{description}", style="dim")
        tree.add(item)
    if more:
        tree.add(Text(f"... {more} more", style="dim italic"))
    console.print(tree)
