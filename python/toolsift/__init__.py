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

__version__ = "0.1.0"

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
]
