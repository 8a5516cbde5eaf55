"""Dense vectors of :class:`toolsift.hybrid.HybridIndex`: checked embedding matrices; the unit
rows and the similarity kernels (the Rust engine's ``DenseMatrix``, or numpy) are the semantic
stage's (:mod:`toolsift.semantic.vectors`).

Example:
    >>> import numpy as np
    >>> _unit_rows(np.array([[3.0, 4.0]], dtype=np.float32)).tolist()
    [[0.6000000238418579, 0.800000011920929]]
"""

# ruff: noqa: UP045

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..semantic.vectors import DenseColumns as _DenseColumns
from ..semantic.vectors import DenseRust as _DenseRust
from ..semantic.vectors import dense_kernel as _dense_kernel
from ..semantic.vectors import unit_rows as _unit_rows

__all__ = [
    "_DenseColumns",
    "_DenseRust",
    "_dense_kernel",
    "_embedded",
    "_float_array",
    "_unit_rows",
]


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
