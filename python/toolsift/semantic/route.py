"""What kind of query this is, for the semantic ranking: names, a keyword query, a natural
request or a whole task.

* ``"names"``: the query is made only of tool names or identifiers (``read_file``,
  ``getWeather``, ``github.create_issue``), quoted words, or a list of them. The user knows the
  words; the lexical ranking is kept as it is.
* ``"keyword"``: a few content words with no sentence around them (``pdf merge``,
  ``weather forecast``). Also kept in lexical order: word matches are what such a query means.
* ``"task"``: a request of several steps (``... and then ...``, ``...; ...``, ``... and export
  as ...``): :mod:`toolsift.semantic.tasks` ranks each step.
* ``"natural"``: any other request, ranked by the fusion of words and meaning
  (:mod:`toolsift.semantic.fusion`).

Example:
    >>> route("read_file").kind, route("weather forecast").kind
    ('names', 'keyword')
    >>> route("How do I get tomorrow's forecast for Paris?").kind
    'natural'
    >>> route("Find the latest sales report, then email it to my manager").kind
    'task'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .tasks import split_intents

__all__ = ["Route", "route", "QUESTION_WORDS", "STOP_WORDS"]

#: Words that make a text a sentence rather than a list of keywords.
STOP_WORDS = frozenset(
    """a an the i me my we our you your it its is are was were be been am do does did can could
    would should will shall may might must to of in on at for from by with about into over how what
    which who whom whose when where why please want need help some any all this that these those
    there their them they he she his her him us and or but if so than then also just not no
    """.split()
)
#: Words that open a question or a request.
QUESTION_WORDS = frozenset("how what which who when where why can could would please".split())

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_QUOTED = re.compile(r"\"[^\"]+\"|`[^`]+`|“[^”]+”|'[^']+'(?!\w)")
# An identifier: snake_case, kebab-case, dotted or slashed paths, camelCase, double underscores.
_IDENT = re.compile(
    r"^[A-Za-z_@][\w@]*(?:[._/:-][\w@]+)+$"
    r"|^_*[a-z0-9]+(?:[A-Z][a-z0-9]*)+$"
    r"|^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$"
)
#: A quoted phrase of more words than this is read as text, not as a name.
_MAX_QUOTED_WORDS = 3
_LIST_SEPARATORS = re.compile(r"\s*(?:,|;|\||\band\b|\bor\b|\s)\s*")


@dataclass(frozen=True)
class Route:
    """How a query is read.

    Attributes:
        kind: ``"names"``, ``"keyword"``, ``"natural"`` or ``"task"``.
        words: the query's words, lower-cased (letters and digits).
        content_words: those that are not :data:`STOP_WORDS`.
        identifier_fraction: share of the query's space-separated pieces that are identifiers
            or quoted words (0..1).
        quoted: the query holds a quoted word or phrase.
    """

    kind: str
    words: tuple[str, ...]
    content_words: tuple[str, ...]
    identifier_fraction: float
    quoted: bool


def _maybe_identifier(piece: str) -> bool:
    """False only for a piece that cannot be an identifier: letters and digits with no
    upper-case letter after the first (every identifier pattern needs a separator or a hump)."""
    return not piece.isalnum() or not (piece[1:].islower() or piece[1:].isdigit() or len(piece) < 2)


def is_identifier(piece: str) -> bool:
    """``piece`` looks like a tool name or code identifier (not a plain word).

    Example:
        >>> is_identifier("read_file"), is_identifier("getWeather"), is_identifier("weather")
        (True, True, False)
    """
    piece = piece.strip("()[]{}<>,;!?\"'`")
    return bool(piece) and _IDENT.match(piece) is not None and any(c.isalpha() for c in piece)


def _names_only(query: str) -> bool:
    """The query is identifiers and quoted words, alone or as a list."""
    if any(len(q.split()) > _MAX_QUOTED_WORDS for q in _QUOTED.findall(query)):
        return False  # a quoted sentence is a request, not a name
    rest = _QUOTED.sub(" ", query)
    had_quote = rest != query
    pieces = [p for p in _LIST_SEPARATORS.split(rest.strip()) if p]
    if not pieces:
        return had_quote
    return all(is_identifier(p) for p in pieces)


def route(query: str) -> Route:
    """Classify ``query`` (pure, about 10 µs).

    Example:
        >>> route("read_file, write_file and list_directory").kind
        'names'
        >>> route('"pull request"').kind
        'names'
    """
    words = tuple(w.lower() for w in _WORD.findall(query))
    content = tuple(w for w in words if w not in STOP_WORDS)
    pieces = query.split()
    quoted = _QUOTED.search(query) is not None
    idents = sum(1 for p in pieces if _maybe_identifier(p) and is_identifier(p))
    quoted_words = sum(
        n for n in (len(q.split()) for q in _QUOTED.findall(query)) if n <= _MAX_QUOTED_WORDS
    )
    fraction = min(1.0, (idents + quoted_words) / max(len(pieces), 1))
    if pieces and (idents or quoted) and _names_only(query):
        kind = "names"
    elif (
        words
        and len(words) <= 3
        and len(content) == len(words)
        and not query.rstrip().endswith("?")
    ):
        kind = "keyword"
    elif len(split_intents(query)) > 1:
        kind = "task"
    else:
        kind = "natural"
    return Route(kind, words, content, fraction, quoted)
