"""Relevance gates: absolute threshold, relative floor, coverage rule, score normalisation."""

from __future__ import annotations

import math

import pytest
from toolsift import Tool, ToolIndex

TOOLS = [
    Tool(name="send_slack_message", description="Send a message to a Slack channel now"),
    Tool(name="send_email", description="Send an email message"),
    Tool(name="slack_status", description="Set a Slack status"),
    Tool(name="weather", description="Weather forecast for a city"),
    Tool(name="channel_list", description="List channels"),
]


@pytest.fixture
def index(engine):
    return ToolIndex(TOOLS, engine=engine)


def scores(result):
    return {m.name: m.score for m in result}


def test_threshold_drops_low_scores(index):
    full = scores(index.search("send slack message"))
    cut = sorted(full.values())[len(full) // 2]
    kept = scores(index.search("send slack message", threshold=cut))
    assert kept == {n: s for n, s in full.items() if s >= cut}
    assert index.search("send slack message", threshold=0.0) == index.search("send slack message")


def test_relative_floor(index):
    full = index.search("send slack message")
    best = full[0].score
    kept = index.search("send slack message", relative_floor=0.6)
    assert [m.name for m in kept] == [m.name for m in full if m.score >= 0.6 * best]
    assert len(index.search("send slack message", relative_floor=1.0)) == 1


def test_coverage_rule_needs_half_of_four_or_more_known_terms(index):
    query = "send slack message channel forecast"
    full = index.search(query)
    assert "weather" in full.names  # matches one term of five
    covered = index.search(query, coverage=True)
    assert "weather" not in covered.names
    assert "send_slack_message" in covered.names
    # With fewer than four known terms the rule is off.
    assert (
        index.search("slack forecast", coverage=True).names == index.search("slack forecast").names
    )


def test_normalised_scores(index):
    result = index.search("send slack message", normalize=True)
    assert result[0].normalized_score == 1.0
    for m in result:
        assert m.normalized_score is not None and 0.0 < m.normalized_score <= 1.0
        assert math.isclose(m.normalized_score, m.score / result[0].score)
    assert index.search("send")[0].normalized_score is None


@pytest.mark.parametrize(
    "kwargs",
    [{"threshold": -1.0}, {"relative_floor": 1.5}, {"prefix_fraction": float("nan")}],
)
def test_bad_gate_values(index, kwargs):
    with pytest.raises(ValueError):
        index.search("send", **kwargs)


def test_gates_apply_to_the_keyword_ranker(index):
    full = index.search("send slack message", ranker="keyword", limit=10)
    assert [
        m.score for m in index.search("send slack message", ranker="keyword", threshold=20)
    ] == [m.score for m in full if m.score >= 20]
    floor = index.search("send slack message", ranker="keyword", relative_floor=1.0)
    assert [m.score for m in floor] == [full[0].score]
    with pytest.raises(ValueError):
        index.search("send", ranker="keyword", threshold=-1.0)


def test_named_tools_survive_the_gates(engine):
    tools = [*TOOLS, Tool(name="zeta_tool", description="unrelated")]
    index = ToolIndex(tools, engine=engine)
    result = index.search("zeta_tool send slack message channel", relative_floor=1.0)
    assert result[0].name == "zeta_tool" and result[0].reason == "exact_name"
