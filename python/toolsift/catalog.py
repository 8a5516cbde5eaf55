"""The built-in demo catalogue: realistic MCP servers and tools, written for toolsift.

It is what ``toolsift search`` ranks when no catalogue is given, and a quick way to try the API.

Example:
    >>> from toolsift.catalog import default_tools
    >>> len(default_tools()) >= 150
    True
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from .loaders import load_tools
from .tools import Tool

__all__ = ["default_tools", "default_catalog_document", "default_server_summaries"]


@lru_cache(maxsize=1)
def default_catalog_document() -> dict[str, Any]:
    """The raw catalogue document: ``{"servers": [{"name", "summary", "tools": [MCP tools]}]}``."""
    text = resources.files("toolsift.data").joinpath("default_catalog.json").read_text("utf-8")
    return json.loads(text)


def default_tools() -> list[Tool]:
    """Every tool of the built-in catalogue, as MCP tools named ``mcp__<server>__<tool>``."""
    return list(_default_tools())


@lru_cache(maxsize=1)
def _default_tools() -> tuple[Tool, ...]:
    return tuple(load_tools(default_catalog_document()))


def default_server_summaries() -> dict[str, str]:
    """The one-line summary of each server of the built-in catalogue, by server name.

    The loaders keep tools only, so this is where the meta-tool description
    (:func:`toolsift.metatool.meta_tool`) gets its per-server summaries.

    Example:
        >>> default_server_summaries()["github"].startswith("GitHub")
        True
    """
    return {
        server["name"]: server["summary"]
        for server in default_catalog_document()["servers"]
        if isinstance(server.get("summary"), str)
    }
