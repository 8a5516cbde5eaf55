"""Values a :class:`~toolsift.Tool` derives from its fields: the fallback summary (a UTF-16
prefix of the description, as JavaScript slices it) and plain deep copies of its schema.

Example:
    >>> _utf16_prefix("héllo wörld", 5)
    'héllo'
    >>> _thaw({"a": ({"b": [1]},)})
    {'a': [{'b': [1]}]}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["_thaw", "_utf16_prefix"]


def _utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of ``text`` that is at most ``units`` UTF-16 code units long.

    This is JavaScript's ``text.slice(0, units)`` except that it never splits a surrogate pair:
    when the last unit would be the first half of a pair, the cut falls before the whole pair.
    """
    if len(text) * 2 <= units:  # fits even if every character were astral
        return text
    head = text[:units]
    if head.isascii() or max(head) <= "\uffff":  # one code unit per character
        return head
    used = 0
    for index, char in enumerate(text):
        used += 2 if char > "\uffff" else 1
        if used > units:
            return text[:index]
    return text


def _thaw(value: Any) -> Any:
    """A deep copy of a JSON value as plain ``dict`` / ``list`` objects.

    Recursive (the fast way for the schemas tools have); a schema nested deeper than Python's
    recursion limit allows (a few hundred levels) is copied by :func:`_thaw_deep` instead.
    """
    try:
        return _thaw_nested(value)
    except RecursionError:
        return _thaw_deep(value)


def _thaw_nested(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _thaw_nested(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw_nested(item) for item in value]
    return value


def _thaw_deep(value: Any) -> Any:
    """:func:`_thaw` with an explicit stack: any depth, same result.

    Example:
        >>> _thaw_deep({"a": ({"b": [1]},)})
        {'a': [{'b': [1]}]}
    """
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        source, parent, key = stack.pop()
        items: Iterable[tuple[Any, Any]]
        if isinstance(source, Mapping):
            out: Any = dict.fromkeys(source)  # the keys in order; values filled below
            items = source.items()
        elif isinstance(source, (list, tuple)):
            out = [None] * len(source)
            items = enumerate(source)
        else:
            parent[key] = source
            continue
        parent[key] = out
        for k, item in items:
            if isinstance(item, (Mapping, list, tuple)):
                stack.append((item, out, k))
            else:
                out[k] = item
    return root[0]
