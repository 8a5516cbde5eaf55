"""Scoring and search for the pure-Python engine: the BM25+ sums of
``toolsift._pyengine.index.Index``.

:class:`_Search` holds the query side of :class:`~toolsift._pyengine.index.Index`: ``search``,
``search_many``, ``score_documents`` and ``explain``, the score accumulation (the same IEEE-754
double operations in the same order as ``rust/search/exhaustive.rs``), prefix expansion of
unknown query terms, required terms and the option checks. :class:`_Fields` types the index's
data for both mixins and derives the length norms.

Example:
    >>> from toolsift._pyengine.index import Index
    >>> idx = Index(["a", "b"], [[(0, "read file")], [(0, "read write")]], [1.0])
    >>> [doc for doc, _ in idx.search("wri", 5, prefix_fraction=0.5)]
    [1]
    >>> idx.explain("wri", 1, [(0, "read write")], prefix_fraction=0.5)[0][:3]
    ('wri', 'write', True)
"""

from __future__ import annotations

import heapq
import math
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence

from .._options import SearchOptions, check_limit, check_text
from .._text.analysis import (
    STEM_QUERY_WEIGHT,
    STEM_WEIGHT,
    ProfileName,
    is_marked,
    query_terms,
    required_terms,
    stem_copy,
)
from .._text.analysis import terms as analysed_terms
from ..errors import NO_SEARCHABLE_TERMS, QueryError
from ..result import Match, MatchReason, new_matches
from ..tools import Tool

#: One term of :meth:`_Search.explain`: (term, matched, prefix, qtf, idf, tf, norm, contribution,
#: per field ``(field id, its part of tf)``).
Explained = tuple[str, str, bool, float, float, float, float, float, list[tuple[int, float]]]


def _idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


class _Fields:
    """The data of a :class:`~toolsift._pyengine.index.Index`: its slots and their types,
    declared once for the class and the mixins it is made of."""

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
    """The query side of :class:`~toolsift._pyengine.index.Index` (a mixin)."""

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
        tokens = query_terms(self._profile, check_text(query, "query"))
        limit = check_limit(limit)
        opts = SearchOptions(
            exclude, include, required, prefix_fraction, prefix_min_len, max_expansions,
            threshold, relative_floor, coverage,
        )  # fmt: skip
        if not tokens:
            raise QueryError(NO_SEARCHABLE_TERMS)
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
        self, tokens: list[str], limit: int, opts: SearchOptions, req: list[set[int]] | None
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
        tokens = query_terms(self._profile, check_text(query, "query"))
        opts = SearchOptions(
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
        document: Iterable[tuple[int, str]],
        *,
        prefix_fraction: float = 0.0,
        prefix_min_len: int = 3,
        max_expansions: int = 16,
    ) -> list[Explained]:
        """Per matched query term: (term, matched, prefix, qtf, idf, tf, norm, contribution,
        fields), ``fields`` being :meth:`_field_parts` of ``document`` (the ``(field id, text)``
        pairs ``doc`` was built from) for ``matched``."""
        tokens = query_terms(self._profile, check_text(query, "query"))
        opts = SearchOptions(
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
        parts = self._field_parts(document, [row[1] for row in out])
        return [(*row, fields) for row, fields in zip(out, parts)]

    def _field_parts(
        self, document: Iterable[tuple[int, str]], terms: list[str]
    ) -> list[list[tuple[int, float]]]:
        """Per term of ``terms``, what each field of ``document`` brought to its term frequency:
        ``(field id, occurrences × the field's weight)``, a stemmed copy's occurrences at
        ``STEM_WEIGHT`` × the weight, in the order the fields first bring it. The fields are
        analysed again (the index keeps no per-field data), as the build analysed them; a field
        of weight 0 (or of an id without a weight) brings nothing. ``Index::field_parts`` in
        ``rust/search/explain.rs`` is the same, sum for sum."""
        parts: dict[str, dict[int, float]] = {term: {} for term in terms}
        weights = self._weights
        stems = self._profile == "english" and any(is_marked(t) for t in terms)
        for fid, text in document:
            check_text(text, "field text")
            weight = weights[fid] if 0 <= fid < len(weights) else 0.0
            if weight == 0.0:
                continue
            for tok in analysed_terms(self._profile, text):
                fields = parts.get(tok)
                if fields is not None:
                    fields[fid] = fields.get(fid, 0.0) + weight
                if stems:
                    fields = parts.get(stem_copy(tok))
                    if fields is not None:
                        fields[fid] = fields.get(fid, 0.0) + weight * STEM_WEIGHT
        return [list(parts[term].items()) for term in terms]

    def _expansions(self, tok: str, opts: SearchOptions) -> list[str]:
        """The scored terms ``tok`` expands to (``PrefixOptions`` in ``rust/search/options.rs``)."""
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
        self, tokens: list[str], opts: SearchOptions
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
        if self._profile != "omp":
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
    def _passes(doc: int, opts: SearchOptions, required: list[set[int]]) -> bool:
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
        queries = [check_text(q, "query") for q in queries]
        limit = check_limit(limit)
        opts = SearchOptions(
            exclude, include, required, prefix_fraction, prefix_min_len, max_expansions,
            threshold, relative_floor, coverage,
        )  # fmt: skip
        req = self._required_sets(opts.required)
        out = []
        for query in queries:
            tokens = query_terms(self._profile, query)
            if not tokens:
                raise QueryError(NO_SEARCHABLE_TERMS)
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
