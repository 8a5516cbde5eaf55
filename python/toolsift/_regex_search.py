"""``ranker="regex"`` for :class:`toolsift.ToolIndex` (a base class of it): Anthropic
``tool_search_tool_regex``-compatible search, on the Rust engine or its pure-Python twin.

The query is a Python ``re``-style pattern, searched case-insensitively in each tool's name,
description, parameter names and parameter descriptions (``_regex_pattern`` has the accepted
syntax; ``rust/search/regex.rs`` the ranking). ``select:A,B`` still fetches tools by name.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([
    ...     Tool(name="get_user", description="Fetch a user"),
    ...     Tool(name="delete_team", description="Remove a team and its users"),
    ... ])
    >>> [(m.name, m.reason) for m in index.search("users?$|^get_", ranker="regex")]
    [('get_user', 'regex'), ('delete_team', 'regex')]
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import _regex
from ._documents import parameter_descriptions
from ._lazytools import LazyTools
from ._named import _NEW_MATCHES
from ._regex_pattern import MAX_PATTERN_LENGTH, translate
from .query import _SELECT, TRIMMED, ParsedQuery, parse_query
from .result import SearchResult
from .tools import Tool

if TYPE_CHECKING:
    from ._engine import EngineRegexIndex
    from .index import _Request

__all__ = ["RegexLookups", "check_regex_query"]


def check_regex_query(query: str) -> None:
    """Raises the error a ``ranker="regex"`` search of ``query`` raises for the query itself
    (a ``select:`` query's, or the pattern's :class:`~toolsift.PatternError`)."""
    if _SELECT.match(query.strip(TRIMMED)):
        parse_query(query)
    else:
        translate(query)


class RegexLookups:
    """The regex ranker of :class:`toolsift.ToolIndex`, over its state."""

    _tools: tuple[Tool, ...] | LazyTools
    _name_lock: threading.Lock
    engine: str

    def _regex_index(self) -> EngineRegexIndex:
        """The regex index on the same engine, built on first use."""
        built: EngineRegexIndex | None = self.__dict__.get("_regex")
        if built is None:
            with self._name_lock:
                built = self.__dict__.get("_regex")
                if built is None:
                    cls: Any = _regex.RegexIndex
                    if self.engine == "rust":
                        from ._core import RegexIndex

                        cls = RegexIndex
                    tools = self._tools
                    built = cls(
                        [t.name for t in tools],
                        [t.description for t in tools],
                        [list(t.schema_keys) for t in tools],
                        [parameter_descriptions(t.input_schema) for t in tools],
                    )
                    self.__dict__["_regex"] = built
        return built  # type: ignore[return-value]

    def _regex_result(self, query: str, request: _Request) -> SearchResult:
        """One ``ranker="regex"`` search with validated options (``ToolIndex.search``)."""
        if _SELECT.match(query.strip(TRIMMED)):  # Claude Code's select:, as for every ranker
            parsed = parse_query(query, max_length=max(1, request.max_query_length))
            return self._search_one(parsed, request)  # type: ignore[attr-defined,no-any-return]
        pattern = translate(query, min(MAX_PATTERN_LENGTH, request.max_query_length))
        index = self._regex_index()
        hits = index.search(
            pattern if self.engine == "python" else pattern.rust,  # type: ignore[arg-type]
            request.limit,
            request.excluded_sorted,
            include=request.include,
        )
        matches = _NEW_MATCHES[self.engine](self._tools, hits, "regex")
        parsed = ParsedQuery(query, "keyword", text=query)
        return self._finish(parsed, matches, request.notices, request)  # type: ignore[attr-defined,no-any-return]

    def _regex_results(self, queries: Sequence[str], request: _Request) -> list[SearchResult]:
        """``search_many`` with ``ranker="regex"``: one search per pattern, in order."""
        return [self._regex_result(query, request) for query in queries]
