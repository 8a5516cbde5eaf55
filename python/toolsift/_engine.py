"""The one Protocol that both engines satisfy, so their APIs cannot drift apart.

``toolsift._core.Index`` (Rust) and ``toolsift._fallback.Index`` (pure Python) both implement it;
pyright checks that in CI (``tests/test_typing.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol


class EngineIndex(Protocol):
    """A BM25+ index over weighted-field documents; see ``_core.pyi`` for the documentation."""

    def __init__(
        self,
        names: Iterable[str],
        documents: Iterable[Sequence[tuple[int, str]]],
        field_weights: Sequence[float],
        *,
        k1: float = ...,
        b: float = ...,
        delta: float = ...,
    ) -> None: ...

    def search(
        self, query: str, limit: int, exclude: Iterable[int] | None = None
    ) -> list[tuple[int, float]]: ...

    def document_frequency(self, term: str) -> int: ...

    def __len__(self) -> int: ...

    @property
    def vocabulary_size(self) -> int: ...

    @property
    def average_length(self) -> float: ...

    @property
    def memory_bytes(self) -> int: ...
