"""``DiscoverySession``: the live catalogue of one agent session, and what discovery hides in it.

A session gathers tools from several sources (built-in tools, MCP servers by name, extensions,
custom tools) that change while it runs: a server connects, disconnects, or sends a new tool
list. Discovery (OMP's ``tools.discoveryMode``) hides every tool except the always-available
ones; the model finds the rest with one meta-tool (:mod:`toolsift.metatool`), and each search
activates its matches for the rest of the session.

Concurrency: every change of state happens under one lock and bumps :attr:`generation`;
searches run on an immutable snapshot (two :class:`~toolsift.ToolIndex` objects), so any number
of threads may search, activate, connect and disconnect at once. Each view (``visible_tools``,
``hidden_tools``, ...) is of one state, and so is what a search reports (checked under the lock
against the state it activates in); two views read one after the other may be of two states: a
mode change between them can hide a tool the first one showed.

Index lifetime: a snapshot is rebuilt only when the corpus it indexes changes, by the first
search that needs it (one build at a time, outside the state lock), never per query. By default
(``rebuild_on_activation=False``) it indexes every discoverable tool, active or not, is rebuilt
only when the catalogue or the mode changes (:attr:`catalog_generation`), and active tools are
left out inside the engine, before the cut: activation is a filter, so the search after an
activation costs what any search costs. BM25's corpus statistics then include the active tools,
so scores (and, in about half of the searches of a ten-search session, the order of the top 5)
differ slightly from OMP's. ``rebuild_on_activation=True`` indexes the hidden tools only, exactly
OMP ``search_tool_bm25``'s corpus, so every score is OMP's; an activating search changes that
corpus, and the next search (or :meth:`DiscoverySession.prepare`, called off the search path)
updates the index: the previous one less the tools activated since, a copy-on-write update
(about 10 ms at 11,578 tools) rather than a rebuild.

Many sessions over one catalogue (a gateway): make them with :meth:`toolsift.Catalog.session`,
views that share one index and cost a few KiB each; a ``DiscoverySession(tools)`` owns its
catalogue and its index.

Example:
    >>> from toolsift import DiscoverySession, Tool
    >>> session = DiscoverySession(
    ...     [Tool(name="read"), Tool(name="send_email", description="Send an email message")],
    ...     mode="all",
    ... )
    >>> [t.name for t in session.visible_tools]
    ['read']
    >>> session.search("email someone").activated
    ('send_email',)
    >>> [t.name for t in session.visible_tools]
    ['read', 'send_email']
"""

from __future__ import annotations

import asyncio
import itertools
import math
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ._engine.select import select_engine
from ._index.regex import check_regex_query
from ._options import check_limit
from ._session.snapshot import (
    _UPDATE_AT_MOST,
    _current,
    _derive,
    _moved_out,
    _Ranked,
    _redefined,
    _resolved,
    _Snapshot,
)
from ._session.state import AUTO_MAX_TOKENS as AUTO_MAX_TOKENS
from ._session.state import AUTO_MAX_TOOLS as AUTO_MAX_TOOLS
from ._session.state import (
    DEFAULT_ALWAYS_AVAILABLE,
    DiscoveryMode,
    ToolSource,
    _check_flag,
    _check_mode,
    _SessionState,
)
from ._text.analysis import DEFAULT_PROFILE, ProfileName, check_profile
from ._text.documents import FieldWeights, check_field_weights
from .config import ToolSearchConfig
from .errors import DiscoveryError, LimitError
from .index import DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, EngineName, Ranker, ToolIndex
from .query import parse_query
from .result import Match, QueryKind
from .tools import Tool, provider_name

__all__ = [
    "DiscoverySession",
    "DiscoveryResult",
    "DiscoveryMode",
    "ToolSource",
    "DEFAULT_ALWAYS_AVAILABLE",
    "DISABLED_MESSAGE",
    "UNAVAILABLE_MESSAGE",
]
# The modes, sources and auto budgets live with the catalogue state (_session.state) and are
# re-exported here.

META_TOOL_NAME = "search_tool_bm25"
DISABLED_MESSAGE = (
    "Tool discovery is disabled. Enable tools.discoveryMode or mcp.discoveryMode to use {name}."
)
UNAVAILABLE_MESSAGE = "Tool discovery is unavailable in this session."

# How often a search is retried when the state moved past its snapshot (a match activated,
# removed or redefined, an always-visible match hidden) before it could activate.
_SEARCH_ATTEMPTS = 8


@dataclass(frozen=True)
class DiscoveryResult:
    """What one search did: the fresh matches it activated and the state right after.

    Attributes:
        query: the trimmed query.
        limit: the validated limit.
        matches: the fresh matches, best first: hidden tools the query matched, now active.
        activated: names this call activated, in rank order (``search_tool_bm25``'s
            ``activated_tools``).
            Equal to the names of ``matches`` unless another thread activated one of them
            first; that one is then listed in ``already_active`` instead.
        already_active: names of active tools the query also matched (an essential tool, or
            one activated earlier): left out of ``matches`` and reported here instead, so
            the model knows it can already call them.
        selected: every tool activated by discovery so far and still loaded, in activation
            order (``search_tool_bm25``'s ``active_selected_tools``).
        total_tools: how many hidden tools were searched (``search_tool_bm25``'s ``total_tools``).
        query_kind: ``"select"`` for a ``select:A,B`` lookup, else ``"keyword"``.
        missing: for ``select``, the requested names that match no tool of the session.
        generation: the session generation right after the search.
        already_active_matches: the matches of ``already_active``, in the same order (a Claude
            Code ``ToolSearch`` ``select:`` response lists them with the fresh ones: the model
            asked for their schemas).

    Example:
        >>> session = DiscoverySession([Tool(name="send_email", description="Send an email")])
        >>> result = session.search("select:send_email,fax")
        >>> result.query_kind, result.activated, result.missing
        ('select', ('send_email',), ('fax',))
    """

    query: str
    limit: int
    matches: tuple[Match, ...]
    activated: tuple[str, ...]
    already_active: tuple[str, ...]
    selected: tuple[str, ...]
    total_tools: int
    query_kind: QueryKind = "keyword"
    missing: tuple[str, ...] = ()
    generation: int = 0
    already_active_matches: tuple[Match, ...] = ()


class DiscoverySession(_SessionState):
    """A live tool catalogue with OMP ``search_tool_bm25``'s discovery modes and session-scoped
    activation.

    Arguments:
        tools: initial tools. A tool with a ``server`` joins that MCP server (as if by
            :meth:`connect_server`), any other is a built-in tool.
        mode: ``"off"`` (nothing hidden, searching raises :class:`~toolsift.DiscoveryError`),
            ``"all"`` (every tool but the always-available ones is hidden), ``"mcp-only"``
            (only MCP tools are hidden), or ``"auto"`` (``"all"`` while the hideable tools
            number more than ``auto_max_tools`` or their schemas more than ``auto_max_tokens``
            tokens, else ``"off"``).
        mcp_discovery: the legacy ``mcp.discoveryMode`` flag: with ``mode="off"`` (or ``"auto"``
            below its thresholds) it means ``"mcp-only"``.
        always_available: tools never hidden (InitRunner's ``always_available``; by
            default OMP's essential ``read``, ``bash``, ``edit``). An entry names a tool (its
            canonical name or any of :meth:`Tool.aliases`) or a server (all of its tools).
        summaries: one-line summaries of servers, by name, for the meta-tool description.
        auto_max_tools, auto_max_tokens: the thresholds of ``mode="auto"`` (40 and 16,000).
        engine: the ranking engine of the indexes (see :class:`~toolsift.ToolIndex`).
        profile: the analysis profile of the indexes (see :class:`~toolsift.ToolIndex`):
            ``"english"`` (default) or ``"seed"``, the plain profile of OMP ``search_tool_bm25``.
        field_weights: the indexes' field weights (see :class:`~toolsift.ToolIndex`; default:
            the profile's), e.g. with :attr:`~toolsift.FieldWeights.word_pairs` on.
        meta_tool_name: the name of the search meta-tool, used in error messages.
        rebuild_on_activation: ``False`` (default): index the active tools too and leave them
            out inside the engine, rebuilding only on catalogue changes; ``True``: index the
            hidden tools only and update the index after activations (a copy-on-write update
            per activating search), so scores are exactly OMP ``search_tool_bm25``'s (see the
            module docstring).
        default_limit: the ``limit`` of a search that gives none (default 8).
        max_limit: the cap on a search's ``limit`` (default 25): a larger one is clamped to it,
            in :meth:`search`, the meta-tool call and its schema's ``maximum``.
        threshold: drop ranked matches scoring below this (0.0 = off); a search may override it.
        config: a :class:`toolsift.config.ToolSearchConfig` whose ``mode``/``enabled``,
            ``always_available``, ``profile``, ``max_results``, ``max_limit``, ``threshold`` and
            ``meta_tool_name`` are taken, unless the corresponding argument is given.

    Raises:
        DuplicateToolError: two tools share a canonical name.
        EngineUnavailableError: ``engine="rust"`` without the compiled extension.
        ProfileError: ``profile`` names no profile.
        TypeError: an argument of the wrong type, e.g. ``tools`` that are not :class:`Tool`
            objects (convert raw definitions with :func:`toolsift.load_tools`).
        ValueError: an unknown mode or engine, a negative auto threshold, or an empty name.

    Example:
        >>> from toolsift import DiscoverySession, default_tools
        >>> session = DiscoverySession(default_tools(), mode="all")
        >>> session.search("open a pull request", limit=2).activated
        ('mcp__github__create_pull_request', 'mcp__github__merge_pull_request')
    """

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        mode: DiscoveryMode = "all",
        mcp_discovery: bool = False,
        always_available: Iterable[str] = DEFAULT_ALWAYS_AVAILABLE,
        summaries: Mapping[str, str] | None = None,
        auto_max_tools: int = AUTO_MAX_TOOLS,
        auto_max_tokens: int = AUTO_MAX_TOKENS,
        engine: EngineName = "auto",
        meta_tool_name: str = META_TOOL_NAME,
        rebuild_on_activation: bool = False,
        profile: ProfileName = DEFAULT_PROFILE,
        field_weights: FieldWeights | None = None,
        default_limit: int = DEFAULT_LIMIT,
        max_limit: int = DEFAULT_MAX_LIMIT,
        threshold: float = 0.0,
        config: ToolSearchConfig | None = None,
    ) -> None:
        if config is not None:
            given = locals()
            mode, always_available, profile, default_limit, max_limit, threshold, meta_tool_name = (
                _session_arguments(config, given)
            )
        _check_limits(default_limit, max_limit, threshold)
        self.default_limit = default_limit
        self.max_limit = max_limit
        self.threshold = float(threshold)
        _check_mode(mode)
        self._profile: ProfileName = check_profile(profile)
        self._field_weights = check_field_weights(field_weights)
        select_engine(engine)  # ToolIndex's check and message, now rather than at the 1st search
        if not isinstance(meta_tool_name, str):
            raise TypeError(f"meta_tool_name must be a str, got {type(meta_tool_name).__name__}.")
        if not meta_tool_name:
            raise ValueError("meta_tool_name must not be empty.")
        self._build_lock = threading.Lock()  # one snapshot build at a time
        self._engine: EngineName = engine
        self.meta_tool_name = meta_tool_name
        self._rebuild_on_activation = _check_flag(rebuild_on_activation, "rebuild_on_activation")
        self._snapshot: _Snapshot | None = None
        self._builds = 0
        self._provider_names: tuple[int, dict[str, str]] | None = None
        super().__init__(
            tools,
            mode=mode,
            mcp_discovery=mcp_discovery,
            always_available=always_available,
            summaries=summaries,
            auto_max_tools=auto_max_tools,
            auto_max_tokens=auto_max_tokens,
        )

    @classmethod
    def from_config(
        cls,
        config: ToolSearchConfig | str | os.PathLike[str],
        tools: Iterable[Tool] = (),
        **options: Any,
    ) -> DiscoverySession:
        """A session set up by a ``tool_search`` config: a
        :class:`~toolsift.config.ToolSearchConfig`, or the path of a ``toolsift.toml`` or JSON
        config file; ``options`` override it.

        Raises:
            ConfigError: the file cannot be read or holds an invalid ``tool_search`` block.

        Example:
            >>> from toolsift.config import ToolSearchConfig
            >>> s = DiscoverySession.from_config(ToolSearchConfig(max_results=2, max_limit=10))
            >>> s.default_limit, s.max_limit
            (2, 10)
        """
        from .config import ToolSearchConfig, load_config

        if not isinstance(config, ToolSearchConfig):
            config = load_config(config)
        return cls(tools, config=config, **options)

    @classmethod
    def from_default_catalog(cls, **options: Any) -> DiscoverySession:
        """A session over the built-in catalogue, with its per-server summaries.

        Example:
            >>> len(DiscoverySession.from_default_catalog().hidden_tools)
            221
        """
        from .catalog import default_server_summaries, default_tools

        options.setdefault("summaries", default_server_summaries())
        return cls(default_tools(), **options)

    # --- configuration -------------------------------------------------------------------------

    @property
    def mode(self) -> DiscoveryMode:
        """The configured mode (see :attr:`effective_mode` for what is in force)."""
        return self._mode

    def set_mode(self, mode: DiscoveryMode, *, mcp_discovery: bool | None = None) -> None:
        """Change the discovery mode (and the legacy MCP flag) while the session runs.

        Activations are kept. Example: ``session.set_mode("mcp-only")``.

        Raises:
            ValueError: an unknown mode.
            TypeError: ``mcp_discovery`` is not ``True``, ``False`` or ``None`` (keep it).
        """
        _check_mode(mode)
        if mcp_discovery is not None:
            _check_flag(mcp_discovery, "mcp_discovery")
        with self._lock:
            self._mode = mode
            if mcp_discovery is not None:
                self._mcp_discovery = mcp_discovery
            self._changed(catalog=True)

    @property
    def effective_mode(self) -> Literal["off", "all", "mcp-only"]:
        """The mode in force: ``"auto"`` and the legacy flag resolved."""
        with self._lock:
            return self._effective_mode()

    @property
    def enabled(self) -> bool:
        """Whether discovery is on, i.e. the meta-tool is offered and searching works."""
        return self.effective_mode != "off"

    def _check_enabled(self) -> None:
        if self._effective_mode() == "off":
            raise DiscoveryError(DISABLED_MESSAGE.format(name=self.meta_tool_name))

    def ensure_enabled(self) -> None:
        """Raise OMP's :class:`~toolsift.DiscoveryError` when discovery is off.

        Example: ``DiscoverySession(mode="off").ensure_enabled()`` raises "Tool discovery is
        disabled. Enable tools.discoveryMode or mcp.discoveryMode to use search_tool_bm25."
        """
        with self._lock:
            self._check_enabled()

    @property
    def generation(self) -> int:
        """A counter bumped by every change of the hidden corpus (tools, mode, activation)."""
        return self._generation

    @property
    def catalog_generation(self) -> int:
        """A counter bumped by every change of the catalogue or mode, but not by activation."""
        return self._catalog_generation

    # --- search --------------------------------------------------------------------------------

    def prepare(self) -> bool:
        """Bring the search index up to date with the session now, instead of in the next search.

        A search that activates tools changes the hidden corpus, and the next search first
        takes those tools out of the index (about 10 ms at 11,578 tools, 120 ms at 100,000; see
        ``BENCHMARKS.md``). A gateway can call this from a worker thread once a search has
        returned (while the model reads the results), so that the next search only searches.
        Safe from any thread at any time; the update releases the GIL while it runs in Rust.

        Returns:
            ``True`` if the index was updated or rebuilt, ``False`` if it was already current
            or discovery is off (there is then nothing to search).

        Example:
            >>> s = DiscoverySession.from_default_catalog(rebuild_on_activation=True)
            >>> activated = s.search("send a slack message", limit=2).activated
            >>> s.prepare(), s.prepare()
            (True, False)
        """
        with self._lock:
            if self._effective_mode() == "off":
                return False
            builds = self._builds
        try:
            self._current_snapshot()
        except DiscoveryError:  # turned off meanwhile: nothing to prepare
            return False
        with self._lock:
            return self._builds != builds

    def search(
        self,
        query: str,
        limit: int | None = None,
        *,
        threshold: float | None = None,
        ranker: Ranker = "bm25",
    ) -> DiscoveryResult:
        """Rank the hidden tools for ``query`` and activate the matches (``search_tool_bm25``'s
        ``execute``).

        The query language is :meth:`ToolIndex.search`'s: ``select:A,B`` fetches tools by name
        (``missing`` lists the names no tool of the session answers to), ``+word`` requires a
        word, and a tool named exactly is always among the matches. Already-active tools are
        never in ``matches``; those the query matches are listed in ``already_active``.
        ``limit`` defaults to :attr:`default_limit` and is clamped to :attr:`max_limit`;
        ``threshold`` (default :attr:`threshold`) drops ranked matches scoring below it.
        ``ranker`` is :meth:`ToolIndex.search`'s (``"regex"``: the query is a pattern).

        Raises:
            DiscoveryError: discovery is off (OMP's message).
            QueryError: the query is not a string, is empty, or has no letter or number
                (:class:`~toolsift.PatternError` for a bad ``ranker="regex"`` pattern).
            LimitError: ``limit`` is not a positive integer.
            ValueError: ``ranker`` is unknown.

        Example:
            >>> s = DiscoverySession.from_default_catalog()
            >>> s.search("create a calendar event", limit=1).activated
            ('mcp__calendar__create_event',)
        """
        self.ensure_enabled()  # before the query and limit checks, as the seed does
        if ranker == "regex" and isinstance(query, str):
            check_regex_query(query)  # the pattern's error before the limit's
        else:
            parse_query(query)  # the query's QueryError before the limit's LimitError, as the seed
        if limit is None:
            limit = self.default_limit
        check_limit(limit)
        limit = min(limit, self.max_limit)
        if threshold is None:
            threshold = self.threshold
        else:
            _check_limits(1, 1, threshold)
        options: dict[str, Any] = {"max_limit": self.max_limit, "ranker": ranker}
        if threshold:
            options["threshold"] = float(threshold)
        attempt = 1
        while True:
            found = self._search_once(query, limit, options, retry=attempt < _SEARCH_ATTEMPTS)
            if found is not None:
                return found
            attempt += 1  # the state changed under some of the matches: search again

    async def asearch(
        self,
        query: str,
        limit: int | None = None,
        *,
        threshold: float | None = None,
        ranker: Ranker = "bm25",
    ) -> DiscoveryResult:
        """:meth:`search` for asyncio code: same arguments, result and errors.

        A search that would first build or update its index (the first search of a session
        with ``rebuild_on_activation=True``, or its first after an activation or a catalogue
        change) runs on a worker thread, so the event loop never waits for a build; any other
        search runs inline, as it only searches (microseconds).

        Example:
            >>> import asyncio
            >>> s = DiscoverySession.from_default_catalog()
            >>> asyncio.run(s.asearch("create a calendar event", limit=1)).activated
            ('mcp__calendar__create_event',)
        """
        if self._ready():
            return self.search(query, limit, threshold=threshold, ranker=ranker)
        return await asyncio.to_thread(
            self.search, query, limit, threshold=threshold, ranker=ranker
        )

    def _ready(self) -> bool:
        """Whether a search would only search now (no index to build or update first)."""
        with self._lock:
            snapshot = self._snapshot
            return self._effective_mode() == "off" or (
                snapshot is not None and snapshot.key == self._corpus_key()
            )

    def _search_once(
        self, query: str, limit: int, options: dict[str, Any], *, retry: bool
    ) -> DiscoveryResult | None:
        """One search and its activation; ``None`` (when ``retry``) if it lost a race.

        The search runs on a snapshot, outside the lock; what it reports about the state
        (fresh, active, the tools themselves) is decided under the lock from the live state, as
        the views are. A snapshot older than that state lost a race: a matched tool was
        activated, removed or redefined since, or an always-visible one hidden (a mode change).
        """
        ranked = self._rank(query, limit, options)
        result, fixed_result = ranked.result, ranked.fixed
        with self._lock:
            mode = self._effective_mode()
            entries, selected = self._entries, self._selected
            fresh = [
                m
                for m in ranked.fresh
                if m.tool.name in entries and not self._is_active(m.tool.name, mode)
            ]
            fixed = [m.tool.name for m in fixed_result or () if m.tool.name in entries]
            if retry and (
                len(fresh) < len(ranked.fresh)
                or any(_redefined(m, entries) for m in fresh)
                or not all(self._is_active(n, mode) for n in fixed)
            ):
                return None
            # Without retries left, report the tools as they are now: a redefined tool as
            # loaded, and nothing hidden or gone as active.
            fresh = [_current(m, entries) for m in fresh]
            fixed_matches = [m for m in fixed_result or () if m.tool.name in entries]
            already_matches: dict[str, Match] = {}
            for m in [*(m for m in ranked.ranked if m.tool.name in entries), *fixed_matches]:
                if m.tool.name not in already_matches and self._is_active(m.tool.name, mode):
                    already_matches[m.tool.name] = _current(m, entries)
            already = list(already_matches)
            for match in fresh:
                selected[match.tool.name] = None
            if fresh:
                self._changed(catalog=False)
            active_selected = tuple(n for n in selected if n in entries)
            generation = self._generation
        missing = result.missing
        if missing and fixed_result is not None:
            # A select: name of an always-visible tool is found, not missing.
            also_missing = set(fixed_result.missing)
            missing = tuple(n for n in missing if n in also_missing)
        return DiscoveryResult(
            query=result.query,
            limit=limit,
            matches=tuple(fresh),
            activated=tuple(m.tool.name for m in fresh),
            already_active=tuple(already)[:limit],
            selected=active_selected,
            total_tools=ranked.total,
            query_kind=result.query_kind,
            missing=missing,
            generation=generation,
            already_active_matches=tuple(already_matches.values())[:limit],
        )

    def resolve(self, name: str) -> tuple[str | None, str]:
        """The server and raw MCP tool name of the tool a call names: its canonical name, any
        of :meth:`Tool.aliases`, or its OpenAI/Anthropic alias
        (:func:`toolsift.tools.provider_name`).

        Returns:
            ``(server, mcp_tool_name)``; ``(None, name)`` for a built-in tool.

        Raises:
            KeyError: no tool of the session answers to ``name``.

        Example:
            >>> s = DiscoverySession.from_default_catalog()
            >>> s.resolve("mcp__weather__get_forecast")
            ('weather', 'get_forecast')
        """
        tool = self.find_tool(name)
        if tool is None:
            raise KeyError(name)
        raw = tool.mcp_tool_name if tool.mcp_tool_name is not None else tool.name
        return tool.server, raw

    def find_tool(self, name: str) -> Tool | None:
        """The tool a call names (as :meth:`resolve` reads it), or ``None``."""
        with self._lock:
            entry = self._entries.get(name)
            if entry is not None:
                return entry.tool
            key = self._catalog_generation
            names = self._provider_names
            if names is None or names[0] != key:
                table: dict[str, str] = {}
                for entry_name, e in self._entries.items():
                    for form in (provider_name(entry_name), *e.tool.aliases()):
                        table.setdefault(form, entry_name)
                names = self._provider_names = (key, table)
            canonical = names[1].get(name)
            return self._entries[canonical].tool if canonical is not None else None

    def _rank(self, query: str, limit: int, options: dict[str, Any]) -> _Ranked:
        """The search itself, on the current snapshot, outside the state lock (``options``:
        :meth:`ToolIndex.search`'s ``max_limit``, ``ranker`` and, when set, ``threshold``)."""
        snapshot, active = self._current_snapshot()
        # Active tools still in the index (all of them when activation does not rebuild it,
        # else those activated since it was built) are excluded before the cut, so `limit`
        # fresh tools come back. `ranked` is the same search without the exclusion: the active
        # tools in it are reported as already active, as are the matches among `fixed`.
        result = snapshot.discoverable.search(query, limit, exclude=active, **options)
        ranked = result
        if active and result.query_kind == "keyword":
            ranked = snapshot.discoverable.search(query, limit, **options)
        fixed_result = None
        if len(snapshot.fixed):  # the always-visible tools the query matches are active too
            fixed_result = snapshot.fixed.search(query, limit, **options)
        return _Ranked(
            result,
            list(result),
            list(ranked),
            fixed_result,
            len(snapshot.discoverable) - len(active),
        )

    def __repr__(self) -> str:
        with self._lock:
            hidden = len(self._hidden_names())
            return (
                f"DiscoverySession(mode={self._mode!r}, tools={len(self._entries)}, "
                f"hidden={hidden}, servers={len(self._servers)}, generation={self._generation})"
            )

    # --- snapshots -----------------------------------------------------------------------------

    def _corpus_key(self) -> int:
        """The generation that decides whether the snapshot is current."""
        if self._rebuild_on_activation:
            return self._generation  # any change, activation included
        return self._catalog_generation

    def _current_snapshot(self) -> tuple[_Snapshot, tuple[str, ...]]:
        """The index snapshot of the current corpus, and which of its tools are active.

        A snapshot is built at most once per corpus generation, by one thread at a time
        (``_build_lock``) and outside the state lock, so connects, disconnects, activations and
        searches on the previous snapshot go on while a large catalogue is indexed.
        """
        with self._lock:
            self._check_enabled()
            snapshot = self._snapshot
            if snapshot is not None and snapshot.key == self._corpus_key():
                return snapshot, self._selected_in(snapshot)
        with self._build_lock:
            with self._lock:
                snapshot = self._snapshot
                key = self._corpus_key()
                if snapshot is not None and snapshot.key == key:
                    return snapshot, self._selected_in(snapshot)  # built while we waited
                previous = snapshot
                catalog, n_selected = self._catalog_generation, len(self._selected)
                moved = self._activated_since(previous)
                if moved is None:
                    mode = self._effective_mode()
                    selected = self._selected if self._rebuild_on_activation else {}
                    discoverable: list[Tool] = []
                    fixed: list[Tool] = []
                    for name, entry in self._entries.items():
                        hidden = self._hideable(entry, mode) and name not in selected
                        (discoverable if hidden else fixed).append(entry.tool)
            if moved is not None and previous is not None:
                # Only activations since `previous`: they leave the hidden corpus for the
                # visible one, and nothing else changed (O(activations), not O(catalogue)).
                snapshot = _Snapshot(
                    key=key,
                    discoverable=_moved_out(previous.discoverable, moved),
                    fixed=previous.fixed.with_tools(add=moved) if moved else previous.fixed,
                    catalog=catalog,
                    selected=n_selected,
                )
            else:
                snapshot = _Snapshot(
                    key=key,
                    discoverable=_derive(
                        self._base_index(previous),
                        discoverable,
                        self._engine,
                        (self._profile, self._field_weights),
                    ),
                    fixed=_derive(
                        previous.fixed if previous else None,
                        fixed,
                        self._engine,
                        (self._profile, self._field_weights),
                    ),
                    catalog=catalog,
                    selected=n_selected,
                )
            with self._lock:
                self._snapshot = snapshot
                self._builds += 1
                # If the corpus changed meanwhile, this search uses the snapshot it asked for
                # (its results are checked against the live state before activation) and the
                # next search builds again.
                return snapshot, self._selected_in(snapshot)

    def _base_index(self, previous: _Snapshot | None) -> ToolIndex | None:
        """The index a new snapshot's hidden-tools index is derived from (updated, when few
        tools differ, rather than rebuilt)."""
        return previous.discoverable if previous else None

    def _activated_since(self, previous: _Snapshot | None) -> list[Tool] | None:
        """The tools activated since ``previous`` was built that it still indexes as hidden,
        when activations are all that changed since (else ``None``: derive from the entries).

        Between two catalogue changes the mode and every entry stay the same and ``_selected``
        only grows, so the hidden corpus is ``previous``'s less the names activated after its
        first ``previous.selected``, and the visible one gains them. Call with the lock held.
        """
        if (
            previous is None
            or not self._rebuild_on_activation
            or previous.catalog != self._catalog_generation
            or _resolved(self._engine, previous.discoverable) != previous.discoverable.engine
        ):
            return None
        names = list(itertools.islice(self._selected, previous.selected, None))
        index = previous.discoverable
        moved = [self._entries[n].tool for n in names if n in index]
        if len(moved) > max(_UPDATE_AT_MOST, len(index) // 4):
            return None  # many at once: a rebuild is as quick as an update
        return moved

    def _selected_in(self, snapshot: _Snapshot) -> tuple[str, ...]:
        index = snapshot.discoverable
        return tuple(n for n in self._selected if n in index)


def _session_arguments(config: ToolSearchConfig, given: Mapping[str, Any]) -> tuple[Any, ...]:
    """A :class:`~toolsift.DiscoverySession`'s ``mode``, ``always_available``, ``profile``,
    ``default_limit``, ``max_limit``, ``threshold`` and ``meta_tool_name``: ``config``'s,
    except where ``given`` (the constructor's arguments) holds another value than the default.
    """
    if not isinstance(config, ToolSearchConfig):
        raise TypeError(f"config must be a ToolSearchConfig, got {type(config).__name__}.")

    def pick(name: str, default: Any, value: Any) -> Any:
        return value if given[name] is default or given[name] == default else given[name]

    return (
        pick("mode", "all", config.effective_mode),
        pick("always_available", DEFAULT_ALWAYS_AVAILABLE, config.always_available),
        pick("profile", DEFAULT_PROFILE, config.profile),
        pick("default_limit", DEFAULT_LIMIT, config.max_results),
        pick("max_limit", DEFAULT_MAX_LIMIT, config.max_limit),
        pick("threshold", 0.0, config.threshold),
        pick("meta_tool_name", META_TOOL_NAME, config.meta_tool_name),
    )


def _check_limits(default_limit: Any, max_limit: Any, threshold: Any) -> None:
    check_limit(max_limit)
    check_limit(default_limit)
    if default_limit > max_limit:
        raise LimitError(f"default_limit {default_limit} is above max_limit {max_limit}.")
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float))
        or not math.isfinite(threshold)
        or threshold < 0
    ):
        raise ValueError(f"threshold must be a finite number >= 0, got {threshold!r}.")
