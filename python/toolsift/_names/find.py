"""The tool names written in a query's text (the exact-name tier): the candidate spans looked
up one by one (the specification), and the proof, in a few C-level passes, that most queries
name no tool.

Example:
    >>> from toolsift import Tool
    >>> from toolsift._names.table import NameTable
    >>> table = NameTable([Tool(name="search_graph"), Tool(name="read_file")])
    >>> table.finder.find_names("run search_graph on the repo")
    [((0,), 'run on the repo')]
    >>> table.finder.names_none("read the manual and more words")
    True
    >>> [ids for ids, _ in table.finder.find_names("read_file and search_graph")]
    [(1,), (0,)]
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from ..query import _QUOTED, MIN_SQUASHED_LENGTH, is_identifier, name_key, name_spans, without

if TYPE_CHECKING:
    from .._core import NameKeys

__all__ = ["MIN_KEY_LENGTH", "NameFinder"]

#: Normalised names shorter than this never match in a keyword query (``a``, ``go``, ``ls``);
#: ``select:`` still finds them.
MIN_KEY_LENGTH = 3
# The most keys whose "squashable" answer is memoised (bounded memory on huge tables).
_SQUASHABLE_MEMO = 65_536

# The fast path of :meth:`NameFinder.find_names` (ASCII text): every byte that is neither a
# lowercase ASCII letter or digit nor one of the whitespace characters ``str.split`` splits ASCII
# text on. Deleting them from the lowercased text leaves each word's normalised key (``name_key``)
# in place (``bytes.translate`` does it three times faster than a regex).
_ASCII_NOT_KEY = bytes(
    b
    for b in range(256)
    if not (b < 128 and (chr(b).islower() or chr(b).isdigit() or chr(b).isspace()))
)
# The ASCII characters that are neither letters, digits nor whitespace: a word stripped of them
# at both ends is its core.
_ASCII_PUNCT = "".join(c for c in map(chr, range(128)) if not c.isalnum() and not c.isspace())
#: Texts of at most this many words have the whole text as a name candidate (``name_spans``).
_WHOLE_TEXT_WORDS = 8
#: A list of names (:meth:`NameFinder.name_list`): at most this many words...
LIST_WORDS_MAX = 16
#: ...each a tool name or one of these joining words (by their normalised form).
LIST_JOINERS = frozenset({"and", "or", "then", "plus"})
_WORD = re.compile(r"\S+")


class NameFinder:
    """The search for the names a text holds, over one name table (a collaborator the table
    holds: :attr:`~toolsift._names.table.NameTable.finder`).

    Arguments:
        plain, qualified: the table's dicts of normalised name forms (their keys are read), each
            as its layers (an updated table's base dict and overlay dict).
        keys: the table's compiled key sets (``None`` without the extension).
        tools: what the table reads each tool's names from, by tool id.
        lookup_key: the table's tool ids of a normalised name form (live ids, ascending).
    """

    __slots__ = ("_keys", "_plain", "_qualified", "_squashable", "_tools", "lookup_key")

    def __init__(
        self,
        plain: Sequence[Mapping[str, Any]],
        qualified: Sequence[Mapping[str, Any]],
        keys: NameKeys | None,
        tools: Sequence[Any],
        lookup_key: Callable[[str], tuple[int, ...]],
    ) -> None:
        self._plain = plain
        self._qualified = qualified
        self._keys = keys
        self._tools = tools
        self.lookup_key = lookup_key
        #: Per key: whether a tool holding it has an identifier name (it depends on the live
        #: tools, so an updated table's finder starts empty).
        self._squashable: dict[str, bool] = {}

    @overload
    def find_names(
        self, text: str, *, spans: Literal[False] = False
    ) -> list[tuple[tuple[int, ...], str]]: ...

    @overload
    def find_names(
        self, text: str, *, spans: Literal[True]
    ) -> list[tuple[tuple[int, ...], int, int]]: ...

    @overload
    def find_names(
        self, text: str, *, spans: bool
    ) -> list[tuple[tuple[int, ...], str]] | list[tuple[tuple[int, ...], int, int]]: ...

    def find_names(
        self, text: str, *, spans: bool = False
    ) -> list[tuple[tuple[int, ...], str]] | list[tuple[tuple[int, ...], int, int]]:
        """The tool names written in a query's ranking text, as ``(tool ids, rest of the text)``
        (with ``spans``: ``(tool ids, start, end)``, the rest being
        ``toolsift.query.without(text, start, end)``, which costs a pass over the text).

        Candidates are :func:`toolsift.query.name_candidates` (the whole text, backticked
        phrases, identifier-like words), then :func:`toolsift.query.squashed_candidates` (plain
        words of 6+ characters such as ``searchgraph``), which only name tools whose own name is
        an identifier (``search_graph``; not ``health`` or ``_health``). A name found twice (or
        two spans naming the same tools) is kept once, at its first position. Keys shorter than
        :data:`MIN_KEY_LENGTH` are skipped. Per query: one dict lookup per candidate.

        Most queries name no tool. For those (long ASCII text without quotes) a few C-level
        passes prove it without looking at each candidate (:meth:`names_none`); every other
        query takes the candidate-by-candidate path (:meth:`find_names_slow`), which is the
        specification: both give the same list on every text.
        """
        if self.names_none(text):  # never true of a list of names (see name_list)
            return []
        return self.find_names_slow(text, spans=spans)

    def name_list(self, text: str) -> list[tuple[int, int, str]]:
        """The words of ``text`` as ``(start, end, word)`` name candidates when the text is a
        list of tool names, else ``[]``.

        A list of names is 2 to :data:`LIST_WORDS_MAX` words, each either a name of the table
        (any of a tool's names, case and separators aside, of at least :data:`MIN_KEY_LENGTH`
        characters; ``fetch``, ``git_status``, ``read_file,``) or a joining word
        (:data:`LIST_JOINERS`), with at least two names, one of them written as an identifier
        (``git_status``, ``getTime``: plain words alone, ``fetch time``, read as a phrase).
        Then every name word is a candidate, ordinary words such as ``fetch`` included; in any
        other text an ordinary word is not (``fetch the git status of a file`` names no tool).
        Per query: at most one dict lookup per word, stopping at the first word that is neither.

        A list holds an identifier word that names a tool, so :meth:`names_none` (both its
        forms) never proves that a list names nothing: the fast paths that skip the tier on that
        proof see no list either.
        """
        if text.count(" ") > 4 * LIST_WORDS_MAX:  # surely too many words (cheap, in C)
            return []
        out: list[tuple[int, int, str]] = []
        words = 0
        marked = False
        for m in _WORD.finditer(text):
            words += 1
            if words > LIST_WORDS_MAX:
                return []
            word = m.group()
            key = name_key(word)
            if key in LIST_JOINERS:
                continue
            if len(key) < MIN_KEY_LENGTH or not self.lookup_key(key):
                return []
            marked = marked or is_identifier(word)
            out.append((m.start(), m.end(), word))
        return out if marked and len(out) >= 2 else []

    def names_none(self, text: str) -> bool:
        """True only if :meth:`find_names_slow` finds nothing in ``text`` (False: not known).

        :meth:`names_none_py`'s proof, by the compiled extension where it loads
        (``toolsift._core.NameKeys``, the same steps; ~1 µs instead of ~5 on a long agent query):
        it says whether the text may name a tool, or which of its keys must not be squashed names.
        """
        keys = self._keys
        if keys is None:
            return self.names_none_py(text)
        if ("`" in text or '"' in text) and (not text.isascii() or self._quoted_name(text)):
            return False
        try:
            squashed = keys.names_none(text)
        except UnicodeEncodeError:  # lone surrogates, which UTF-8 cannot hold: the specification
            return self.names_none_py(text)
        if squashed is None:
            return False
        return not any(map(self._is_squashable, squashed))

    def _quoted_name(self, text: str) -> bool:
        """Whether a quoted phrase of ``text`` (a candidate of its own) is a name of the table."""
        for m in _QUOTED.finditer(text):
            key = name_key(next(g for g in m.groups() if g is not None).strip())
            if len(key) >= MIN_KEY_LENGTH and self.lookup_key(key):
                return True
        return False

    def names_none_py(self, text: str) -> bool:
        """:meth:`names_none` in Python: the specification of the compiled proof.

        For ASCII text: every quoted phrase must name no tool. A word's key is the word
        lowercased with every non-alphanumeric character removed (so one ``bytes.translate``
        gives every word's key; their concatenation is the whole text's key), and a word can
        name a tool only if its key is a key of the table. A key the text shares with the table
        (a *hit*: ``search``, ``translate``) names nothing when every word with that key is that
        word in lower, capitalised or upper case, edge punctuation aside (so not an identifier:
        no separator, no hump), and no tool it could be a squashed name of has an identifier
        name.
        """
        if not text.isascii():
            return False
        if ("`" in text or '"' in text) and self._quoted_name(text):
            # A quoted phrase is a candidate of its own (it may span words): it must name nothing.
            return False
        low = text.lower()
        keys = low.encode().translate(None, _ASCII_NOT_KEY).decode().split()
        qualified = self._qualified
        layers = (*self._plain, *qualified)
        if len(keys) <= _WHOLE_TEXT_WORDS:
            # The whole text (a short one) names a tool: lookup_key's test, inlined.
            whole = "".join(keys)
            if any(whole in layer for layer in layers):
                return False
            if whole.startswith("mcp") and any(whole[3:] in layer for layer in qualified):
                return False
        mcp = "mcp" in low
        if not mcp and all(layer.keys().isdisjoint(keys) for layer in layers):
            return True  # the common case: no word is a name form (no set is built)
        hits: set[str] = set()
        for layer in layers:
            hits.update(layer.keys() & keys)
        if mcp:
            hits.update(
                k
                for k in keys
                if k.startswith("mcp") and any(k[3:] in layer for layer in qualified)
            )
        if not hits:
            return True
        words = text.split()
        aligned = len(words) == len(keys)  # every word has a letter or digit: words[i] -> keys[i]
        cores = None if aligned else list(map(str.strip, words, itertools.repeat(_ASCII_PUNCT)))
        for key in hits:
            if len(key) >= MIN_SQUASHED_LENGTH and self._is_squashable(key):
                return False
            # A word whose core is the key in lower, capitalised or upper case has no separator
            # and no hump; if every word with this key is one, none of them is a name.
            forms = {key, key.capitalize(), key.upper()}
            if cores is not None:
                if keys.count(key) != sum(cores.count(form) for form in forms):
                    return False
                continue
            i = -1
            for _ in range(keys.count(key)):
                i = keys.index(key, i + 1)
                if words[i].strip(_ASCII_PUNCT) not in forms:
                    return False  # this word may be an identifier
        return True

    def _is_squashable(self, key: str) -> bool:
        """Some tool with normalised name form ``key`` has an identifier name (a squashed word
        ``key`` names it); memoised per key, as the hits of real queries repeat."""
        known = self._squashable.get(key)
        if known is None:
            tools = self._tools
            known = any(
                is_identifier(tools[i].mcp_tool_name or tools[i].name) for i in self.lookup_key(key)
            )
            if len(self._squashable) < _SQUASHABLE_MEMO:
                self._squashable[key] = known
        return known

    @overload
    def find_names_slow(
        self, text: str, *, spans: Literal[False] = False
    ) -> list[tuple[tuple[int, ...], str]]: ...

    @overload
    def find_names_slow(
        self, text: str, *, spans: Literal[True]
    ) -> list[tuple[tuple[int, ...], int, int]]: ...

    @overload
    def find_names_slow(
        self, text: str, *, spans: bool
    ) -> list[tuple[tuple[int, ...], str]] | list[tuple[tuple[int, ...], int, int]]: ...

    def find_names_slow(
        self, text: str, *, spans: bool = False
    ) -> list[tuple[tuple[int, ...], str]] | list[tuple[tuple[int, ...], int, int]]:
        """:meth:`find_names`, candidate by candidate: the specification of the fast path."""
        out: list[tuple[tuple[int, ...], int, int]] = []
        seen: set[tuple[int, ...]] = set()
        tools = self._tools
        listed = self.name_list(text)
        for squashed in (False, True):
            candidates = name_spans(text, squashed=squashed)
            if listed and not squashed:
                # A list of names: its words join the candidates, by position (the whole
                # text, when it is a candidate, stays first).
                whole = candidates[:1] if candidates and candidates[0][:2] == (0, len(text)) else []
                candidates = whole + sorted([*candidates[len(whole) :], *listed])
            for start, end, name in candidates:
                key = name.lower() if squashed and name.isascii() else name_key(name)
                if len(key) < MIN_KEY_LENGTH:
                    continue
                ids = self.lookup_key(key)
                if squashed and ids:
                    ids = tuple(
                        i for i in ids if is_identifier(tools[i].mcp_tool_name or tools[i].name)
                    )
                if ids and ids not in seen:
                    seen.add(ids)
                    out.append((ids, start, end))
        if spans:
            return out
        return [(ids, without(text, start, end)) for ids, start, end in out]
