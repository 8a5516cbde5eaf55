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

Index lifetime: the index is rebuilt only when the corpus it indexes changes, by the first search
that needs it, never per query. By default it indexes every discoverable tool and leaves the
active ones out inside the engine (activation is a filter, not a rebuild; BM25's statistics then
include the active tools); ``rebuild_on_activation=True`` indexes the hidden tools only, exactly
OMP ``search_tool_bm25``'s corpus and scores, and updates the index after an activation.

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
import contextvars
import functools
import os
import threading
from collections.abc import Iterable, Mapping
from typing import Any, Callable, Literal, TypeVar

from ._engine.select import select_engine
from ._index.regex import check_regex_query
from ._options import check_limit
from ._session.activation import NO_MATCH_MESSAGE, DiscoveryResult, _Activation
from ._session.checks import _check_flag, _check_meta_tool_name, _check_mode
from ._session.indexes import DISABLED_MESSAGE, _IndexedSession
from ._session.options import (
    META_TOOL_NAME,
    _check_limits,
    _check_min_confidence,
    checked_search_options,
)
from ._session.snapshot import _Snapshot
from ._session.state import AUTO_MAX_TOKENS as AUTO_MAX_TOKENS
from ._session.state import AUTO_MAX_TOOLS as AUTO_MAX_TOOLS
from ._session.state import DEFAULT_ALWAYS_AVAILABLE, DiscoveryMode, ToolSource
from ._text.analysis import DEFAULT_PROFILE, ProfileName, check_profile
from ._text.documents import FieldWeights, check_field_weights
from .config import ToolSearchConfig
from .errors import DiscoveryError
from .index import DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, EngineName, Ranker
from .query import parse_query
from .tools import Tool, alias_rank, provider_name

__all__ = [
    "DiscoverySession",
    "DiscoveryResult",
    "DiscoveryMode",
    "ToolSource",
    "DEFAULT_ALWAYS_AVAILABLE",
    "DISABLED_MESSAGE",
    "UNAVAILABLE_MESSAGE",
    "in_thread",
    "NO_MATCH_MESSAGE",
]
# The modes, sources and auto budgets live with the catalogue state (_session.state), the
# result with the activation (_session.activation), and are re-exported here.

UNAVAILABLE_MESSAGE = "Tool discovery is unavailable in this session."

# How often a search is retried when the state moved past its snapshot (a match activated,
# removed or redefined, an always-visible match hidden) before it could activate.
_SEARCH_ATTEMPTS = 8


class DiscoverySession(_IndexedSession, _Activation):
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
            ``"english"`` (default) or ``"omp"``, the plain profile of OMP ``search_tool_bm25``.
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
        semantic: semantic ranking of the indexes (see :class:`~toolsift.ToolIndex`): ``True``,
            ``False`` or ``"auto"`` (default: on when the ``toolsift[semantic]`` extra is
            installed; a model that fails to load falls back to BM25+ with one warning).
        min_confidence: "nothing fits": a search whose best match is less confident than this
            (0..1) activates nothing and says so (:attr:`DiscoveryResult.abstained`); ``None``
            (default) is :data:`toolsift.semantic.DEFAULT_MIN_CONFIDENCE`, ``0`` never abstains.
            ``select:`` and exact tool names never abstain, nor does a ranking that computes no
            confidence (the lexical path).
        config: a :class:`toolsift.config.ToolSearchConfig` whose ``mode``/``enabled``,
            ``always_available``, ``profile``, ``max_results``, ``max_limit``, ``threshold``,
            ``meta_tool_name``, ``semantic`` and ``min_confidence`` are taken, unless the
            corresponding argument is given.

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
        semantic: bool | Literal["auto"] = "auto",
        min_confidence: float | None = None,
        config: ToolSearchConfig | None = None,
    ) -> None:
        if config is not None:
            given = locals()
            (
                mode, always_available, profile, default_limit, max_limit, threshold,
                meta_tool_name, semantic, min_confidence,
            ) = _session_arguments(config, given)  # fmt: skip
        self.default_limit, self.max_limit, self.threshold, self._semantic, self.min_confidence = (
            checked_search_options(default_limit, max_limit, threshold, semantic, min_confidence)
        )
        _check_mode(mode)
        self._profile: ProfileName = check_profile(profile)
        self._field_weights = check_field_weights(field_weights)
        select_engine(engine)  # ToolIndex's check and message, now rather than at the 1st search
        _check_meta_tool_name(meta_tool_name)
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

    def ensure_enabled(self) -> None:
        """Raise OMP's :class:`~toolsift.DiscoveryError` when discovery is off.

        Example: ``DiscoverySession(mode="off").ensure_enabled()`` raises "Tool discovery is
        disabled. Enable tools.discoveryMode or mcp.discoveryMode to use search_tool_bm25."
        """
        with self._lock:
            self._check_enabled()

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
        min_confidence: float | None = None,
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
        ``min_confidence`` (default :attr:`min_confidence`) is the "nothing fits" threshold:
        below it the search activates nothing and the result says so (``abstained``).

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
        self.ensure_enabled()  # before the query and limit checks, as search_tool_bm25 does
        if ranker == "regex" and isinstance(query, str):
            check_regex_query(query)  # the pattern's error before the limit's
        else:
            parse_query(query)  # QueryError before LimitError, as search_tool_bm25 does
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
        if min_confidence is None:
            min_confidence = self.min_confidence
        else:
            min_confidence = _check_min_confidence(min_confidence)
        if min_confidence != 0:  # None: the fitted default; 0: never abstain
            options["abstain"] = True
            options["min_confidence"] = min_confidence
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
        min_confidence: float | None = None,
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
        options: dict[str, Any] = {"threshold": threshold, "ranker": ranker}
        options["min_confidence"] = min_confidence
        if self._ready():
            return self.search(query, limit, **options)
        return await in_thread(functools.partial(self.search, query, limit, **options))

    def _search_once(
        self, query: str, limit: int, options: dict[str, Any], *, retry: bool
    ) -> DiscoveryResult | None:
        """One search and its activation; ``None`` (when ``retry``) if it lost a race."""
        ranked = self._rank(query, limit, options)
        cancelled = _CANCELLED.get()
        if cancelled is not None and cancelled.is_set():  # nobody waits: activate nothing
            raise asyncio.CancelledError
        return self._settle(ranked, limit, retry=retry)

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
                entries = self._entries
                for entry_name, e in entries.items():
                    for form in (provider_name(entry_name), *e.tool.aliases()):
                        held = table.setdefault(form, entry_name)
                        # A form held by two tools goes to the one it names most strongly.
                        if held != entry_name and alias_rank(e.tool, form) < alias_rank(
                            entries[held].tool, form
                        ):
                            table[form] = entry_name
                names = self._provider_names = (key, table)
            canonical = names[1].get(name)
            return self._entries[canonical].tool if canonical is not None else None

    def __repr__(self) -> str:
        with self._lock:
            hidden = len(self._hidden_names())
            return (
                f"DiscoverySession(mode={self._mode!r}, tools={len(self._entries)}, "
                f"hidden={hidden}, servers={len(self._servers)}, generation={self._generation})"
            )


_T = TypeVar("_T")
#: Set when the task awaiting the current worker-thread search was cancelled.
_CANCELLED: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar(
    "toolsift_search_cancelled", default=None
)


async def in_thread(func: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """``func(*args, **kwargs)`` on a worker thread, as :func:`asyncio.to_thread`; when the
    awaiting task is cancelled, the searches ``func`` has not yet settled activate nothing
    (the thread cannot be stopped, but its matches are dropped instead of activated).

    Example:
        >>> s = DiscoverySession.from_default_catalog()
        >>> asyncio.run(in_thread(s.search, "create a calendar event", 1)).activated
        ('mcp__calendar__create_event',)
    """
    cancelled = threading.Event()
    context = contextvars.copy_context()
    context.run(_CANCELLED.set, cancelled)
    try:
        return await asyncio.to_thread(context.run, func, *args, **kwargs)
    except asyncio.CancelledError:
        cancelled.set()
        raise


def _session_arguments(config: ToolSearchConfig, given: Mapping[str, Any]) -> tuple[Any, ...]:
    """A :class:`~toolsift.DiscoverySession`'s ``mode``, ``always_available``, ``profile``,
    ``default_limit``, ``max_limit``, ``threshold``, ``meta_tool_name``, ``semantic`` and
    ``min_confidence``: ``config``'s, except where ``given`` (the constructor's arguments)
    holds another value than the default.
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
        pick("semantic", "auto", config.semantic),
        pick("min_confidence", None, config.min_confidence),
    )
