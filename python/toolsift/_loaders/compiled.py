"""The compiled loader: the :class:`~toolsift.Tool` objects of plain tool dicts, made by the Rust
extension in one call (``toolsift._core._new_tools``, ~1 µs a tool instead of ~27 µs).

It takes MCP ``tools/list`` items and toolsift records whose values are plain JSON data
(``dict``, ``list``, ``str``, numbers, ``None``), and makes the tools the converters of
:mod:`toolsift._loaders.formats` and :class:`~toolsift.Tool` make. It gives up (``None``) on
anything else: another format, an item ``Tool`` would reject or change (a lone surrogate in a
text field), two tools of one name; the caller then converts the items in Python, which gives
the result or the error.

Example:
    >>> from toolsift._loaders.formats import _record_item
    >>> tools = compiled_tools([{"name": "a"}], [None], _record_item)
    >>> tools is None or [t.name for t in tools] == ["a"]
    True
"""

from __future__ import annotations

import gc
from typing import Any, Callable, Literal, Optional

from ..tools import Tool
from .formats import _mcp_item, _record_item

__all__ = ["compiled_tools"]

_Format = Literal["detect", "mcp", "record"]
_NewTools = Callable[[type[Tool], list[Any], list[Optional[str]], _Format], Optional[list[Tool]]]


def _compiled() -> _NewTools | None:
    """``toolsift._core._new_tools``, or ``None`` without the extension (then only the
    pure-Python engine runs, and the loaders convert in Python)."""
    try:
        from .._core import _new_tools
    except ImportError:  # pragma: no cover - the extension is built with the package
        return None
    return _new_tools


_NEW_TOOLS = _compiled()

#: The item format the extension reads for each converter (``None``: each item's, detected).
_FORMATS: dict[Any, _Format] = {None: "detect", _mcp_item: "mcp", _record_item: "record"}


def compiled_tools(
    items: list[Any], servers: list[str | None], converter: Any = None
) -> list[Tool] | None:
    """``[converter(item, server) for ...]`` made in Rust, or ``None`` when any item, or a name
    seen twice, is left to the Python path. ``converter`` is ``_mcp_item``, ``_record_item`` or
    ``None`` (``_detect`` per item); any other gives ``None``.

    Python's cyclic collector is paused meanwhile: the new objects would trigger collections
    that walk every object alive, the items and the tools made so far.
    """
    fmt = _FORMATS.get(converter)
    if _NEW_TOOLS is None or fmt is None:
        return None
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _NEW_TOOLS(Tool, items, servers, fmt)
    finally:
        if enabled:
            gc.enable()
