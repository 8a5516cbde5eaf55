"""What a search activates: the session decides, under its lock and from its live state, which
of a search's matches are fresh, which already active, and reports it as a
:class:`~toolsift.DiscoveryResult`.

Example:
    >>> from toolsift import DiscoverySession, Tool
    >>> session = DiscoverySession([Tool(name="send_email", description="Send an email")])
    >>> session.search("send an email").activated
    ('send_email',)
    >>> session.search("send an email").already_active
    ('send_email',)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from ..result import Match, QueryKind, _new
from .snapshot import _current, _Ranked, _redefined
from .state import _SessionState

__all__ = ["NO_MATCH_MESSAGE", "DiscoveryResult", "_Activation", "_discovery_result"]

#: What a search that abstained ("nothing fits") tells the model.
NO_MATCH_MESSAGE = (
    "No tool matches this request: nothing was activated. Rephrase it (other words, or the "
    "name of the tool you need), or go on without a tool."
)


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
        confidence: how sure the ranking is that its best match fits the query, 0..1 (``None``
            where the ranking computes none: the lexical path, ``select:``, regex).
        abstained: "nothing fits": the best match's confidence was below the session's
            ``min_confidence``, so nothing was activated or listed (see :data:`NO_MATCH_MESSAGE`).

    Example:
        >>> from toolsift import DiscoverySession, Tool
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
    confidence: float | None = None
    abstained: bool = False

    @property
    def message(self) -> str | None:
        """What to tell the model when nothing fits (:data:`NO_MATCH_MESSAGE`), else ``None``."""
        return NO_MATCH_MESSAGE if self.abstained else None


def _discovery_result(  # noqa: PLR0913 - one argument per field
    query: str,
    limit: int,
    matches: tuple[Match, ...],
    activated: tuple[str, ...],
    already_active: tuple[str, ...],
    selected: tuple[str, ...],
    total_tools: int,
    query_kind: QueryKind,
    missing: tuple[str, ...],
    generation: int,
    already_active_matches: tuple[Match, ...],
    confidence: float | None = None,
    abstained: bool = False,
) -> DiscoveryResult:
    """``DiscoveryResult(...)`` without the frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` per field): the same object, in a fraction of the time."""
    found = _new(DiscoveryResult)
    found.__dict__.update(
        query=query,
        limit=limit,
        matches=matches,
        activated=activated,
        already_active=already_active,
        selected=selected,
        total_tools=total_tools,
        query_kind=query_kind,
        missing=missing,
        generation=generation,
        already_active_matches=already_active_matches,
        confidence=confidence,
        abstained=abstained,
    )
    return found


class _Activation(_SessionState):
    """A session's activation of what its searches rank (a part of
    :class:`~toolsift.DiscoverySession`)."""

    def _settle(self, ranked: _Ranked, limit: int, *, retry: bool) -> DiscoveryResult | None:
        """Activate the fresh matches of ``ranked`` (one search); ``None`` (when ``retry``) if
        the search lost a race.

        The search runs on a snapshot, outside the lock; what it reports about the state
        (fresh, active, the tools themselves) is decided under the lock from the live state, as
        the views are. A snapshot older than that state lost a race: a matched tool was
        activated, removed or redefined since, or an always-visible one hidden (a mode change).
        """
        result, fixed_result = ranked.result, ranked.fixed
        with self._lock:
            mode = self._effective_mode()
            entries, selected = self._entries, self._selected
            is_active = self._active_test(mode)
            fresh = [
                m for m in ranked.fresh if m.tool.name in entries and not is_active(m.tool.name)
            ]
            fixed = [m.tool.name for m in fixed_result or () if m.tool.name in entries]
            if retry:
                if (
                    len(fresh) < len(ranked.fresh)
                    or any(
                        _redefined(m, entries)
                        for m in fresh
                        if entries[m.tool.name].tool is not m.tool
                    )
                    or not all(map(is_active, fixed))
                ):
                    return None
            else:
                # Without retries left, report the tools as they are now: a redefined tool as
                # loaded, and nothing hidden or gone as active.
                fresh = [_current(m, entries) for m in fresh]
            fixed_matches = [m for m in fixed_result or () if m.tool.name in entries]
            already_matches: dict[str, Match] = {}
            for m in [*(m for m in ranked.ranked if m.tool.name in entries), *fixed_matches]:
                if m.tool.name not in already_matches and is_active(m.tool.name):
                    already_matches[m.tool.name] = _current(m, entries)
            already = list(already_matches)
            for match in fresh:
                selected[match.tool.name] = None
            if fresh:
                self._changed(catalog=False)
            active_selected = tuple(filter(entries.__contains__, selected))
            generation = self._generation
        missing = result.missing
        # "Nothing fits": the search abstained and no active tool fits either (a search whose
        # best match is active activates nothing new but is answered).
        abstained = result.abstained and not fresh and not already
        if missing and fixed_result is not None:
            # A select: name of an always-visible tool is found, not missing.
            also_missing = set(fixed_result.missing)
            missing = tuple(n for n in missing if n in also_missing)
        return _discovery_result(
            result.query, limit, tuple(fresh), tuple(m.tool.name for m in fresh),
            tuple(already)[:limit], active_selected, ranked.total, result.query_kind, missing,
            generation, tuple(already_matches.values())[:limit], result.confidence, abstained,
        )  # fmt: skip

    def _active_test(self, mode: str) -> Callable[[str], bool]:
        """Whether a tool (by a name present in the session) is visible to the model in
        ``mode``, as :meth:`_is_active` says (call with the lock held)."""
        return functools.partial(self._is_active, mode=mode)
