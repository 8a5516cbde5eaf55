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
@pytest.mark.parametrize("drop", [[3], [1, 1], [2, 1], [-1]])
def test_bad_positions_are_refused(drop: list[int]) -> None:
    from toolsift._core import _new_ids, _spliced

    with pytest.raises((ValueError, OverflowError), match=r"drop|negative|unsigned|convert"):
        _spliced(("a", "b", "c"), drop, ())
    with pytest.raises((ValueError, OverflowError), match=r"drop|negative|unsigned|convert"):
        _new_ids(3, drop)
