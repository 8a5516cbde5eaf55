""" "Did you mean" for a ``select:`` name that matches no tool: the closest name forms of the
table (by difflib's ratio, found through their lengths and trigrams) and of the tools the engine
proposes.

Example:
    >>> from toolsift import Tool
    >>> from toolsift._names.table import NameTable
    >>> NameTable([Tool(name="read_file", description="Read a file")]).suggest("raed_file", [])
    ('read_file',)
"""

from __future__ import annotations

import difflib
import heapq
import itertools
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..query import name_key

__all__ = ["CloseKeys", "suggest"]

# Above this many keys, suggestions do not look for close keys in the table (per-call work would
# grow with the corpus); they use only the candidates the engine ranks.
_SCAN_KEYS_BELOW = 20_000
# "Did you mean" (NameTable.suggest, _CloseKeys): difflib scores only keys whose length allows a
# ratio of 0.6 (its cutoff). When at most this many keys have such a length (short names), all
# of them are scored: the same answer as scoring every key. Otherwise the keys sharing the most
# trigrams with the name are scored, this many of them, counted over its rarest trigrams' key
# lists up to about this many entries (at least one list). On mcp_mixed (19,507 keys) a typo'd
# name costs ~1 ms instead of 80-700 ms, and the first suggestion is the same in 323 of 323
# sampled typos, prefixes and random words (the whole list in 270).
_BAND_SCAN_KEYS = 2048
_GRAM_CANDIDATES = 32
_GRAM_BUDGET = 3000
# difflib.get_close_matches's default cutoff, which suggestions use.
_CUTOFF = 0.6
# The most tools holding one close key whose aliases a suggestion reads (a key such as
# ``readfile`` may be held by thousands of servers' tools).
_SUGGEST_HOLDERS = 32


def suggest(
    name: str,
    candidates: Iterable[int],
    n: int,
    tools: Sequence[Any],
    n_keys: int,
    close: CloseKeys,
    lookup_key: Callable[[str], tuple[int, ...]],
) -> tuple[str, ...]:
    """:meth:`NameTable.suggest <toolsift._names.table.NameTable.suggest>` over the table's
    parts: its ``tools``, its number of keys, its :class:`CloseKeys` and its key lookup."""
    key = name_key(name)
    if not key:
        return ()
    size = len(key)
    # The bounds are symmetric: with the key as ``b``, its counts are made once.
    bounds = difflib.SequenceMatcher(None, "", key)
    upper: dict[str, float] = {}  # alias key -> quick_ratio (an upper bound of the ratio)

    def bound(alias_key: str) -> float:
        got = upper.get(alias_key)
        if got is None:
            got = 2.0 * min(size, len(alias_key)) / (size + len(alias_key))
            if got >= _CUTOFF:
                bounds.set_seq1(alias_key)
                got = bounds.quick_ratio()
            upper[alias_key] = got
        return got

    ids: list[int] = []
    if n_keys < _SCAN_KEYS_BELOW:
        for match in difflib.get_close_matches(key, close.candidates(key), n=n):
            ids.extend(lookup_key(match)[:_SUGGEST_HOLDERS])
    ids.extend(candidates)
    # Each tool's aliases that may reach the cutoff, best bound first; the tools by it.
    work: list[tuple[float, int, list[tuple[float, str, str]]]] = []
    for position, tool_id in enumerate(dict.fromkeys(ids)):
        forms = [(bound(k), a, k) for a in tools[tool_id].aliases() for k in (name_key(a),)]
        forms = [form for form in forms if form[0] >= _CUTOFF]
        if forms:
            forms.sort(reverse=True)
            work.append((-forms[0][0], position, forms))
    work.sort()

    exact = difflib.SequenceMatcher(None, key, "")  # ratio(key, alias key), as always
    ratios: dict[str, float] = {}
    scored: dict[str, float] = {}
    best_n: list[float] = []  # the n highest ratios in ``scored``, ascending
    for negative_bound, _, forms in work:
        # An alias whose bound is below the n-th best ratio so far (or the cutoff) is not
        # scored: it cannot be suggested, and were it its tool's best, the tool's entry
        # would be below the n-th best too (a ratio depends only on the alias). So the
        # tools go best bound first, and stop at the first below the n-th best.
        floor = best_n[0] if len(best_n) >= n else _CUTOFF
        if -negative_bound < floor:
            break
        # The tool's alias closest to ``name``; at equal ratios the shorter, then the smaller.
        best: tuple[float, int, str] | None = None
        for upper_bound, alias, alias_key in forms:
            if upper_bound < (floor if best is None or -best[0] < floor else -best[0]):
                break
            got = ratios.get(alias_key)
            if got is None:
                exact.set_seq2(alias_key)
                got = ratios[alias_key] = exact.ratio()
            candidate = (-got, len(alias), alias)
            if best is None or candidate < best:
                best = candidate
        if best is None or -best[0] < _CUTOFF or -best[0] <= scored.get(best[2], -1.0):
            continue
        scored[best[2]] = -best[0]
        best_n = sorted(scored.values())[-n:]
    ranked = sorted(scored.items(), key=lambda item: (-item[1], len(item[0]), item[0]))
    out = [alias for alias, _ in ranked[:n]]
    return tuple(out)


def _trigrams(key: str) -> set[str]:
    """The trigrams of ``key`` padded with two spaces before and one after (as pg_trgm does)."""
    padded = f"  {key} "
    return {padded[i : i + 3] for i in range(len(key) + 1)}


def _union(layers: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The keys of ``layers``, each once, in the order a dict updated layer by layer has them."""
    if len(layers) == 1:
        return layers[0]
    return dict.fromkeys(itertools.chain.from_iterable(layers))


class CloseKeys:
    """The keys of a name table arranged for "did you mean" (:func:`suggest`), built
    on first use: by length, and by trigram (``trigram -> keys holding it``).

    :meth:`candidates` gives the keys ``difflib.get_close_matches`` scores for a name, in place
    of every key of the table (each key as often as the table lists it: once per dict). Each
    dict is given as its layers (an updated table's base and overlay dicts), read as one.
    """

    __slots__ = ("_by_length", "_grams", "_plain", "_qualified")

    def __init__(
        self, plain: Sequence[Mapping[str, Any]], qualified: Sequence[Mapping[str, Any]]
    ) -> None:
        self._plain = plain
        self._qualified = qualified
        # (keys sorted by length, their lengths, the keys listed twice); trigram -> keys.
        self._by_length: tuple[list[str], list[int], set[str]] | None = None
        self._grams: dict[str, list[str]] | None = None

    def _sorted(self) -> tuple[list[str], list[int], set[str]]:
        by_length = self._by_length
        if by_length is None:
            plain, qualified = _union(self._plain), _union(self._qualified)
            keys = sorted([*plain, *qualified], key=len)
            twice = plain.keys() & qualified.keys()
            by_length = self._by_length = (keys, list(map(len, keys)), twice)
        return by_length

    def candidates(self, key: str) -> list[str]:
        """Keys that may be among the closest to ``key`` by difflib's ratio.

        A key scores at least the cutoff 0.6 only if its length is between 3/7 and 7/3 of
        ``key``'s (``real_quick_ratio``). When at most :data:`_BAND_SCAN_KEYS` keys have such a
        length, they are all returned: ``get_close_matches`` then answers as on every key. Else
        (a longer name on a large table) the :data:`_GRAM_CANDIDATES` keys of such lengths
        that share the most trigrams with ``key`` (counted over its rarest trigrams' lists,
        about :data:`_GRAM_BUDGET` entries), nearest in length first at equal counts: a typo
        keeps most trigrams of the name, so its closest keys are among them.
        """
        keys, lengths, twice = self._sorted()
        size = len(key)
        low, high = 3 * size // 7, -(-7 * size // 3)  # rounded outwards
        start, stop = bisect_left(lengths, low), bisect_right(lengths, high)
        if stop - start <= _BAND_SCAN_KEYS:
            return keys[start:stop]
        grams = self._grams
        if grams is None:
            grams = {}
            for k in dict.fromkeys(keys):
                for gram in _trigrams(k):
                    holders = grams.get(gram)
                    if holders is None:
                        grams[gram] = [k]
                    else:
                        holders.append(k)
            self._grams = grams
        lists = sorted((grams[g] for g in _trigrams(key) if g in grams), key=len)
        counted = lists[:1]
        total = sum(map(len, counted))
        for holders in lists[1:]:
            total += len(holders)
            if total > _GRAM_BUDGET:
                break
            counted.append(holders)
        counts = Counter(itertools.chain.from_iterable(counted))
        best = heapq.nlargest(
            _GRAM_CANDIDATES,
            [(c, -abs(len(k) - size), k) for k, c in counts.items() if low <= len(k) <= high],
        )
        out = [k for _, _, k in best]
        out += [k for k in out if k in twice]
        return out
