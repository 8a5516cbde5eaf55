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
    # Seed 003's prefix rule on seed 000's terms; the english profile's stemmed copies would add
    # their own matches (see test_english_profile_prefixes_and_stems).
    return ToolIndex(TOOLS, engine=engine, profile="omp")


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
    index = ToolIndex(TOOLS, engine=engine, profile="omp")
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


def test_english_profile_prefixes_and_stems(engine):
    """Plain terms expand as in the omp profile; stemmed copies never expand, but match their
    own stems ("search" finds "searches" through its stem, after the exact form)."""
    index = ToolIndex(TOOLS, engine=engine)
    assert index.profile == "english"
    assert [m.name for m in index.search("search", exact_names=False)] == [
        "search_web",
        "searches_list",
    ]
    assert [m.name for m in index.search("screensho", exact_names=False)] == ["take_screenshot"]
    # "screensho" scores half the plain term "screenshot" and nothing for its (unknown) copy.
    why = index.explain("screensho", "take_screenshot")
    assert [(t.term, t.matched, t.prefix) for t in why.terms] == [("screensho", "screenshot", True)]
    full = index.explain("screenshot", "take_screenshot").terms[0]
    assert math.isclose(why.terms[0].contribution, 0.5 * full.contribution, rel_tol=1e-12)
