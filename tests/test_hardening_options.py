"""Hardening of the options: one check by type and range for search, search_many, explain and
the session; the model's limit capped at 25; long ``select:`` names. Each hostile input ends at
once, in both engines, with a typed error naming what is wrong (or a correct result)."""

from __future__ import annotations

import pytest
import toolsift
from toolsift import (
    LimitError,
    Tool,
)
from toolsift.metatool import call_meta_tool

from ._hardening import TOOLS
from ._hardening import hardening_index as _index

# 7. The model's limit is capped (25) in the session and the meta-tool call.


@pytest.mark.parametrize("limit", [26, 10**6, 1e308, 10**400])
def test_the_session_and_meta_tool_cap_the_models_limit(limit) -> None:
    tools = [
        Tool(name=f"get_list_{i}", description="get list create search file") for i in range(60)
    ]
    session = toolsift.DiscoverySession(tools)
    if isinstance(limit, int):
        assert len(session.search("get list create search file", limit).activated) == 25
    session = toolsift.DiscoverySession(tools)
    call = call_meta_tool(session, {"query": "get list create search file", "limit": limit})
    assert len(call.result.activated) == 25


@pytest.mark.parametrize("limit", [float("inf"), float("nan"), "5", -1, 0, True, 2.5])
def test_the_meta_tool_refuses_a_limit_that_is_not_a_positive_integer(limit) -> None:
    session = toolsift.DiscoverySession(TOOLS)
    with pytest.raises(LimitError):
        call_meta_tool(session, {"query": "file", "limit": limit})


# 9. explain makes the checks search makes, with its messages.


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"prefix_min_len": -1}, ValueError, "prefix_min_len must be >= 0"),
        ({"prefix_min_len": 1.5}, TypeError, "prefix_min_len must be an int"),
        ({"max_query_length": "5"}, TypeError, "max_query_length must be an int"),
        ({"max_query_length": 0}, ValueError, "max_query_length must be a positive int"),
        ({"prefix_fraction": -1.0}, ValueError, "Invalid prefix fraction"),
    ],
)
def test_explain_checks_its_options_as_search_does(engine, kwargs, error, message) -> None:
    index = _index(engine)
    with pytest.raises(error, match=message):
        index.explain("read file", "read_file", **kwargs)
    with pytest.raises(error, match=message):
        index.search("read file", **kwargs)


def test_explain_caps_a_huge_prefix_min_len_as_search_does(engine) -> None:
    index = _index(engine)
    why = index.explain("read fil", "read_file", prefix_min_len=2**64)
    assert why.score == index.search("read fil", prefix_min_len=2**64)[0].score


# 11. Options are type-checked: a truthy str is not True, bytes are not names.


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"exact_names": "no"}, TypeError, "exact_names must be a bool"),
        ({"normalize": "no"}, TypeError, "normalize must be a bool"),
        ({"coverage": 1}, TypeError, "coverage must be a bool"),
        ({"servers": [5]}, TypeError, "servers must hold str names, got int"),
        ({"servers": b"x"}, TypeError, "servers must be a str or an iterable of str names"),
        ({"servers": ""}, ValueError, "servers must not hold an empty name"),
        ({"exclude": b"x"}, TypeError, "exclude must be a str or an iterable of str names"),
        ({"exclude": {"a": 1}}, TypeError, "exclude must be a str or an iterable"),
        ({"exclude": [None]}, TypeError, "exclude must hold str names, got NoneType"),
    ],
)
def test_options_are_checked_by_type(engine, kwargs, error, message) -> None:
    index = _index(engine)
    with pytest.raises(error, match=message):
        index.search("read file", **kwargs)
    with pytest.raises(error, match=message):
        index.search_many(["read file"], **kwargs)
    with pytest.raises(error, match=message):
        index.search("read file", ranker="regex", **kwargs)


# 13. A long select: name costs no suggestion search.


def test_a_huge_unknown_select_name_ends_at_once(engine) -> None:
    name = "x" * 10_000_000
    result = _index(engine).search("select:" + name, max_query_length=len(name) + 10)
    assert result.missing == (name,) and result.suggestions[name] == ()
    assert _index(engine).search("select:raed_file").suggestions["raed_file"][0] == "read_file"
