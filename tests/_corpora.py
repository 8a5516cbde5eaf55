"""Hypothesis strategies shared by the scale tests: small corpora over a 20-word vocabulary, so
that terms overlap and most queries match something."""

from __future__ import annotations

from hypothesis import strategies as st
from toolsift import Tool

VOCAB = (
    "read write file issue pull request get list user channel send message calendar event "
    "the a of data Repo createIssue"
).split()
WEIGHTS = [6.0, 2.0, 1.0, 0.0]

text = st.lists(st.sampled_from(VOCAB), min_size=0, max_size=8).map(" ".join)
field = st.tuples(st.integers(0, len(WEIGHTS) - 1), text)
document = st.lists(field, max_size=4)
query = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=5).map(" ".join)
#: Beginnings of vocabulary words: no exact term, so they only match by prefix expansion.
PREFIXES = ["rea", "wri", "mess", "chan", "cal", "iss", "req", "creat", "us"]
prefix_query = st.lists(st.sampled_from(VOCAB + PREFIXES), min_size=1, max_size=5).map(" ".join)
#: Tokenized words for ``required``; with ``WEIGHTS[3] == 0`` some are only presence postings.
REQUIRED = ["read", "file", "issue", "user", "the", "data", "repo", "create", "message", "nope"]

#: Query-language options that read the presence postings, the sorted terms and match counts.
QUERY_LANGUAGE = [
    {"required": ["data"]},
    {"required": ["repo", "the"]},
    {"prefix_fraction": 0.5},
    {"prefix_fraction": 1.0, "prefix_min_len": 2, "max_expansions": 2},
    {"coverage": True, "prefix_fraction": 0.5, "required": ["the"]},
    {"threshold": 1.0, "relative_floor": 0.5, "prefix_fraction": 0.5},
]


@st.composite
def search_options(draw, n_docs=30):
    """Keyword options of ``Index.search`` / ``search_many``: any subset, any values in range."""
    opts: dict = {}
    if draw(st.booleans()):
        opts["include"] = draw(st.lists(st.integers(0, max(n_docs - 1, 0)), max_size=12))
    if draw(st.booleans()):
        opts["required"] = draw(st.lists(st.sampled_from(REQUIRED), max_size=2))
    if draw(st.booleans()):
        opts["prefix_fraction"] = draw(st.sampled_from([0.25, 0.5, 1.0]))
        opts["prefix_min_len"] = draw(st.integers(1, 4))
        opts["max_expansions"] = draw(st.integers(1, 16))
    if draw(st.booleans()):
        opts["threshold"] = draw(st.floats(0.0, 20.0))
    if draw(st.booleans()):
        opts["relative_floor"] = draw(st.floats(0.0, 1.0))
    if draw(st.booleans()):
        opts["coverage"] = True
    return opts


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
    from toolsift._pyengine.index import Index as PyIndex

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


#: Two tools for word pairs: both hold "word" and "cloud", the second twice each and never side
#: by side, so it wins without pairs; only the first's summary holds the pair ``wordcloud``, and
#: only the second's ``cloudword`` (a window of two: "cloud drive word").
WORD_CLOUD_TOOLS = [
    Tool(name="make_chart", description="Draws a word cloud."),
    Tool(
        name="backups",
        description="Cloud drive sync. Word processor backups, kept on a cloud drive, as word "
        "documents.",
    ),
]

#: Four unrelated tools, one per axis of ``np.eye(4)`` in the hybrid tests (each tool's "meaning").
FOUR_TOOLS = [
    Tool(name="get_weather", description="Current weather conditions for a city"),
    Tool(name="create_issue", description="Open a new issue in a repository"),
    Tool(name="send_email", description="Send an email message"),
    Tool(name="read_file", description="Read a file from disk"),
]
