"""Positions after a copy-on-write update (``toolsift._snapshot.positions``): the compiled
splice of an updated index's tuple of tools (``_core._spliced``) and its old -> new id
translation (``_core._new_ids``) equal the Python forms they replace, which stay the fallback
without the compiled extension."""

from __future__ import annotations

import gc
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolsift._snapshot import positions

from .conftest import HAVE_RUST


@st.composite
def removals(draw: st.DrawFn) -> tuple[int, list[int]]:
    n = draw(st.integers(0, 80))
    drop = draw(st.sets(st.integers(0, max(n - 1, 0)), max_size=n)) if n else set()
    return n, sorted(drop)


@given(removals(), st.integers(0, 5))
def test_the_splice_and_the_ids_equal_the_python_forms(
    removal: tuple[int, list[int]], added: int
) -> None:
    n, drop = removal
    items = tuple(object() for _ in range(n))
    add = tuple(object() for _ in range(added))
    kept = [x for i, x in enumerate(items) if i not in set(drop)]
    ids = positions.new_ids(n, drop)
    assert positions.spliced(items, drop, add) == (*kept, *add)
    assert positions.new_id_array(n, drop).tolist() == ids
    assert [items[i] for i in range(n) if ids[i] >= 0] == kept
    assert [ids[i] for i in range(n) if ids[i] >= 0] == list(range(len(kept)))


def test_the_python_forms_without_the_compiled_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(positions, "_spliced", None)
    monkeypatch.setattr(positions, "_new_ids", None)
    assert positions.spliced(("a", "b", "c"), [1], ("d",)) == ("a", "c", "d")
    assert positions.new_id_array(3, [0]) == array("q", [-1, 0, 1])


def test_a_list_is_spliced_by_the_python_form() -> None:
    assert positions.spliced(["a", "b"], [0], ("c",)) == ("b", "c")  # type: ignore[arg-type]


@pytest.mark.skipif(not HAVE_RUST, reason="the compiled splice")
def test_the_compiled_splice_is_untracked_and_holds_its_items() -> None:
    from toolsift._core import _spliced

    items = tuple([i] for i in range(5))
    out = _spliced(items, [0, 3], ([9],))
    assert out == ([1], [2], [4], [9])
    assert not gc.is_tracked(out)
    del items
    gc.collect()
    assert out == ([1], [2], [4], [9])


@pytest.mark.skipif(not HAVE_RUST, reason="the compiled splice")
@given(removals(), st.integers(0, 5), st.integers(0, 9))
def test_a_chunked_splice_equals_the_one_pass_splice(
    removal: tuple[int, list[int]], added: int, chunk: int
) -> None:
    """Filled ``chunk`` items per hold of the GIL (0: one hold), the tuple is the one-pass
    splice's, item for item, and takes one reference to each item it holds."""
    import sys

    from toolsift._core import _spliced

    n, drop = removal
    items = tuple([i] for i in range(n))
    add = tuple([-i] for i in range(added))
    one_pass = _spliced(items, drop, add, 0)
    before = [sys.getrefcount(x) for x in (*items, *add)]
    chunked = _spliced(items, drop, add, chunk)
    assert len(chunked) == len(one_pass) and all(a is b for a, b in zip(chunked, one_pass))
    assert not gc.is_tracked(chunked)
    gone = set(drop)
    held = [i not in gone for i in range(n)] + [True] * added
    after = [sys.getrefcount(x) for x in (*items, *add)]
    assert [a - b for a, b in zip(after, before)] == [int(h) for h in held]
    del chunked
    assert [sys.getrefcount(x) for x in (*items, *add)] == before


@pytest.mark.skipif(not HAVE_RUST, reason="the compiled splice")
def test_chunked_splices_on_many_threads_at_once() -> None:
    """Threads splicing while the others hand the GIL over between chunks each get their own
    whole result (the GIL is released mid-splice, the tuple being filled is no one else's)."""
    import threading

    from toolsift._core import _spliced

    items = tuple(range(5000))
    drop = list(range(0, 5000, 7))
    add = ("x", "y")
    expected = _spliced(items, drop, add, 0)
    results: list[bool] = []

    def splice() -> None:
        for _ in range(5):
            results.append(_spliced(items, drop, add, 3) == expected)

    threads = [threading.Thread(target=splice) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 20


def test_the_splice_reads_its_chunk_size(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    if positions._spliced is not None:
        compiled = positions._spliced

        def spy(items: tuple, drop: list, add: tuple, chunk: int) -> tuple:
            seen.append(chunk)
            return compiled(items, drop, add, chunk)

        monkeypatch.setattr(positions, "_spliced", spy)
    monkeypatch.setattr(positions, "SPLICE_CHUNK", 2)
    assert positions.spliced(("a", "b", "c", "d"), [0], ("e",)) == ("b", "c", "d", "e")
    assert seen == ([2] if positions._spliced is not None else [])


@pytest.mark.skipif(not HAVE_RUST, reason="the compiled splice")
@pytest.mark.parametrize("drop", [[3], [1, 1], [2, 1], [-1]])
def test_bad_positions_are_refused(drop: list[int]) -> None:
    from toolsift._core import _new_ids, _spliced

    with pytest.raises((ValueError, OverflowError), match=r"drop|negative|unsigned|convert"):
        _spliced(("a", "b", "c"), drop, ())
    with pytest.raises((ValueError, OverflowError), match=r"drop|negative|unsigned|convert"):
        _new_ids(3, drop)
