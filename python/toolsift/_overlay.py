"""Persistent maps for catalogue updates: a shared base dict plus a small overlay, so that an
update of a few tools copies the overlay (its size bounded), never the whole catalogue.

A shared catalogue (:class:`toolsift.Catalog`) publishes a new generation per change, and each
generation must stay as it was for the searches that still read it. Copying every map of
100,000 tools for a 20-tool change costs tens of milliseconds with the GIL held; these maps share
the previous generation's base and copy only what changed since the base was made. Once the
overlay holds more than an eighth of the base (at least :data:`COMPACT_AT_LEAST` keys), the next
update folds it into a fresh base, one whole copy per many updates.

- :class:`OverlayMap`: a read-only ``Mapping`` with the iteration order and values of the
  ``dict`` that the same removals and assignments would give.
- :class:`PositionMap`: name -> position in a sequence whose removed items close up (a
  ``ToolIndex``'s tool ids after a copy-on-write update renumbers them).

Example:
    >>> base = OverlayMap({"a": 1, "b": 2, "c": 3})
    >>> later = base.updated(remove=["b"], assign=[("a", 10), ("d", 4)])
    >>> dict(later), dict(base)
    ({'a': 10, 'c': 3, 'd': 4}, {'a': 1, 'b': 2, 'c': 3})
    >>> ids = PositionMap.of({"a": 0, "b": 1, "c": 2}).updated(drop=["a"], add=["d"])
    >>> dict(ids)
    {'b': 0, 'c': 1, 'd': 2}
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeVar

__all__ = ["COMPACT_AT_LEAST", "OverlayMap", "PositionMap"]

K = TypeVar("K")
V = TypeVar("V")

#: The overlay is folded into a new base once it holds more than this many keys and more than
#: an eighth of the base: each fold costs one copy of the map, so it is amortised over at least
#: an eighth of the map's size in changed keys.
COMPACT_AT_LEAST = 256

_MISSING: Any = object()


def _compact_due(overlay: int, base: int) -> bool:
    return overlay > COMPACT_AT_LEAST and overlay * 8 > base


class OverlayMap(Mapping[K, V]):
    """A read-only mapping: a base ``dict`` (shared, never written) and the changes made since.

    The keys and values, and their order, are those of the ``dict`` that the same
    :meth:`updated` calls would leave (a key assigned again keeps its place; a key removed then
    assigned again goes last). Lookups cost up to three dict lookups; iteration reads the base
    once.

    Arguments:
        base: the initial contents (copied once, then shared by every later map).
    """

    __slots__ = ("_added", "_base", "_changed", "_gone")

    def __init__(self, base: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        self._base: dict[K, V] = dict(base)
        self._gone: frozenset[K] = frozenset()  # base keys removed
        self._changed: dict[K, V] = {}  # live base keys with a new value
        self._added: dict[K, V] = {}  # keys not in the live base, in the order added

    def __getitem__(self, key: K) -> V:
        value = self._added.get(key, _MISSING)
        if value is not _MISSING:
            return value  # type: ignore[no-any-return]
        if key in self._gone:
            raise KeyError(key)
        value = self._changed.get(key, _MISSING)
        if value is not _MISSING:
            return value  # type: ignore[no-any-return]
        return self._base[key]

    def get(self, key: K, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        if key in self._added:
            return True
        return key in self._base and key not in self._gone

    def __len__(self) -> int:
        return len(self._base) - len(self._gone) + len(self._added)

    def __iter__(self) -> Iterator[K]:
        gone = self._gone
        if gone:
            yield from (k for k in self._base if k not in gone)
        else:
            yield from self._base
        yield from self._added

    def __repr__(self) -> str:
        return f"OverlayMap({dict(self)!r})"

    @property
    def overlay_size(self) -> int:
        """How many keys differ from the base (what each update copies)."""
        return len(self._gone) + len(self._changed) + len(self._added)

    def updated(
        self, remove: Iterable[K] = (), assign: Iterable[tuple[K, V]] = ()
    ) -> OverlayMap[K, V]:
        """A new map: this one with the keys ``remove`` deleted (each must be present), then
        ``assign`` set, in order; this one is not changed. Costs the overlay's size plus the
        change, except for the occasional fold into a new base.

        Raises:
            KeyError: a key of ``remove`` is not in the map (nothing is made).
        """
        base = self._base
        gone = set(self._gone)
        changed = dict(self._changed)
        added = dict(self._added)
        for key in remove:
            if key in added:
                del added[key]
            elif key in base and key not in gone:
                gone.add(key)
                changed.pop(key, None)
            else:
                raise KeyError(key)
        for key, value in assign:
            if key in added or key in gone or key not in base:
                added[key] = value
            else:
                changed[key] = value
        new = OverlayMap.__new__(OverlayMap)
        if _compact_due(len(gone) + len(changed) + len(added), len(base)):
            # The fold: one C-level copy of the base, then the overlay's keys (a key removed
            # and added again goes last, as in a dict).
            folded = dict(base)
            for key in gone:
                del folded[key]
            folded.update(changed)
            folded.update(added)
            base, gone, changed, added = folded, set(), {}, {}
        new._base, new._gone, new._changed, new._added = base, frozenset(gone), changed, added
        return new


class PositionMap(Mapping[str, int]):
    """Names -> positions in a sequence that an update renumbers: the kept items close up in
    their order, then the added ones follow (``ToolIndex.with_tools``' tool ids).

    A base ``dict`` of the positions when it was made (shared), the base positions removed
    since (ascending), and the names added since, in order: a lookup is a dict lookup and a
    bisection; an update copies the removed positions and the added names, never the base.
    """

    __slots__ = ("_added", "_at", "_base", "_removed")

    def __init__(self, base: Mapping[str, int]) -> None:
        self._base = base  # name -> position 0..n-1, never written
        self._removed: list[int] = []  # base positions removed, ascending
        self._added: list[str] = []  # names after the kept base items, in order
        self._at: dict[str, int] = {}  # added name -> its index in _added

    @classmethod
    def of(cls, positions: Mapping[str, int]) -> PositionMap:
        """``positions`` (a mapping of 0..n-1 in order: a ``dict``, a packed index's name
        positions, or a :class:`PositionMap`) as a map that :meth:`updated` can extend; the
        mapping is shared, not copied."""
        if isinstance(positions, PositionMap):
            return positions
        return cls(positions)

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        at = self._at.get(name)
        if at is not None:
            return len(self._base) - len(self._removed) + at
        position = self._base.get(name)
        if position is None:
            return default
        removed = self._removed
        if not removed:
            return position
        i = bisect_left(removed, position)
        if i < len(removed) and removed[i] == position:
            return default
        return position - i

    def __getitem__(self, name: str) -> int:
        position = self.get(name)
        if position is None:
            raise KeyError(name)
        return position  # type: ignore[no-any-return]

    def __contains__(self, name: object) -> bool:
        return self.get(name) is not None  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self._base) - len(self._removed) + len(self._added)

    def __iter__(self) -> Iterator[str]:
        """The names in position order."""
        if self._removed:
            removed = frozenset(self._removed)
            yield from (n for n, p in self._base.items() if p not in removed)
        else:
            yield from self._base
        yield from self._added

    def updated(self, drop: Iterable[str], add: Iterable[str]) -> PositionMap | dict[str, int]:
        """The positions once the items named ``drop`` (present, each once) are removed and
        ``add`` (new names, each once) appended; this map is not changed. A plain ``dict`` once
        the overlay is folded into a new base (occasionally: see :data:`COMPACT_AT_LEAST`).

        Raises:
            KeyError: a name of ``drop`` is not in the map.
        """
        base = self._base
        removed = list(self._removed)
        added = list(self._added)
        at = self._at
        gone_added: set[int] = set()
        for name in drop:
            i = at.get(name)
            if i is not None:
                gone_added.add(i)
                continue
            position = base.get(name)
            if position is None:
                raise KeyError(name)
            k = bisect_left(removed, position)
            if k < len(removed) and removed[k] == position:
                raise KeyError(name)
            insort(removed, position, lo=k)
        if gone_added:
            added = [n for i, n in enumerate(added) if i not in gone_added]
        added.extend(add)
        if _compact_due(len(removed) + len(added), len(base)):
            names = list(base)  # in position order: C-level copies, no Python code per name
            kept: list[str] = []
            start = 0
            for position in removed:
                kept += names[start:position]
                start = position + 1
            kept += names[start:]
            kept += added
            return dict(zip(kept, range(len(kept))))
        new = PositionMap(base)
        new._removed, new._added = removed, added
        new._at = dict(zip(added, range(len(added))))
        return new
