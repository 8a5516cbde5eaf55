"""The checks of :meth:`toolsift.hybrid.HybridIndex.search`'s arguments: the ``exclude`` and
``servers`` names, and the query cut as the lexical search cuts it.

Example:
    >>> sorted(_exclude_names("send_email")), _server_names(None)
    (['send_email'], None)
    >>> _cut_query("  find a tool  ", 6)
    ('find a', True)
"""

from __future__ import annotations

from typing import Any

from ..query import TRIMMED

__all__ = ["_cut_query", "_exclude_names", "_server_names"]


def _names(value: Any, argument: str, what: str) -> frozenset[str]:
    """The names of an ``exclude`` / ``servers`` argument: one ``str`` is one name, else an
    iterable of ``str`` (a ``TypeError`` naming ``argument`` otherwise)."""
    if isinstance(value, str):
        return frozenset((value,))
    try:
        names = frozenset(value)
    except TypeError:
        raise TypeError(
            f"{argument} must be a {what} name or an iterable of {what} names, "
            f"got {type(value).__name__}"
        ) from None
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{argument} must hold {what} names (str), got {type(name).__name__}")
    return names


def _exclude_names(exclude: Any) -> frozenset[str]:
    """The tool names of an ``exclude`` argument: one ``str`` is one name."""
    return _names(exclude, "exclude", "tool")


def _server_names(servers: Any) -> frozenset[str] | None:
    """The server names of a ``servers`` argument (``None``: no filter); one ``str`` is one
    server."""
    return None if servers is None else _names(servers, "servers", "server")


def _cut_query(query: str, max_query_length: int) -> tuple[str, bool]:
    """``query`` cut as :func:`toolsift.query.parse_query` cuts it: trimmed, longer than
    ``max_query_length`` -> its first ``max_query_length`` characters (trailing space dropped).
    A query within the cap is returned as given. Returns ``(query, truncated)``."""
    text = query.strip(TRIMMED)
    if len(text) <= max_query_length:
        return query, False
    return text[:max_query_length].rstrip(), True
