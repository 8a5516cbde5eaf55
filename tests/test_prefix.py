"""Prefix matching (seed 003): an unknown query term matches the index terms that start with it."""

from __future__ import annotations

import math

import pytest
from toolsift import Tool, ToolIndex

TOOLS = [
    Tool(name="take_screenshot", description="Capture the page"),
    Tool(name="screen_record", description="Record the screen"),
    Tool(name="search_web", description="Search the web"),
    Tool(name="searches_list", description="List saved searches"),
]


@pytest.fixture
def index(engine):
    return ToolIndex(TOOLS, engine=engine)


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("screensho", ["take_screenshot"]),
        ("scree", ["screen_record", "take_screenshot"]),
        ("searc", ["search_web", "searches_list"]),
        # shorter than 3 characters: no expansion
        ("sc", []),
        # an exact term is never expanded ("search" is a term, so "searches" does not join)
        ("search", ["search_web"]),
    ],
)
def test_prefix_matches(index, query, names):
    assert sorted(m.name for m in index.search(query, exact_names=False)) == sorted(names)


def test_prefix_scores_at_a_fraction_of_the_best_expansion(engine):
    index = ToolIndex(TOOLS, engine=engine)
    full = {m.name: m.score for m in index.search("screenshot", exact_names=False)}
    half = {m.name: m.score for m in index.search("screensho", exact_names=False)}
    assert math.isclose(half["take_screenshot"], 0.5 * full["take_screenshot"], rel_tol=1e-12)
    quarter = index.search("screensho", prefix_fraction=0.25, exact_names=False)
    assert math.isclose(quarter[0].score, 0.25 * full["take_screenshot"], rel_tol=1e-12)


def test_prefix_options(engine):
    index = ToolIndex(TOOLS, engine=engine)
    assert index.search("screensho", prefix_fraction=0.0, exact_names=False) == []
    assert index.search("scr", prefix_min_len=4, exact_names=False) == []
    # Expansions are taken in lexicographic order: "screen" before "screenshot".
    capped = index.search("scre", max_expansions=1, exact_names=False)
    assert [m.name for m in capped] == ["screen_record"]
    assert [m.name for m in index.search("scr", prefix_min_len=3, exact_names=False)]


def test_explain_names_the_expansion(engine):
    index = ToolIndex(TOOLS, engine=engine)
    why = index.explain("screensho", "take_screenshot")
    assert [(t.term, t.matched, t.prefix) for t in why.terms] == [("screensho", "screenshot", True)]
