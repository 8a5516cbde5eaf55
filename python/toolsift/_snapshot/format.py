"""The index snapshot format in pure Python: the same bytes as ``rust/snapshot.rs``.

A file saved by one engine loads in the other. The layout (little-endian, no padding)::

    header, 32 bytes: magic b"TSIFTIDX" | version u32 (3) | flags u32 (0) | payload_len u64
                      | crc32 u32 (zlib.crc32 of the payload) | reserved u32 (0)
    payload: k1, b, delta f64 | profile u32 (0 omp, 1 english) | n_fields u32,
             weights f64[n_fields]
             | n_docs u32 | n_terms u32 | n_postings u32 | n_presence u32
             | names: ends u32[n_docs], UTF-8 bytes | terms: ends u32[n_terms], UTF-8 bytes
             | offsets u32[n_terms + 1] | docs u32[n_postings] | tfs f32[n_postings]
             | presence_offsets u32[n_terms + 1] | presence_docs u32[n_presence]
             | lengths f64[n_docs] | metadata_len u64, metadata bytes

The terms are in sorted (UTF-8 byte) order, so the index's sorted term list for prefix matching
is stored as is; every term has a scored posting, a presence posting (a word of a weight-0
field, for ``+required`` terms), or both. Version 1 (no presence postings) and version 2 (no
analysis profile) are refused: rebuild.

Only stored columns are written; IDF, average length and norms are recomputed on load. Every
problem is a :class:`toolsift.SnapshotError` whose message says what is wrong and what to do, with
the same wording as the Rust reader.

Example:
    >>> from toolsift._snapshot.format import Columns, dumps, loads
    >>> cols = Columns((1.2, 0.75, 1.0), [1.0], ["a"], ["x"], [0, 1], [0], [1.0], [0, 0], [], [1.0])
    >>> loads(dumps(cols, b"hi"))[0].names
    ['a']
"""

from __future__ import annotations

import math
import struct
import sys
import zlib
from array import array
from dataclasses import dataclass

from .._options import check_bm25_params
from ..errors import SnapshotError

MAGIC = b"TSIFTIDX"
FORMAT_VERSION = 3
HEADER_LEN = 32
_HEADER = struct.Struct("<8sIIQII")
_BIG_ENDIAN = sys.byteorder == "big"


@dataclass
class Columns:
    """The stored columns of an index, in the snapshot's order."""

    params: tuple[float, float, float]
    field_weights: list[float]
    names: list[str]
    terms: list[str]
    offsets: array | list[int]
    docs: array | list[int]
    tfs: array | list[float]
    presence_offsets: array | list[int]
    presence_docs: array | list[int]
    lengths: array | list[float]
    #: The analysis profile (``toolsift._text.analysis``) the terms were made with.
    profile: str = "omp"


# Profile name <-> snapshot id (``Profile::id`` in ``rust/analysis.rs``).
_PROFILE_IDS = {"omp": 0, "english": 1}
_PROFILE_NAMES = {v: k for k, v in _PROFILE_IDS.items()}


#: What a reader says of stored BM25+ parameters out of the ranges a build accepts.
_BAD_PARAMS = "its BM25 parameters (k1, b, delta) are out of range"


def _corrupt(what: str) -> SnapshotError:
    return SnapshotError(
        f"The index snapshot is corrupted: {what}. Rebuild the index and save it again."
    )


def _le(typecode: str, values) -> bytes:
    arr = (
        values
        if isinstance(values, array) and values.typecode == typecode
        else array(typecode, values)
    )
    if _BIG_ENDIAN:
        arr = array(typecode, arr)
        arr.byteswap()
    return arr.tobytes()


def _strings(items: list[str]) -> bytes:
    encoded = [s.encode("utf-8") for s in items]
    ends = []
    end = 0
    for b in encoded:
        end += len(b)
        ends.append(end)
    return _le("I", ends) + b"".join(encoded)


def dumps(cols: Columns, metadata: bytes = b"") -> bytes:
    """Snapshot bytes for ``cols`` with ``metadata`` stored verbatim."""
    parts = [
        struct.pack("<3d", *cols.params),
        struct.pack("<I", _PROFILE_IDS[cols.profile]),
        struct.pack("<I", len(cols.field_weights)),
        _le("d", cols.field_weights),
        struct.pack(
            "<4I", len(cols.names), len(cols.terms), len(cols.docs), len(cols.presence_docs)
        ),
        _strings(cols.names),
        _strings(cols.terms),
        _le("I", cols.offsets),
        _le("I", cols.docs),
        _le("f", cols.tfs),
        _le("I", cols.presence_offsets),
        _le("I", cols.presence_docs),
        _le("d", cols.lengths),
        struct.pack("<Q", len(metadata)),
        bytes(metadata),
    ]
    payload = b"".join(parts)
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, 0, len(payload), zlib.crc32(payload), 0)
    return header + payload


def stored_field_weights(data: bytes | bytearray | memoryview) -> list[float]:
    """The field weights stored in snapshot ``data`` that :func:`loads` (or the Rust reader) has
    already accepted: read from their fixed place after the header, in O(fields).

    Example:
        >>> cols = Columns((1.2, 0.75, 1.0), [6.0, 2.0], [], [], [0], [], [], [0], [], [])
        >>> stored_field_weights(dumps(cols))
        [6.0, 2.0]
    """
    start = HEADER_LEN + 24 + 4  # after k1, b, delta and the profile id
    (n_fields,) = struct.unpack_from("<I", data, start)
    return list(struct.unpack_from(f"<{n_fields}d", data, start + 4))


class _Reader:
    __slots__ = ("buf", "pos")

    def __init__(self, buf: memoryview) -> None:
        self.buf = buf
        self.pos = 0

    def take(self, n: int, what: str) -> memoryview:
        if n > len(self.buf) - self.pos:
            raise _corrupt(f"{what} runs past the end of the payload")
        out = self.buf[self.pos : self.pos + n]
        self.pos += n
        return out

    def array(self, typecode: str, count: int, what: str) -> array:
        arr = array(typecode)
        arr.frombytes(self.take(count * arr.itemsize, what))
        if _BIG_ENDIAN:
            arr.byteswap()
        return arr

    def u32(self, what: str) -> int:
        return struct.unpack("<I", self.take(4, what))[0]

    def strings(self, count: int, what: str) -> list[str]:
        ends = self.array("I", count, what)
        raw = bytes(self.take(ends[-1] if count else 0, what))
        out = []
        start = 0
        for end in ends:
            if end < start or end > len(raw):
                raise _corrupt(f"{what} has out-of-order string offsets")
            try:
                out.append(raw[start:end].decode("utf-8"))
            except UnicodeDecodeError:
                raise _corrupt(f"{what} holds invalid UTF-8") from None
            start = end
        return out


def _open_payload(data: bytes) -> memoryview:
    if len(data) < 8 or bytes(data[:8]) != MAGIC:
        raise SnapshotError(
            "This is not a toolsift index snapshot (wrong magic bytes). Load a file written by "
            "Index.save() / ToolIndex.save(), or rebuild the index from its tools."
        )
    if len(data) < HEADER_LEN:
        raise SnapshotError(
            f"The index snapshot is truncated: {len(data)} bytes, shorter than its "
            f"{HEADER_LEN}-byte header. The file was cut short (an interrupted copy or write); "
            "save the index again."
        )
    _, version, flags, payload_len, crc, reserved = _HEADER.unpack_from(data)
    if version > FORMAT_VERSION:
        raise SnapshotError(
            f"The index snapshot has format version {version}, newer than the version "
            f"{FORMAT_VERSION} this toolsift reads. Upgrade toolsift, or rebuild the index and "
            "save it with this version."
        )
    if version == 0:
        raise _corrupt("its format version is 0")
    if version < FORMAT_VERSION:
        raise SnapshotError(
            f"The index snapshot has format version {version}, older than the version "
            f"{FORMAT_VERSION} this toolsift reads (it does not record its analysis profile"
            f"{' and lacks the postings of required terms' if version < 2 else ''}). "
            "Rebuild the index and save it again."
        )
    if flags or reserved:
        raise _corrupt("its reserved header fields are not zero")
    have = len(data) - HEADER_LEN
    if payload_len > have:
        raise SnapshotError(
            f"The index snapshot is truncated: the header announces {payload_len} payload "
            f"bytes but only {have} follow. The file was cut short (an interrupted copy or "
            "write); save the index again."
        )
    if payload_len < have:
        raise SnapshotError(
            f"The index snapshot has {have - payload_len} unexpected bytes after its "
            f"{payload_len}-byte payload; the file is corrupted. Rebuild the index and save it "
            "again."
        )
    payload = memoryview(data)[HEADER_LEN:]
    computed = zlib.crc32(payload)
    if computed != crc:
        raise SnapshotError(
            f"The index snapshot is corrupted: checksum mismatch (stored {crc:#010x}, computed "
            f"{computed:#010x}). Rebuild the index and save it again."
        )
    return payload


def loads(data: bytes) -> tuple[Columns, bytes]:
    """Parses and validates snapshot bytes; returns the columns and the metadata."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"snapshot data must be bytes-like, got {type(data).__name__}")
    r = _Reader(_open_payload(data))
    k1, b, delta = struct.unpack("<3d", r.take(24, "k1"))
    try:  # the ranges a build accepts (the Rust reader's `Params::validated`, the same ones)
        check_bm25_params(k1, b, delta)
    except ValueError:
        raise _corrupt(_BAD_PARAMS) from None
    profile_id = r.u32("the analysis profile")
    profile = _PROFILE_NAMES.get(profile_id)
    if profile is None:
        raise SnapshotError(
            f"The index snapshot uses analysis profile {profile_id}, which this toolsift does "
            "not know. Upgrade toolsift, or rebuild the index and save it with this version."
        )
    n_fields = r.u32("the field count")
    weights = r.array("d", n_fields, "the field weights").tolist()
    if not all(math.isfinite(w) and w >= 0.0 for w in weights):
        raise _corrupt("a field weight is out of range")
    n_docs = r.u32("the document count")
    n_terms = r.u32("the term count")
    n_postings = r.u32("the posting count")
    n_presence = r.u32("the presence posting count")
    names = r.strings(n_docs, "the names")
    terms = r.strings(n_terms, "the terms")
    encoded = [t.encode("utf-8") for t in terms]
    if any(not t for t in encoded) or any(a >= b for a, b in zip(encoded, encoded[1:])):
        raise _corrupt("its term dictionary is not sorted or has an empty or repeated term")
    offsets = r.array("I", n_terms + 1, "the posting offsets")
    docs = r.array("I", n_postings, "the posting documents")
    tfs = r.array("f", n_postings, "the term frequencies")
    p_offsets = r.array("I", n_terms + 1, "the presence offsets")
    p_docs = r.array("I", n_presence, "the presence documents")
    lengths = r.array("d", n_docs, "the document lengths")
    (meta_len,) = struct.unpack("<Q", r.take(8, "the metadata length"))
    metadata = bytes(r.take(meta_len, "the metadata"))
    if r.pos != len(r.buf):
        raise _corrupt("it has bytes after the metadata")
    _check_csr(offsets, docs, n_docs, "posting")
    _check_csr(p_offsets, p_docs, n_docs, "presence")
    for t in range(n_terms):
        if offsets[t + 1] == offsets[t] and p_offsets[t + 1] == p_offsets[t]:
            raise _corrupt(f"term {t} has no postings")
    if not all(math.isfinite(tf) and tf > 0.0 for tf in tfs):
        raise _corrupt("a term frequency is not a finite positive number")
    if not all(math.isfinite(x) and x >= 0.0 for x in lengths):
        raise _corrupt("a document length is not a finite number >= 0")
    cols = Columns(
        (k1, b, delta), weights, names, terms, offsets, docs, tfs, p_offsets, p_docs, lengths,
        profile,
    )  # fmt: skip
    return cols, metadata


def _check_csr(offsets: array, docs: array, n_docs: int, what: str) -> None:
    """``offsets`` must rise from 0 to ``len(docs)``; each list ascending, ids below ``n_docs``."""
    if offsets[0] != 0 or offsets[-1] != len(docs):
        raise _corrupt(f"its {what} offsets do not span the {what}s")
    for t in range(len(offsets) - 1):
        start, end = offsets[t], offsets[t + 1]
        if end < start or end > len(docs):
            raise _corrupt(f"term {t} has a negative or too long {what} list")
        prev = -1
        for d in docs[start:end]:
            if d <= prev or d >= n_docs:
                raise _corrupt(f"term {t} has an invalid {what} list")
            prev = d


def write_atomic(path, data: bytes) -> None:
    """Writes ``data`` beside ``path`` and renames it into place: readers never see half a file."""
    import os

    path = os.fspath(path)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
