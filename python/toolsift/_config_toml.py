"""Changing one table of a TOML config in place, with ``tomlkit``: the file's comments, key
order, formatting and every other table are kept, and only the keys given change.

The standard library reads TOML (``tomllib``) but cannot write it; ``tomlkit`` writes strings
with TOML's own escapes (``\\uXXXX``, ``\\UXXXXXXXX``, control characters including DEL) and
keeps values it does not understand, such as TOML datetimes, as they were.

Example:
    >>> text = '# my settings\\n[tool_search]\\nmax_results = 3 # few\\n'
    >>> print(update_toml(text, "tool_search", {"max_results": 4, "gate": False}), end="")
    # my settings
    [tool_search]
    max_results = 4 # few
    gate = false
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["DELETE", "update_toml"]

#: A change's value that removes the key.
DELETE: Any = object()


def update_toml(text: str, table: str, changes: Mapping[str, Any]) -> str:
    """``text`` with the keys of ``changes`` set in ``[table]`` (created at the end when the
    document has none; a :data:`DELETE` value removes the key)."""
    import tomlkit  # only when a config is written

    doc = tomlkit.parse(text)
    if table not in doc:
        new = tomlkit.table()
        for key, value in changes.items():
            if value is not DELETE:
                new[key] = value
        doc[table] = new
        return tomlkit.dumps(doc)
    target = doc[table]
    for key, value in changes.items():
        if value is DELETE:
            if key in target:
                del target[key]
        else:
            target[key] = value
    return tomlkit.dumps(doc)
