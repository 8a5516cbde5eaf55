"""The pure-Python engine: the same API, rankings and scores as ``toolsift._core.Index``.

It exists for parity tests and as a fallback where the compiled extension is missing. It performs
the same IEEE-754 double operations in the same order as the Rust engine (``rust/bm25.rs`` explains
the formula), so scores agree bit for bit on the same machine and ranked lists are identical:

* term frequencies are summed in token order and stored as float32 (``array('f')``), as Rust does;
* the average length is a left-to-right sum (not ``sum()``, which compensates on Python >= 3.12);
* distinct query terms are visited in first-seen order and each document's score starts at 0.0;
* ties break by name (code point order), then by document id.

Text becomes terms through the index's analysis profile (``toolsift._text.analysis``, the twin of
``rust/analysis.rs``): ``"omp"`` (the tokens) or ``"english"`` (CJK bigrams, half-weight
stemmed copies added right after each term, query stop words, distinct query terms).

The index is one class built from three modules: this one builds it (and its live updates),
``search`` scores and searches it, and ``store`` turns it into snapshot
columns and bytes and back.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from .._options import check_bm25_params, check_text, check_weight_list
from .._snapshot.positions import new_ids, without
from .._text.analysis import STEM_WEIGHT, ProfileName, check_profile, stem_copy, terms
from .._text.tokenize import tokenize
from .search import _idf, _Search
from .store import _Store

__all__ = ["Index", "tokenize"]


def _lossy(text: str) -> str:
    """What the Rust binding sees of a str: lone surrogates become U+FFFD (one per UTF-8 byte)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


class Index(_Search, _Store):
    """A BM25+ index over weighted-field documents, in pure Python.

    Arguments:
        names: one name per document; breaks score ties (ascending).
        documents: per document, ``(field id, text)`` pairs.
        field_weights: ``field_weights[f]`` is the weight of field ``f``; weight-0 fields are
            not scored.
        k1, b, delta: BM25+ parameters.
        profile: the analysis profile, ``"omp"`` or ``"english"``
            (see ``toolsift._text.analysis``).

    Example:
        >>> idx = Index(["a", "b"], [[(0, "read file")], [(0, "write file")]], [1.0])
        >>> [doc for doc, _ in idx.search("read", 5)]
        [0]
    """

    __slots__ = ()  # the fields are _Fields' (in .search), shared by the mixins

    def __init__(
        self,
        names: Iterable[str],
        documents: Iterable[Sequence[tuple[int, str]]],
        field_weights: Sequence[float],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        delta: float = 1.0,
        profile: ProfileName = "omp",
    ) -> None:
        self._profile = profile = check_profile(profile)
        stems = profile == "english"
        names = [_lossy(check_text(n, "name")) for n in names]
        documents = list(documents)
        if len(names) != len(documents):
            raise ValueError(f"got {len(names)} names for {len(documents)} documents")
        weights = check_weight_list(field_weights)
        self._params = check_bm25_params(k1, b, delta)
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
                check_text(text, "field text")
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
        self._set_lengths(lengths, n)

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return (
            f"<toolsift._pyengine.index.Index documents={self._n} terms={len(self._postings)} "
            f"profile={self._profile}>"
        )

    @property
    def profile(self) -> str:
        """The analysis profile the index was built with (``"omp"`` or ``"english"``)."""
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
        entry = self._postings.get(check_text(term, "term"))
        return len(entry[0]) if entry else 0

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
        drop = sorted(removed)
        kept = n_old - len(drop)
        n = kept + added._n
        moves = _Moves(n_old, drop)
        # Kept postings with their new ids first, then the added documents' (ids >= kept). A
        # list no removal touches is shared with this index (lists are never changed in place).
        postings: dict[str, tuple[array, array]] = {}
        for term, (docs, tfs, _) in self._postings.items():
            kept_docs, kept_tfs = moves.apply(docs, tfs)
            if kept_docs:
                postings[term] = (kept_docs, kept_tfs)
        for term, (d_new, t_new, _) in added._postings.items():
            ids = array("I", [d + kept for d in d_new])
            entry = postings.get(term)
            if entry is None:
                postings[term] = (ids, t_new)
            else:
                postings[term] = (entry[0] + ids, entry[1] + t_new)  # new arrays
        presence: dict[str, array] = {}
        for term, d_old in self._presence.items():
            kept_docs, _ = moves.apply(d_old, None)
            if kept_docs:
                presence[term] = kept_docs
        for term, d_new in added._presence.items():
            ids = array("I", [d + kept for d in d_new])
            presence[term] = presence[term] + ids if term in presence else ids
        out = Index.__new__(Index)
        out._profile = self._profile
        out._params = self._params
        out._weights = self._weights
        out._names = [*without(self._names, drop), *added._names]
        idf: dict[int, float] = {}  # by document frequency: a few hundred distinct ones
        out._postings = {
            term: (docs, tfs, idf[len(docs)] if len(docs) in idf else
                   idf.setdefault(len(docs), _idf(n, len(docs))))
            for term, (docs, tfs) in postings.items()
        }  # fmt: skip
        out._presence = presence
        out._sorted_terms = _sorted_after_update(self._sorted_terms, out._postings)
        out._set_lengths([*without(self._lengths, drop), *added._lengths], n)
        return out


class _Moves:
    """Where the documents of an index go when ``drop`` (ascending ids) are removed: a kept
    document's id falls by the number of removed ids below it."""

    __slots__ = ("_drop", "_first", "_new_id", "_removed")

    #: Up to this many removed ids, a list finds them by bisection; above, by a filter.
    BISECT_AT_MOST = 16

    def __init__(self, n_old: int, drop: list[int]) -> None:
        self._drop = drop
        self._first = drop[0] if drop else n_old
        self._removed = set(drop)
        self._new_id = new_ids(n_old, drop)

    def apply(self, docs: array, tfs: array | None) -> tuple[array, array]:
        """``docs`` (ascending) without the removed ids and with the new ids of the others, and
        ``tfs`` in step (``docs``/``tfs`` themselves when no id changes)."""
        first = self._first
        if not docs or docs[-1] < first:
            return docs, tfs  # type: ignore[return-value]
        cut = bisect.bisect_left(docs, first)
        tail = docs[cut:]
        tail_tfs = tfs[cut:] if tfs is not None else None
        if len(self._drop) <= self.BISECT_AT_MOST:
            gone = []
            for r in self._drop:
                i = bisect.bisect_left(tail, r)
                if i < len(tail) and tail[i] == r:
                    gone.append(i)
            for i in reversed(gone):
                del tail[i]
                if tail_tfs is not None:
                    del tail_tfs[i]
        else:
            removed = self._removed
            keep = [i for i, d in enumerate(tail) if d not in removed]
            if len(keep) < len(tail):
                tail = array("I", [tail[i] for i in keep])
                if tail_tfs is not None:
                    tail_tfs = array("f", [tail_tfs[i] for i in keep])
        new_docs = docs[:cut]
        new_docs.extend(map(self._new_id.__getitem__, tail))
        if tfs is None:
            return new_docs, None  # type: ignore[return-value]
        return new_docs, tfs[:cut] + tail_tfs  # type: ignore[operator]


def _sorted_after_update(previous: list[str], postings: dict[str, Any]) -> list[str]:
    """The terms of ``postings`` in sorted order, from an index's ``previous`` sorted terms: the
    ones still scored keep their order and the few new ones are inserted (a sort when many)."""
    out = [t for t in previous if t in postings]
    new = len(postings) - len(out)
    if new > 64:
        return sorted(postings)
    if new:
        had = set(out)
        for term in postings:
            if term not in had:
                bisect.insort(out, term)
    return out


def _from_snapshot(data: bytes) -> Index:
    """Unpickles an :class:`Index` (module level, so pickle can find it)."""
    return Index.from_bytes(data)
