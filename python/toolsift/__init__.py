"""toolsift: deferred-tool search for LLM agents and MCP gateways.

Index every tool, give the model one search meta-tool, and activate only the best matches.

Example:
    >>> import toolsift
    >>> index = toolsift.ToolIndex(toolsift.default_tools())
    >>> index.search("open a pull request", limit=1)[0].tool.mcp_tool_name
    'create_pull_request'
"""

from __future__ import annotations

from ._text.tokenize import tokenize as _py_tokenize
from .catalog import default_tools
from .errors import (
    CatalogError,
    ConfigError,
    DiscoveryError,
    DuplicateToolError,
    EngineUnavailableError,
    LimitError,
    PatternError,
    ProfileError,
    QueryError,
    SnapshotError,
    StoreError,
    ToolDefinitionError,
    ToolsiftError,
)
from .index import FieldWeights, ToolIndex, available_engines
from .loaders import load_catalog, load_tools
from .metatool import meta_tool
from .result import Match, SearchResult
from .session import DiscoveryResult, DiscoverySession
from .shared_catalog import Catalog
from .tools import Tool

try:
    from ._core import tokenize
except ImportError:  # the pure-Python twin splits identically
    tokenize = _py_tokenize


def _installed_version() -> str:
    """The installed package's version: Cargo.toml's, which maturin writes into its metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("toolsift")
    except PackageNotFoundError:  # a source tree on sys.path, never installed
        try:
            from ._core import __version__ as compiled
        except ImportError:
            return "0+unknown"
        return str(compiled)


__version__ = _installed_version()

__all__ = [
    "Tool",
    "ToolIndex",
    "Match",
    "SearchResult",
    "FieldWeights",
    "load_tools",
    "load_catalog",
    "default_tools",
    "DiscoverySession",
    "DiscoveryResult",
    "Catalog",
    "meta_tool",
    "tokenize",
    "available_engines",
    "ToolsiftError",
    "QueryError",
    "PatternError",
    "LimitError",
    "ToolDefinitionError",
    "DuplicateToolError",
    "CatalogError",
    "EngineUnavailableError",
    "DiscoveryError",
    "SnapshotError",
    "ProfileError",
    "ConfigError",
    "StoreError",
]
