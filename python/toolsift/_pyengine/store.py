"""Snapshots of the pure-Python engine: ``toolsift._pyengine.index.Index`` as columns and bytes.

The bytes are the Rust engine's format (``toolsift._snapshot.format``): every term with a
scored or a presence posting, in code point order (Rust's UTF-8 byte order), so both engines
write the same bytes and read each other's.

Example:
    >>> from toolsift._pyengine.index import Index
    >>> idx = Index(["a", "b"], [[(0, "read file")], [(0, "write file")]], [1.0])
    >>> again = Index.from_bytes(idx.to_bytes())
    >>> again.names, again.to_bytes() == idx.to_bytes()
    (['a', 'b'], True)
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Sequence
from typing import Any, TypeVar

from .._snapshot import format as _snapshot
from .._text.analysis import check_profile
from .search import _Fields, _idf

_S = TypeVar("_S", bound="_Store")


class _Store(_Fields):
    """Snapshot columns, bytes and files of :class:`~toolsift._pyengine.index.Index` (a mixin)."""

    __slots__ = ()

    def _columns(self) -> _snapshot.Columns:
        postings = {term: (docs, tfs) for term, (docs, tfs, _) in self._postings.items()}
        return _columns(
            self._params, self._weights, self._names, postings, self._presence, self._lengths,
            self._profile,
        )  # fmt: skip

    @classmethod
    def _from_columns(cls: type[_S], cols: _snapshot.Columns) -> _S:
        self = cls.__new__(cls)
        self._params = (*cols.params,)
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
        self._set_lengths(list(cols.lengths), n)
        return self

    def to_bytes(self, metadata: bytes | None = None) -> bytes:
        """The index as snapshot bytes (the Rust engine's format: ``toolsift._snapshot.format``)."""
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
