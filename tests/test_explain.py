"""``ToolIndex.explain``: per-term, per-field contributions that sum exactly to the score."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import QueryError, Tool, ToolIndex

TOOLS = [
    Tool(
        name="mcp__github__create_issue",
        description="Create a new issue in a GitHub repository",
        server="github",
        mcp_tool_name="create_issue",
        input_schema={"type": "object", "properties": {"title": {}, "body": {}}},
    ),
    Tool(name="search_issues", description="Search issues", search_hint="find bug reports"),
    Tool(name="fetch", description="Fetch a URL"),
]


@pytest.fixture
def index(engine):
    return ToolIndex(TOOLS, engine=engine)


def test_explanation_sums_to_the_score(index):
    result = index.search("create github issue title")
    for match in result:
        why = index.explain("create github issue title", match.tool)
        assert why.score == match.score
        total = 0.0
        for term in why.terms:
            total += term.contribution
        assert total == match.score


def test_fields_add_up_to_the_term_frequency(index):
    why = index.explain("github issue", "mcp__github__create_issue")
    github = why.terms[0]
    assert github.term == github.matched == "github" and not github.prefix
    # "GitHub" in the description splits into "git" "hub": the summary brings no "github".
    assert dict(github.fields) == {"label": 4.0, "server": 2.0, "name": 6.0}
    assert sum(github.fields.values()) == github.tf
    assert github.idf > 0 and github.norm > 0 and github.qtf == 1.0


def test_required_words_and_unmatched_terms_are_left_out(index):
    why = index.explain("+github issue zebra", "mcp__github__create_issue")
    assert why.query == "issue zebra"
    # The english profile's stemmed copy of "issue" matches too, and says so.
    assert [(t.term, t.stemmed) for t in why.terms] == [("issue", False), ("§issu", True)]
    assert why.terms[1].display == "issu (stem)"
    # Half of each field's weight (the english profile's: summary 1, description 0.25).
    assert dict(why.terms[1].fields) == {
        "summary": 0.5,
        "description": 0.125,
        "name": 3.0,
        "label": 2.0,
        "mcp_tool_name": 2.0,
    }
    seed = ToolIndex(TOOLS, engine=index.engine, profile="omp")
    why = seed.explain("+github issue zebra", "mcp__github__create_issue")
    assert [t.term for t in why.terms] == ["issue"]


def test_unknown_tool_and_select(index):
    with pytest.raises(KeyError):
        index.explain("issue", "nope")
    assert index.explain("select:fetch", "fetch").score == 0.0


words = st.sampled_from(
    ["create", "issue", "github", "search", "bug", "fetch", "url", "iss", "rep"]
)


@settings(max_examples=50)
@given(st.lists(words, min_size=1, max_size=5).map(" ".join))
def test_both_engines_explain_identically(query):
    rust = ToolIndex(TOOLS, engine="rust")
    py = ToolIndex(TOOLS, engine="python")
    for tool in TOOLS:
        assert rust.explain(query, tool) == py.explain(query, tool)


# Words that stem (files, reading), repeat across fields, or are not ASCII (CJK bigrams, a
# ligature, combining marks), and arbitrary Unicode between them.
VOCAB = [
    "read", "reading", "reads", "file", "files", "issue", "issues", "create", "github", "café",
    "Ünïcode", "ﬁle", "日本語", "天気予報", "東京タワー", "naïve", "x", "runs", "running",
]  # fmt: skip
field_texts = st.lists(st.sampled_from(VOCAB) | st.text(max_size=8), max_size=8).map(" ".join)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.tuples(field_texts, field_texts, field_texts), min_size=1, max_size=4),
    query=st.lists(st.sampled_from(VOCAB) | st.text(max_size=6), min_size=1, max_size=5).map(
        " ".join
    ),
    profile=st.sampled_from(["omp", "english"]),
    prefix_fraction=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_engines_explain_arbitrary_unicode_fields_alike(texts, query, profile, prefix_fraction):
    """Each engine breaks a term's frequency down per field with its own analysis of the tool's
    field texts; both give the same terms, fields and numbers, and the parts add up to tf."""
    tools = [
        Tool(
            name=f"tool_{i}",
            description=description or "-",
            search_hint=hint or None,
            title=title or None,
        )
        for i, (description, hint, title) in enumerate(texts)
    ]
    rust = ToolIndex(tools, engine="rust", profile=profile)
    py = ToolIndex(tools, engine="python", profile=profile)
    for tool in tools:
        try:
            want = py.explain(query, tool, prefix_fraction=prefix_fraction)
        except QueryError:
            with pytest.raises(QueryError):
                rust.explain(query, tool, prefix_fraction=prefix_fraction)
            continue
        got = rust.explain(query, tool, prefix_fraction=prefix_fraction)
        assert (got.tool, got.query) == (want.tool, want.query)
        assert _close(got.score, want.score)
        assert [(t.term, t.matched, t.prefix) for t in got.terms] == [
            (t.term, t.matched, t.prefix) for t in want.terms
        ]
        for g, w in zip(got.terms, want.terms):
            for a, b in [(g.qtf, w.qtf), (g.idf, w.idf), (g.tf, w.tf), (g.norm, w.norm)]:
                assert _close(a, b)
            assert _close(g.contribution, w.contribution)
            assert list(g.fields) == list(w.fields), "the same fields, in the same order"
            assert all(_close(g.fields[f], w.fields[f]) for f in w.fields)
            # The fields' parts add up to the (float32) term frequency the index holds.
            assert math.isclose(sum(g.fields.values()), g.tf, rel_tol=1e-6)
