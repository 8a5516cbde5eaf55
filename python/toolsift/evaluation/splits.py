"""The fixed train/test split of every labelled set: a query's split is a hash of the set's name and
the query's text, so it never depends on file order, sampling or the other queries, and every tool
(fitting, tuning, benchmarks) agrees on it. Fit and tune on ``"train"`` only; report ``"test"``.

About 30 % of the queries of a set are ``"test"``. The sets split this way are ``mcp_mixed``,
``metatool``, ``gorilla_hf`` and the authored ones (``notool-<catalogue>``, ``tasks-mcp_mixed``,
the derived keyword and name queries).

Example:
    >>> split_of("metatool", "find me a recipe for dinner") in SPLITS
    True
    >>> split_of("mcp_mixed", "x") == split_of("mcp_mixed", "x")
    True
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Iterable
from typing import Literal, TypeVar

from .datasets import Dataset

Split = Literal["train", "test"]
#: The two splits.
SPLITS: tuple[Split, ...] = ("train", "test")
#: Percentage of the queries of a set that are in ``"test"`` (in expectation).
TEST_PERCENT = 30

T = TypeVar("T")


def split_of(dataset: str, query: str) -> Split:
    """``"test"`` or ``"train"`` for ``query`` of the set named ``dataset``.

    The first 8 hex digits of ``sha256(dataset + "\\0" + query)`` as an integer, modulo 100: below
    30 is ``"test"``. The query text is used exactly as stored (no normalisation).

    Example:
        >>> split_of("gorilla_hf", "")
        'train'
    """
    digest = hashlib.sha256(f"{dataset}\x00{query}".encode()).hexdigest()
    return "test" if int(digest[:8], 16) % 100 < TEST_PERCENT else "train"


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")


def select(dataset: str, items: Iterable[T], split: Split, text: Callable[[T], str]) -> list[T]:
    """The ``items`` of ``dataset`` whose query text (``text(item)``) is in ``split``, in order.

    Example:
        >>> rows = [{"query": q} for q in ("a", "b", "c", "d", "e")]
        >>> train = select("demo", rows, "train", lambda r: r["query"])
        >>> test = select("demo", rows, "test", lambda r: r["query"])
        >>> sorted(r["query"] for r in train + test)
        ['a', 'b', 'c', 'd', 'e']
    """
    _check_split(split)
    return [item for item in items if split_of(dataset, text(item)) == split]


def split_dataset(dataset: Dataset, split: Split, name: str | None = None) -> Dataset:
    """``dataset`` with only the queries of ``split`` (the tools unchanged); ``name`` is the set's
    name in the hash when it differs from ``dataset.name``.

    Example:
        >>> from toolsift import Tool
        >>> from toolsift.evaluation.datasets import Query
        >>> queries = tuple(Query(q, frozenset({0})) for q in "abcde")
        >>> ds = Dataset("demo", (Tool(name="a"),), queries)
        >>> test = split_dataset(ds, "test")
        >>> len(test.queries) + len(split_dataset(ds, "train").queries), test.note
        (5, 'test split')
    """
    key = name or dataset.name
    queries = tuple(select(key, dataset.queries, split, lambda q: q.text))
    note = f"{dataset.note}; {split} split" if dataset.note else f"{split} split"
    return dataclasses.replace(dataset, queries=queries, note=note)


def sample_queries(dataset: Dataset, limit: int | None) -> Dataset:
    """``dataset`` with an evenly spaced sample of at most ``limit`` queries (every ``n``-th,
    ``n = ceil(total / limit)``, as ``load_dataset``'s ``limit``); all of them for ``None``.

    Example:
        >>> from toolsift import Tool
        >>> from toolsift.evaluation.datasets import Query
        >>> queries = tuple(Query(q, frozenset({0})) for q in "abcde")
        >>> ds = Dataset("demo", (Tool(name="a"),), queries)
        >>> [q.text for q in sample_queries(ds, 2).queries]
        ['a', 'd']
    """
    if limit is None or len(dataset.queries) <= limit:
        return dataset
    step = math.ceil(len(dataset.queries) / limit)
    note = f"{dataset.note}; every {step}th of {len(dataset.queries)}"
    return dataclasses.replace(dataset, queries=dataset.queries[::step], note=note)
