"""Text -> terms for the pure-Python engine: ``search_tool_bm25``'s tokenizer, as Rust's.

The rule (``search_tool_bm25``'s ``tokenize``): NFKD-normalize; drop combining marks (``M*``); split
``ACRONYMWord`` (a break between ``[Lu]+`` and ``[Lu][Ll]``), then camelCase and digit->Upper (a
break between ``[Ll N]`` and ``[Lu]``); every character that is not a letter (``L*``) or number
(``N*``) is a separator; lowercase; split on whitespace and drop empty tokens.

The Rust module's docs explain the design; in short:

* Unicode data comes only from ``unicode_data`` (Unicode 14.0.0, generated from Python 3.11 by
  ``scripts/gen_unicode_tables.py``, which writes the Rust engine's copy too), never from this
  interpreter's ``unicodedata``, so the two engines agree on every Python version and equal the
  reference port of ``search_tool_bm25`` on Python 3.11. (``str.lower()`` is used, being
  fast, only once the tables are loaded and it is seen to map every token character as the
  tables do.) Code points unassigned in 14.0, private-use characters and lone surrogates are
  separators.
* NFKD-then-drop-marks is applied per character (exact, because every character with a
  non-zero combining class is a mark), with one ``str.translate``.
* Lowercasing is per character, except that U+03A3 follows the Final_Sigma rule as CPython's
  ``str.lower()`` applies it, within the token (token edges behave like the spaces the reference
  puts there).
* Pure-ASCII text takes a fast path that never loads the tables; the tables are loaded on the
  first non-ASCII input.

Example:
    >>> tokenize("XMLHttpRequest: parseJSON2XML, café ΟΔΥΣΣΕΥΣ")
    ['xml', 'http', 'request', 'parse', 'json2', 'xml', 'cafe', 'οδυσσευς']
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from typing import NamedTuple

__all__ = ["UNICODE_VERSION", "tokenize"]

UNICODE_VERSION = "14.0.0"

# A token is a run of letters and digits that no break falls inside: a capital run that is
# followed by Capital+lower gives up its last capital (ACRONYMWord); a lower or digit run ends
# before a capital (camelCase, digit->Upper).
_ASCII_TOKEN = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]*[a-z0-9]+|[A-Z]+")

_CAPITAL_SIGMA = "\u03a3"
_NON_BMP = re.compile("[\U00010000-\U0010ffff]")


def tokenize(text: str) -> list[str]:
    """The tokens of ``text``, as ``search_tool_bm25``'s tokenizer makes them (module docstring).

    Arguments:
        text: Any string, including lone surrogates (they are separators).

    Returns:
        The lowercased tokens, in order.

    Raises:
        TypeError: ``text`` is not a str (the Rust tokenizer's message).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if text.isascii():
        return [t.lower() for t in _ASCII_TOKEN.findall(text)]
    tables = _TABLES or _load_tables()
    # NFKD without marks; most separators become spaces, so that text whose only non-ASCII
    # characters are accents and punctuation (the common case) can take the ASCII path.
    text = text.translate(tables.fold)
    if text.isascii():
        return [t.lower() for t in _ASCII_TOKEN.findall(text)]
    regexes = tables.full if _NON_BMP.search(text) else tables.bmp
    text = regexes.acronym.sub(r"\1 \2", text)
    text = regexes.camel.sub(r"\1 \2", text)
    text = regexes.separators.sub(" ", text)
    if _CAPITAL_SIGMA in text:
        text = _resolve_sigmas(text, tables)
    # Only token characters and spaces are left.
    return (text.lower() if tables.str_lower_agrees else text.translate(tables.lower)).split()


def _resolve_sigmas(text: str, tables: _Tables) -> str:
    """``text`` with each U+03A3 lowercased by the Final_Sigma rule (CPython's
    ``handle_capital_sigma``). ``text`` holds only token characters and spaces; a space is
    neither Cased nor Case_Ignorable, so it bounds the scan like a token edge."""
    value, cased, ignorable = tables.value, tables.cased, tables.case_ignorable
    chars = list(text)
    n = len(text)
    i = text.find(_CAPITAL_SIGMA)
    while i >= 0:
        j = i - 1
        while j >= 0 and value(text[j]) & ignorable:
            j -= 1
        final = j >= 0 and bool(value(text[j]) & cased)
        if final:
            j = i + 1
            while j < n and value(text[j]) & ignorable:
                j += 1
            final = j == n or not value(text[j]) & cased
        chars[i] = "\u03c2" if final else "\u03c3"
        i = text.find(_CAPITAL_SIGMA, i + 1)
    return "".join(chars)


# ---------------------------------------------------------------------------------------------
# Tables, built from unicode_data on the first non-ASCII input.


class _Regexes(NamedTuple):
    acronym: re.Pattern[str]
    camel: re.Pattern[str]
    separators: re.Pattern[str]


class _Tables:
    """What the non-ASCII path needs, derived from ``unicode_data``."""

    def __init__(self) -> None:
        from . import unicode_data as u

        assert u.UNICODE_VERSION == UNICODE_VERSION
        self.cased, self.case_ignorable = u.CASED, u.CASE_IGNORABLE
        self.ranges = u.CLASS_RANGES
        self.starts = [first for first, _, _ in self.ranges]
        self.ascii_values = [
            u.LU | u.CASED | u.HAS_LOWER
            if c.isupper()
            else (u.LL | u.CASED if c.islower() else u.NUM if c.isdigit() else u.SEP)
            for c in map(chr, range(0x80))
        ]

        # str.translate table: NFKD without marks, and non-ASCII separators to spaces.
        fold: dict[int, str | None] = {}
        for first, last in u.ASSIGNED_SEPARATORS:
            fold.update(dict.fromkeys(range(first, last + 1), " "))
        by_class: dict[int, list[tuple[int, int]]] = {u.LU: [], u.LL: [], u.LO: [], u.NUM: []}
        for first, last, v in self.ranges:
            cls = v & u.CLASS_MASK
            if cls == u.MARK:
                fold.update(dict.fromkeys(range(first, last + 1)))
            elif cls == u.HANGUL:
                for cp in range(first, last + 1):
                    fold[cp] = _hangul_jamo(cp)
            elif cls in by_class:
                by_class[cls].append((first, last))
        for cp, mapped in u.DECOMPOSITIONS.items():
            fold[cp] = "".join(
                " " if c >= "\x80" and self.value(c) & u.CLASS_MASK == u.SEP else c for c in mapped
            )
        self.fold = fold

        self.lower = {cp: cp + 32 for cp in range(ord("A"), ord("Z") + 1)}
        self.lower.update(u.LOWERCASE)
        # str.lower() is much faster than translate(). It is used when this interpreter's
        # mapping equals the table's for every token character (Unicode 14.0's on Python 3.11,
        # and, so far, later ones). U+03A3 is resolved before, so its rule does not matter.
        ranges = itertools.chain.from_iterable(by_class.values())
        tokens = "".join("".join(map(chr, range(a, b + 1))) for a, b in ranges)
        tokens = tokens.replace(_CAPITAL_SIGMA, "")
        self.str_lower_agrees = tokens.lower() == tokens.translate(self.lower)

        def regexes(limit: int) -> _Regexes:
            def cls(*classes: int) -> str:
                ascii_part = {u.LU: "A-Z", u.LL: "a-z", u.NUM: "0-9", u.LO: ""}
                parts = [ascii_part[c] for c in classes]
                for c in classes:
                    for first, last in by_class[c]:
                        if first <= limit:
                            parts.append(f"\\U{first:08x}-\\U{min(last, limit):08x}")
                return "".join(parts)

            lu, ll = cls(u.LU), cls(u.LL)
            return _Regexes(
                acronym=re.compile(f"([{lu}]+)([{lu}][{ll}])"),
                camel=re.compile(f"([{cls(u.LL, u.NUM)}])([{lu}])"),
                separators=re.compile(f"[^{cls(u.LU, u.LL, u.LO, u.NUM)}]+"),
            )

        # Python's regex engine tests a class's non-BMP ranges one by one after its BMP bitmap,
        # even for BMP characters; text without non-BMP characters uses classes without them.
        self.bmp = regexes(0xFFFF)
        self.full = regexes(0x10FFFF)

    def value(self, c: str) -> int:
        """The table value (class and flags) of one character."""
        cp = ord(c)
        if cp < 0x80:
            return self.ascii_values[cp]
        i = bisect_right(self.starts, cp) - 1
        if i >= 0:
            _, last, v = self.ranges[i]
            if cp <= last:
                return v
        return 0


def _hangul_jamo(cp: int) -> str:
    """The conjoining jamo of a precomposed Hangul syllable (Unicode 3.12): L, V, optional T."""
    s = cp - 0xAC00
    lv = chr(0x1100 + s // 588) + chr(0x1161 + (s % 588) // 28)
    return lv + chr(0x11A7 + s % 28) if s % 28 else lv


_TABLES: _Tables | None = None


def _load_tables() -> _Tables:
    global _TABLES
    if _TABLES is None:
        _TABLES = _Tables()
    return _TABLES
