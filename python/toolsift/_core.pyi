"""Type stubs and user-facing documentation of the compiled engine, ``toolsift._core``.

Most users want :class:`toolsift.ToolIndex`, which builds an ``Index`` from :class:`toolsift.Tool`
objects. ``Index`` is the raw engine: documents are lists of ``(field id, text)`` pairs.
"""

from collections.abc import Iterable, Sequence
from typing import final

__all__ = ["Index", "tokenize", "__version__"]

__version__: str

def tokenize(text: str) -> list[str]:
    """Splits text into search terms exactly as the index does.

    NFKD, drop combining marks, split acronym/camelCase and lower-or-digit→Upper boundaries,
    every non-letter/non-number is a separator, lowercase (Unicode 14.0 tables, in both engines).

    Example:
        >>> tokenize("getHTTPResponse_v2")
        ['get', 'http', 'response', 'v', '2']
    """

@final
class Index:
    """An immutable BM25+ index over weighted-field documents.

    Arguments:
        names: one name per document; ties in score break by name, ascending (code point order).
        documents: per document, a sequence of ``(field id, text)`` pairs.
        field_weights: ``field_weights[f]`` is the weight of field ``f`` (finite, >= 0; a field of
            weight 0 is not scored, but required terms still find its words).
        k1: BM25 term-frequency saturation (>= 0). Default 1.2.
        b: length normalisation (0..1). Default 0.75.
        delta: BM25+ lower bound for a matched term (>= 0). Default 1.0.

    Raises:
        ValueError: mismatched lengths, an unknown field id, or a parameter out of range.
        TypeError: a document that is not a sequence of ``(int, str)`` pairs.

    Example:
        >>> idx = Index(["read_file", "fetch"], [[(0, "read_file")], [(0, "fetch")]], [6.0])
        >>> idx.search("read", 5)
        [(0, 2.0...)]
    """

    def __new__(
        cls,
        names: Iterable[str],
        documents: Iterable[Sequence[tuple[int, str]]],
        field_weights: Sequence[float],
        *,
        k1: float = 1.2,
        b: float = 0.75,
        delta: float = 1.0,
    ) -> Index: ...
    def search(
        self, query: str, limit: int, exclude: Iterable[int] | None = None
    ) -> list[tuple[int, float]]:
        """The top ``limit`` ``(document id, score)`` pairs for ``query``.

        Scores are BM25+ over the matched query terms only, > 0, sorted descending, then by name.
        Documents in ``exclude`` are left out before the cut, so the limit is still filled.
        The GIL is released while searching.

        Raises:
            toolsift.QueryError: the query has no letter or number.
            toolsift.LimitError: ``limit`` is not a positive int.
        """
    def document_frequency(self, term: str) -> int:
        """Number of documents that contain ``term`` (an already tokenized term)."""
    def __len__(self) -> int: ...
    @property
    def vocabulary_size(self) -> int:
        """Number of distinct indexed terms."""
    @property
    def average_length(self) -> float:
        """Average weighted document length (1.0 for an empty index)."""
    @property
    def memory_bytes(self) -> int:
        """Approximate heap bytes held by the index."""
