"""The persistent maps of catalogue updates (``toolsift._overlay``): each equals the ``dict`` the
same changes make, across the folds into a new base, and an update never changes its source."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import _overlay
from toolsift._overlay import OverlayMap, PositionMap

KEYS = st.integers(0, 40)


@pytest.fixture
def small_folds(monkeypatch):
    """Folds after 4 changed keys, so that a short test crosses several."""
    monkeypatch.setattr(_overlay, "COMPACT_AT_LEAST", 4)


def _steps():
    """Random update steps: (keys to remove, present ones only; key/value pairs to assign)."""
    return st.lists(
        st.tuples(st.lists(KEYS, max_size=4), st.lists(st.tuples(KEYS, st.integers()), max_size=4)),
        max_size=30,
    )


@pytest.mark.parametrize("fold_often", [False, True])
@given(start=st.dictionaries(KEYS, st.integers(), max_size=20), steps=_steps())
@settings(deadline=None)
def test_overlay_map_equals_a_dict_after_any_updates(fold_often, start, steps) -> None:
    saved = _overlay.COMPACT_AT_LEAST
    _overlay.COMPACT_AT_LEAST = 4 if fold_often else saved
    try:
        model = dict(start)
        current = OverlayMap(start)
        history = [(current, dict(model))]
        for remove, assign in steps:
            remove = [k for k in dict.fromkeys(remove) if k in model]
            for key in remove:
                del model[key]
            for key, value in assign:
                model[key] = value
            current = current.updated(remove, assign)
            history.append((current, dict(model)))
        for got, expected in history:  # every earlier map is unchanged
            assert list(got.items()) == list(expected.items())
            assert len(got) == len(expected)
            for key in range(-1, 42):
                assert (key in got) == (key in expected)
                assert got.get(key, "none") == expected.get(key, "none")
    finally:
        _overlay.COMPACT_AT_LEAST = saved


def test_overlay_map_refuses_removing_a_missing_key_and_stays_as_it_was() -> None:
    base = OverlayMap({"a": 1})
    with pytest.raises(KeyError):
        base.updated(remove=["b"])
    with pytest.raises(KeyError):
        base.updated(remove=["a", "a"])
    assert dict(base) == {"a": 1}
    with pytest.raises(KeyError):
        base["b"]


def test_an_overlay_is_folded_into_a_fresh_base_once_large(small_folds) -> None:
    current = OverlayMap({i: i for i in range(8)})
    sizes = []
    for i in range(8, 40):
        current = current.updated(remove=[i - 8], assign=[(i, i)])
        sizes.append(current.overlay_size)
    assert max(sizes) <= 2 * 4 + 2  # never more than the fold threshold plus one change
    assert 0 in sizes  # folded at least once
    assert list(current.items()) == [(i, i) for i in range(32, 40)]


@pytest.mark.parametrize("fold_often", [False, True])
@given(
    n=st.integers(0, 30),
    steps=st.lists(
        st.tuples(st.lists(st.integers(0, 60), max_size=5), st.integers(0, 4)), max_size=25
    ),
)
@settings(deadline=None)
def test_position_map_equals_the_positions_of_the_renumbered_list(fold_often, n, steps) -> None:
    saved = _overlay.COMPACT_AT_LEAST
    _overlay.COMPACT_AT_LEAST = 4 if fold_often else saved
    try:
        names = [f"t{i}" for i in range(n)]
        current = PositionMap.of({name: i for i, name in enumerate(names)})
        fresh = n
        history = []
        for drops, adding in steps:
            drop = list(dict.fromkeys(names[d] for d in drops if d < len(names)))
            add = [f"t{fresh + j}" for j in range(adding)]
            fresh += adding
            # a dropped name may come back in the same update (a tool replaced)
            if drop and adding:
                add[0] = drop[0]
            current = PositionMap.of(current).updated(drop, add)
            names = [x for x in names if x not in drop] + add
            history.append((current, {name: i for i, name in enumerate(names)}))
        for got, expected in history:
            assert list(got) == list(expected)
            assert dict(got.items()) == expected and len(got) == len(expected)
            for probe in [*expected, "t999", "x"]:
                assert got.get(probe) == expected.get(probe)
                assert (probe in got) == (probe in expected)
    finally:
        _overlay.COMPACT_AT_LEAST = saved


def test_position_map_refuses_an_unknown_or_dropped_name() -> None:
    ids = PositionMap.of({"a": 0, "b": 1})
    with pytest.raises(KeyError):
        ids.updated(["c"], [])
    later = ids.updated(["a"], [])
    with pytest.raises(KeyError):
        PositionMap.of(later).updated(["a"], [])
    assert dict(ids) == {"a": 0, "b": 1}
    with pytest.raises(KeyError):
        later["a"]
