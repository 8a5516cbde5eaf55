"""The name-driven parts of :class:`toolsift.ToolIndex` (a collaborator it holds): the
name table, ``select:`` lookups with "did you mean" suggestions, the exact-name tier,
the server filter, ``ToolSearch``'s keyword index, and how each engine builds ``Match`` objects.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="read_file", description="Read a file")])
    >>> [(m.name, m.reason) for m in index.search("select:read_file,raed_file")]
    [('read_file', 'select')]
    >>> index.search("select:raed_file").suggestions["raed_file"]
    ('read_file',)
"""

from __future__ import annotations

import functools
import heapq
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._engine.select import keyword_index_class
from .._names.table import NameParts, NameTable
from .._options import DEFAULT_PREFIX_FRACTION
from .._snapshot.positions import new_id_array
from .._snapshot.tools_section import LazyTools
from .._text.documents import FieldWeights, scored_text
from .._text.name_parts import keyword_name_parts
from ..errors import LimitError
from ..limits import MAX_NAME_LENGTH
from ..query import ParsedQuery, without
from ..result import Match, SearchResult, new_match, new_matches
from ..tools import Tool

if TYPE_CHECKING:
    from .._engine.protocol import EngineIndex, EngineKeywordIndex
    from .request import _Request

__all__ = ["NameLookups", "EXACT_NAME_MAX_TOOLS", "SUGGESTED_NAMES_MAX", "name_source"]

#: The most tools one name of the query brings into the exact-name tier.
EXACT_NAME_MAX_TOOLS = 3
#: The longest ``select:`` name that gets suggestions: a name (and a server-qualified alias) is
#: at most about 2 * ``toolsift.limits.MAX_NAME_LENGTH`` characters, and difflib's 0.6 cutoff
#: rules out a name more than 2.4 times longer; so a 10 MB name costs no search and no scan.
SUGGESTED_NAME_LENGTH_MAX = 8 * MAX_NAME_LENGTH

#: Only the first this many missing names of a ``select:`` get "did you mean" suggestions (each
#: costs an engine search and a look at the close name forms); later ones get ``()``.
SUGGESTED_NAMES_MAX = 5


def _compiled_matches() -> Callable[[Sequence[Tool], Any, Any], list[Match]]:
    """:func:`~toolsift.result.new_matches` by the compiled extension, when it loads: the same
    objects, built in one call (~0.25 µs a match instead of ~0.45 µs)."""
    try:
        from .._core import _new_matches as build
    except ImportError:  # no extension: only the pure-Python engine runs
        return new_matches
    return functools.partial(build, Match)


#: How each engine's indexes build a ranked list's matches.
_NEW_MATCHES: dict[str, Callable[[Sequence[Tool], Any, Any], list[Match]]] = {
    "python": new_matches,
    "rust": _compiled_matches(),
}


def name_source(tools: Sequence[Tool] | LazyTools) -> Sequence[Any]:
    """What the name table reads: the tools, or a loaded index's name columns (no decoding)."""
    return tools.name_views() if isinstance(tools, LazyTools) else tools


class NameLookups:
    """The name-driven parts of one :class:`toolsift.ToolIndex`: its name table, ``select:``,
    the exact-name tier, the server filter and the keyword ranker's index.

    A collaborator the index holds (``ToolIndex._lookups``), given the index's tools, engine
    index and field weights; the name table and the keyword index are built on first use.

    Arguments:
        tools: the index's tools (a loaded index's are decoded only when read).
        engine: the engine's name, ``"rust"`` or ``"python"``.
        index: the engine index over the same tools.
        field_weights: the index's field weights.
        servers: tool ids by server, if already known (else made on first use).
        table: the name table, if already known (an update carries it over).
        name_parts: the name table's parts, if the engine's build made them (the table is
            then made of them on first use, not of the tools).
    """

    def __init__(
        self,
        tools: Sequence[Tool] | LazyTools,
        engine: str,
        index: EngineIndex,
        field_weights: FieldWeights,
        *,
        servers: dict[str, list[int]] | None = None,
        table: NameTable | None = None,
        name_parts: NameParts | None = None,
    ) -> None:
        self._tools = tools
        self.engine = engine
        self._index = index
        self.field_weights = field_weights
        self._servers = servers
        self._name_table = table
        self._name_parts = name_parts
        self._keyword: EngineKeywordIndex | None = None
        self._name_lock = threading.Lock()
        self._allowed_cache: dict[tuple[Any, ...], Any] = {}

    @property
    def names(self) -> NameTable:
        """The name table of ``select:`` and the exact-name tier, built on first use."""
        table = self._name_table
        if table is None:
            with self._name_lock:
                table = self._name_table
                if table is None:
                    parts, self._name_parts = self._name_parts, None
                    table = self._name_table = NameTable(name_source(self._tools), parts)
        return table

    def carried_table(
        self, tools: Sequence[Tool] | LazyTools, n_old: int, drop: list[int], kept: int
    ) -> NameTable | None:
        """This name table remapped for an updated index of ``tools`` (the ``n_old`` old tools
        less the ids ``drop``, ascending, then the added ones from id ``kept``), instead of
        re-reading every tool; ``None`` if it was never built.

        The old -> new id translation is an array, not a list: the remap allocates while it is
        alive, and a young-generation pass meanwhile would visit each item of a list (a read per
        tool of the catalogue, with the GIL held)."""
        table = self._name_table
        if table is None:
            return None
        return table.remapped(name_source(tools), new_id_array(n_old, drop), kept)

    def keyword_index(self) -> EngineKeywordIndex:
        """Claude Code ``ToolSearch``'s keyword scorer on the same engine, built on first use."""
        keyword = self._keyword
        if keyword is None:
            with self._name_lock:
                keyword = self._keyword
                if keyword is None:
                    cls = keyword_index_class(self.engine)
                    tools = self._tools
                    keyword = self._keyword = cls(
                        [t.name for t in tools],
                        [keyword_name_parts(t.name) for t in tools],
                        [t.server is not None for t in tools],
                        [t.search_hint or "" for t in tools],
                        [t.description for t in tools],
                    )
        return keyword

    def server_ids(self, server: str) -> Sequence[int]:
        """The ids of ``server``'s tools, ascending (the table is made on first use)."""
        servers = self._servers
        if servers is None:
            tools = self._tools
            column = tools.servers if isinstance(tools, LazyTools) else [t.server for t in tools]
            servers = {}
            for i, name in enumerate(column):
                if name is not None:
                    ids = servers.get(name)
                    if ids is None:
                        servers[name] = [i]
                    else:
                        ids.append(i)
            self._servers = servers  # a race makes the same dict twice: harmless
        return servers.get(server, ())

    def allowed(
        self, servers: Iterable[str] | None
    ) -> tuple[frozenset[int], tuple[int, ...]] | tuple[None, None]:
        """Tool ids on the given servers (``None``: no filter), as a set and ascending. Unknown
        servers match nothing.

        Remembered per server list (the last 64): a gateway that filters every call by a
        tenant's servers would otherwise build and sort the same ids each time (~1 ms for every
        server of an 11.6k-tool catalogue). The index never changes, so neither do the ids.
        """
        if servers is None:
            return None, None
        names: tuple[Any, ...] = (servers,) if isinstance(servers, str) else tuple(servers)
        cache = self._allowed_cache
        try:
            known = cache.get(names)
            hashable = True
        except TypeError:  # an unhashable server name: no server has it, nothing is cached
            known, hashable = None, False
        if known is not None:
            return known  # type: ignore[no-any-return]
        allowed: set[int] = set()
        for server in names:
            if isinstance(server, str):
                allowed.update(self.server_ids(server))
        answer = (frozenset(allowed), tuple(sorted(allowed)))
        if hashable:
            if len(cache) >= 64:
                cache.clear()
            cache[names] = answer
        return answer

    def tier(
        self, parsed: ParsedQuery, request: _Request
    ) -> tuple[list[Match], int, tuple[tuple[int, ...] | None, tuple[str, ...], float]]:
        """The exact-name tier's matches, the room left for BM25+ matches, and what the BM25+
        search needs besides the query text: (excluded ids, sorted, or None for none; required
        terms; relative floor).

        Every work item here is proportional to the query or to the named tools, never to the
        corpus: one dict lookup per candidate span, and engine calls only for the names read
        before the tier is full (:meth:`exact_name_tier`).
        """
        excluded = request.excluded
        floor = request.relative_floor
        finder = self.names.finder
        named = finder.find_names(parsed.text, spans=True) if request.exact_names else None
        if not named:  # the common case: no name in the query, nothing to score here
            return [], request.limit, (request.excluded_sorted, parsed.required, floor)
        filters = {"include": request.include, "required": parsed.required, **request.prefix}
        tier = self.exact_name_tier(named, parsed.text, excluded, filters, request.limit)
        matches: list[Match] = []
        if tier:
            scores = dict(
                self._index.score_documents(
                    scored_text(parsed.text, self.field_weights), tier, sorted(excluded), **filters
                )
            )
            matches = [new_match(self._tools[d], scores.get(d, 0.0), "exact_name") for d in tier]
        rest = (
            tuple(sorted(excluded.union(tier))),
            tuple(parsed.required),
            # With named tools first, the floor applies to the whole result (in _finish).
            floor if not tier else 0.0,
        )
        return matches, request.limit - len(matches), rest

    def keyword_tier(self, parsed: ParsedQuery, request: _Request) -> tuple[list[Match], list[int]]:
        """The exact-name tier for ``ranker="keyword"``: its matches and their tool ids.

        The same tools, in the same order, as :meth:`tier` puts first for the BM25+ ranker (the
        same names found, query order, exclude / servers / ``+required`` applied, at most
        :data:`EXACT_NAME_MAX_TOOLS` tools a name, cut to the limit). Each is scored with its
        keyword points for the query (``ToolSearch``'s scorer, as the rest of the list), 0.0 when it
        has none (``searchgraph`` names ``search_graph`` but matches none of its parts): the
        keyword index's own search, restricted to these tools, in either engine.
        """
        finder = self.names.finder
        named = finder.find_names(parsed.text, spans=True) if request.exact_names else None
        if not named:
            return [], []
        filters = {"include": request.include, "required": parsed.required, **request.prefix}
        tier = self.exact_name_tier(named, parsed.text, request.excluded, filters, request.limit)
        if not tier:
            return [], []
        points = dict(self.keyword_index().search(parsed.text, len(tier), include=tier))
        tools = self._tools
        return [new_match(tools[d], points.get(d, 0.0), "exact_name") for d in tier], tier

    def exact_name_tier(
        self,
        named: list[tuple[tuple[int, ...], int, int]],
        text: str,
        excluded: frozenset[int],
        filters: dict[str, Any],
        limit: int,
    ) -> list[int]:
        """The first ``limit`` tools the query names exactly (exact-name prefixing), in query order,
        deduplicated, from the names :meth:`NameFinder.find_names` found in ``text`` (as spans).

        A name held by several tools (``read_file`` on many servers) lists them by their score
        for the rest of the query (the query without that name), then by name; the names then
        take turns, so that every name gets its best tool before any name gets a second one. A
        name brings at most :data:`EXACT_NAME_MAX_TOOLS` tools, so that a name held by dozens of
        servers (``hello``, ``search``) cannot fill the whole list.

        The names are read in query order, and reading stops once their first tools fill the
        tier (what later names would add comes after). The engine scores the rest of the query
        only for a name with at least two tools left by exclude / servers / ``+required``. So a
        long query of shared names costs about ``limit`` scorings of its text, not one per name.
        """
        names = self.names.sources  # each tool's name, without decoding a loaded index's tools
        index = self._index
        excluded_sorted = sorted(excluded)
        filtered = bool(excluded) or filters["include"] is not None or bool(filters["required"])
        queues: list[list[int]] = []
        order: list[int] = []
        seen: set[int] = set()
        for ids, start, end in named:
            kept = list(ids)
            if filtered:  # the engine applies exclude / servers / required (an empty query)
                kept = [d for d, _ in index.score_documents("", kept, excluded_sorted, **filters)]
            if len(kept) > 1:  # several tools: by their score for the rest of the query
                scored = index.score_documents(
                    without(text, start, end), kept, excluded_sorted, **filters
                )
                if len(scored) > EXACT_NAME_MAX_TOOLS:  # only those at the third score or above
                    cut = heapq.nlargest(EXACT_NAME_MAX_TOOLS, [s for _, s in scored])[-1]
                    scored = [hit for hit in scored if hit[1] >= cut]
                kept = [
                    d
                    for d, _ in heapq.nsmallest(
                        EXACT_NAME_MAX_TOOLS, scored, key=lambda hit: (-hit[1], names[hit[0]].name)
                    )
                ]
            if kept:
                queues.append(kept)
                if kept[0] not in seen:  # the first turn, as the names come
                    seen.add(kept[0])
                    order.append(kept[0])
                    if len(order) >= limit:
                        return order
        for turn in range(1, max((len(q) for q in queues), default=0)):
            for queue in queues:
                if turn < len(queue) and queue[turn] not in seen:
                    seen.add(queue[turn])
                    order.append(queue[turn])
        del order[limit:]
        return order

    def select(
        self,
        parsed: ParsedQuery,
        limit: int,
        max_limit: int,
        allowed: frozenset[int] | None,
        notices: list[str],
        clamped: bool,
    ) -> SearchResult:
        table = self.names
        tools = self._tools
        found: dict[int, None] = {}  # tool ids in the order asked, each once
        missing: list[str] = []
        suggestions: dict[str, tuple[str, ...]] = {}
        # id() of a looked-up tuple -> whether it had allowed tools (names of one normalised
        # form mostly share one tuple: it is filtered and added once).
        done: dict[int, bool] = {}
        names = parsed.names
        for name, ids in zip(names, table.lookup_names(names)):
            known = done.get(id(ids))
            if known is None:
                kept = ids if allowed is None else [i for i in ids if i in allowed]
                found.update(dict.fromkeys(kept))
                known = done[id(ids)] = bool(kept)
            if not known:
                missing.append(name)
                suggestions[name] = (
                    self.suggest(name, allowed) if len(missing) <= SUGGESTED_NAMES_MAX else ()
                )
        order = list(found)
        if len(order) > max_limit:
            notices.append(f"select: {len(order)} tools found, returned the first {max_limit}")
            del order[max_limit:]
        matches = _NEW_MATCHES[self.engine](tools, [(i, 0.0) for i in order], "select")
        return SearchResult(
            query=parsed.query,
            query_kind="select",
            limit=limit,
            matches=tuple(matches),
            missing=tuple(missing),
            suggestions=suggestions,
            notices=tuple(notices),
            clamped=clamped,
            truncated=parsed.truncated,
            total_tools=len(tools),
        )

    def suggest(self, name: str, allowed: frozenset[int] | None) -> tuple[str, ...]:
        """Up to three "did you mean" names for a ``select:`` name that matched nothing (only the
        first :data:`SUGGESTED_NAMES_MAX` missing names of a query get any; a name too long to
        be close to any tool's, :data:`SUGGESTED_NAME_LENGTH_MAX`, gets none)."""
        if len(name) > SUGGESTED_NAME_LENGTH_MAX:
            return ()
        try:
            hits = self._index.search(name, 20, prefix_fraction=DEFAULT_PREFIX_FRACTION)
        except LimitError:  # pragma: no cover - 20 is a valid limit
            hits = []
        except ValueError:  # the name has no letter or number: no candidates from the engine
            hits = []
        candidates = [doc for doc, _ in hits if allowed is None or doc in allowed]
        suggestions = self.names.suggest(name, candidates)
        if allowed is not None:
            suggestions = tuple(
                s for s in suggestions if any(i in allowed for i in self.names.lookup(s))
            )
        return suggestions
