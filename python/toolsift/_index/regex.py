"""``ranker="regex"`` for :class:`toolsift.ToolIndex` (a collaborator it holds): Anthropic
``tool_search_tool_regex``-compatible search, on the Rust engine or its pure-Python twin.

The query is a Python ``re``-style pattern, searched case-insensitively in each tool's name,
description, parameter names and parameter descriptions (``toolsift._text.regex_pattern``
has the accepted syntax; ``rust/search/regex.rs`` the ranking). ``select:A,B`` still fetches tools
by name.
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

from .._engine.select import regex_index_class
from .._snapshot.tools_section import LazyTools
from .._text.documents import parameter_descriptions
from .._text.regex_pattern import MAX_PATTERN_LENGTH, translate
from ..query import _SELECT, TRIMMED, ParsedQuery, parse_query
from ..result import SearchResult
from ..tools import Tool
from .lookups import _NEW_MATCHES
from .request import _Request
from .search import Searcher

if TYPE_CHECKING:
    from .._engine.protocol import EngineRegexIndex

__all__ = ["RegexSearcher", "check_regex_query"]


def check_regex_query(query: str) -> None:
    """Raises the error a ``ranker="regex"`` search of ``query`` raises for the query itself
    (a ``select:`` query's, or the pattern's :class:`~toolsift.PatternError`)."""
    if _SELECT.match(query.strip(TRIMMED)):
        parse_query(query)
    else:
        translate(query)


class RegexSearcher:
    """The regex ranker of one :class:`toolsift.ToolIndex`: its regex index, built on first use
    on the index's engine, and the searches that use it (``select:`` and the gates through the
    index's :class:`~toolsift._index.search.Searcher`).

    Arguments:
        tools: the index's tools.
        engine: the engine's name, ``"rust"`` or ``"python"``.
        searcher: the index's searcher (``select:`` and the gates that act on a whole result).
    """

    def __init__(self, tools: Sequence[Tool] | LazyTools, engine: str, searcher: Searcher) -> None:
        self._tools = tools
        self.engine = engine
        self._searcher = searcher
        self._lock = threading.Lock()
        self._built: EngineRegexIndex | None = None

    def index(self) -> EngineRegexIndex:
        """The regex index on the same engine, built on first use."""
        built = self._built
        if built is None:
            with self._lock:
                built = self._built
                if built is None:
                    cls: Any = regex_index_class(self.engine)
                    tools = self._tools
                    built = cls(
                        [t.name for t in tools],
                        [t.description for t in tools],
                        [list(t.schema_keys) for t in tools],
                        [parameter_descriptions(t.input_schema) for t in tools],
                    )
                    self._built = built
        return built  # type: ignore[return-value]

    def result(self, query: str, request: _Request) -> SearchResult:
        """One ``ranker="regex"`` search with validated options (``ToolIndex.search``)."""
        if _SELECT.match(query.strip(TRIMMED)):  # Claude Code's select:, as for every ranker
            parsed = parse_query(query, max_length=max(1, request.max_query_length))
            return self._searcher.search_one(parsed, request)
        pattern = translate(query, min(MAX_PATTERN_LENGTH, request.max_query_length))
        hits = self.index().search(
            pattern if self.engine == "python" else pattern.rust,
            request.limit,
            request.excluded_sorted,
            include=request.include,
        )
        matches = _NEW_MATCHES[self.engine](self._tools, hits, "regex")
        parsed = ParsedQuery(query, "keyword", text=query)
        return self._searcher.finish(parsed, matches, request.notices, request)

    def results(self, queries: Sequence[str], request: _Request) -> list[SearchResult]:
        """``search_many`` with ``ranker="regex"``: one search per pattern, in order."""
        return [self.result(query, request) for query in queries]
