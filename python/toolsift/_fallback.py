"""The pure-Python engine: the same API, rankings and scores as ``toolsift._core.Index``.

It exists for parity tests and as a fallback where the compiled extension is missing. It performs
the same IEEE-754 double operations in the same order as the Rust engine (``rust/bm25.rs`` explains
the formula), so scores agree bit for bit on the same machine and ranked lists are identical:

* term frequencies are summed in token order and stored as float32 (``array('f')``), as Rust does;
* the average length is a left-to-right sum (not ``sum()``, which compensates on Python >= 3.12);
* distinct query terms are visited in first-seen order and each document's score starts at 0.0;
* ties break by name (code point order), then by document id.
"""

from __future__ import annotations

import heapq
import math
import os
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from . import _snapshot
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

    Example:
        >>> idx = Index(["a", "b"], [[(0, "read file")], [(0, "write file")]], [1.0])
        >>> [doc for doc, _ in idx.search("read", 5)]
        [0]
    """

    __slots__ = ("_names", "_postings", "_norms", "_lengths", "_avg", "_params", "_n", "_weights")

    def __init__(
        self,
        names: Iterable[str],
        documents: Iterable[Sequence[tuple[int, str]]],
        field_weights: Sequence[float],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        delta: float = 1.0,
    ) -> None:
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
        lengths: list[float] = []
        for doc, fields in enumerate(documents):
            tf: dict[str, float] = {}
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
                    continue
                for tok in tokenize(text):
                    tf[tok] = tf.get(tok, 0.0) + weight
                    length += weight
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
        return f"<toolsift._fallback.Index documents={self._n} terms={len(self._postings)}>"

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
        self, query: str, limit: int, exclude: Iterable[int] | None = None
    ) -> list[tuple[int, float]]:
        """Top ``limit`` ``(doc id, score)`` pairs, score descending then name ascending."""
        tokens = tokenize(_check_text(query, "query"))
        limit = check_limit(limit)
        excluded = set(exclude) if exclude is not None else ()
        if not tokens:
            raise QueryError("Query must contain at least one letter or number.")
        if not self._n:
            return []
        counts: dict[str, float] = {}
        for tok in tokens:
            counts[tok] = counts.get(tok, 0.0) + 1.0
        k1, _, delta = self._params
        k1p1 = k1 + 1.0
        norms = self._norms
        acc: dict[int, float] = {}
        get = acc.get
        for tok, qtf in counts.items():
            entry = self._postings.get(tok)
            if entry is None:
                continue
            docs, tfs, idf = entry
            for d, tf in zip(docs, tfs):
                acc[d] = get(d, 0.0) + qtf * idf * ((tf * k1p1) / (tf + norms[d]) + delta)
        names = self._names
        hits = [(d, s) for d, s in acc.items() if s > 0.0 and d not in excluded]

        def key(hit: tuple[int, float]) -> tuple[float, str, int]:
            return (-hit[1], names[hit[0]], hit[0])

        if len(hits) > limit:
            return heapq.nsmallest(limit, hits, key=key)
        hits.sort(key=key)
        return hits

    # --- scale and concurrency (issue 6): batch search, snapshots, live updates ---

    def search_many(
        self, queries: Iterable[str], limit: int, exclude: Iterable[int] | None = None
    ) -> list[list[tuple[int, float]]]:
        """``search`` for every query, in order (sequential here; the Rust engine runs them in
        parallel). The first failing query's error is raised, as a loop would raise it."""
        if isinstance(queries, str):
            raise TypeError("queries must be an iterable of str, not a single str")
        queries = [_check_text(q, "query") for q in queries]
        check_limit(limit)
        excluded = list(exclude) if exclude is not None else None
        return [self.search(q, limit, excluded) for q in queries]

    def _columns(self) -> _snapshot.Columns:
        terms = list(self._postings)
        offsets = array("I", [0])
        docs = array("I")
        tfs = array("f")
        for d, t, _ in self._postings.values():
            docs.extend(d)
            tfs.extend(t)
            offsets.append(len(docs))
        return _snapshot.Columns(
            self._params,
            list(self._weights),
            list(self._names),
            terms,
            offsets,
            docs,
            tfs,
            array("d", self._lengths),
        )

    @classmethod
    def _from_columns(cls, cols: _snapshot.Columns) -> Index:
        self = cls.__new__(cls)
        self._params = tuple(cols.params)
        self._weights = tuple(cols.field_weights)
        self._names = list(cols.names)
        n = len(self._names)
        offsets, docs, tfs = cols.offsets, cols.docs, cols.tfs
        self._postings = {
            term: (
                array("I", docs[offsets[t] : offsets[t + 1]]),
                array("f", tfs[offsets[t] : offsets[t + 1]]),
                _idf(n, offsets[t + 1] - offsets[t]),
            )
            for t, term in enumerate(cols.terms)
        }
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
        added = Index(names, documents, self._weights, k1=k1, b=b, delta=delta)
        remap = {}
        kept = 0
        for d in range(n_old):
            if d not in removed:
                remap[d] = kept
                kept += 1
        terms: list[str] = []
        offsets = array("I", [0])
        docs = array("I")
        tfs = array("f")
        new_postings = added._postings
        for term, (d_old, t_old, _) in self._postings.items():
            for d, tf in zip(d_old, t_old):
                nd = remap.get(d)
                if nd is not None:
                    docs.append(nd)
                    tfs.append(tf)
            extra = new_postings.get(term)
            if extra is not None:
                docs.extend(d + kept for d in extra[0])
                tfs.extend(extra[1])
            if len(docs) > offsets[-1]:
                terms.append(term)
                offsets.append(len(docs))
        for term, (d_new, t_new, _) in new_postings.items():
            if term not in self._postings:
                docs.extend(d + kept for d in d_new)
                tfs.extend(t_new)
                terms.append(term)
                offsets.append(len(docs))
        lengths = [x for d, x in enumerate(self._lengths) if d not in removed] + added._lengths
        all_names = [x for d, x in enumerate(self._names) if d not in removed] + added._names
        return Index._from_columns(
            _snapshot.Columns(
                self._params, list(self._weights), all_names, terms, offsets, docs, tfs, lengths
            )
        )


def _from_snapshot(data: bytes) -> Index:
    """Unpickles an :class:`Index` (module level, so pickle can find it)."""
    return Index.from_bytes(data)
