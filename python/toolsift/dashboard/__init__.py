"""The toolsift dashboard: a web page to see, tune and try tool discovery.

``toolsift serve mcp.json --transport http --dashboard`` serves it beside a live gateway (at
``http://127.0.0.1:8765/dashboard/``); ``toolsift dashboard [toolsift.toml]`` over a catalogue
without live servers. The page shows the catalogue (servers, tools, schema tokens, connection
state), edits the ``tool_search`` settings live and saves them to the config file, runs trial
searches with every score explained, and follows the connected clients' sessions. It needs the
MCP extra (``pip install 'toolsift[mcp]'``: Starlette and uvicorn, FastMCP's stack); importing
this package imports neither.

Example:
    >>> import toolsift.dashboard
    >>> toolsift.dashboard.__all__
    ['Dashboard']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .backend import Dashboard

__all__ = ["Dashboard"]


def __getattr__(name: str) -> Any:
    if name == "Dashboard":
        from .backend import Dashboard

        return Dashboard
    raise AttributeError(name)
