"""Hypothesis strategies shared by the scale tests: small corpora over a 20-word vocabulary, so
that terms overlap and most queries match something."""

from __future__ import annotations

from hypothesis import strategies as st

VOCAB = (
    "read write file issue pull request get list user channel send message calendar event "
    "the a of data Repo createIssue"
).split()
WEIGHTS = [6.0, 2.0, 1.0, 0.0]

text = st.lists(st.sampled_from(VOCAB), min_size=0, max_size=8).map(" ".join)
field = st.tuples(st.integers(0, len(WEIGHTS) - 1), text)
document = st.lists(field, max_size=4)
query = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=5).map(" ".join)


@st.composite
def corpus(draw, min_size=0, max_size=30):
    """``(names, documents)``; names may repeat, so ties by name fall back to document id."""
    n = draw(st.integers(min_size, max_size))
    names = [
        draw(st.sampled_from(["a", "b", "c", "d", "e", "f"])) + str(draw(st.integers(0, 3)))
        for _ in range(n)
    ]
    docs = [draw(document) for _ in range(n)]
    return names, docs


def _engine_params():
    import pytest
    from toolsift._fallback import Index as PyIndex

    try:
        from toolsift._core import Index as RustIndex
    except ImportError:
        RustIndex = None
    rust = pytest.param(
        RustIndex, id="rust", marks=pytest.mark.skipif(RustIndex is None, reason="no _core")
    )
    return [rust, pytest.param(PyIndex, id="python")], [
        pytest.param(
            "rust", id="rust", marks=pytest.mark.skipif(RustIndex is None, reason="no _core")
        ),
        pytest.param("python", id="python"),
    ]


#: For Hypothesis tests, which cannot take function-scoped fixtures: the engine classes and names.
ENGINE_CLASSES, ENGINE_NAMES = _engine_params()
