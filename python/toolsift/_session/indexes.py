"""Which index a discovery session's search reads, and when it is built: one immutable
snapshot per corpus generation, derived from the previous one (a copy-on-write update when only
a few tools moved), built by one thread at a time outside the state lock.

Index lifetime: a snapshot is rebuilt only when the corpus it indexes changes, by the first
search that needs it (one build at a time, outside the state lock), never per query. By default
(``rebuild_on_activation=False``) it indexes every discoverable tool, active or not, is rebuilt
only when the catalogue or the mode changes (``catalog_generation``), and active tools are
left out inside the engine, before the cut: activation is a filter, so the search after an
activation costs what any search costs. BM25's corpus statistics then include the active tools,
so scores (and, in about half of the searches of a ten-search session, the order of the top 5)
differ slightly from OMP's. ``rebuild_on_activation=True`` indexes the hidden tools only, exactly
OMP ``search_tool_bm25``'s corpus, so every score is OMP's; an activating search changes that
corpus, and the next search (or :meth:`DiscoverySession.prepare`, called off the search path)
updates the index: the previous one less the tools activated since, a copy-on-write update
(about 10 ms at 11,578 tools) rather than a rebuild.

Example:
    >>> from toolsift import DiscoverySession, Tool
    >>> session = DiscoverySession([Tool(name="a"), Tool(name="b")], always_available=["a"])
    >>> snapshot, active = session._current_snapshot()
    >>> [t.name for t in snapshot.discoverable], [t.name for t in snapshot.fixed], active
    (['b'], ['a'], ())
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Literal

from .._text.analysis import ProfileName
from .._text.documents import FieldWeights
from ..errors import DiscoveryError
from ..index import EngineName, ToolIndex
from ..tools import Tool
from .snapshot import _UPDATE_AT_MOST, _derive, _moved_out, _Ranked, _resolved, _Snapshot
from .state import _SessionState

__all__ = ["DISABLED_MESSAGE", "_IndexedSession"]

DISABLED_MESSAGE = (
    "Tool discovery is disabled. Enable tools.discoveryMode or mcp.discoveryMode to use {name}."
)


class _IndexedSession(_SessionState):
    """A session's search snapshots and the search on them (a part of
    :class:`~toolsift.DiscoverySession`)."""

    meta_tool_name: str
    _build_lock: threading.Lock
    _engine: EngineName
    _profile: ProfileName
    _field_weights: FieldWeights | None
    _semantic: bool | Literal["auto"]
    _rebuild_on_activation: bool
    _snapshot: _Snapshot | None
    _builds: int

    def _check_enabled(self) -> None:
        if self._effective_mode() == "off":
            raise DiscoveryError(DISABLED_MESSAGE.format(name=self.meta_tool_name))

    def _ready(self) -> bool:
        """Whether a search would only search now (no index to build or update first)."""
        with self._lock:
            snapshot = self._snapshot
            return self._effective_mode() == "off" or (
                snapshot is not None and snapshot.key == self._corpus_key()
            )

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
                        (self._profile, self._field_weights, self._semantic),
                    ),
                    fixed=_derive(
                        previous.fixed if previous else None,
                        fixed,
                        self._engine,
                        (self._profile, self._field_weights, self._semantic),
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
