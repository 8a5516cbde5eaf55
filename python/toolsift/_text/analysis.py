"""Analysis profiles for the pure-Python engine: the same rules as ``rust/analysis.rs``.

A profile says how text becomes index terms and query terms, on top of the tokenizer
(:func:`toolsift.tokenize`). ``rust/analysis.rs`` documents the rules; in short:

* ``"omp"``: the analysis of OMP ``search_tool_bm25``. Terms are the tokens; repeated query terms
  count. ``"seed"`` is accepted as another name for it (:func:`check_profile` turns it into
  ``"omp"``).
* ``"english"`` (``ToolIndex``'s default): tokens are split at Han / Kana / Hangul / other
  boundaries and CJK runs become character bigrams (Hangul recomposed into syllables first);
  every term of a scored field is indexed again as ``§`` + its Snowball English stem at half the
  field's weight (all-ASCII terms are stemmed, others copied unchanged); queries drop
  :data:`STOPWORDS_EN` (unless nothing else is left), count each distinct term once, and ask for
  the stemmed copies too, each right after its word (unless an earlier word brought it).

Stemming uses ``snowballstemmer`` 2.2 (pure Python, so the engine still needs no compiler), whose
English algorithm is the one of the Rust engine's ``rust-stemmers`` 1.2.

Example:
    >>> query_terms("english", "How do I read files?")
    ['read', '§read', 'files', '§file']
    >>> terms("english", "获取天气 weather")
    ['获取', '取天', '天气', 'weather']
"""

from __future__ import annotations

from typing import Callable, Literal

from ..errors import ProfileError
from .tokenize import tokenize

__all__ = [
    "PROFILES",
    "PROFILE_ALIASES",
    "DEFAULT_PROFILE",
    "STOPWORDS_EN",
    "STEM_MARK",
    "STEM_WEIGHT",
    "STEM_QUERY_WEIGHT",
    "ProfileName",
    "check_profile",
    "terms",
    "split_cjk",
    "query_terms",
    "required_terms",
    "stem_copy",
    "is_marked",
    "analyze",
]

ProfileName = Literal["english", "omp"]

#: The analysis profiles, by name.
PROFILES: tuple[str, ...] = ("english", "omp")

#: Other names a profile is accepted under, and never printed: ``"seed"``, the profile's former
#: name, so that code and config files that use it keep working.
PROFILE_ALIASES: dict[str, ProfileName] = {"seed": "omp"}

#: The profile ``ToolIndex`` uses unless told otherwise.
DEFAULT_PROFILE: ProfileName = "english"

#: English stop words, dropped from queries by the ``"english"`` profile (never from documents):
#: the Lucene/Elasticsearch ``_english_`` list plus common question and request words of agent
#: queries. ``rust/analysis.rs`` has the same list (``tests/test_analysis.py`` compares them).
STOPWORDS_EN = frozenset(
    """a an and are as at be but by for if in into is it no not of on or such that the their then
    there these they this to was will with i me my we our you your he she him her its them what
    which who whom when where why how can could would should do does did have has had am been
    being please want need help using use via from about any some all also so than too very just
    get""".split()
)

#: The prefix of stemmed copies: ``§``, which the tokenizer never emits.
STEM_MARK = "\u00a7"

#: The weight of a stemmed copy, as a fraction of its field's weight.
STEM_WEIGHT = 0.5

#: The query-term frequency a stemmed copy counts for in a query (a plain term: 1 an occurrence);
#: the Rust engine's ``analysis::STEM_QUERY_WEIGHT``, where the measurements are.
STEM_QUERY_WEIGHT = 2.0


def check_profile(profile: object) -> ProfileName:
    """The profile ``profile`` names (an alias such as ``"seed"`` gives ``"omp"``);
    :class:`~toolsift.errors.ProfileError` if it names none.

    Example:
        >>> check_profile("omp")
        'omp'
    """
    if profile == "english" or profile == "omp":
        return profile  # type: ignore[return-value]
    if isinstance(profile, str) and profile in PROFILE_ALIASES:
        return PROFILE_ALIASES[profile]
    raise ProfileError(
        f'Unknown analysis profile "{profile}": use "english" (the default) or "omp".'
    )


def _is_han(cp: int) -> bool:
    return (
        0x3005 <= cp <= 0x3007
        or 0x3400 <= cp <= 0x4DBF
        or 0x4E00 <= cp <= 0x9FFF
        or 0xF900 <= cp <= 0xFAFF
        or 0x20000 <= cp <= 0x3FFFF
    )


def _script(c: str) -> int:
    """0 other, 1 Han, 2 Kana, 3 Hangul (the classes of ``script_of`` in ``rust/analysis.rs``)."""
    cp = ord(c)
    if cp < 0x1100:
        return 0
    if _is_han(cp):
        return 1
    if (
        0x3040 <= cp <= 0x30FF
        or 0x31F0 <= cp <= 0x31FF
        or 0xFF66 <= cp <= 0xFF9F
        or 0x1B000 <= cp <= 0x1B16F
    ):
        return 2
    if (
        0x1100 <= cp <= 0x11FF
        or 0x3130 <= cp <= 0x318F
        or 0xA960 <= cp <= 0xA97F
        or 0xAC00 <= cp <= 0xD7FF
        or 0xFFA0 <= cp <= 0xFFDC
    ):
        return 3
    return 0


def _compose_hangul(chars: list[str], c: str) -> bool:
    """Composes ``c`` into ``chars[-1]`` (Unicode §3.12: L+V, LV+T); False if it does not."""
    if not chars:
        return False
    p, x = ord(chars[-1]), ord(c)
    if 0x1100 <= p <= 0x1112 and 0x1161 <= x <= 0x1175:
        chars[-1] = chr(0xAC00 + ((p - 0x1100) * 21 + (x - 0x1161)) * 28)
        return True
    if 0xAC00 <= p <= 0xD7A3 and (p - 0xAC00) % 28 == 0 and 0x11A8 <= x <= 0x11C2:
        chars[-1] = chr(p + (x - 0x11A7))
        return True
    return False


def _cjk_split(tok: str, out: list[str]) -> None:
    """Appends the terms of one token (see ``rust/analysis.rs``)."""
    if tok.isascii():
        out.append(tok)
        return
    chars: list[str] = []
    for c in tok:
        if not _compose_hangul(chars, c):
            chars.append(c)
    n = len(chars)
    start = 0
    while start < n:
        script = _script(chars[start])
        end = start + 1
        while end < n and _script(chars[end]) == script:
            end += 1
        if script == 0 or end - start == 1:
            out.append("".join(chars[start:end]))
        else:
            out.extend(chars[i] + chars[i + 1] for i in range(start, end - 1))
        start = end


def split_cjk(tokens: list[str]) -> list[str]:
    """The ``"english"`` profile's CJK split of each token (see the module docstring).

    Example:
        >>> split_cjk(["获取天气", "weather"])
        ['获取', '取天', '天气', 'weather']
    """
    out: list[str] = []
    for tok in tokens:
        _cjk_split(tok, out)
    return out


def terms(profile: str, text: str) -> list[str]:
    """The plain terms of ``text``: its tokens, CJK-split in the ``"english"`` profile.

    Example:
        >>> terms("english", "東京タワー")
        ['東京', 'タワ', 'ワー']
    """
    tokens = tokenize(text)
    if profile == "omp":
        return tokens
    out: list[str] = []
    for tok in tokens:
        _cjk_split(tok, out)
    return out


def required_terms(profile: str, term: str) -> list[str]:
    """The plain terms a required term (``+term``, one token) must all be found as.

    Example:
        >>> required_terms("english", "天气预报")
        ['天气', '气预', '预报']
    """
    if profile == "omp":
        return [term]
    out: list[str] = []
    _cjk_split(term, out)
    return out


_STEM_CACHE: dict[str, str] = {}
_stem_word: Callable[[str], str] | None = None


def _stemmer() -> Callable[[str], str]:
    global _stem_word
    if _stem_word is None:
        # The pure-Python stemmer itself: snowballstemmer.stemmer() would hand over to PyStemmer
        # when installed, whose Snowball 3 English differs from rust-stemmers'.
        from snowballstemmer.english_stemmer import EnglishStemmer

        _stem_word = EnglishStemmer().stemWord
    return _stem_word


#: The longest term that is stemmed (characters; the Rust engine's ``MAX_STEM_LENGTH``): the
#: Snowball algorithm is quadratic in the word's length, and no English word is this long; a
#: longer term's stemmed copy is the term itself, in both engines.
MAX_STEM_LENGTH = 64


def stem_copy(term: str) -> str:
    """The stemmed copy of a plain term: ``§`` + its Porter2 stem (all-ASCII terms of at most
    :data:`MAX_STEM_LENGTH` characters) or ``§`` + the term (others).

    Example:
        >>> stem_copy("running")
        '§run'
    """
    copy = _STEM_CACHE.get(term)
    if copy is None:
        copy = STEM_MARK + (
            _stemmer()(term) if term.isascii() and len(term) <= MAX_STEM_LENGTH else term
        )
        if len(_STEM_CACHE) < 1 << 20:
            _STEM_CACHE[term] = copy
    return copy


def is_marked(term: str) -> bool:
    """Whether ``term`` is a stemmed copy."""
    return term.startswith(STEM_MARK)


def query_terms(profile: str, query: str) -> list[str]:
    """The query terms of ``query``, in order (see the module docstring).

    Example:
        >>> query_terms("omp", "a a b")
        ['a', 'a', 'b']
    """
    plain = terms(profile, query)
    if profile == "omp":
        return plain
    kept = [t for t in plain if t not in STOPWORDS_EN] or plain
    out: list[str] = []
    copies: set[str] = set()
    for t in dict.fromkeys(kept):
        out.append(t)
        copy = stem_copy(t)
        if copy not in copies:  # a copy never equals a plain term (it starts with the mark)
            copies.add(copy)
            out.append(copy)
    return out


def analyze(text: str, *, profile: str = "english", query: bool = False) -> list[str]:
    """The terms an index with ``profile`` makes of ``text`` (``toolsift._core.analyze``'s twin):
    its query terms, or its document terms, each plain term followed by its stemmed copy where
    the profile makes one.

    Example:
        >>> analyze("reading files")
        ['reading', '§read', 'files', '§file']
    """
    profile = check_profile(profile)
    if query:
        return query_terms(profile, text)
    plain = terms(profile, text)
    if profile == "omp":
        return plain
    out: list[str] = []
    for t in plain:
        out.append(t)
        out.append(stem_copy(t))
    return out
