"""The toolsift MCP gateway (``toolsift serve``) and catalogue export (``toolsift catalog``).

Needs the MCP extra: ``pip install 'toolsift[mcp]'``. Importing this package does not import
FastMCP; :class:`Gateway` is loaded on first use.

On the command line: ``toolsift serve mcp.json --transport stdio`` and
``toolsift catalog --config mcp.json -o tools.jsonl``.

Example:
    >>> import toolsift.gateway
    >>> toolsift.gateway.__all__
    ['Gateway']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import Gateway

__all__ = ["Gateway"]


def __getattr__(name: str) -> Any:
    if name == "Gateway":
        from .server import Gateway

        return Gateway
    raise AttributeError(name)
