"""The agent's query language, parsed once per call (Python owns per-call work; Rust the corpus).

Two forms (seed 001):

* ``select:A,B,C`` — fetch these tools by name, in this order (comma-separated, spaces tolerated,
  quotes and backticks stripped). Any of a tool's names works (:meth:`toolsift.Tool.aliases`).
* anything else is a keyword query. A word written ``+term`` is *required*: a tool must contain
  every required term in some field, and required terms only filter (they add nothing to the
  score) unless the query has no other word, in which case they also rank.

The parser is lenient, as tantivy's ``parse_query_lenient`` is: it never raises on an odd agent
query except when nothing searchable is left (see :func:`parse_query`).

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

from ._tokenize import tokenize
from .errors import QueryError

__all__ = ["ParsedQuery", "parse_query", "name_key", "DEFAULT_MAX_QUERY_LENGTH"]

#: Queries longer than this many characters are cut (seed 002's ``MAX_SEARCH_QUERY_LEN`` idea).
DEFAULT_MAX_QUERY_LENGTH = 500

_SELECT = re.compile(r"select\s*:", re.IGNORECASE)
# Characters stripped from both ends of a name or word: quotes, backticks, brackets, punctuation.
_STRIP = "\"'`«»“”‘’()[]{}<>,;:!?*"
_NOT_ALNUM_ASCII = re.compile(r"[^a-z0-9]+")


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
        return _NOT_ALNUM_ASCII.sub("", text.lower())
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
        words: for ``keyword``, the words of the ranking text, stripped of quotes and backticks
            (the exact-name tier looks for tool names in them).
        truncated: the query was cut to the length cap.
    """

    query: str
    kind: str
    names: tuple[str, ...] = ()
    text: str = ""
    required: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    truncated: bool = False


def parse_query(query: object, *, max_length: int = DEFAULT_MAX_QUERY_LENGTH) -> ParsedQuery:
    """Parses an agent's query.

    Arguments:
        query: the raw query.
        max_length: queries longer than this (after trimming) are cut to it.

    Raises:
        QueryError: the query is not a string, is empty after trimming, is ``select:`` with no
            name, or (keyword form) has no letter or number.
    """
    if not isinstance(query, str):
        raise QueryError(f"Query must be a string, got {type(query).__name__}.")
    query = query.strip()
    if not query:
        raise QueryError("Query must not be empty.")
    truncated = len(query) > max_length
    if truncated:
        query = query[:max_length].rstrip()
    select = _SELECT.match(query)
    if select:
        names: dict[str, None] = {}
        for part in query[select.end() :].split(","):
            name = part.strip().strip(_STRIP).strip()
            if name:
                names[name] = None
        if not names:
            raise QueryError("select: needs at least one tool name, e.g. select:read_file.")
        return ParsedQuery(query, "select", names=tuple(names), truncated=truncated)
    free: list[str] = []
    required: dict[str, None] = {}
    for word in query.split():
        if word.startswith("+") and len(word) > 1:
            for term in tokenize(word[1:]):
                required[term] = None
        else:
            free.append(word)
    text = " ".join(free)
    if not tokenize(text):
        if not required:
            raise QueryError("Query must contain at least one letter or number.")
        text = " ".join(required)
    words = tuple(w for w in (word.strip(_STRIP) for word in free) if w)
    return ParsedQuery(
        query, "keyword", text=text, required=tuple(required), words=words, truncated=truncated
    )
