"""Tool vectors of the semantic stage: built in batches (a progress bar on a terminal for large
catalogues), scored by the engine's dense kernel, stored in snapshots, and carried through
catalogue updates (only added tools are embedded).

The vectors are unit rows held as float16 (half the memory; a snapshot stores those values, so
it loads the very vectors the build made), and both engines score them to the same bits: the
Rust engine's ``DenseMatrix`` keeps them as float16 (half the bytes to read per query) and its
numpy twin :class:`DenseColumns` as float32, and both sum each cosine in float32 in dimension
order. Several query vectors (a whole task's steps) are scored in one pass over the vectors.

Example:
    >>> import numpy as np
    >>> unit_rows(np.array([[3.0, 4.0]], dtype=np.float32)).tolist()
    [[0.6000000238418579, 0.800000011920929]]
"""

from __future__ import annotations

import base64
import sys
from collections.abc import Sequence
from typing import Any, Callable

import numpy as np

from ..embed import tool_text

__all__ = [
    "DenseColumns",
    "DenseRust",
    "PROGRESS_TOOLS",
    "ToolVectors",
    "dense_kernel",
    "unit_rows",
]

#: Show a progress bar (on a terminal) when this many tools or more are embedded.
PROGRESS_TOOLS = 20_000
#: Tools embedded per batch.
BATCH = 1024

Encode = Callable[[Sequence[str]], np.ndarray]


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Each row of ``matrix`` scaled to length 1 (a zero row stays zero). Rows are first scaled
    by their largest magnitude, so that no squared norm overflows or underflows float32."""
    scale = np.max(np.abs(matrix), axis=-1, keepdims=True) if matrix.size else None
    if scale is not None:
        scale[scale == 0] = 1.0
        matrix = matrix / scale
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    result: np.ndarray = matrix / norms
    return result


class DenseColumns:
    """The pure-Python twin of ``toolsift._core.DenseMatrix``: the tool vectors stored by column,
    each similarity summed in dimension order from 0.0 in float32 (``out += v[j] * column_j``,
    the product rounded before it is added), so both give the same bits; the top ``k`` by
    similarity, highest first, then by row, lowest first, finite similarities only."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.rows = len(matrix)
        self._columns = np.ascontiguousarray(matrix.T, dtype=np.float32)

    def similarities(self, vector: np.ndarray, ids: np.ndarray | None = None) -> np.ndarray:
        columns = self._columns if ids is None else self._columns[:, ids]
        out = np.zeros(columns.shape[1], dtype=np.float32)
        product = np.empty_like(out)
        # Overflow gives infinities (and inf - inf NaN), as in Rust: such rows are not taken.
        with np.errstate(over="ignore", invalid="ignore"):
            for value, column in zip(vector.astype(np.float32), columns):
                np.multiply(column, value, out=product)
                out += product
        return out

    def similarities_many(self, vectors: np.ndarray) -> np.ndarray:
        """``(len(vectors), rows)``: each row :meth:`similarities` of one vector."""
        out = np.empty((len(vectors), self.rows), dtype=np.float32)
        for i, vector in enumerate(vectors):
            out[i] = self.similarities(vector)
        return out

    def top_k(
        self, vector: np.ndarray, k: int, exclude: np.ndarray, only: np.ndarray | None
    ) -> list[tuple[int, float]]:
        if only is None:
            ids = np.arange(self.rows)
            sims = self.similarities(vector)
            sims[exclude] = -np.inf
        else:
            ids = np.unique(only)
            ids = ids[~np.isin(ids, exclude)]
            sims = self.similarities(vector, ids)
        keep = np.isfinite(sims)
        ids, sims = ids[keep], sims[keep]
        if len(ids) > k:
            # The k-th best similarity; of the rows that tie with it, the lowest rows are taken.
            kth = -np.partition(-sims, k - 1)[k - 1]
            above = np.flatnonzero(sims > kth)
            ties = np.flatnonzero(sims == kth)[: k - len(above)]
            chosen = np.concatenate([above, ties])
            ids, sims = ids[chosen], sims[chosen]
        order = np.lexsort((ids, -sims))
        return [(int(ids[i]), float(sims[i])) for i in order]


class DenseRust:
    """``toolsift._core.DenseMatrix`` behind :class:`DenseColumns`' interface: one pass over
    the vectors in Rust, on one thread, without the GIL; a float16 ``matrix`` is kept as
    float16 (the same similarities, half the bytes read)."""

    def __init__(self, matrix: np.ndarray, dense_matrix: Any) -> None:
        self.rows = len(matrix)
        half = matrix.dtype == np.float16
        data = np.ascontiguousarray(matrix, dtype=np.float16 if half else np.float32)
        self._dim = data.shape[1] if data.ndim == 2 else 0
        self._matrix = dense_matrix(
            data.tobytes(), data.shape[0], self._dim, "float16" if half else "float32"
        )

    def similarities(self, vector: np.ndarray) -> np.ndarray:
        vector = np.ascontiguousarray(vector, dtype=np.float32)
        return np.frombuffer(self._matrix.similarities(vector.tobytes()), dtype=np.float32)

    def similarities_many(self, vectors: np.ndarray) -> np.ndarray:
        """``(len(vectors), rows)``: each row :meth:`similarities` of one vector, one pass."""
        data = np.ascontiguousarray(vectors, dtype=np.float32)
        sims = np.frombuffer(self._matrix.similarities_many(data.tobytes()), dtype=np.float32)
        return sims.reshape(len(data), self.rows)

    def top_k(
        self, vector: np.ndarray, k: int, exclude: np.ndarray, only: np.ndarray | None
    ) -> list[tuple[int, float]]:
        vector = np.ascontiguousarray(vector, dtype=np.float32)
        excluded = np.asarray(exclude, dtype=np.uint32).tobytes()
        allowed = None if only is None else np.asarray(only, dtype=np.uint32).tobytes()
        hits: list[tuple[int, float]] = self._matrix.top_k(vector.tobytes(), k, excluded, allowed)
        return hits


def dense_kernel(matrix: np.ndarray, engine: str) -> DenseColumns | DenseRust:
    """The dense kernel of an index on ``engine``: Rust's for ``"rust"``, else the twin."""
    if engine == "rust":
        from .._core import DenseMatrix  # the Rust engine is loaded: its index was built with it

        return DenseRust(matrix, DenseMatrix)
    return DenseColumns(matrix)


def _stored(matrix: np.ndarray) -> np.ndarray:
    """Unit rows as stored: float16."""
    return unit_rows(np.asarray(matrix, dtype=np.float32)).astype(np.float16)


def _with_progress(encode: Encode, texts: list[str], stream: Any = None) -> np.ndarray:
    """``encode(texts)`` in batches; on a terminal and for :data:`PROGRESS_TOOLS` or more
    texts, with a ``rich`` progress bar on ``stream`` (stderr)."""
    stream = sys.stderr if stream is None else stream
    batches = [texts[i : i + BATCH] for i in range(0, len(texts), BATCH)] or [[]]
    show = len(texts) >= PROGRESS_TOOLS and hasattr(stream, "isatty") and stream.isatty()
    if not show:
        return np.concatenate([np.asarray(encode(b), dtype=np.float32) for b in batches])
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    parts = []
    with Progress(
        TextColumn("embedding tools"),
        BarColumn(),
        MofNCompleteColumn(),
        console=Console(file=stream),
        transient=True,
    ) as progress:
        task = progress.add_task("embed", total=len(texts))
        for batch in batches:
            parts.append(np.asarray(encode(batch), dtype=np.float32))
            progress.advance(task, len(batch))
    return np.concatenate(parts)


class ToolVectors:
    """One unit vector per tool (in index order) and the dense kernel over them.

    Arguments:
        matrix: ``(tools, dim)`` float16, already as stored (see :meth:`build`).
        model_id: the encoder that made them.
        engine: ``"rust"`` or ``"python"``: which kernel scores them.

    Example:
        >>> vectors = ToolVectors(np.eye(2, dtype=np.float16), "m", "python")
        >>> vectors.similarities(np.array([1.0, 0.0], dtype=np.float32)).tolist()
        [1.0, 0.0]
    """

    def __init__(self, matrix: np.ndarray, model_id: str, engine: str) -> None:
        self.matrix = matrix
        self.model_id = model_id
        self.engine = engine
        self._kernel: DenseColumns | DenseRust | None = None

    @classmethod
    def build(cls, encode: Encode, tools: Sequence[Any], model_id: str, engine: str) -> ToolVectors:
        """The vectors of ``tools`` (their :func:`~toolsift.embed.tool_text`), embedded in
        batches of :data:`BATCH`."""
        texts = [tool_text(t) for t in tools]
        return cls(_stored(_with_progress(encode, texts)), model_id, engine)

    def __len__(self) -> int:
        return len(self.matrix)

    @property
    def kernel(self) -> DenseColumns | DenseRust:
        """The engine's dense kernel over :attr:`matrix`, made on first use."""
        kernel = self._kernel
        if kernel is None:
            kernel = self._kernel = dense_kernel(self.matrix, self.engine)
        return kernel

    def similarities(self, vector: np.ndarray) -> np.ndarray:
        """The cosine of the unit ``vector`` with every tool's, ``(tools,)`` float32."""
        if not len(self.matrix):
            return np.zeros(0, dtype=np.float32)
        return self.kernel.similarities(np.asarray(vector, dtype=np.float32))

    def similarities_many(self, vectors: np.ndarray) -> np.ndarray:
        """:meth:`similarities` of each unit row of ``vectors``, ``(len(vectors), tools)``
        float32, in one pass over the tool vectors.

        Example:
            >>> vectors = ToolVectors(np.eye(2, dtype=np.float16), "m", "python")
            >>> vectors.similarities_many(np.eye(2, dtype=np.float32)).tolist()
            [[1.0, 0.0], [0.0, 1.0]]
        """
        vectors = np.asarray(vectors, dtype=np.float32).reshape(-1, self.matrix.shape[1])
        if not len(self.matrix):
            return np.zeros((len(vectors), 0), dtype=np.float32)
        return self.kernel.similarities_many(vectors)

    def updated(
        self, kept: Sequence[int] | None, added: Sequence[Any], encode: Encode
    ) -> ToolVectors:
        """The vectors of an updated index: the rows of the ``kept`` old positions (``None``:
        all of them), in order, then the ``added`` tools, embedded now (only they)."""
        old = self.matrix if kept is None else self.matrix[np.asarray(kept, dtype=np.intp)]
        if added:
            new = _stored(encode([tool_text(t) for t in added]))
            old = np.concatenate([old.reshape(-1, self.matrix.shape[1]), new])
        return ToolVectors(np.ascontiguousarray(old, dtype=np.float16), self.model_id, self.engine)

    def on_engine(self, engine: str) -> ToolVectors:
        """The same vectors scored by ``engine``'s kernel."""
        return self if engine == self.engine else ToolVectors(self.matrix, self.model_id, engine)

    def to_header(self) -> dict[str, Any]:
        """The snapshot's ``semantic`` header entry: the model id, the dimension, and the
        vectors as base64 float16 (little-endian)."""
        data = self.matrix.astype("<f2").tobytes()
        return {
            "model": self.model_id,
            "dim": int(self.matrix.shape[1]) if self.matrix.ndim == 2 else 0,
            "vectors": base64.b64encode(data).decode("ascii"),
        }

    @classmethod
    def from_header(cls, entry: Any, n: int, engine: str) -> ToolVectors:
        """The vectors of a snapshot's ``semantic`` header entry for ``n`` tools.

        Raises:
            ValueError: the entry is malformed (the caller reports a ``SnapshotError``).
        """
        if not isinstance(entry, dict):
            raise ValueError("the semantic entry is not an object")
        model, dim, text = entry.get("model"), entry.get("dim"), entry.get("vectors")
        if not isinstance(model, str) or type(dim) is not int or not isinstance(text, str):
            raise ValueError("the semantic entry lacks its model, dimension or vectors")
        raw = base64.b64decode(text.encode("ascii"), validate=True)
        if dim < 1 or len(raw) != 2 * n * dim:
            raise ValueError(f"{len(raw)} bytes of vectors for {n} tools of {dim} dimensions")
        matrix = np.frombuffer(raw, dtype="<f2").astype(np.float16).reshape(n, dim)
        if not np.all(np.isfinite(matrix)):
            raise ValueError("the vectors hold a NaN or an infinity")
        return cls(matrix, model, engine)
