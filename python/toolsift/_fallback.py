"""The pure-Python engine: the same API, rankings and scores as ``toolsift._core.Index``.

It exists for parity tests and as a fallback where the compiled extension is missing. It performs
the same IEEE-754 double operations in the same order as the Rust engine (``rust/bm25.rs`` explains
the formula), so scores agree bit for bit on the same machine and ranked lists are identical:

* term frequencies are summed in token order and stored as float32 (``array('f')``), as Rust does;
* the average length is a left-to-right sum (not ``sum()``, which compensates on Python >= 3.12);
* distinct query terms are visited in first-seen order and each document's score starts at 0.0;
* ties break by name (code point order), then by document id.

Text becomes terms through the index's analysis profile (``toolsift._analysis``, the twin of
``rust/analysis.rs``): ``"seed"`` (the tokens) or ``"english"`` (CJK bigrams, half-weight
stemmed copies added right after each term, query stop words, distinct query terms).
"""

from __future__ import annotations

import heapq
import math
import os
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

from . import _snapshot
from ._analysis import (
    STEM_WEIGHT,
    check_profile,
    is_marked,
    query_terms,
    required_terms,
    stem_copy,
    terms,
)
from ._tokenize import tokenize
from .errors import LimitError, QueryError

__all__ = ["Index", "tokenize"]


def _lossy(text: str) -> str:
    """What the Rust binding sees of a str: lone surrogates become U+FFFD (one per UTF-8 byte)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _check_text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


def check_limit(limit: object) -> int:
    """``limit`` must be an int (not a bool) >= 1. Same message as the Rust engine."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise LimitError(f"Limit must be a positive integer, got {limit!r}.")
    return limit


def _validated_params(k1: float, b: float, delta: float) -> tuple[float, float, float]:
    k1, b, delta = float(k1), float(b), float(delta)
    if not (math.isfinite(k1) and k1 >= 0.0):
        raise ValueError(f"Invalid k1: must be a finite number >= 0, got {k1}")
    if not (math.isfinite(b) and 0.0 <= b <= 1.0):
        raise ValueError(f"Invalid b: must be between 0 and 1, got {b}")
    if not (math.isfinite(delta) and delta >= 0.0):
        raise ValueError(f"Invalid delta: must be a finite number >= 0, got {delta}")
    return k1, b, delta


def _idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


class Index:
    """A BM25+ index over weighted-field documents, in pure Python.

    Arguments:
        names: one name per document; breaks score ties (ascending).
        documents: per document, ``(field id, text)`` pairs.
        field_weights: ``field_weights[f]`` is the weight of field ``f``; weight-0 fields are
            not scored.
        k1, b, delta: BM25+ parameters.
        profile: the analysis profile, ``"seed"`` or ``"english"`` (see ``toolsift._analysis``).

    Example:
        >>> idx = Index(["a", "b"], [[(0, "read file")], [(0, "write file")]], [1.0])
        >>> [doc for doc, _ in idx.search("read", 5)]
        [0]
    """

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

    def __init__(
        self,
        names: Iterable[str],
        documents: Iterable[Sequence[tuple[int, str]]],
        field_weights: Sequence[float],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        delta: float = 1.0,
        profile: str = "seed",
    ) -> None:
        self._profile = profile = check_profile(profile)
        stems = profile == "english"
        names = [_lossy(_check_text(n, "name")) for n in names]
        documents = list(documents)
        if len(names) != len(documents):
            raise ValueError(f"got {len(names)} names for {len(documents)} documents")
        weights = [float(w) for w in field_weights]
        for f, w in enumerate(weights):
            if not (math.isfinite(w) and w >= 0.0):
                raise ValueError(
                    f"Invalid field weight: field {f} has weight {w}; "
                    "weights must be finite and >= 0"
                )
        self._params = _validated_params(k1, b, delta)
        self._weights = tuple(weights)
        self._names = names
        build: dict[str, tuple[list[int], list[float]]] = {}
        presence: dict[str, list[int]] = {}
        lengths: list[float] = []
        for doc, fields in enumerate(documents):
            tf: dict[str, float] = {}
            present: dict[str, None] = {}
            length = 0.0
            for field in fields:
                if not isinstance(field, tuple) or len(field) != 2:
                    raise TypeError(
                        f"document {doc}: each field must be a (field id, text) tuple, "
                        f"got {type(field).__name__}"
                    )
                fid, text = field
                if isinstance(fid, bool) or not isinstance(fid, int) or fid < 0:
                    raise TypeError(f"document {doc}: field id must be a non-negative int")
                if fid >= len(weights):
                    raise ValueError(
                        f"document {doc} uses field {fid}, but only {len(weights)} "
                        "field weights were given"
                    )
                weight = weights[fid]
                _check_text(text, "field text")
                if weight == 0.0:
                    # Not scored; kept as presence postings for required terms.
                    present.update(dict.fromkeys(terms(profile, text)))
                    continue
                copy_weight = weight * STEM_WEIGHT
                for tok in terms(profile, text):
                    tf[tok] = tf.get(tok, 0.0) + weight
                    length += weight
                    if stems:
                        # The stemmed copy, right after its plain term (as rust/build.rs adds it).
                        copy = stem_copy(tok)
                        tf[copy] = tf.get(copy, 0.0) + copy_weight
                        length += copy_weight
            for tok in present:
                if tok not in tf:
                    presence.setdefault(tok, []).append(doc)
            for tok, f in tf.items():
                entry = build.get(tok)
                if entry is None:
                    build[tok] = ([doc], [f])
                else:
                    entry[0].append(doc)
                    entry[1].append(f)
            lengths.append(length)
        n = len(names)
        # float32 term frequencies, as the Rust engine stores them; the idf is precomputed.
        self._postings = {
            tok: (array("I", docs), array("f", tfs), _idf(n, len(docs)))
            for tok, (docs, tfs) in build.items()
        }
        self._presence = {tok: array("I", docs) for tok, docs in presence.items()}
        self._sorted_terms = sorted(self._postings)  # code point order = Rust's UTF-8 byte order
        total = 0.0
        for length in lengths:
            total += length
        avg = total / n if n else 1.0
        self._avg = avg if (math.isfinite(avg) and avg != 0.0) else 1.0
        k1, b, _ = self._params
        self._lengths = lengths
        self._norms = [k1 * (1.0 - b + b * (length / self._avg)) for length in lengths]
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return (
            f"<toolsift._fallback.Index documents={self._n} terms={len(self._postings)} "
            f"profile={self._profile}>"
        )

    @property
    def profile(self) -> str:
        """The analysis profile the index was built with (``"seed"`` or ``"english"``)."""
        return self._profile

    @property
    def vocabulary_size(self) -> int:
        return len(self._postings)

    @property
    def average_length(self) -> float:
        return self._avg

    @property
    def memory_bytes(self) -> int:
        """A rough count of the bytes held (postings arrays and per-document lists)."""
        postings = sum(
            d.itemsize * len(d) + t.itemsize * len(t) + len(k) + 100
            for k, (d, t, _) in self._postings.items()
        )
        return postings + 16 * self._n + sum(len(n) + 50 for n in self._names)

    def document_frequency(self, term: str) -> int:
        entry = self._postings.get(_check_text(term, "term"))
        return len(entry[0]) if entry else 0

    def search(
        self,
        query: str,
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

    # --- scale and concurrency (issue 6): batch search, snapshots, live updates ---

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

    def _columns(self) -> _snapshot.Columns:
        postings = {term: (docs, tfs) for term, (docs, tfs, _) in self._postings.items()}
        return _columns(
            self._params, self._weights, self._names, postings, self._presence, self._lengths,
            self._profile,
        )  # fmt: skip

    @classmethod
    def _from_columns(cls, cols: _snapshot.Columns) -> Index:
        self = cls.__new__(cls)
        self._params = tuple(cols.params)
        self._profile = check_profile(cols.profile)
        self._weights = tuple(cols.field_weights)
        self._names = list(cols.names)
        n = len(self._names)
        offsets, docs, tfs = cols.offsets, cols.docs, cols.tfs
        p_offsets, p_docs = cols.presence_offsets, cols.presence_docs
        self._postings = {}
        self._presence = {}
        for t, term in enumerate(cols.terms):
            start, end = offsets[t], offsets[t + 1]
            if end > start:
                self._postings[term] = (
                    array("I", docs[start:end]),
                    array("f", tfs[start:end]),
                    _idf(n, end - start),
                )
            start, end = p_offsets[t], p_offsets[t + 1]
            if end > start:
                self._presence[term] = array("I", p_docs[start:end])
        # The snapshot's terms are sorted already (then this is one linear pass).
        self._sorted_terms = sorted(self._postings)
        lengths = list(cols.lengths)
        total = 0.0
        for length in lengths:
            total += length
        avg = total / n if n else 1.0
        self._avg = avg if (math.isfinite(avg) and avg != 0.0) else 1.0
        k1, b, _ = self._params
        self._lengths = lengths
        self._norms = [k1 * (1.0 - b + b * (length / self._avg)) for length in lengths]
        self._n = n
        return self

    def to_bytes(self, metadata: bytes | None = None) -> bytes:
        """The index as snapshot bytes (the Rust engine's format; see ``toolsift._snapshot``)."""
        return _snapshot.dumps(self._columns(), bytes(metadata or b""))

    @classmethod
    def from_bytes(cls, data: bytes, *, with_metadata: bool = False) -> Any:
        """An index from snapshot bytes; ``(index, metadata)`` with ``with_metadata=True``."""
        cols, metadata = _snapshot.loads(data)
        index = cls._from_columns(cols)
        return (index, metadata) if with_metadata else index

    def save(self, path: str | os.PathLike[str], metadata: bytes | None = None) -> None:
        """Writes the snapshot to ``path`` atomically (a temporary file, then a rename)."""
        _snapshot.write_atomic(path, self.to_bytes(metadata))

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, with_metadata: bool = False) -> Any:
        """Reads a snapshot written by either engine's ``save``."""
        with open(path, "rb") as fh:
            data = fh.read()
        return cls.from_bytes(data, with_metadata=with_metadata)

    @property
    def names(self) -> list[str]:
        """The document names, in document order."""
        return list(self._names)

    @property
    def params(self) -> tuple[float, float, float]:
        """``(k1, b, delta)``."""
        return self._params

    def __reduce__(self) -> tuple[Any, ...]:
        return (_from_snapshot, (self.to_bytes(),))

    def updated(
        self,
        names: Iterable[str] | None = None,
        documents: Iterable[Sequence[tuple[int, str]]] | None = None,
        *,
        remove: Iterable[int] | None = None,
    ) -> Index:
        """A new index without the documents ``remove`` and with ``documents`` appended.

        The kept documents keep their order and the added ones follow, in the order given; the
        result ranks and scores exactly like a new ``Index`` over that list. Only the added
        documents are tokenized.
        """
        names = [] if names is None else list(names)
        documents = [] if documents is None else list(documents)
        removed = set()
        for d in [] if remove is None else remove:
            if isinstance(d, bool) or not isinstance(d, int):
                raise TypeError(f"document ids must be ints, got {type(d).__name__}")
            if d < 0 or d > 0xFFFFFFFF:
                raise OverflowError(f"document id {d} is out of range")
            removed.add(d)
        if len(names) != len(documents):
            raise ValueError(f"got {len(names)} names for {len(documents)} documents")
        n_old = self._n
        for d in sorted(removed):
            if d >= n_old:
                raise ValueError(f"cannot remove document {d}: the index has {n_old} documents")
        k1, b, delta = self._params
        added = Index(
            names, documents, self._weights, k1=k1, b=b, delta=delta, profile=self._profile
        )
        remap = {}
        kept = 0
        for d in range(n_old):
            if d not in removed:
                remap[d] = kept
                kept += 1
        # Kept postings with their new ids first, then the added documents' (ids >= kept).
        postings: dict[str, tuple[array, array]] = {}
        for term, (d_old, t_old, _) in self._postings.items():
            docs, tfs = postings[term] = (array("I"), array("f"))
            for d, tf in zip(d_old, t_old):
                nd = remap.get(d)
                if nd is not None:
                    docs.append(nd)
                    tfs.append(tf)
        for term, (d_new, t_new, _) in added._postings.items():
            docs, tfs = postings.setdefault(term, (array("I"), array("f")))
            docs.extend(d + kept for d in d_new)
            tfs.extend(t_new)
        presence: dict[str, array] = {}
        for term, d_old in self._presence.items():
            presence[term] = array("I", [remap[d] for d in d_old if d in remap])
        for term, d_new in added._presence.items():
            presence.setdefault(term, array("I")).extend(d + kept for d in d_new)
        lengths = [x for d, x in enumerate(self._lengths) if d not in removed] + added._lengths
        all_names = [x for d, x in enumerate(self._names) if d not in removed] + added._names
        return Index._from_columns(
            _columns(
                self._params,
                self._weights,
                all_names,
                postings,
                presence,
                lengths,
                self._profile,
            )  # fmt: skip
        )


def _distinct(tokens: list[str]) -> dict[str, float]:
    """Distinct query terms in first-seen order with their query frequencies."""
    counts: dict[str, float] = {}
    for tok in tokens:
        counts[tok] = counts.get(tok, 0.0) + 1.0
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
        self.prefix_fraction = float(prefix_fraction)
        self.prefix_min_len = int(prefix_min_len)
        self.max_expansions = int(max_expansions)
        self.threshold = float(threshold)
        self.relative_floor = float(relative_floor)
        self.coverage = bool(coverage)
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


def _columns(
    params: tuple[float, float, float],
    weights: Sequence[float],
    names: list[str],
    postings: dict[str, tuple[array, array]],
    presence: dict[str, array],
    lengths: Sequence[float],
    profile: str,
) -> _snapshot.Columns:
    """Snapshot columns: every term with a scored or a presence posting, in sorted order (code
    point order = Rust's UTF-8 byte order), so both engines write the same bytes."""
    terms = sorted(
        {t for t, (docs, _) in postings.items() if docs}.union(
            t for t, docs in presence.items() if docs
        )
    )
    offsets, docs, tfs = array("I", [0]), array("I"), array("f")
    p_offsets, p_docs = array("I", [0]), array("I")
    for term in terms:
        entry = postings.get(term)
        if entry is not None:
            docs.extend(entry[0])
            tfs.extend(entry[1])
        offsets.append(len(docs))
        only = presence.get(term)
        if only is not None:
            p_docs.extend(only)
        p_offsets.append(len(p_docs))
    return _snapshot.Columns(
        params,
        list(weights),
        list(names),
        terms,
        offsets,
        docs,
        tfs,
        p_offsets,
        p_docs,
        array("d", lengths),
        profile,
    )


def _from_snapshot(data: bytes) -> Index:
    """Unpickles an :class:`Index` (module level, so pickle can find it)."""
    return Index.from_bytes(data)
