"""Writing a toolsift config back as TOML (the standard library reads TOML but cannot write it).

Only what a config holds: tables of plain values (strings, numbers, booleans, lists) and one
level of sub-tables (``[mcpServers.NAME]``), whose own tables are written inline.

Example:
    >>> print(dumps_toml({"tool_search": {"max_results": 3, "gate": False}}), end="")
    [tool_search]
    "max_results" = 3
    "gate" = false
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["dumps_toml"]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return (
            "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
        )
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def dumps_toml(doc: Mapping[str, Any]) -> str:
    """A TOML document of tables of plain values (what a toolsift config holds)."""
    lines: list[str] = []
    scalars = {k: v for k, v in doc.items() if not isinstance(v, Mapping)}
    for key, value in scalars.items():
        lines.append(f"{json.dumps(key)} = {_toml_value(value)}")
    for key, table in doc.items():
        if not isinstance(table, Mapping):
            continue
        nested = {k: v for k, v in table.items() if isinstance(v, Mapping)}
        flat = {k: v for k, v in table.items() if k not in nested}
        if flat or not nested:
            lines += ["", f"[{key}]"]
            lines += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in flat.items()]
        for sub, value in nested.items():
            lines += ["", f"[{key}.{json.dumps(sub)}]"]
            lines += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()]
    return "\n".join(lines).lstrip("\n") + "\n"
