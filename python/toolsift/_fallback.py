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

The index is one class built from three modules: this one builds it (and its live updates),
``_fallback_search`` scores and searches it, and ``_fallback_store`` turns it into snapshot
columns and bytes and back.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from ._analysis import STEM_WEIGHT, ProfileName, check_profile, stem_copy, terms
from ._fallback_search import _check_text as _check_text
from ._fallback_search import _idf, _Search
from ._fallback_search import _Options as _Options
from ._fallback_search import check_limit as check_limit
from ._fallback_store import _columns, _Store
from ._tokenize import tokenize

__all__ = ["Index", "tokenize"]


def _lossy(text: str) -> str:
    """What the Rust binding sees of a str: lone surrogates become U+FFFD (one per UTF-8 byte)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _validated_params(k1: float, b: float, delta: float) -> tuple[float, float, float]:
    k1, b, delta = float(k1), float(b), float(delta)
    if not (math.isfinite(k1) and k1 >= 0.0):
        raise ValueError(f"Invalid k1: must be a finite number >= 0, got {k1}")
    if not (math.isfinite(b) and 0.0 <= b <= 1.0):
        raise ValueError(f"Invalid b: must be between 0 and 1, got {b}")
    if not (math.isfinite(delta) and delta >= 0.0):
        raise ValueError(f"Invalid delta: must be a finite number >= 0, got {delta}")
    return k1, b, delta


class Index(_Search, _Store):
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

    __slots__ = ()  # the fields are _Fields' (in _fallback_search), shared by the mixins

    def __init__(
        self,
        names: Iterable[str],
        documents: Iterable[Sequence[tuple[int, str]]],
        field_weights: Sequence[float],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        delta: float = 1.0,
        profile: ProfileName = "seed",
    ) -> None:
        self._profile = profile = check_profile(profile)
        stems = profile == "english"
        names = [_lossy(_check_text(n, "name")) for n in names]
        documents = list(documents)
        if len(names) != len(documents):
            raise ValueError(f"got {len(names)} names for {len(documents)} documents")
        weights = [float(w) for w in field_weights]
        for field_id, w in enumerate(weights):
            if not (math.isfinite(w) and w >= 0.0):
                raise ValueError(
                    f"Invalid field weight: field {field_id} has weight {w}; "
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
        self._set_lengths(lengths, n)

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


def _from_snapshot(data: bytes) -> Index:
    """Unpickles an :class:`Index` (module level, so pickle can find it)."""
    return Index.from_bytes(data)
