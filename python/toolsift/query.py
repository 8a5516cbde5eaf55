"""The agent's query language, parsed once per call (Python owns per-call work; Rust the corpus).

Two forms (Claude Code ``ToolSearch``-compatible):

* ``select:A,B,C`` — fetch these tools by name, in this order (comma-separated, spaces tolerated,
  quotes and backticks stripped). Any of a tool's names works (:meth:`toolsift.Tool.aliases`).
  One longer than the query length cap is cut after its last whole name within the cap (never
  inside a name), and the result says how many names were left out (:func:`cut_notice`).
* anything else is a keyword query. A word written ``+term`` is *required*: a tool must contain
  every required term in some field, and required terms only filter (they add nothing to the
  score) unless the query has no other word, in which case they also rank.

The parser is lenient, as tantivy's ``parse_query_lenient`` is: it never raises on an odd agent
query except when nothing searchable is left (see :func:`parse_query`).

This is the one query parser. Its shortcut for the common query (no ``+required`` word, no
``select:``) is proven equal to the general path by a Hypothesis test
(``tests/test_fastpath.py::test_parse_query_shortcut_equals_the_general_path``).

Example:
    >>> q = parse_query("+slack send a message")
    >>> q.kind, q.text, q.required
    ('keyword', 'send a message', ('slack',))
    >>> parse_query("select: read_file, `write_file`").names
    ('read_file', 'write_file')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._text.tokenize import tokenize
from .errors import NO_SEARCHABLE_TERMS, QueryError
from .limits import MAX_NAME_LENGTH

__all__ = [
    "ParsedQuery",
    "parse_query",
    "check_query_text",
    "cut_notice",
    "name_key",
    "name_candidates",
    "squashed_candidates",
    "DEFAULT_MAX_QUERY_LENGTH",
]

#: Queries longer than this many characters are cut (a cap against abuse).
DEFAULT_MAX_QUERY_LENGTH = 500
#: The longest name a ``select:`` looks up when the name alone is over the query length cap: a
#: server-qualified alias (``mcp__SERVER__TOOL``) of two names at the name cap, with separators.
MAX_SELECT_NAME_LENGTH = 2 * MAX_NAME_LENGTH + 16

_SELECT = re.compile(r"select\s*:", re.IGNORECASE)
# Characters stripped from both ends of a name or word: quotes, backticks, brackets, punctuation.
_STRIP = "\"'`«»“”‘’()[]{}<>,;:!?*"
_NOT_ALNUM_ASCII = re.compile(r"[^a-z0-9]+")
_IDENTIFIER = re.compile(r"[^\W_][_./-]+[^\W_]|[a-z][A-Z]")
# A whitespace-delimited word that contains an identifier feature (one regex pass per query).
_IDENTIFIER_WORD = re.compile(r"(?<!\S)\S*?(?:[^\W_][_./-]+[^\W_]|[a-z][A-Z])\S*")
_HAS_ALNUM = re.compile(r"[^\W_]")
_LONG_WORD = re.compile(r"(?<!\S)\S{6,}")
# A phrase in backticks or double quotes (ASCII or typographic) is an explicit name candidate.
_QUOTED = re.compile(r'`([^`]+)`|"([^"]+)"|\u201c([^\u201d]+)\u201d')


def name_key(text: str) -> str:
    """The normalised form of a tool name: lowercase, separators removed.

    ``get_current_time``, ``getCurrentTime``, ``get-current-time`` and ``GET CURRENT TIME`` all
    give ``getcurrenttime``. It equals ``"".join(tokenize(text))`` (so non-ASCII names fold as the
    tokenizer folds them), with a fast path for ASCII.

    Example:
        >>> name_key("mcp__github__create_issue"), name_key("getCurrentTime")
        ('mcpgithubcreateissue', 'getcurrenttime')
    """
    if text.isascii():
        key = text.lower().replace("_", "").replace("-", "")  # the usual separators, fast
        return key if key.isalnum() else _NOT_ALNUM_ASCII.sub("", key)
    return "".join(tokenize(text))


@dataclass(frozen=True)
class ParsedQuery:
    """A query as the engine will run it.

    Attributes:
        query: the trimmed query, cut to the length cap.
        kind: ``"select"`` or ``"keyword"``.
        names: for ``select``, the asked names in order, without duplicates.
        text: for ``keyword``, the ranking text (every word that is not ``+required``). When the
            query has only required words, it is those words, so they rank.
        required: for ``keyword``, the required words without their ``+``, in order.
        truncated: the query was cut to the length cap (a ``select:`` after a whole name).
        dropped: for a cut ``select:``, how many names after the cut were not looked up.
    """

    query: str
    kind: str
    names: tuple[str, ...] = ()
    text: str = ""
    required: tuple[str, ...] = ()
    truncated: bool = False
    dropped: int = 0


_new = object.__new__

#: What a query is trimmed of: Python's whitespace (``str.strip()``) and U+FEFF, the byte-order
#: mark, which JavaScript's ``trim()`` also removes and ``str.strip()`` keeps.
TRIMMED = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"  # noqa: E501
# The common-query shortcut of parse_query (tests turn it off to compare with the general path).
_FAST_PARSE = True


def check_query_text(query: object, what: str = "Query") -> str:
    """``query`` trimmed, or the ``QueryError`` of a query that is not a string or is empty
    once trimmed (every caller's check: the search calls and the meta-tool's arguments).
    ``what`` names the argument in the message (the regex meta-tool's is ``Pattern``).

    Example:
        >>> check_query_text("  read a file ")
        'read a file'
        >>> check_query_text(" ", "Pattern")
        Traceback (most recent call last):
        ...
        toolsift.errors.QueryError: Pattern must not be empty.
    """
    if not isinstance(query, str):
        raise QueryError(f"{what} must be a string, got {type(query).__name__}.")
    query = query.strip(TRIMMED)
    if not query:
        raise QueryError(f"{what} must not be empty.")
    return query


def parse_query(query: object, *, max_length: int = DEFAULT_MAX_QUERY_LENGTH) -> ParsedQuery:
    """Parses an agent's query.

    Arguments:
        query: the raw query.
        max_length: queries longer than this (after trimming) are cut to it.

    Raises:
        QueryError: the query is not a string, is empty after trimming, is ``select:`` with no
            name, or (keyword form) has no letter or number.
    """
    query = check_query_text(query)
    truncated = len(query) > max_length
    dropped = 0
    if truncated:
        select = _SELECT.match(query)
        if select:
            query, dropped = _cut_select(query, select.end(), max_length)
            truncated = dropped > 0
        else:
            query = query[:max_length].rstrip()
    if _FAST_PARSE and "+" not in query and (":" not in query or query[:1] not in "sS\u017f"):
        # The common query: no ``+required`` word, and no ``select:`` (which starts the query
        # and holds a colon; ``ſ`` is an ``s`` to the case-insensitive regex). The loop below
        # would keep every word, so the ranking text is the words joined by single spaces.
        text = " ".join(query.split())
        if not _HAS_ALNUM.search(text):
            raise QueryError(NO_SEARCHABLE_TERMS)
        parsed = _new(ParsedQuery)
        parsed.__dict__.update(
            query=query,
            kind="keyword",
            names=(),
            text=text,
            required=(),
            truncated=truncated,
            dropped=0,
        )
        return parsed
    select = _SELECT.match(query)
    if select:
        names: dict[str, None] = {}
        for part in query[select.end() :].split(","):
            name = part.strip().strip(_STRIP).strip()
            if name:
                names[name] = None
        if not names:
            raise QueryError("select: needs at least one tool name, e.g. select:read_file.")
        return ParsedQuery(
            query, "select", names=tuple(names), truncated=truncated, dropped=dropped
        )
    free: list[str] = []
    required: dict[str, None] = {}
    for word in query.split():
        if word.startswith("+") and len(word) > 1:
            for term in tokenize(word[1:]):
                required[term] = None
        else:
            free.append(word)
    text = " ".join(free)
    # A cheap "has a letter or number"; the engine's tokenizer has the last word (QueryError).
    if not _HAS_ALNUM.search(text):
        if not required:
            raise QueryError(NO_SEARCHABLE_TERMS)
        text = " ".join(required)
    return ParsedQuery(
        query,
        "keyword",
        text=text,
        required=tuple(required),
        truncated=truncated,
    )


def _names_in(text: str) -> int:
    """How many names a ``select:`` list holds (empty parts are not names)."""
    return sum(1 for part in text.split(",") if part.strip().strip(_STRIP).strip())


def _cut_select(query: str, start: int, max_length: int) -> tuple[str, int]:
    """``(query, dropped)``: a ``select:`` over ``max_length`` characters cut after its last
    whole name within them, and how many names it left out. A first name alone over the cap is
    kept whole when a tool could have it (at most :data:`MAX_SELECT_NAME_LENGTH` characters).

    Raises:
        QueryError: the first name is longer than any tool's name.
    """
    end = query.rfind(",", start, max_length + 1)  # a comma just past the cap ends a whole name
    if end < 0 or not _names_in(query[start:end]):
        # No whole name fits within the cap: the first name, whole, if a tool could have it.
        end = query.find(",", start, start + MAX_SELECT_NAME_LENGTH + 1)
        if end < 0:
            end = len(query)
        first = query[start:end].strip().strip(_STRIP).strip()
        if len(first) > MAX_SELECT_NAME_LENGTH:
            raise QueryError(
                f"select: a name of more than {MAX_SELECT_NAME_LENGTH:,} characters is longer "
                "than any tool name; separate names with commas, e.g. select:read_file,git_status."
            )
    return query[:end].rstrip(), _names_in(query[end:])


def cut_notice(parsed: ParsedQuery, max_length: int) -> str:
    """The notice of a query cut at the length cap (``""`` if it was not cut).

    Example:
        >>> parsed = parse_query("select:read_file,git_status,a,b", max_length=28)
        >>> parsed.names, parsed.dropped
        (('read_file', 'git_status'), 2)
        >>> cut_notice(parsed, 28)
        'select: cut at the 28-character query cap after 2 names; 2 more not looked up'
    """
    if not parsed.truncated:
        return ""
    if parsed.kind == "select":
        kept = len(parsed.names)
        return (
            f"select: cut at the {max_length}-character query cap after {kept} "
            f"name{'' if kept == 1 else 's'}; {parsed.dropped} more not looked up"
        )
    return f"query cut to {max_length} characters"


def without(text: str, start: int, end: int) -> str:
    """``text`` without ``text[start:end]``, whitespace collapsed."""
    return " ".join(f"{text[:start]} {text[end:]}".split())


def is_identifier(word: str) -> bool:
    """``read_file``, ``fs/read_file``, ``getCurrentTime``: not an ordinary word."""
    return _IDENTIFIER.search(word) is not None


def name_candidates(text: str, max_words: int = 8) -> tuple[tuple[str, str], ...]:
    """The spans of ``text`` that the exact-name tier looks up, each with the rest of the text.

    The whole text first, when it has at most ``max_words`` words (``search_graph``,
    ``read file``); then, in query order:

    * every backticked or double-quoted phrase (`` `search` ``, ``"fetch"``, ``“get code
      snippet”``): the writer marked it, so it is looked up as a name;
    * every word that looks like an identifier: letters or digits joined by ``_ - . /``, or a
      camelCase hump (``get_code_snippet``, ``fs/read_file``, ``getCurrentTime``).

    Unmarked ordinary words (``search``, ``vault``, ``New``) are not candidates on their own:
    measured on mcp_mixed's 1,243 labelled queries, treating every word as a possible name put
    unrelated tools first in a third of them. Quoted words are; a quote
    can also be content (``say "Hello"``), which costs mcp_mixed's 20 quoted queries 0.001
    nDCG@10, and a name brings at most 3 tools.
    A long plain word may still be a name typed without its separators (``searchgraph``): see
    :func:`squashed_candidates`.

    Example:
        >>> for name, rest in name_candidates("use `search_graph` then trace_path"):
        ...     print(f"{name!r:40} rest: {rest!r}")
        'use `search_graph` then trace_path'     rest: ''
        'search_graph'                           rest: 'use then trace_path'
        'trace_path'                             rest: 'use `search_graph` then'
    """
    return tuple(
        (name, without(text, a, b)) for a, b, name in name_spans(text, max_words, squashed=False)
    )


def squashed_candidates(text: str) -> tuple[tuple[str, str], ...]:
    """Plain words of at least :data:`MIN_SQUASHED_LENGTH` letters or digits (``searchgraph``,
    ``getcurrenttime``) with the rest of the text: names typed lowercase without separators.

    The exact-name tier accepts such a word only for a tool whose own name has separators or
    case humps, so ``weather`` never promotes a tool named ``weather``.
    """
    return tuple((name, without(text, a, b)) for a, b, name in name_spans(text, 0, squashed=True))


#: The shortest plain word tried as a name typed without separators.
MIN_SQUASHED_LENGTH = 6


def name_spans(text: str, max_words: int = 8, *, squashed: bool) -> list[tuple[int, int, str]]:
    """``(start, end, name)`` candidates of one kind (see :func:`name_candidates` and
    :func:`squashed_candidates`), by position; the whole text is ``(0, len(text), text)``."""
    out: list[tuple[int, int, str]] = []
    quoted_spans: list[tuple[int, int]] = []
    if "`" in text or '"' in text or "\u201c" in text:
        for m in _QUOTED.finditer(text):
            phrase = next(g for g in m.groups() if g is not None).strip()
            quoted_spans.append(m.span())
            if phrase and not squashed:
                out.append((m.start(), m.end(), phrase))
    if squashed:
        for m in _LONG_WORD.finditer(text):
            if quoted_spans and any(a <= m.start() < b for a, b in quoted_spans):
                continue
            word = m.group().strip(_STRIP)
            if len(word) >= MIN_SQUASHED_LENGTH and word.isalnum():
                out.append((m.start(), m.end(), word))
        return out
    words = text.split()
    for m in _IDENTIFIER_WORD.finditer(text):
        if quoted_spans and any(a <= m.start() < b for a, b in quoted_spans):
            continue
        word = m.group().strip(_STRIP)
        if word and is_identifier(word) and len(words) != 1:
            out.append((m.start(), m.end(), word))
    out.sort(key=lambda span: span[0])
    if 0 < len(words) <= max_words:
        out.insert(0, (0, len(text), text))
    return out
