"""The Protocols that both engines satisfy, so their APIs cannot drift apart.

``toolsift._core.Index`` (Rust) and ``toolsift._pyengine.index.Index`` (pure Python) both implement
:class:`EngineIndex`, and both classes are an :class:`EngineIndexClass`; the same for the keyword
scorers. pyright checks that in CI (``tests/test_typing.py``).

The constructors are Protocols of their own (``__call__`` on the class object) because the engines
construct differently: PyO3 classes take their arguments in ``__new__`` (``_core.pyi`` says so, as
stubtest demands), the Python classes in ``__init__``. A Protocol's ``__init__`` member is compared
with the class's ``__init__`` alone, which the Rust classes inherit from ``object``; the signature
of the class as a callable covers both ways.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .._text.analysis import ProfileName
    from ..result import Match, MatchReason
    from ..tools import Tool


class EngineIndex(Protocol):
    """A BM25+ index over weighted-field documents; see ``_core.pyi`` for the documentation."""

    def search(
        self,
        query: str,
        limit: int,
        exclude: Iterable[int] | None = None,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = ...,
        prefix_min_len: int = ...,
        max_expansions: int = ...,
        threshold: float = ...,
        relative_floor: float = ...,
        coverage: bool = ...,
    ) -> list[tuple[int, float]]: ...

    def search_matches(
        self,
        tools: Sequence[Tool],
        reason: MatchReason,
        query: str,
        limit: int,
        exclude: Iterable[int] | None = None,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = ...,
        prefix_min_len: int = ...,
        max_expansions: int = ...,
        threshold: float = ...,
        relative_floor: float = ...,
        coverage: bool = ...,
    ) -> list[Match]: ...

    def score_documents(
        self,
        query: str,
        docs: Sequence[int],
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = ...,
        prefix_min_len: int = ...,
        max_expansions: int = ...,
    ) -> list[tuple[int, float]]: ...

    def explain(
        self,
        query: str,
        doc: int,
        document: Iterable[tuple[int, str]],
        *,
        prefix_fraction: float = ...,
        prefix_min_len: int = ...,
        max_expansions: int = ...,
    ) -> list[
        tuple[str, str, bool, float, float, float, float, float, list[tuple[int, float]]]
    ]: ...

    def document_frequency(self, term: str) -> int: ...

    def __len__(self) -> int: ...

    @property
    def profile(self) -> str: ...

    @property
    def vocabulary_size(self) -> int: ...

    @property
    def average_length(self) -> float: ...

    @property
    def memory_bytes(self) -> int: ...

    # --- scale and concurrency: batch search, snapshots, live updates ---

    def search_many(
        self,
        queries: Iterable[str],
        limit: int,
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
        prefix_fraction: float = ...,
        prefix_min_len: int = ...,
        max_expansions: int = ...,
        threshold: float = ...,
        relative_floor: float = ...,
        coverage: bool = ...,
    ) -> list[list[tuple[int, float]]]: ...

    def to_bytes(self, metadata: bytes | None = None) -> bytes: ...

    # ``from_bytes`` and ``load`` construct an index, so they are not part of this instance
    # protocol: a static method (Rust) and a class method (Python) with the same signature,
    # ``(data_or_path, *, with_metadata=False) -> Index | tuple[Index, bytes]``.

    def save(self, path: str | os.PathLike[str], metadata: bytes | None = None) -> None: ...

    def updated(
        self,
        names: Iterable[str] | None = None,
        documents: Iterable[Sequence[tuple[int, str]]] | None = None,
        *,
        remove: Iterable[int] | None = None,
    ) -> EngineIndex: ...

    @property
    def names(self) -> list[str]: ...

    @property
    def params(self) -> tuple[float, float, float]: ...


class EngineIndexClass(Protocol):
    """An engine's index class (``select_engine``'s), called to build an :class:`EngineIndex`."""

    def __call__(
        self,
        names: Iterable[str],
        documents: Iterable[Sequence[tuple[int, str]]],
        field_weights: Sequence[float],
        *,
        k1: float = ...,
        b: float = ...,
        delta: float = ...,
        profile: ProfileName = ...,
    ) -> EngineIndex: ...


class EngineKeywordIndex(Protocol):
    """``ToolSearch``'s keyword scorer; ``_core.KeywordIndex`` and ``_keyword.KeywordIndex``."""

    def search(
        self,
        query: str,
        limit: int,
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
        required: Iterable[str] | None = None,
    ) -> list[tuple[int, float]]: ...

    def __len__(self) -> int: ...


class EngineKeywordIndexClass(Protocol):
    """A keyword scorer's class, called to build an :class:`EngineKeywordIndex`."""

    def __call__(
        self,
        names: Iterable[str],
        parts: Iterable[Sequence[str]],
        mcp: Sequence[bool],
        hints: Iterable[str],
        descriptions: Iterable[str],
    ) -> EngineKeywordIndex: ...


class EngineRegexIndex(Protocol):
    """The regex ranker's index; ``_core.RegexIndex`` and ``_pyengine.regex.RegexIndex``.
    ``pattern`` is a checked pattern in the engine's form: ``Pattern.rust`` (a str) for Rust,
    the ``regex_pattern.Pattern`` itself (or a str it checks) for the twin."""

    def search(
        self,
        pattern: Any,
        limit: int,
        exclude: Iterable[int] | None = None,
        *,
        include: Iterable[int] | None = None,
    ) -> list[tuple[int, float]]: ...

    def __len__(self) -> int: ...


class EngineRegexIndexClass(Protocol):
    """A regex index's class, called to build an :class:`EngineRegexIndex`."""

    def __call__(
        self,
        names: Iterable[str],
        descriptions: Iterable[str],
        parameter_names: Iterable[Sequence[str]],
        parameter_descriptions: Iterable[Sequence[str]],
    ) -> EngineRegexIndex: ...
