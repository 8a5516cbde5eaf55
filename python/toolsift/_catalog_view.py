"""A :class:`~toolsift.DiscoverySession` that is a view of a shared :class:`~toolsift.Catalog`:
its own mode, options and activations over the catalogue's current generation and its ONE index
(see :mod:`toolsift.shared_catalog`). Its lock adopts the current generation when first taken;
its search leaves its visible tools out inside the engine; changes go to the catalogue.

On the Rust engine, a plain query with the default options (most of what an agent sends) is
searched and activated under one hold of the lock, ranked by one engine call
(``Index.search_view``) that gives the fresh matches and the already-active ones of one
scoring pass; the visible tools' ids are carried from one search to the next. Any other search
takes the general path (:meth:`_rank`, then :meth:`_settle`), which answers the same.

Example:
    >>> from toolsift import Catalog, Tool
    >>> session = Catalog([Tool(name="send_email", description="Send an email")]).session()
    >>> session.search("send an email").activated
    ('send_email',)
    >>> session.add_tools([Tool(name="fax")])
    Traceback (most recent call last):
    ...
    toolsift.errors.DiscoveryError: This session is a view of a shared toolsift.Catalog: ...
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, cast

from ._options import MAX_COUNT_OPTION
from ._session.activation import DiscoveryResult, _discovery_result
from ._session.checks import (
    _check_always,
    _check_budget,
    _check_flag,
    _check_meta_tool_name,
    _check_mode,
)
from ._session.generation import CatalogCore, Generation
from ._session.options import checked_search_options
from ._session.snapshot import _Ranked, _Snapshot
from ._session.state import DEFAULT_ALWAYS_AVAILABLE, DiscoveryMode, ToolSource, _Entry
from .errors import DiscoveryError
from .index import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_LIMIT,
    DEFAULT_PREFIX_FRACTION,
    EngineName,
    Ranker,
    ToolIndex,
)
from .query import DEFAULT_MAX_QUERY_LENGTH, parse_query
from .session import DiscoverySession
from .tools import Tool

__all__ = ["_CatalogSession"]

_DEFAULT_ALWAYS = frozenset(DEFAULT_ALWAYS_AVAILABLE)
#: A view searches once for fresh and already-active matches together, ``limit`` plus at most this
#: many of its visible tools, then splits; when more visible tools than that fill the window, two
#: searches, one excluding them in the engine.
_SPLIT_AT_MOST = 32

_VIEW_MESSAGE = (
    "This session is a view of a shared toolsift.Catalog: change the catalogue instead "
    "(catalog.{method}(...)); every session of it sees the change at its next search."
)


class _SyncLock:
    """The view's state lock: a re-entrant lock that, when first taken, brings the view up to
    the catalogue's current generation, so that one locked section sees one generation."""

    __slots__ = ("_lock", "_depth", "_sync")

    def __init__(self, sync: Any) -> None:
        self._lock = threading.RLock()
        self._depth = 0
        self._sync = sync

    def __enter__(self) -> _SyncLock:
        self._lock.acquire()
        self._depth += 1
        if self._depth == 1:
            try:
                self._sync()
            except BaseException:
                self._depth -= 1
                self._lock.release()
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        self._lock.release()


class _CatalogSession(DiscoverySession):
    """A :class:`DiscoverySession` that is a view of a :class:`Catalog` (see the module)."""

    def __init__(  # noqa: PLR0913 - DiscoverySession's session options
        self,
        core: CatalogCore,
        *,
        mode: DiscoveryMode,
        mcp_discovery: bool,
        always_available: Iterable[str],
        auto_max_tools: int,
        auto_max_tokens: int,
        meta_tool_name: str,
        rebuild_on_activation: bool,
        limits: tuple[int, int, float],
        semantic: bool | Literal["auto"] = "auto",
        min_confidence: float | None = None,
    ) -> None:
        # Not DiscoverySession.__init__: a view checks its options and shares everything else.
        default_limit, max_limit, threshold = limits
        self.default_limit, self.max_limit, self.threshold, self._semantic, self.min_confidence = (
            checked_search_options(default_limit, max_limit, threshold, semantic, min_confidence)
        )
        _check_mode(mode)
        _check_meta_tool_name(meta_tool_name)
        self._core = core
        self._mode: DiscoveryMode = mode
        self._mcp_discovery = _check_flag(mcp_discovery, "mcp_discovery")
        self._always = (
            _DEFAULT_ALWAYS
            if always_available is DEFAULT_ALWAYS_AVAILABLE
            else _check_always(always_available)
        )
        self._auto_max_tools = _check_budget(auto_max_tools, "auto_max_tools")
        self._auto_max_tokens = _check_budget(auto_max_tokens, "auto_max_tokens")
        self._rebuild_on_activation = _check_flag(rebuild_on_activation, "rebuild_on_activation")
        self.meta_tool_name = meta_tool_name
        self._selected: dict[str, None] = {}
        self._generation = 0
        self._catalog_generation = 0
        self._gen: Generation | None = None
        self._visible_generation = -1  # the session generation of _visible_set
        self._visible_set: frozenset[str] = frozenset()
        self._request: tuple[Any, ...] | None = None  # see _excluding
        # The state a search reads and an activating search replaces is held in attributes
        # set in place (and an untracked ViewFilter), never in a new container a search: one
        # that outlives its search while the one it replaces (older) is freed joins Python's
        # young generation without moving the count that starts its collection, so that
        # generation would grow to tens of thousands of objects and pause every thread for
        # tens of milliseconds when collected.
        self._view_generation = -1  # see _view_filter
        self._view_index: ToolIndex | None = None
        self._view_filter_now: Any = None
        self._view_engine: Any = None
        self._view_tools: Any = None
        self._view_keys: Any = None
        self._loaded_key = -1  # see _loaded_selected
        self._loaded_count = -1
        self._loaded_names: list[str] = []
        self._snapshot: _Snapshot | None = None
        self._builds = 0
        self._provider_names: tuple[int, dict[str, str]] | None = None  # unused: see find_tool
        self._lock = _SyncLock(self._sync)  # type: ignore[assignment]
        self._build_lock = threading.Lock()
        with self._lock:  # adopts the current generation
            pass

    # --- the catalogue's generation ---------------------------------------------------------

    def _sync(self) -> None:
        """Adopt the catalogue's current generation if it moved (with the lock held)."""
        gen = self._core.current
        if gen is self._gen:
            return
        self._gen = gen
        self._entries = gen.entries  # type: ignore[assignment]  # shared, never written
        self._servers = gen.servers  # type: ignore[assignment]
        self._summaries = gen.summaries  # type: ignore[assignment]
        index = gen.index
        self._engine = cast(EngineName, index.engine)  # the resolved engine, "rust" or "python"
        self._profile, self._field_weights = index.profile, index.field_weights
        self._always_names = gen.always_names(self._always)
        self._auto_over = (  # the tokens are counted only when the tool count does not decide
            len(gen.entries) - len(self._always_names) > self._auto_max_tools
            or gen.tokens - gen.always_tokens(self._always) > self._auto_max_tokens
        )
        self._changed(catalog=True)

    def _changed(self, *, catalog: bool) -> None:
        self._generation += 1
        if catalog:
            self._catalog_generation += 1
            if self._selected:
                self._forget_old_activations()

    def _hideable(self, entry: _Entry, mode: str | None = None) -> bool:
        mode = mode or self._effective_mode()
        if mode == "off" or (mode == "mcp-only" and entry.source != "mcp"):
            return False
        return entry.tool.name not in self._always_names

    @property
    def generation(self) -> int:
        """A counter bumped by every change of the hidden corpus (tools, mode, activation)."""
        with self._lock:
            return self._generation

    @property
    def catalog_generation(self) -> int:
        """A counter bumped by every change of the catalogue or mode, but not by activation."""
        with self._lock:
            return self._catalog_generation

    # --- search --------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        limit: int | None = None,
        *,
        threshold: float | None = None,
        ranker: Ranker = "bm25",
        min_confidence: float | None = None,
    ) -> DiscoveryResult:
        """:meth:`DiscoverySession.search` (same arguments, result and errors); a plain query
        with the default options takes the engine's one call for a view (see
        :meth:`_search_view`)."""
        if (
            type(query) is str
            and threshold is None
            and min_confidence is None
            and type(ranker) is str
            and ranker == "bm25"
            and (limit is None or (type(limit) is int and limit > 0))
        ):
            found = self._search_view(query, limit)
            if found is not None:
                return found
        return super().search(
            query, limit, threshold=threshold, ranker=ranker, min_confidence=min_confidence
        )

    def _search_view(self, query: str, limit: int | None) -> DiscoveryResult | None:
        """The search and its activation under one hold of the lock, the ranking in one engine
        call (``Index.search_view``): the top ``limit`` without the visible tools, and those of
        them that the top ``limit`` of the ranking without exclusion holds (already active).
        ``None`` when the search needs the general path (the pure-Python engine, a query that
        is not plain or names a tool, a threshold, exact scores, discovery off), which answers
        the same for every search this one answers (see ``tests/test_view_search.py``)."""
        if self._rebuild_on_activation or self.threshold:
            return None
        with self._lock:
            gen = self._gen
            assert gen is not None
            if self._effective_mode() == "off":
                return None  # the general path raises
            index = gen.index
            if self._ranks_semantically(index):
                return None  # the semantic ranking and its confidence: the general path
            # (a semantic catalogue's engine call ranks with BM25+ alone: semantic=False)
            view, engine, tools, keys = self._view_filter(index)
            if keys is None:
                return None
            # Clamped as every entry point clamps: to max_limit and to what the engines count.
            limit = self.default_limit if limit is None else min(limit, self.max_limit)
            limit = min(limit, MAX_COUNT_OPTION)
            found = engine.search_view(tools, keys, query, limit, DEFAULT_MAX_QUERY_LENGTH, view)
            if found is None:
                return None
            text, fresh, names, already, already_names, extended, total = found
            selected = self._selected
            loaded = len(selected)
            if names:
                for name in names:
                    selected[name] = None
                self._changed(catalog=False)
                # The next search's filter: these tools are visible now (the names, of the
                # previous state, are no longer needed).
                self._view_generation = self._generation
                self._view_filter_now = extended
            active_selected = self._loaded_selected(loaded, names)
            generation = self._generation
        return _discovery_result(
            text, limit, fresh, names, already_names, active_selected, total, "keyword", (),
            generation, already,
        )  # fmt: skip

    def _loaded_selected(self, before: int, added: tuple[str, ...]) -> tuple[str, ...]:
        """The activations of tools the generation holds, in order (with the lock held), after
        ``added`` joined ``before`` of them: the previous answer plus ``added`` while the
        catalogue generation stays (activations only grow then; every one added is loaded)."""
        names = self._loaded_names
        key = self._catalog_generation
        if self._loaded_key == key and self._loaded_count == before:
            names.extend(added)
        else:
            entries = self._entries
            names = self._loaded_names = list(filter(entries.__contains__, self._selected))
            self._loaded_key = key
        self._loaded_count = len(self._selected)
        return tuple(names)

    def _view_filter(self, index: ToolIndex) -> tuple[Any, ...]:
        """What ``Index.search_view`` needs for this session state (with the lock held): the
        visible tools' ids as a ``ViewFilter``, the engine index, its tools and its name keys
        (``None``: no engine call for this index); cached until the session's generation
        moves, and carried to the next one by an activating search."""
        if self._view_index is index and self._view_generation == self._generation:
            return self._view_filter_now, self._view_engine, self._view_tools, self._view_keys
        searcher = index._searcher  # noqa: SLF001 - the index's own engine and tools
        keys = searcher._plain_call_keys(_wide_request(index, DEFAULT_LIMIT))  # noqa: SLF001
        engine, tools, view = searcher._index, searcher._tools, None  # noqa: SLF001
        if keys is not None:  # the Rust engine's index
            by_name = searcher._by_name  # noqa: SLF001
            visible = self._visible_names(keep=False)  # what the filter holds from now on
            ids = [i for i in map(by_name.get, visible) if i is not None]
            view = _view_filter_class()(ids, DEFAULT_PREFIX_FRACTION, 3, 16)
        self._view_index, self._view_filter_now = index, view
        self._view_engine, self._view_tools, self._view_keys = engine, tools, keys
        self._view_generation = self._generation
        return view, engine, tools, keys

    def _ready(self) -> bool:
        return not self._rebuild_on_activation or super()._ready()

    def _ranks_semantically(self, index: ToolIndex) -> bool:
        """Whether this view's searches of ``index`` rank semantically: the catalogue's
        vectors are on (``Catalog(semantic=...)``) and the session did not turn them off."""
        return self._semantic is not False and index.semantic

    def _base_index(self, previous: _Snapshot | None) -> ToolIndex | None:
        # Exact scores: this session's index is the shared one less its visible tools.
        gen = self._gen
        if gen is None:
            return None
        return gen.index if self._semantic is not False else gen.index._lexical()  # noqa: SLF001

    def _active_test(self, mode: str) -> Callable[[str], bool]:
        if mode == "off":  # every tool is visible (the cached set is of the modes that hide)
            return super()._active_test(mode)
        return self._visible_names().__contains__

    def _visible_names(self, *, keep: bool = True) -> frozenset[str]:
        """The tools of the generation the model sees now (with the lock held): left out of
        the search; cached until the session's generation moves (``keep=False``: not cached,
        for the one-call search, whose ``ViewFilter`` holds them)."""
        if self._visible_generation == self._generation:
            return self._visible_set
        assert self._gen is not None
        mode = self._effective_mode()
        visible = self._always_names
        if mode == "mcp-only":
            visible = visible | self._gen.non_mcp_names()
        entries = self._entries
        visible = visible.union(n for n in self._selected if n in entries)
        if keep:
            self._visible_generation, self._visible_set = self._generation, visible
        return visible

    def _rank(self, query: str, limit: int, options: dict[str, Any]) -> _Ranked:
        if self._rebuild_on_activation:
            return super()._rank(query, limit, options)
        with self._lock:
            self._check_enabled()
            gen = self._gen
            visible = self._visible_names()
        assert gen is not None
        index = gen.index
        total = len(index) - len(visible)
        cap, ranker = options["max_limit"], options["ranker"]
        if self._ranks_semantically(index):
            # The public search (semantic ranking, confidence, abstention); the visible tools
            # are left out before the cut, and the ranking with them says which are active.
            result = index.search(query, limit, exclude=visible, **options)
            ranked = list(result)
            if visible and result.query_kind == "keyword":
                ranked = list(index.search(query, limit, **options))
            return _Ranked(result, list(result), ranked, None, total)
        # BM25+ alone (a semantic catalogue's lexical side, for a session with semantic=False):
        # no confidence, so no abstention.
        index = index._lexical()  # noqa: SLF001
        options = {k: v for k, v in options.items() if k not in ("abstain", "min_confidence")}
        if ranker == "bm25" and "threshold" not in options:
            # One search of `limit` more than the visible tools (at most _SPLIT_AT_MOST more),
            # nothing excluded, split: the hidden ones are the top `limit` of the search that
            # excludes the visible ones (scores do not depend on exclusion) when the window
            # holds `limit` of them or every match; the visible ones in its top `limit` are
            # already active. A window short of hidden tools also searches with them excluded.
            wide = limit + min(len(visible), _SPLIT_AT_MOST)
            if wide <= DEFAULT_MAX_LIMIT:
                result, used = index.search(query, wide), DEFAULT_MAX_LIMIT  # the one-call path
            else:  # the same, through a request cached per width (it has no exclusion)
                result = index._searcher.search_text(query, _wide_request(index, wide))  # noqa: SLF001
                used = wide
            if result.query_kind == "select":
                if used != cap:  # select: returns up to max_limit names: the session's
                    result = index.search(query, limit, max_limit=cap)
                fresh = [m for m in result if m.tool.name not in visible]
                return _Ranked(result, fresh, list(result), None, total)
            fresh = [m for m in result if m.tool.name not in visible]
            top = list(result)[:limit]
            if len(fresh) >= limit or len(result) < wide:
                return _Ranked(result, fresh[:limit], top, None, total)
            # The window's top `limit` is the search's without exclusion: only the fresh
            # matches need the search that leaves the visible tools out.
            request = self._excluding(index, visible, limit, options)
            result = index._searcher.search_one(parse_query(query), request)  # noqa: SLF001
            return _Ranked(result, list(result), top, None, total)
        if ranker == "regex":
            result = index.search(query, limit, exclude=visible, **options)
        else:  # the visible tools' ids are resolved once per session state, not per search
            request = self._excluding(index, visible, limit, options)
            result = index._searcher.search_one(parse_query(query), request)  # noqa: SLF001
        ranked = list(result)
        if visible and result.query_kind == "keyword":
            ranked = list(index.search(query, limit, **options))
        return _Ranked(result, list(result), ranked, None, total)

    def _excluding(
        self, index: ToolIndex, visible: frozenset[str], limit: int, options: dict[str, Any]
    ) -> Any:
        """The validated search request that leaves ``visible`` out of ``index``: cached
        until the index, the visible set (a new object when the session's state moves) or the
        options change."""
        key = (limit, options["ranker"], options["max_limit"], options.get("threshold", 0.0))
        cached = self._request
        if cached is not None and cached[0] is index and cached[1] is visible and cached[2] == key:
            return cached[3]
        request = index._searcher.request(  # noqa: SLF001 - ToolIndex.search's own request
            limit, visible, None, key[1], True, DEFAULT_PREFIX_FRACTION, 3, 16, key[3], 0.0,
            False, False, key[2], DEFAULT_MAX_QUERY_LENGTH,
        )  # fmt: skip
        self._request = (index, visible, key, request)
        return request

    def find_tool(self, name: str) -> Tool | None:
        """The tool a call names (as :meth:`DiscoverySession.resolve` reads it), or ``None``:
        looked up in the generation's name table, shared by every session of the catalogue."""
        with self._lock:
            gen = self._gen
        assert gen is not None
        entry = gen.entries.get(name)
        if entry is not None:
            return entry.tool
        canonical = gen.provider_names().get(name)
        return gen.entries[canonical].tool if canonical is not None else None

    # --- the catalogue is changed through the Catalog ---------------------------------------

    def add_tools(self, tools: Iterable[Tool], *, source: ToolSource = "builtin") -> None:
        raise DiscoveryError(_VIEW_MESSAGE.format(method="add_tools"))

    def remove_tools(self, names: Iterable[str]) -> None:
        raise DiscoveryError(_VIEW_MESSAGE.format(method="remove_tools"))

    def connect_server(
        self, name: str, tools: Iterable[Tool] | Mapping[str, Any], *, summary: str | None = None
    ) -> None:
        raise DiscoveryError(_VIEW_MESSAGE.format(method="connect_server"))

    def disconnect_server(self, name: str) -> None:
        raise DiscoveryError(_VIEW_MESSAGE.format(method="disconnect_server"))


@functools.cache
def _view_filter_class() -> Any:
    """``toolsift._core.ViewFilter``, imported once (the Rust engine is loaded by then)."""
    from ._core import ViewFilter

    return ViewFilter


#: The validated requests of the searches that exclude nothing, by width: they hold no tool id
#: (no exclusion, no server filter), so one serves every index and every view.
_WIDE_REQUESTS: dict[int, Any] = {}


def _wide_request(index: ToolIndex, wide: int) -> Any:
    """The request of ``index.search(query, wide, max_limit=wide)``, validated once per width."""
    request = _WIDE_REQUESTS.get(wide)
    if request is None:
        request = _WIDE_REQUESTS[wide] = index._searcher.request(  # noqa: SLF001
            wide, (), None, "bm25", True, DEFAULT_PREFIX_FRACTION, 3, 16, 0.0, 0.0, False,
            False, wide, DEFAULT_MAX_QUERY_LENGTH,
        )  # fmt: skip
    return request
