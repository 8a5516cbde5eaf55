"""The regex ranker's pattern language: one check, shared by both engines, then a translation
for each (Anthropic ``tool_search_tool_regex``-compatible: Python ``re.search`` syntax, matched
case-insensitively, at most 200 characters).

The accepted syntax is a subset of Python's ``re`` that means the same to both engines:

* literal characters, ``\\``-escaped punctuation, ``\\t \\n \\r \\f \\v \\a``, ``\\xhh``,
  ``\\uhhhh``, ``\\Uhhhhhhhh``; ``.`` (any character but a newline);
* sets ``[...]`` and ``[^...]`` with ranges (``a-z``), escapes and ``\\w \\W \\d \\D \\s \\S``
  (``\\b`` in a set is a backspace, as in ``re``);
* ``\\w \\W \\d \\D \\s \\S`` and the word boundaries ``\\b \\B``, in their ASCII meaning
  (``re.ASCII``): ``\\w`` is ``[a-zA-Z0-9_]``, ``\\s`` ``[ \\t\\n\\r\\f\\v]``; ``\\B`` matches in
  an empty text, as in Python 3.14's ``re`` (earlier versions never match it there);
* ``^`` and ``\\A`` (start of the field), ``$`` and ``\\Z`` (end of the field; unlike ``re``'s
  ``$``, not before a final newline);
* groups ``(...)``, ``(?:...)``, ``(?P<name>...)``, ``(?i:...)``; alternation ``|``;
* quantifiers ``* + ? {n} {n,} {,m} {n,m}``, each optionally lazy (``*?``), counts up to 1000;
* ``(?i)`` at the very start (matching is always case-insensitive, so it changes nothing).

Refused, with a :class:`~toolsift.errors.PatternError` giving the position: backreferences
(``\\1``, ``(?P=name)``), look-around (``(?=``, ``(?!``, ``(?<=``, ``(?<!``), atomic groups and
possessive quantifiers, conditionals, comments, other inline flags, ``\\N{...}``, octal escapes,
unknown escapes, ``[`` / ``&&`` / ``--`` / ``||`` / ``~~`` inside a set (set operations in other
dialects: escape them), patterns longer than 200 characters, and patterns whose repetitions
would expand to more than 1000 copies of an item (``(a{100}){100}``).

Case-insensitivity: tool texts and the pattern's letters are lowercased with one table (Unicode
14 simple lowercase, ``case_fold``), and a set also holds the lowercase of its members, so
``[A-Z]`` matches ``q``. Matching itself is then case-sensitive, the same in both engines.

Example:
    >>> p = translate("Get_.*(?:User|Team)")
    >>> p.python
    'get_.*(?:user|team)'
    >>> p.rust
    'get_.*(?:user|team)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ..errors import PatternError
from .case_fold import FOLD

__all__ = ["MAX_PATTERN_LENGTH", "MAX_COPIES", "Node", "Pattern", "translate", "fold", "emit"]

#: The longest pattern accepted, in characters (Anthropic's ``tool_search_tool_regex`` cap).
MAX_PATTERN_LENGTH = 200
#: The most copies of pattern items that the repetitions may expand to, and the largest count.
MAX_COPIES = 1000

_FOLD_TABLE = {**FOLD}


def fold(text: str) -> str:
    """``text`` lowercased with the regex search's table (one character for one).

    Example:
        >>> fold("ÉCRIRE Σ")
        'écrire σ'
    """
    return text.lower() if text.isascii() else text.translate(_FOLD_TABLE)


# The parsed form: nodes are tuples, built by _Parser and written out by _emit:
# ("lit", char) | ("any",) | ("set", negated, items) | ("at", "start"|"end"|"b"|"B")
# | ("group", [alternative, ...]) | ("rep", node, min, max|None, lazy)
# A set item is (lo, hi) for a range of characters, or one of "w W d D s S".
Node = tuple  # type: ignore[type-arg]
SetItem = Union[tuple[str, str], str]


@dataclass(frozen=True)
class Pattern:
    """A checked pattern in each engine's syntax (``python`` for ``re``, ``rust`` for the
    ``regex`` crate), over folded text."""

    source: str
    python: str
    rust: str
    #: The parsed form (module comments), which the pure-Python twin runs.
    tree: Node = field(repr=False, compare=False, default=())


_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_CLASS_ESCAPES = frozenset("wWdDsS")
_QUANTIFIERS = frozenset("*+?{")
_META = frozenset(".^$*+?{}[]\\|()")


def _error(pattern: str, position: int, problem: str) -> PatternError:
    """The error for ``problem`` at ``position`` of ``pattern``, the message quoting the
    pattern around it."""
    around = pattern[max(0, position - 12) : position + 12]
    where = f" ({around!r})" if around else ""
    return PatternError(
        f"Invalid regex pattern at position {position}{where}: {problem}.",
        pattern=pattern,
        position=position,
    )


class _Parser:
    def __init__(self, source: str) -> None:
        self.s = source
        self.i = 0
        self.names: set[str] = set()
        self.copies = 0
        self.worst: tuple[int, int] = (0, 0)  # (copies, position) of the largest repetition

    def fail(self, problem: str, position: int | None = None) -> PatternError:
        return _error(self.s, self.i if position is None else position, problem)

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def parse(self) -> Node:
        if self.s.startswith("(?i)"):
            self.i = 4
        alternatives = self.alternation()
        if self.i < len(self.s):  # only a ")" stops alternation early
            raise self.fail("unbalanced parenthesis: this ')' closes no group")
        return ("group", alternatives)

    def alternation(self) -> list[list[Node]]:
        alternatives = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            alternatives.append(self.sequence())
        return alternatives

    def sequence(self) -> list[Node]:
        items: list[Node] = []
        while self.i < len(self.s) and self.peek() not in "|)":
            c = self.peek()
            if c in _QUANTIFIERS and self.quantifier_here():
                raise self.fail("nothing to repeat")
            item = self.atom()
            if item[0] != "at":
                item = self.repeats(item)
            elif self.peek() in _QUANTIFIERS and self.quantifier_here():
                raise self.fail("nothing to repeat: an anchor or boundary cannot be repeated")
            items.append(item)
        return items

    def quantifier_here(self) -> bool:
        """Whether a quantifier starts at the cursor (a ``{`` that is not one is a literal)."""
        if self.peek() != "{":
            return self.peek() in "*+?"
        return self.braces() is not None

    def braces(self) -> tuple[int, int | None, int] | None:
        """``{n}``, ``{n,}``, ``{,m}``, ``{n,m}`` at the cursor: (min, max, length), or None
        when the brace is a literal (as ``re`` reads ``{`` not followed by a repetition)."""
        s, j = self.s, self.i + 1
        lo_start = j
        while j < len(s) and s[j].isascii() and s[j].isdigit():
            j += 1
        lo = s[lo_start:j]
        comma = j < len(s) and s[j] == ","
        if comma:
            j += 1
            hi_start = j
            while j < len(s) and s[j].isascii() and s[j].isdigit():
                j += 1
            hi: str | None = s[hi_start:j]
        else:
            hi = lo
        if j >= len(s) or s[j] != "}" or not (lo or comma):
            return None
        low = int(lo) if lo else 0
        high = int(hi) if hi else None
        if low > MAX_COPIES or (high is not None and high > MAX_COPIES):
            raise self.fail(f"repetition count above {MAX_COPIES}")
        if high is not None and low > high:
            raise self.fail("min repeat greater than max repeat")
        return low, high, j + 1 - self.i

    def repeats(self, item: Node) -> Node:
        if not (self.peek() in _QUANTIFIERS and self.quantifier_here()):
            return item
        start = self.i
        c = self.peek()
        if c == "{":
            low, high, length = self.braces()  # type: ignore[misc]
            self.i += length
        else:
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            self.i += 1
        lazy = self.peek() == "?"
        if lazy:
            self.i += 1
        if self.peek() in _QUANTIFIERS and self.quantifier_here():
            problem = (
                "possessive quantifiers are not supported"
                if self.peek() == "+"
                else ("multiple repeat")
            )
            raise self.fail(problem)
        copies = (high if high is not None else max(low, 1) + 1) or 1
        node = ("rep", item, low, high, lazy)
        size = copies * _size(item)
        if size > self.worst[0]:
            self.worst = (size, start)
        return node

    def atom(self) -> Node:
        c = self.peek()
        start = self.i
        self.i += 1
        if c == ".":
            return ("any",)
        if c == "^":
            return ("at", "start")
        if c == "$":
            return ("at", "end")
        if c == "[":
            return self.set(start)
        if c == "(":
            return self.group(start)
        if c == "\\":
            return self.escape(in_set=False)
        return ("lit", c)

    def group(self, start: int) -> Node:
        if self.peek() == "?":
            self.i += 1
            c = self.peek()
            if c == ":":
                self.i += 1
            elif c == "P" and self.peek(1) == "<":
                end = self.s.find(">", self.i)
                name = self.s[self.i + 2 : end] if end >= 0 else ""
                if end < 0 or not name.isidentifier():
                    raise self.fail("bad group name", self.i + 2)
                if name in self.names:
                    raise self.fail(f"redefinition of group name {name!r}", self.i + 2)
                self.names.add(name)
                self.i = end + 1
            elif c == "P" and self.peek(1) == "=":
                raise self.fail("backreferences are not supported", start)
            elif c == "i" and self.peek(1) == ":":
                self.i += 2
            elif c in ("=", "!") or (c == "<" and self.peek(1) in ("=", "!")):
                raise self.fail("look-around is not supported", start)
            elif c == ">":
                raise self.fail("atomic groups are not supported", start)
            elif c == "(":
                raise self.fail("conditional groups are not supported", start)
            elif c == "#":
                raise self.fail("comments are not supported", start)
            else:
                raise self.fail("inline flags other than a leading (?i) are not supported", start)
        alternatives = self.alternation()
        if self.peek() != ")":
            raise self.fail("missing ), unterminated subpattern", start)
        self.i += 1
        return ("group", alternatives)

    def escape(self, *, in_set: bool) -> Node:
        start = self.i - 1
        c = self.peek()
        if not c:
            raise self.fail("bad escape (end of pattern)", start)
        self.i += 1
        if c in _CLASS_ESCAPES:
            return ("set", False, [c])
        if c in _SIMPLE_ESCAPES:
            return ("lit", _SIMPLE_ESCAPES[c])
        if c in "xuU":
            digits = {"x": 2, "u": 4, "U": 8}[c]
            hexa = self.s[self.i : self.i + digits]
            if len(hexa) != digits or not all(h in "0123456789abcdefABCDEF" for h in hexa):
                raise self.fail(f"incomplete escape \\{c}{hexa}", start)
            cp = int(hexa, 16)
            if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
                raise self.fail(f"bad escape \\{c}{hexa}: not a character", start)
            self.i += digits
            return ("lit", chr(cp))
        if in_set and c == "b":
            return ("lit", "\b")
        if not in_set and c in "AZbB":
            return ("at", {"A": "start", "Z": "end", "b": "b", "B": "B"}[c])
        if c.isascii() and c.isdigit():
            raise self.fail("backreferences and octal escapes are not supported", start)
        if c.isascii() and c.isalpha():
            raise self.fail(f"bad escape \\{c}", start)
        return ("lit", c)

    def set(self, start: int) -> Node:
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        items: list[SetItem] = []
        first = True
        while True:
            c = self.peek()
            if not c:
                raise self.fail("unterminated character set", start)
            if c == "]" and not first:
                self.i += 1
                return ("set", negated, items)
            if c == "[" or (c in "&-|~" and self.peek(1) == c):
                raise self.fail(f"write \\{c} for a literal {c} in a set (set operations)")
            first = False
            lo = self.set_member()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                dash = self.i
                self.i += 1
                if self.peek() == "-":
                    raise self.fail("write \\- for a literal - in a set (set operations)")
                hi = self.set_member()
                if not (isinstance(lo, tuple) and isinstance(hi, tuple)) or lo[0] > hi[0]:
                    raise self.fail("bad character range", dash - 1)
                items.append((lo[0], hi[0]))
            elif isinstance(lo, tuple):
                items.append(lo)
            else:
                items.append(lo)

    def set_member(self) -> SetItem:
        c = self.peek()
        self.i += 1
        if c != "\\":
            return (c, c)
        node = self.escape(in_set=True)
        if node[0] == "set":
            return node[2][0]  # type: ignore[no-any-return]
        if node[0] != "lit":  # pragma: no cover - escape(in_set=True) gives no anchor
            raise self.fail("bad escape in a set", self.i - 2)
        return (node[1], node[1])


def _size(node: Node) -> int:
    """How many copies of simple items ``node`` compiles to (repetitions expanded)."""
    kind = node[0]
    if kind == "group":
        return sum(_size(n) for alt in node[1] for n in alt) or 1
    if kind == "rep":
        _, item, low, high, _ = node
        copies = high if high is not None else max(low, 1) + 1
        return max(copies, 1) * _size(item)
    return 1


# --- writing the two dialects ---

_PY_CLASS = {"w": "\\w", "W": "\\W", "d": "\\d", "D": "\\D", "s": "\\s", "S": "\\S"}
_RUST_CLASS = {
    "w": "0-9A-Za-z_",
    "d": "0-9",
    "s": "\\x{9}-\\x{d}\\x{20}",  # \t \n \v \f \r and space: re.ASCII's \s
}


def _char(c: str, rust: bool) -> str:
    if c.isascii() and (c.isalnum() or c == "_"):
        return c
    return f"\\x{{{ord(c):x}}}" if rust else f"\\U{ord(c):08x}"


def _fold_char(c: str) -> str:
    return chr(FOLD.get(ord(c), ord(c)))


def _set_items(items: list[SetItem], rust: bool) -> str:
    out: list[str] = []
    extra: dict[str, None] = {}
    for item in items:
        if isinstance(item, str):
            if rust:
                body = _RUST_CLASS[item.lower()]
                out.append(f"[^{body}]" if item.isupper() else body)
            else:
                out.append(_PY_CLASS[item])
            continue
        lo, hi = item
        out.append(_char(lo, rust) if lo == hi else f"{_char(lo, rust)}-{_char(hi, rust)}")
        # The lowercase of every member, so that a set matches folded text as it would match
        # the original text case-insensitively.
        if lo == hi:
            low = _fold_char(lo)
            if low != lo:
                extra[low] = None
        else:
            a, b = ord(lo), ord(hi)
            for upper, lower in FOLD.items():
                if a <= upper <= b and not a <= lower <= b:
                    extra[chr(lower)] = None
    out.extend(_char(c, rust) for c in extra)
    return "".join(out)


def emit(node: Node, rust: bool) -> str:
    """``node`` in Python ``re`` syntax (``rust=False``, for ``re.ASCII``) or the Rust ``regex``
    crate's, over folded text."""
    return _emit(node, rust)


def _emit(node: Node, rust: bool) -> str:
    kind = node[0]
    if kind == "lit":
        return _char(_fold_char(node[1]), rust)
    if kind == "any":
        return "."
    if kind == "at":
        where = node[1]
        if where == "start":
            return "\\A"
        if where == "end":
            return "\\z" if rust else "\\Z"
        return f"(?-u:\\{where})" if rust else f"\\{where}"
    if kind == "set":
        _, negated, items = node
        if not negated and len(items) == 1 and isinstance(items[0], str):
            item = items[0]
            if not rust:
                return _PY_CLASS[item]
            body = _RUST_CLASS[item.lower()]
            return f"[^{body}]" if item.isupper() else f"[{body}]"
        return f"[{'^' if negated else ''}{_set_items(items, rust)}]"
    if kind == "group":
        return "(?:" + "|".join("".join(_emit(n, rust) for n in alt) for alt in node[1]) + ")"
    _, item, low, high, lazy = node
    if (low, high) == (0, None):
        quantifier = "*"
    elif (low, high) == (1, None):
        quantifier = "+"
    elif (low, high) == (0, 1):
        quantifier = "?"
    elif high is None:
        quantifier = f"{{{low},}}"
    else:
        quantifier = f"{{{low},{high}}}"
    inner = _emit(item, rust)
    if item[0] not in ("group", "set", "any") and not (item[0] == "lit" and len(inner) == 1):
        inner = f"(?:{inner})"
    return inner + quantifier + ("?" if lazy else "")


def _top(node: Node, rust: bool) -> str:
    # The outer group's alternatives, without a wrapping (?:...) when there is only one.
    alternatives = node[1]
    if len(alternatives) == 1:
        return "".join(_emit(n, rust) for n in alternatives[0])
    return _emit(node, rust)


def translate(pattern: str, max_length: int = MAX_PATTERN_LENGTH) -> Pattern:
    """``pattern`` checked against the accepted syntax (module docs) and written for each engine.

    Raises:
        PatternError: the pattern is not a str, is empty, is longer than ``max_length``
            characters, or uses syntax outside the accepted subset (the error's ``position``
            says where).

    Example:
        >>> translate("[A-C]+").python
        '[A-Cabc]+'
    """
    if not isinstance(pattern, str):
        raise _error("", 0, f"the pattern must be a str, got {type(pattern).__name__}")
    if not pattern:
        raise _error(pattern, 0, "the pattern must not be empty")
    if len(pattern) > max_length:
        raise _error(pattern, max_length, f"the pattern is longer than {max_length} characters")
    parser = _Parser(pattern)
    tree = parser.parse()
    size = _size(tree)
    if size > MAX_COPIES:
        raise _error(
            pattern,
            parser.worst[1],
            f"the pattern is too large: its repetitions expand to {size} items, at most "
            f"{MAX_COPIES}",
        )
    return Pattern(pattern, _top(tree, rust=False), _top(tree, rust=True), tree)
