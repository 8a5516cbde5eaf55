"""The one exception hierarchy of toolsift, raised identically by the Rust and pure-Python engines.

Every class derives from a standard base as well as :class:`ToolsiftError`, so existing
``except ValueError`` / ``except KeyError`` clauses keep working.

Example:
    >>> import toolsift
    >>> try:
    ...     toolsift.ToolIndex([]).search("   ")
    ... except toolsift.QueryError as exc:
    ...     print(exc)
    Query must not be empty.
"""

from __future__ import annotations

__all__ = [
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
    "SemanticWarning",
]


class ToolsiftError(Exception):
    """Base class of every error toolsift raises on purpose."""


class QueryError(ToolsiftError, ValueError):
    """The query cannot be searched: empty after trimming, or without a letter or number."""


#: The message of a query that has no letter or number: the query parser's and both engines'
#: (the Rust engine's ``Error::NoSearchableTerms`` writes the same).
NO_SEARCHABLE_TERMS = "Query must contain at least one letter or number."


class PatternError(QueryError):
    """A regex search pattern (``ranker="regex"``) is outside the accepted syntax, or too long.

    Attributes:
        pattern: the pattern as given.
        position: where the problem is: a 0-based character offset in ``pattern``.
    """

    def __init__(self, message: str, *, pattern: str | None = None, position: int | None = None):
        super().__init__(message)
        self.pattern = pattern
        self.position = position


class LimitError(ToolsiftError, ValueError):
    """``limit`` is not a positive integer."""


class ToolDefinitionError(ToolsiftError, ValueError):
    """A tool definition is malformed. The message names the tool and the field."""

    def __init__(self, message: str, *, tool: str | None = None, field: str | None = None):
        super().__init__(message)
        self.tool = tool
        self.field = field


class DuplicateToolError(ToolDefinitionError):
    """Two tools share one canonical name; toolsift never overwrites one silently."""


class CatalogError(ToolsiftError, ValueError):
    """A catalogue file cannot be read. The message names the file, the line and the field."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ):
        super().__init__(message)
        self.path = path
        self.line = line
        self.field = field


class EngineUnavailableError(ToolsiftError, ImportError):
    """``engine="rust"`` was asked for but the compiled extension cannot be loaded."""


class DiscoveryError(ToolsiftError, RuntimeError):
    """Tool discovery is unavailable or disabled in this session."""


class SnapshotError(ToolsiftError, ValueError):
    """A saved index is truncated, corrupted, or written by a newer format version."""


class ProfileError(ToolsiftError, ValueError):
    """An unknown analysis profile name (``ToolIndex(tools, profile=...)``); see
    :data:`toolsift.PROFILES`."""


class ConfigError(ToolsiftError, ValueError):
    """A configuration file (``toolsift.toml``, or an ``mcpServers`` JSON file with a
    ``tool_search`` block) cannot be used: unreadable, not TOML/JSON, an unknown key or a value
    of the wrong type. The message names the file and the key; ``path`` and ``key`` are set."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None):
        super().__init__(message)
        self.path = path
        self.key = key


class StoreError(ToolsiftError, ConnectionError):
    """The gateway's shared state store (``tool_search.storage``: Redis or Valkey) cannot be
    reached, or failed a request. The message names the store by its URL, password masked
    (``url``); the gateway refuses what needs the store rather than guess (a call is never let
    through the execution gate because the store did not answer)."""

    def __init__(self, message: str, *, url: str = ""):
        super().__init__(message)
        self.url = url


class SemanticWarning(UserWarning):
    """Semantic search was asked for (``semantic=True``, or ``"auto"`` with the
    ``toolsift[semantic]`` extra installed) but its model could not be loaded or failed: the
    index searches with BM25+ alone. Warned once per process and cause."""
