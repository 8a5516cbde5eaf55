"""Regex search in pure Python: the twin of ``toolsift._core.RegexIndex`` (``ranker="regex"``).

``rust/search/regex.rs`` documents the ranking: a tool's fields are searched in the order name
(4 points), description (3), parameter names (2), parameter descriptions (1); its score is the
first matching field's points plus ``1 / (2 + c)``, ``c`` the character offset of the leftmost
match there; score descending, then name ascending.

Python's ``re`` backtracks, so a hostile pattern (``(a+)+$``) can take exponential time in it.
The twin runs the checked pattern (``toolsift._text.regex_pattern``) as an automaton
instead, in time linear in the text like the Rust ``regex`` crate: a lazily built DFA over the
*reversed* pattern, read over the reversed text, accepts exactly at the positions where a match of
the pattern starts,
so one pass finds the leftmost match start. Sets are tested one character at a time by ``re``
with the set as ``toolsift._text.regex_pattern`` writes it (no repetition, so no backtracking).

Example:
    >>> from toolsift._text.regex_pattern import translate
    >>> idx = RegexIndex(["get_weather"], ["Weather for a city"], [["city"]], [["City name"]])
    >>> idx.search(translate("CITY"), 5)
    [(0, 3.0625)]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from .._options import check_limit, check_text
from .._text.regex_pattern import Node, Pattern, emit, fold, translate

__all__ = ["RegexIndex", "FIELD_POINTS", "Automaton"]

#: Points of a match in each field, in search order (as ``FIELD_POINTS`` in Rust).
FIELD_POINTS = (4.0, 3.0, 2.0, 1.0)


def _is_word(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "_")


def _reverse(node: Node) -> Node:
    """``node`` with every sequence reversed: it reads the reversed text. Assertions stay as
    they are: each still tests its boundary in the original text's terms (start, end, word
    characters on either side), which :meth:`Automaton.leftmost` passes in."""
    kind = node[0]
    if kind == "group":
        return ("group", [[_reverse(n) for n in reversed(alt)] for alt in node[1]])
    if kind == "rep":
        return ("rep", _reverse(node[1]), *node[2:])
    return node


class Automaton:
    """A pattern's Thompson NFA, run as a lazily built DFA (see the module docs).

    States are ``("c", test, next)`` (one character), ``("split", targets)``,
    ``("at", kind, next)`` (an assertion) and ``("match",)``.
    """

    def __init__(self, tree: Node) -> None:
        self.states: list[tuple] = [("match",)]  # type: ignore[type-arg]
        self.tests: dict[str, Callable[[str], bool]] = {}
        self.start = self._compile(_reverse(tree), 0)
        self._closures: dict[tuple[frozenset[int], int], tuple[tuple[int, ...], bool]] = {}
        self._steps: dict[tuple[frozenset[int], bool, bool, str], tuple[frozenset[int], bool]] = {}

    def _add(self, state: tuple) -> int:  # type: ignore[type-arg]
        self.states.append(state)
        return len(self.states) - 1

    def _test(self, node: Node) -> Callable[[str], bool]:
        if node[0] == "lit":
            return fold(node[1]).__eq__
        if node[0] == "any":
            return "\n".__ne__
        text = emit(node, rust=False)
        test = self.tests.get(text)
        if test is None:
            matcher = re.compile(text, re.ASCII).fullmatch
            test = self.tests[text] = lambda c: matcher(c) is not None
        return test

    def _compile(self, node: Node, nxt: int) -> int:
        """The state that matches ``node`` and goes on to ``nxt``."""
        kind = node[0]
        if kind in ("lit", "any", "set"):
            return self._add(("c", self._test(node), nxt))
        if kind == "at":
            return self._add(("at", node[1], nxt))
        if kind == "group":
            starts = []
            for alt in node[1]:
                s = nxt
                for item in reversed(alt):
                    s = self._compile(item, s)
                starts.append(s)
            return starts[0] if len(starts) == 1 else self._add(("split", starts))
        _, item, low, high, _ = node
        if high is None:  # a loop: the item any number of times, then nxt
            loop = self._add(("split", []))
            self.states[loop] = ("split", [self._compile(item, loop), nxt])
            s = loop
        else:
            s = nxt
            for _ in range(high - low):
                s = self._add(("split", [self._compile(item, s), nxt]))
        for _ in range(low):
            s = self._compile(item, s)
        return s

    def _closure(self, states: frozenset[int], context: int) -> tuple[tuple[int, ...], bool]:
        """The character states reachable from ``states`` without reading, and whether the
        match state is; ``context`` bits: 1 at the start, 2 at the end, 4 a word character
        before, 8 a word character after."""
        key = (states, context)
        found = self._closures.get(key)
        if found is not None:
            return found
        seen: set[int] = set()
        stack = list(states)
        out: list[int] = []
        matched = False
        while stack:
            s = stack.pop()
            if s in seen:
                continue
            seen.add(s)
            state = self.states[s]
            kind = state[0]
            if kind == "c":
                out.append(s)
            elif kind == "split":
                stack.extend(state[1])
            elif kind == "match":
                matched = True
            else:
                at = state[1]
                before, after = bool(context & 4), bool(context & 8)
                if (
                    (at == "start" and context & 1)
                    or (at == "end" and context & 2)
                    or (at == "b" and before != after)
                    or (at == "B" and before == after)
                ):
                    stack.append(state[2])
        found = self._closures[key] = (tuple(sorted(out)), matched)
        return found

    def leftmost(self, text: str) -> int | None:
        """The character offset in ``text`` (folded) where the leftmost match starts, or None."""
        n = len(text)
        start = self.start
        current = frozenset((start,))
        best: int | None = None
        # The character after the boundary (read last; False at the end of the text): \b and
        # \B only compare the two sides, so which bit holds which side does not matter.
        after_word = False
        steps = self._steps
        # Read the reversed text: the boundary before reading text[n - 1 - k] is offset n - k.
        for k in range(n):
            c = text[n - 1 - k]
            key = (current, after_word, k == 0, c)
            step = steps.get(key)
            if step is None:
                context = (
                    (2 if k == 0 else 0) | (4 if after_word else 0) | (8 if _is_word(c) else 0)
                )
                chars, matched = self._closure(current, context)
                nxt = frozenset(
                    [self.states[s][2] for s in chars if self.states[s][1](c)] + [start]
                )
                step = steps[key] = (nxt, matched)
                if len(steps) > 100_000:  # bounded memory: start the cache afresh
                    steps.clear()
            current, matched = step
            if matched:
                best = n - k
            after_word = _is_word(c)
        context = 1 | (2 if n == 0 else 0) | (4 if after_word else 0)
        if self._closure(current, context)[1]:
            best = 0
        return best


def _required(node: Node) -> set[str] | None:
    """Strings of which every match of ``node`` contains one (folded), or None if unknown: a
    text holding none of them cannot match, so the automaton need not read it."""
    kind = node[0]
    if kind == "lit":
        return {fold(node[1])}
    if kind == "rep":
        return _required(node[1]) if node[2] >= 1 else None
    if kind != "group":
        return None
    out: set[str] = set()
    for alt in node[1]:
        best = _sequence_required(alt)
        if best is None:
            return None
        out |= best
    return out


def _sequence_required(items: list[Node]) -> set[str] | None:
    """:func:`_required` of a sequence: its best candidate (longest shortest string), a run of
    plain characters counting as one string."""
    candidates: list[set[str]] = []
    run = ""
    for item in [*items, ("at", "end-of-sequence")]:
        if item[0] == "lit":
            run += fold(item[1])
            continue
        if run:
            candidates.append({run})
            run = ""
        found = _required(item)
        if found:
            candidates.append(found)
    if not candidates:
        return None
    return max(candidates, key=lambda c: min(map(len, c)))


class RegexIndex:
    """Regex search over tools given as names, descriptions and, per tool, parameter names and
    parameter descriptions (the twin of ``toolsift._core.RegexIndex``).
    """

    __slots__ = ("_names", "_fields")

    def __init__(
        self,
        names: Iterable[str],
        descriptions: Iterable[str],
        parameter_names: Iterable[Sequence[str]],
        parameter_descriptions: Iterable[Sequence[str]],
    ) -> None:
        self._names = [check_text(n, "name") for n in names]
        columns = (
            [[n] for n in self._names],
            [[check_text(d, "description")] for d in descriptions],
            [[check_text(p, "parameter name") for p in ps] for ps in parameter_names],
            [[check_text(p, "parameter description") for p in ps] for ps in parameter_descriptions],
        )
        n = len(self._names)
        if any(len(column) != n for column in columns):
            raise ValueError(
                f"regex index: got {n} names, {len(columns[1])} descriptions, "
                f"{len(columns[2])} parameter name lists and {len(columns[3])} parameter "
                "description lists"
            )
        self._fields = tuple([[fold(t) for t in texts] for texts in column] for column in columns)

    def __len__(self) -> int:
        return len(self._names)

    def search(
        self,
        pattern: Pattern | str,
        limit: int,
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
    ) -> list[tuple[int, float]]:
        """Top ``limit`` ``(tool id, score)`` pairs for ``pattern``, score descending then name
        ascending: a checked :class:`~toolsift._text.regex_pattern.Pattern`, or a pattern (str)
        that is checked here (:func:`~toolsift._text.regex_pattern.translate`)."""
        if not isinstance(pattern, Pattern):
            pattern = translate(pattern)
        limit = check_limit(limit)
        automaton = Automaton(pattern.tree)
        needles = _required(pattern.tree)
        alternatives = pattern.tree[1]
        if len(alternatives) == 1 and all(n[0] == "lit" for n in alternatives[0]):
            literal = "".join(fold(n[1]) for n in alternatives[0])

            def leftmost(text: str) -> int | None:  # a plain string: str.find is the answer
                at = text.find(literal)
                return None if at < 0 else at
        elif needles:

            def leftmost(text: str) -> int | None:
                if any(needle in text for needle in needles):
                    return automaton.leftmost(text)
                return None
        else:
            leftmost = automaton.leftmost
        excluded = set(exclude or ())
        included = set(include) if include is not None else None
        hits: list[tuple[int, float]] = []
        for doc in range(len(self._names)):
            if doc in excluded or (included is not None and doc not in included):
                continue
            for column, points in zip(self._fields, FIELD_POINTS):
                offsets = [o for o in map(leftmost, column[doc]) if o is not None]
                if offsets:
                    hits.append((doc, points + 1.0 / (2.0 + min(offsets))))
                    break
        names = self._names
        hits.sort(key=lambda h: (-h[1], names[h[0]], h[0]))
        return hits[:limit]
