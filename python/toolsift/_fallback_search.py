"""Scoring and search for the pure-Python engine: the BM25+ sums of ``toolsift._fallback.Index``.

:class:`_Search` holds the query side of :class:`~toolsift._fallback.Index`: ``search``,
``search_many``, ``score_documents`` and ``explain``, the score accumulation (the same IEEE-754
double operations in the same order as ``rust/index/search.rs``), prefix expansion of unknown query
terms, required terms and the option checks. :class:`_Fields` types the index's data for both
mixins and derives the length norms.

Example:
    >>> from toolsift._fallback import Index
    >>> idx = Index(["a", "b"], [[(0, "read file")], [(0, "read write")]], [1.0])
    >>> [doc for doc, _ in idx.search("wri", 5, prefix_fraction=0.5)]
    [1]
    >>> idx.explain("wri", 1, prefix_fraction=0.5)[0][:3]
    ('wri', 'write', True)
"""

from __future__ import annotations

import heapq
import math
import operator
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence

from ._analysis import STEM_QUERY_WEIGHT, ProfileName, is_marked, query_terms, required_terms
from .errors import LimitError, QueryError
from .result import Match, MatchReason, new_matches
from .tools import Tool


def _check_text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


#: The largest field weight (``build::MAX_FIELD_WEIGHT``): term frequencies are float32 sums of
#: weights, which a larger weight could overflow to infinity (a NaN score).
MAX_FIELD_WEIGHT = 1e30

#: The largest count option passed on (``prefix_min_len``, ``max_expansions``): a larger value
#: acts as this one (no term is that long, no term has that many expansions), and it fits the
#: Rust engine's ``usize`` on every platform.
MAX_COUNT_OPTION = 2**31 - 1


def as_real(value: object, what: str) -> float:
    """``value`` as a float, for an option that must be a real number (an int, a float, a numpy
    scalar): a ``str`` is a ``TypeError`` here, as in the Rust engine, where ``float()`` would
    parse it.

    Example:
        >>> as_real(1, "threshold")
        1.0
    """
    if isinstance(value, (str, bytes, bytearray)) or not (
        hasattr(type(value), "__float__") or hasattr(type(value), "__index__")
    ):
        raise TypeError(f"{what} must be a number, got {type(value).__name__}")
    return float(value)  # type: ignore[arg-type]  # it has __float__ or __index__


def as_count(value: object, what: str) -> int:
    """``value`` as an int >= 0 (``TypeError`` for a float or str, ``ValueError`` below 0),
    capped at :data:`MAX_COUNT_OPTION`, which means the same.

    Example:
        >>> as_count(10**20, "max_expansions") == MAX_COUNT_OPTION
        True
    """
    try:
        count = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{what} must be an int, got {type(value).__name__}") from None
    if count < 0:
        raise ValueError(f"{what} must be >= 0, got {count}")
    return min(count, MAX_COUNT_OPTION)


def check_limit(limit: object) -> int:
    """``limit`` must be an int (not a bool) >= 1. Same message as the Rust engine."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise LimitError(f"Limit must be a positive integer, got {limit!r}.")
    return limit


def _idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


class _Fields:
    """The data of a :class:`~toolsift._fallback.Index`: its slots and their types, declared once
    for the class and the mixins it is made of."""

    __slots__ = (
        "_names",
        "_postings",
        "_presence",
        "_sorted_terms",
        "_norms",
        "_lengths",
        "_avg",
        "_params",
        "_n",
        "_weights",
        "_profile",
    )

    _names: list[str]
    _postings: dict[str, tuple[array, array, float]]  # term -> (docs, float32 tfs, idf)
    _presence: dict[str, array]  # term -> docs holding it in weight-0 fields only
    _sorted_terms: list[str]
    _norms: list[float]
    _lengths: list[float]
    _avg: float
    _params: tuple[float, float, float]
    _n: int
    _weights: tuple[float, ...]
    _profile: ProfileName

    def _set_lengths(self, lengths: list[float], n: int) -> None:
        """The document lengths, their average (a left-to-right sum, not ``sum()``, which
        compensates on Python >= 3.12) and each document's BM25 length norm."""
        total = 0.0
        for length in lengths:
            total += length
        avg = total / n if n else 1.0
        self._avg = avg if (math.isfinite(avg) and avg != 0.0) else 1.0
        k1, b, _ = self._params
        self._lengths = lengths
        self._norms = [k1 * (1.0 - b + b * (length / self._avg)) for length in lengths]
        self._n = n


class _Search(_Fields):
    """The query side of :class:`~toolsift._fallback.Index` (a mixin)."""

    __slots__ = ()

    def search(
        self,
        query: str,
        limit: int,
        exclude: Iterable[int] | None = None,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
        threshold: float = 0.0,
        relative_floor: float = 0.0,
        coverage: bool = False,
    ) -> list[tuple[int, float]]:
        """Top ``limit`` ``(doc id, score)`` pairs, score descending then name ascending."""
        tokens = query_terms(self._profile, _check_text(query, "query"))
        limit = check_limit(limit)
        opts = _Options(
            exclude, include, required, prefix_fraction, prefix_min_len, max_expansions,
            threshold, relative_floor, coverage,
        )  # fmt: skip
        if not tokens:
            raise QueryError("Query must contain at least one letter or number.")
        return self._search(tokens, limit, opts, self._required_sets(opts.required))

    def search_matches(
        self,
        tools: Sequence[Tool],
        reason: MatchReason,
        query: str,
        limit: int,
        exclude: Iterable[int] | None = None,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
        threshold: float = 0.0,
        relative_floor: float = 0.0,
        coverage: bool = False,
    ) -> list[Match]:
        """:meth:`search`'s hits as :class:`~toolsift.Match` objects of ``tools[id]``."""
        hits = self.search(
            query, limit, exclude, include, required, prefix_fraction, prefix_min_len,
            max_expansions, threshold, relative_floor, coverage,
        )  # fmt: skip
        return new_matches(tools, hits, reason)

    def _search(
        self, tokens: list[str], limit: int, opts: _Options, req: list[set[int]] | None
    ) -> list[tuple[int, float]]:
        """``search`` after validation; ``req`` is ``_required_sets(opts.required)``."""
        if not self._n or req is None:
            return []
        acc, matched, known = self._accumulate(tokens, opts)
        min_matched = (known + 1) // 2 if opts.coverage and known >= 4 else 0
        names = self._names
        excluded = opts.exclude
        # One cheap pass over the scored documents; each rarer filter is its own pass.
        hits = [(d, s) for d, s in acc.items() if s > 0.0 and d not in excluded]
        if opts.threshold > 0.0:
            hits = [h for h in hits if h[1] >= opts.threshold]
        if opts.include is not None:
            included = opts.include
            hits = [h for h in hits if h[0] in included]
        if req:
            hits = [h for h in hits if all(h[0] in docs for docs in req)]
        if min_matched:
            hits = [h for h in hits if matched[h[0]] >= min_matched]

        def key(hit: tuple[int, float]) -> tuple[float, str, int]:
            return (-hit[1], names[hit[0]], hit[0])

        if len(hits) > limit:
            hits = heapq.nsmallest(limit, hits, key=key)
        else:
            hits.sort(key=key)
        if opts.relative_floor > 0.0 and hits:
            floor = opts.relative_floor * hits[0][1]
            hits = [h for h in hits if h[1] >= floor]
        return hits

    def score_documents(
        self,
        query: str,
        docs: Sequence[int],
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
    ) -> list[tuple[int, float]]:
        """``(doc id, score)`` for each of ``docs`` that the filters keep, in the order given."""
        tokens = query_terms(self._profile, _check_text(query, "query"))
        opts = _Options(
            exclude, include, required, prefix_fraction, prefix_min_len, max_expansions,
            0.0, 0.0, False,
        )  # fmt: skip
        docs = [_check_doc(d) for d in docs]
        req = self._required_sets(opts.required)
        if req is None:
            return []
        acc, _, _ = self._accumulate(tokens, opts)
        return [(d, acc.get(d, 0.0)) for d in docs if d < self._n and self._passes(d, opts, req)]

    def explain(
        self,
        query: str,
        doc: int,
        *,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
    ) -> list[tuple[str, str, bool, float, float, float, float, float]]:
        """Per matched query term: (term, matched, prefix, qtf, idf, tf, norm, contribution)."""
        tokens = query_terms(self._profile, _check_text(query, "query"))
        opts = _Options(
            None, None, None, prefix_fraction, prefix_min_len, max_expansions, 0.0, 0.0, False
        )
        doc = _check_doc(doc)
        if doc >= self._n:
            raise IndexError(f"document {doc} is out of range")
        k1, _, delta = self._params
        k1p1 = k1 + 1.0
        norm = self._norms[doc]
        out = []
        for tok, qtf in _distinct(tokens).items():
            entry = self._postings.get(tok)
            if entry is not None:
                tf = _tf(entry, doc)
                if tf is not None:
                    idf = entry[2]
                    score = qtf * idf * ((tf * k1p1) / (tf + norm) + delta)
                    out.append((tok, tok, False, qtf, idf, tf, norm, score))
                continue
            best = None
            for term in self._expansions(tok, opts):
                entry = self._postings[term]
                tf = _tf(entry, doc)
                if tf is None:
                    continue
                idf = entry[2]
                score = opts.prefix_fraction * (qtf * idf * ((tf * k1p1) / (tf + norm) + delta))
                if best is None or score > best[7]:
                    best = (tok, term, True, qtf, idf, tf, norm, score)
            if best is not None and best[7] != 0.0:
                out.append(best)
        return out

    def _expansions(self, tok: str, opts: _Options) -> list[str]:
        """The scored terms ``tok`` expands to (``PrefixOptions`` in ``rust/index/options.rs``)."""
        if not (opts.prefix_fraction > 0.0 and len(tok) >= opts.prefix_min_len):
            return []
        if is_marked(tok):  # stemmed copies never expand
            return []
        terms = self._sorted_terms
        out: list[str] = []
        i = bisect_left(terms, tok)
        while i < len(terms) and len(out) < opts.max_expansions and terms[i].startswith(tok):
            out.append(terms[i])
            i += 1
        return out

    def _accumulate(
        self, tokens: list[str], opts: _Options
    ) -> tuple[dict[int, float], dict[int, int], int]:
        """Scores per document (same f64 operations, same order as Rust), matched-term counts,
        and the number of known query terms."""
        k1, _, delta = self._params
        k1p1 = k1 + 1.0
        norms = self._norms
        acc: dict[int, float] = {}
        matched: dict[int, int] = {}
        get = acc.get
        known = 0
        count = opts.coverage  # matched-term counts are only needed by the coverage rule
        fraction = opts.prefix_fraction
        for tok, qtf in _distinct(tokens).items():
            entry = self._postings.get(tok)
            if entry is not None:
                known += 1
                docs, tfs, idf = entry
                for d, tf in zip(docs, tfs):
                    acc[d] = get(d, 0.0) + qtf * idf * ((tf * k1p1) / (tf + norms[d]) + delta)
                if count:
                    for d in docs:
                        matched[d] = matched.get(d, 0) + 1
                continue
            expansions = self._expansions(tok, opts)
            if not expansions:
                continue
            known += 1
            best: dict[int, float] = {}
            for term in expansions:
                docs, tfs, idf = self._postings[term]
                for d, tf in zip(docs, tfs):
                    score = fraction * (qtf * idf * ((tf * k1p1) / (tf + norms[d]) + delta))
                    if score > best.get(d, 0.0):
                        best[d] = score
            for d, score in best.items():
                acc[d] = get(d, 0.0) + score
                if count:
                    matched[d] = matched.get(d, 0) + 1
        return acc, matched, known

    def _required_sets(self, required: list[str]) -> list[set[int]] | None:
        """Per required term, the documents holding it in any field; None if one is unknown."""
        out = []
        if self._profile != "seed":
            required = [t for tok in required for t in required_terms(self._profile, tok)]
        for tok in required:
            entry = self._postings.get(tok)
            only = self._presence.get(tok)
            if entry is None and only is None:
                return None
            docs: set[int] = set(entry[0]) if entry is not None else set()
            if only is not None:
                docs.update(only)
            out.append(docs)
        return out

    @staticmethod
    def _passes(doc: int, opts: _Options, required: list[set[int]]) -> bool:
        return (
            doc not in opts.exclude
            and (opts.include is None or doc in opts.include)
            and all(doc in docs for docs in required)
        )

    def search_many(
        self,
        queries: Iterable[str],
        limit: int,
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
        threshold: float = 0.0,
        relative_floor: float = 0.0,
        coverage: bool = False,
    ) -> list[list[tuple[int, float]]]:
        """``search`` for every query with the same options, in order (sequential here; the
        Rust engine runs them in parallel). The first failing query's error is raised, as a loop
        would raise it."""
        if isinstance(queries, str):
            raise TypeError("queries must be an iterable of str, not a single str")
        queries = [_check_text(q, "query") for q in queries]
        limit = check_limit(limit)
        opts = _Options(
            exclude, include, required, prefix_fraction, prefix_min_len, max_expansions,
            threshold, relative_floor, coverage,
        )  # fmt: skip
        req = self._required_sets(opts.required)
        out = []
        for query in queries:
            tokens = query_terms(self._profile, query)
            if not tokens:
                raise QueryError("Query must contain at least one letter or number.")
            out.append(self._search(tokens, limit, opts, req))
        return out


def _distinct(tokens: list[str]) -> dict[str, float]:
    """Distinct query terms in first-seen order with their query frequencies (a stemmed copy's
    occurrence counts ``STEM_QUERY_WEIGHT``, a plain term's 1)."""
    counts: dict[str, float] = {}
    for tok in tokens:
        counts[tok] = counts.get(tok, 0.0) + (STEM_QUERY_WEIGHT if is_marked(tok) else 1.0)
    return counts


def _tf(entry: tuple[array, array, float], doc: int) -> float | None:
    docs, tfs, _ = entry
    i = bisect_left(docs, doc)
    return tfs[i] if i < len(docs) and docs[i] == doc else None


def _check_doc(doc: object) -> int:
    if isinstance(doc, bool) or not isinstance(doc, int):
        raise TypeError(f"document id must be an int, got {type(doc).__name__}")
    if doc < 0 or doc > 0xFFFFFFFF:
        raise OverflowError(f"document id out of range: {doc}")
    return doc


class _Options:
    """The validated keyword options of a search (``SearchOptions``, ``rust/index/options.rs``)."""

    __slots__ = (
        "exclude",
        "include",
        "required",
        "prefix_fraction",
        "prefix_min_len",
        "max_expansions",
        "threshold",
        "relative_floor",
        "coverage",
    )

    def __init__(
        self,
        exclude: Iterable[int] | None,
        include: Iterable[int] | None,
        required: Iterable[str] | None,
        prefix_fraction: float,
        prefix_min_len: int,
        max_expansions: int,
        threshold: float,
        relative_floor: float,
        coverage: bool,
    ) -> None:
        self.exclude = set(exclude) if exclude is not None else frozenset()
        self.include = set(include) if include is not None else None
        self.required = [_check_text(t, "required term") for t in required or ()]
        self.prefix_fraction = as_real(prefix_fraction, "prefix_fraction")
        self.prefix_min_len = as_count(prefix_min_len, "prefix_min_len")
        self.max_expansions = as_count(max_expansions, "max_expansions")
        self.threshold = as_real(threshold, "threshold")
        self.relative_floor = as_real(relative_floor, "relative_floor")
        if not isinstance(coverage, bool):
            raise TypeError(f"coverage must be a bool, got {type(coverage).__name__}")
        self.coverage = coverage
        if not (math.isfinite(self.prefix_fraction) and self.prefix_fraction >= 0.0):
            raise ValueError(
                f"Invalid prefix fraction: must be a finite number >= 0, got {self.prefix_fraction}"
            )
        if not (math.isfinite(self.threshold) and self.threshold >= 0.0):
            raise ValueError(
                f"Invalid threshold: must be a finite number >= 0, got {self.threshold}"
            )
        if not (math.isfinite(self.relative_floor) and 0.0 <= self.relative_floor <= 1.0):
            raise ValueError(
                f"Invalid relative floor: must be between 0 and 1, got {self.relative_floor}"
            )
