"""A name table's remap composes id translations (base id -> old id -> new id) in the engine
(``_core._composed_ids``); the Python loop it replaces is the fallback, and both agree."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolsift._names import table

from .conftest import HAVE_RUST

pytestmark = pytest.mark.skipif(not HAVE_RUST, reason="the compiled composition")


@st.composite
def translations(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    through = draw(st.lists(st.integers(-1, 2**62), max_size=60))
    ids = draw(st.lists(st.integers(-1, len(through) - 1), max_size=80))
    return through, ids


@given(translations())
def test_the_engine_composes_as_the_python_loop(pair: tuple[list[int], list[int]]) -> None:
    through, ids = array("q", pair[0]), array("q", pair[1])
    compiled = table._composed(through, ids)
    saved = table._composed_ids
    table._composed_ids = None
    try:
        python = table._composed(through, ids)
    finally:
        table._composed_ids = saved
    assert compiled == python
    assert list(compiled) == [-1 if i == -1 else pair[0][i] for i in pair[1]]


@pytest.mark.parametrize(
    ("through", "ids", "message"),
    [
        (b"\0" * 7, b"", "whole 64-bit ids"),
        (array("q", [1]).tobytes(), array("q", [1]).tobytes(), "outside 0..1"),
        (array("q", [1]).tobytes(), array("q", [-2]).tobytes(), "outside 0..1"),
    ],
)
def test_a_bad_translation_is_a_value_error(through: bytes, ids: bytes, message: str) -> None:
    from toolsift._core import _composed_ids

    with pytest.raises(ValueError, match=message):
        _composed_ids(through, ids)
