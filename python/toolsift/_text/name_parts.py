"""A tool name's parts for ``ToolSearch``'s keyword scorer (both engines' keyword index takes them).

Example:
    >>> keyword_name_parts("getUserName")
    ['get', 'user', 'name']
"""

from __future__ import annotations

import re

__all__ = ["keyword_name_parts"]

_CAMEL = re.compile(r"([a-z])([A-Z])")


def keyword_name_parts(name: str) -> list[str]:
    """A tool name's parts for the keyword scorer (Claude Code ``ToolSearch``), lowercased.

    ``mcp__server__action`` names split on ``__`` and ``_``; other names split CamelCase on case
    boundaries, and on ``_`` and ``.``.

    Example:
        >>> keyword_name_parts("mcp__slack__send_message"), keyword_name_parts("whatsapp.sendNow")
        (['slack', 'send', 'message'], ['whatsapp', 'send', 'now'])
    """
    if name.startswith("mcp__"):
        return [part for part in name[5:].lower().split("_") if part]
    spaced = _CAMEL.sub(r"\1 \2", name).replace("_", " ").replace(".", " ")
    return spaced.lower().split()
