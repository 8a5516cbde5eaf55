"""A :class:`toolsift.ToolIndex` as its parts wired together (the tools, the engine's index,
the name lookups and the searchers over them), and the copy-on-write updates that wire changed
parts into a new index: ``with_tools`` and ``replace_server``. ``ToolIndex`` inherits them (by
way of ``toolsift._index.snapshots``); its constructor and searches stay in ``toolsift.index``.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="mcp__s__a", server="s", mcp_tool_name="a")])
    >>> [t.name for t in index.with_tools(add=[Tool(name="b", description="beta")])]
    ['mcp__s__a', 'b']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from . import persist
from .lookups import NameLookups
from .regex import RegexSearcher
from .search import Searcher
from .semantic import SemanticSearcher, updated_state

if TYPE_CHECKING:
    from .._engine.protocol import EngineIndex
    from .._names.table import NameTable
    from .._snapshot.tools_section import LazyTools
    from .._text.documents import FieldWeights
    from ..tools import Tool

__all__ = ["Assembly"]

_Index = TypeVar("_Index", bound="Assembly")


class Assembly:
    """An index's state and its collaborators, and the updates that make a new index of
    changed parts (the base of :class:`toolsift.ToolIndex`, which is never used alone)."""

    _tools: tuple[Tool, ...] | LazyTools
    _by_name: Mapping[str, int]
    #: ``"rust"`` or ``"python"``: the engine the index runs on.
    engine: str
    _index: EngineIndex
    #: The per-field weights the index was built with.
    field_weights: FieldWeights
    #: The BM25+ parameters ``(k1, b, delta)``.
    params: tuple[float, float, float]
    _lookups: NameLookups
    _searcher: Searcher
    _regex: RegexSearcher
    _semantic: SemanticSearcher | None

    @classmethod
    def _from_parts(
        cls: type[_Index], parts: persist.Parts, table: NameTable | None = None,
        by_name: Mapping[str, int] | None = None, semantic: Any = None,
    ) -> _Index:  # fmt: skip
        """An index of parts already made (a snapshot's, an update's); ``table``: its name
        table, if known (derived from the tools alone, so never stored: rebuilt on first use);
        ``by_name``: its name -> id map, if known (an update's); ``semantic``: its encoder and
        tool vectors, if semantic search is on."""
        self = cls.__new__(cls)
        if by_name is None:
            by_name = persist.positions(parts)
        self._wire(
            parts.tools, by_name, parts.engine, parts.index, parts.field_weights, parts.params,
            semantic, table=table,
        )  # fmt: skip
        return self

    def _wire(
        self, tools: tuple[Tool, ...] | LazyTools, by_name: Mapping[str, int], engine: str,
        index: EngineIndex, field_weights: FieldWeights, params: tuple[float, float, float],
        semantic: Any = None, **known: Any,
    ) -> None:  # fmt: skip
        """Holds the index's state and its collaborators: the name-driven lookups (``known``:
        its servers or name table, if known) and the searchers that use them (``semantic``:
        the encoder and tool vectors of the semantic searcher, or ``None``)."""
        self._tools, self._by_name, self.engine, self._index = tools, by_name, engine, index
        self.field_weights, self.params = field_weights, params
        self._lookups = lookups = NameLookups(tools, engine, index, field_weights, **known)
        self._searcher = Searcher(tools, by_name, engine, index, field_weights, lookups)
        self._regex = RegexSearcher(tools, engine, self._searcher)
        self._semantic = None
        if semantic is not None:
            encoder, vectors = semantic
            self._semantic = SemanticSearcher(
                self._searcher, lookups, index, tools, field_weights, encoder, vectors
            )

    def _parts(self) -> persist.Parts:
        return persist.Parts(
            self._tools, self.engine, self._index, self.field_weights, self.params, ()
        )

    def with_tools(self: _Index, add: Iterable[Tool] = (), remove: Iterable[str] = ()) -> _Index:
        """A new index with ``add`` added (replacing a tool of the same name) and the tools
        named in ``remove`` (names, or one ``str``) removed; this one is not changed
        (copy-on-write). The kept tools come first, in their order, then ``add``; it ranks
        exactly like ``ToolIndex(kept + add)``, and only the added tools are tokenized. The
        engine's update runs with the GIL released; the Python work is proportional to the
        change (the name -> id map is layered over this index's, not copied).

        Raises:
            KeyError: a name in ``remove`` is not indexed.
            DuplicateToolError: two tools in ``add`` share a name.
            TypeError: ``add`` is not an iterable of :class:`Tool`, or ``remove`` not of names.

        Example:
            >>> from toolsift import Tool, ToolIndex
            >>> index = ToolIndex([Tool(name="a", description="alpha")])
            >>> [t.name for t in index.with_tools(add=[Tool(name="b", description="beta")])]
            ['a', 'b']
        """
        old = self._parts()
        parts, by_name, drop, kept = persist.updated(old, self._by_name, add, remove)
        table = self._lookups.carried_table(parts.tools, len(self._tools), drop, kept)
        state = updated_state(self._semantic, parts.tools, drop, kept, len(self._tools))
        return type(self)._from_parts(parts, table, by_name, state)

    def replace_server(self: _Index, server: str, tools: Iterable[Tool]) -> _Index:
        """A new index in which ``server``'s tools are exactly ``tools`` (an MCP server connected,
        changed its tool list, or disconnected with ``tools=[]``): :meth:`with_tools` with
        ``add=tools`` and ``remove`` the server's current tools.

        Raises:
            TypeError: ``server`` is not a str, or ``tools`` not an iterable of :class:`Tool`.
            ValueError: a tool in ``tools`` belongs to another server.

        Example:
            >>> from toolsift import Tool, ToolIndex
            >>> index = ToolIndex([Tool(name="mcp__s__a", server="s", mcp_tool_name="a")])
            >>> [t.name for t in index.replace_server("s", [])]
            []
        """
        tools = persist.server_tools(server, tools)
        old = [persist.name_at(self._tools, i) for i in self._lookups.server_ids(server)]
        return self.with_tools(add=tools, remove=old)
