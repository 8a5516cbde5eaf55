"""Dense vectors of :class:`toolsift.hybrid.HybridIndex`: checked embedding matrices, unit rows,
and the similarity kernels (the Rust engine's ``DenseMatrix``, or numpy).

Example:
    >>> import numpy as np
    >>> _unit_rows(np.array([[3.0, 4.0]], dtype=np.float32)).tolist()
    [[0.6000000238418579, 0.800000011920929]]
"""

# ruff: noqa: UP045

from __future__ import annotations

from typing import Any, Callable

import numpy as np


def _float_array(value: Any, what: str) -> np.ndarray:
    """``value`` as a float32 array of finite numbers.

    Raises:
        ValueError: ``value`` is not numeric (strings, complex numbers, ragged nesting), or holds a
            NaN, an infinity, or a number beyond float32's range.
    """
    try:
        if value is None:
            raise TypeError("None")
        array = np.asarray(value)
        if array.dtype.kind not in "biufO":  # strings, bytes, complex numbers, dates...
            raise TypeError(f"dtype {array.dtype}")
        with np.errstate(over="ignore", invalid="ignore"):
            array = array.astype(np.float32)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{what} must be an array of real numbers, got {type(value).__name__} ({exc})"
        ) from None
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{what} must be finite (no NaN, no infinity, each within float32 range)")
    return array


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Each row of ``matrix`` scaled to length 1 (a zero row stays zero). Rows are first scaled
    by their largest magnitude, so that no squared norm overflows or underflows float32."""
    scale = np.max(np.abs(matrix), axis=-1, keepdims=True) if matrix.size else None
    if scale is not None:
        scale[scale == 0] = 1.0
        matrix = matrix / scale
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def _embedded(embed: Callable[[list[str]], Any], texts: list[str]) -> np.ndarray:
    """``embed(texts)`` checked: a finite ``(len(texts), dim)`` float32 matrix, ``dim >= 1``.

    Raises:
        ValueError: the callable returned something else (the message says what it returned).
    """
    out = embed(texts)
    matrix = _float_array(out, "the embed callable's result")
    if matrix.ndim != 2 or matrix.shape[0] != len(texts) or matrix.shape[1] < 1:
        raise ValueError(
            f"the embed callable must return one vector per text, a ({len(texts)}, dim) matrix, "
            f"got shape {matrix.shape} for {len(texts)} text(s)"
        )
    return _unit_rows(matrix)


class _DenseColumns:
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


class _DenseRust:
    """``toolsift._core.DenseMatrix`` behind :class:`_DenseColumns`' interface: one pass over
    the vectors in Rust, on one thread, without the GIL."""

    def __init__(self, matrix: np.ndarray, dense_matrix: Any) -> None:
        self.rows = len(matrix)
        data = np.ascontiguousarray(matrix, dtype=np.float32)
        self._matrix = dense_matrix(data.tobytes(), data.shape[0], data.shape[1])

    def similarities(self, vector: np.ndarray) -> np.ndarray:
        vector = np.ascontiguousarray(vector, dtype=np.float32)
        return np.frombuffer(self._matrix.similarities(vector.tobytes()), dtype=np.float32)

    def top_k(
        self, vector: np.ndarray, k: int, exclude: np.ndarray, only: np.ndarray | None
    ) -> list[tuple[int, float]]:
        vector = np.ascontiguousarray(vector, dtype=np.float32)
        excluded = np.asarray(exclude, dtype=np.uint32).tobytes()
        allowed = None if only is None else np.asarray(only, dtype=np.uint32).tobytes()
        hits: list[tuple[int, float]] = self._matrix.top_k(vector.tobytes(), k, excluded, allowed)
        return hits


def _dense_kernel(matrix: np.ndarray, engine: str) -> _DenseColumns | _DenseRust:
    """The dense kernel of an index on ``engine``: Rust's for ``"rust"``, else the twin."""
    if engine == "rust":
        from .._core import DenseMatrix  # the Rust engine is loaded: its index was built with it

        return _DenseRust(matrix, DenseMatrix)
    return _DenseColumns(matrix)
