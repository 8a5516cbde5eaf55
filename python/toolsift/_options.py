"""Every search and build option's validation and error message, once: the public calls
(``ToolIndex``, ``search_many``, ``explain``, the session, ``HybridIndex``, the CLI) and the
pure-Python engine all check their options here, so each message is written in one place. The
Rust engine has no copy: it takes the values it can compute with, and asks this module for the
error of any other (``rust/bindings/convert.rs``, ``refused``); ``tests/test_options_once.py``
proves both engines raise the same errors and take the same values.

Example:
    >>> check_limit(0)
    Traceback (most recent call last):
    ...
    toolsift.errors.LimitError: Limit must be a positive integer, got 0.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import LimitError

#: How many matches a search returns by default.
DEFAULT_LIMIT = 8
#: A larger ``limit`` is clamped to this (``ToolSearch``'s hard cap), and the result says so.
DEFAULT_MAX_LIMIT = 25
#: Claude Code ``ToolSearch``'s default number of matches for the keyword ranker.
DEFAULT_KEYWORD_LIMIT = 5
#: A query term missing from the index matches the terms it begins, at this fraction
#: (InitRunner's tool search).
DEFAULT_PREFIX_FRACTION = 0.5


def check_text(value: object, what: str) -> str:
    """``value`` if it is a str, else a ``TypeError`` naming ``what``."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


#: The largest field weight (``build::MAX_FIELD_WEIGHT``): term frequencies are float32 sums of
#: weights, which a larger weight could overflow to infinity (a NaN score).
MAX_FIELD_WEIGHT = 1e30
#: The smallest field weight but 0 (``build::MIN_FIELD_WEIGHT``): a smaller one is lost in the
#: float32 sums of the Rust engine, so the engines would disagree on the scores.
MIN_FIELD_WEIGHT = 1e-6
#: The largest BM25+ ``k1`` and ``delta``: larger ones overflow the scores to infinity (and a
#: normalized score to NaN); the useful values are 0-3 (``k1``) and 0-2 (``delta``).
MAX_BM25_PARAM = 1000.0

#: The largest count option passed on (``prefix_min_len``, ``max_expansions``): a larger value
#: acts as this one (no term is that long, no term has that many expansions), and it fits the
#: Rust engine's ``usize`` on every platform.
MAX_COUNT_OPTION = 2**31 - 1


def as_real(value: object, what: str) -> float:
    """``value`` as a float, for an option that must be a real number (an int, a float, a numpy
    scalar): a ``str`` is a ``TypeError`` here, as in the Rust engine, where ``float()`` would
    parse it.

    Example:
        >>> as_real(1, "threshold")
        1.0
    """
    if isinstance(value, (str, bytes, bytearray)) or not (
        hasattr(type(value), "__float__") or hasattr(type(value), "__index__")
    ):
        raise TypeError(f"{what} must be a number, got {type(value).__name__}")
    try:
        return float(value)  # type: ignore[arg-type]  # it has __float__ or __index__
    except OverflowError:  # an int past the float range (10**400)
        raise ValueError(
            f"{what} must be a finite number, got an int too large for a float"
        ) from None


def as_count(value: object, what: str) -> int:
    """``value`` as an int >= 0 (``TypeError`` for a float or str, ``ValueError`` below 0),
    capped at :data:`MAX_COUNT_OPTION`, which means the same.

    Example:
        >>> as_count(10**20, "max_expansions") == MAX_COUNT_OPTION
        True
    """
    try:
        count = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{what} must be an int, got {type(value).__name__}") from None
    if count < 0:
        raise ValueError(f"{what} must be >= 0, got {count}")
    return min(count, MAX_COUNT_OPTION)


def limit_error(limit: object) -> LimitError:
    """The one error for a limit that is not a positive integer (both engines raise it)."""
    return LimitError(f"Limit must be a positive integer, got {limit!r}.")


def check_limit(limit: object) -> int:
    """``limit`` must be an int (not a bool) >= 1.

    Example:
        >>> check_limit(3)
        3
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise limit_error(limit)
    return limit


def check_bm25_params(k1: float, b: float, delta: float) -> tuple[float, float, float]:
    """BM25+'s ``k1``, ``b`` and ``delta`` as floats, each in its range (both engines' check)."""
    k1, b, delta = as_real(k1, "k1"), as_real(b, "b"), as_real(delta, "delta")
    if not (math.isfinite(k1) and 0.0 <= k1 <= MAX_BM25_PARAM):
        raise ValueError(f"Invalid k1: must be between 0 and 1000, got {k1}")
    if not (math.isfinite(b) and 0.0 <= b <= 1.0):
        raise ValueError(f"Invalid b: must be between 0 and 1, got {b}")
    if not (math.isfinite(delta) and 0.0 <= delta <= MAX_BM25_PARAM):
        raise ValueError(f"Invalid delta: must be between 0 and 1000, got {delta}")
    return k1, b, delta


def check_field_weight(weight: object, what: str) -> float:
    """``weight`` as a float, if it is 0 or between :data:`MIN_FIELD_WEIGHT` and
    :data:`MAX_FIELD_WEIGHT`; else a ``TypeError`` / ``ValueError`` naming ``what``.

    Example:
        >>> check_field_weight(2, "FieldWeights.summary")
        2.0
    """
    w = as_real(weight, what)
    if not (w == 0.0 or MIN_FIELD_WEIGHT <= w <= MAX_FIELD_WEIGHT):
        raise ValueError(f"{what} must be 0 or a number between 1e-6 and 1e30, got {w!r}")
    return w


def check_weight_list(weights: Iterable[object]) -> list[float]:
    """An engine's field weights, in field-id order, each checked by :func:`check_field_weight`
    (both engines' check: the Rust one asks it about weights it refuses).

    Example:
        >>> check_weight_list([6, 0.5, 0])
        [6.0, 0.5, 0.0]
    """
    return [check_field_weight(w, f"field weight {i}") for i, w in enumerate(weights)]


def check_threshold(threshold: object) -> float:
    """A score threshold as a float: a finite number >= 0 (the search options' and the
    session's check).

    Example:
        >>> check_threshold(1)
        1.0
    """
    value = as_real(threshold, "threshold")
    if not (math.isfinite(value) and value >= 0.0):
        raise ValueError(f"Invalid threshold: must be a finite number >= 0, got {value}")
    return value


def check_query_length(max_query_length: object) -> int:
    """``max_query_length`` if it is an int (not a bool) >= 1, else a ``TypeError`` /
    ``ValueError`` (the search calls of ``ToolIndex`` and ``HybridIndex`` share it).

    Example:
        >>> check_query_length(500)
        500
    """
    if isinstance(max_query_length, bool) or not isinstance(max_query_length, int):
        raise TypeError("max_query_length must be an int")
    if max_query_length < 1:
        raise ValueError(f"max_query_length must be a positive int, got {max_query_length}")
    return max_query_length


class SearchOptions:
    """The validated keyword options of a search: both engines' one check of them (the Rust
    engine's ``SearchOptions``, ``rust/search/options.rs``, asks it about any value it cannot
    take)."""

    __slots__ = (
        "exclude",
        "include",
        "required",
        "prefix_fraction",
        "prefix_min_len",
        "max_expansions",
        "threshold",
        "relative_floor",
        "coverage",
    )

    def __init__(
        self,
        exclude: Iterable[int] | None,
        include: Iterable[int] | None,
        required: Iterable[str] | None,
        prefix_fraction: float,
        prefix_min_len: int,
        max_expansions: int,
        threshold: float,
        relative_floor: float,
        coverage: bool,
    ) -> None:
        self.exclude = set(exclude) if exclude is not None else frozenset()
        self.include = set(include) if include is not None else None
        self.required = [check_text(t, "required term") for t in required or ()]
        self.prefix_fraction = as_real(prefix_fraction, "prefix_fraction")
        self.prefix_min_len = as_count(prefix_min_len, "prefix_min_len")
        self.max_expansions = as_count(max_expansions, "max_expansions")
        self.threshold = as_real(threshold, "threshold")
        self.relative_floor = as_real(relative_floor, "relative_floor")
        if not isinstance(coverage, bool):
            raise TypeError(f"coverage must be a bool, got {type(coverage).__name__}")
        self.coverage = coverage
        if not (math.isfinite(self.prefix_fraction) and self.prefix_fraction >= 0.0):
            raise ValueError(
                f"Invalid prefix fraction: must be a finite number >= 0, got {self.prefix_fraction}"
            )
        check_threshold(self.threshold)
        if not (math.isfinite(self.relative_floor) and 0.0 <= self.relative_floor <= 1.0):
            raise ValueError(
                f"Invalid relative floor: must be between 0 and 1, got {self.relative_floor}"
            )


def check_max_bytes(max_bytes: object) -> int:
    """A file size cap (``load_catalog``'s and ``ToolIndex.load``'s ``max_bytes``): an int >= 0.

    Example:
        >>> check_max_bytes(1024)
        1024
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
        raise TypeError(f"max_bytes must be an int, got {type(max_bytes).__name__}")
    if max_bytes < 0:
        raise ValueError(f"max_bytes must be >= 0, got {max_bytes}")
    return max_bytes


def check_flag(value: object, what: str) -> bool:
    """``value`` if it is a bool, else a ``TypeError`` naming ``what`` (``"no"`` is truthy: it
    must not turn an option on).

    Example:
        >>> check_flag(False, "normalize")
        False
    """
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be a bool, got {type(value).__name__}")
    return value


def check_names(value: object, what: str) -> tuple[str, ...]:
    """``value`` (one name as a str, or an iterable of str names) as a tuple of names, else a
    ``TypeError`` (bytes, a mapping, a name that is not a str) or ``ValueError`` (an empty
    name) naming ``what`` (``exclude``, ``servers``).

    Example:
        >>> check_names("slack", "servers"), check_names(["a", "b"], "exclude")
        (('slack',), ('a', 'b'))
    """
    if isinstance(value, str):
        names: tuple[object, ...] = (value,)
    elif isinstance(value, (bytes, bytearray, memoryview, Mapping)) or not isinstance(
        value, Iterable
    ):
        raise TypeError(
            f"{what} must be a str or an iterable of str names, got {type(value).__name__}"
        )
    else:
        names = tuple(value)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{what} must hold str names, got {type(name).__name__}")
        if not name:
            raise ValueError(f"{what} must not hold an empty name")
    return names  # type: ignore[return-value]  # every item is a str


def keyword_options(
    given: Mapping[str, Any], defaults: Mapping[str, Any], caller: str
) -> dict[str, Any]:
    """The keyword options a call passed on as ``**options`` (``given``), completed with the
    ``defaults`` of the signature they are taken from (its ``__kwdefaults__``), in its order;
    an option it does not take is the ``TypeError`` Python raises for ``caller``.

    Example:
        >>> keyword_options({"ranker": "keyword"}, {"exclude": (), "ranker": "bm25"}, "f")
        {'exclude': (), 'ranker': 'keyword'}
        >>> keyword_options({"limits": 3}, {"exclude": ()}, "search_many")
        Traceback (most recent call last):
        ...
        TypeError: search_many() got an unexpected keyword argument 'limits'
    """
    for name in given:
        if name not in defaults:
            raise TypeError(f"{caller}() got an unexpected keyword argument {name!r}")
    return {name: given.get(name, default) for name, default in defaults.items()}
