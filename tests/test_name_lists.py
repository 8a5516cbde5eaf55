"""A query that lists tool names (``fetch git_status read_file``) puts every named tool first, the
ordinary words (``fetch``) included, on both engines; a sentence that merely contains a tool's
name among other words does not; a ``select:`` over the query length cap is cut after a whole
name, the same on both engines."""

from __future__ import annotations

import pytest
from toolsift import DiscoverySession, Tool, ToolIndex
from toolsift._names.table import NameTable
from toolsift.query import DEFAULT_MAX_QUERY_LENGTH


def _tools() -> list[Tool]:
    tools = [
        Tool(name="fetch", description="Fetch a URL from the internet"),
        Tool(name="git_status", description="Show the working tree status"),
        Tool(name="read_file", description="Read a file"),
        Tool(name="time", description="Tell the time"),
    ]
    # Many tools whose text repeats the listed words, so that BM25+ alone would rank them first.
    tools += [
        Tool(
            name=f"status_fetcher_{i}",
            description=f"Fetch git status, fetch and read file status {i}: fetch, read, fetch",
        )
        for i in range(30)
    ]
    return tools


def _ranked(engine: str, query: str, limit: int = 5) -> list[tuple[str, str]]:
    index = ToolIndex(_tools(), engine=engine)  # type: ignore[arg-type]
    return [(m.tool.name, m.reason) for m in index.search(query, limit)]


@pytest.mark.parametrize(
    "query",
    [
        "fetch git_status read_file",
        "fetch, git_status and read_file",
        "`fetch` git_status read-file",
        "FETCH gitStatus READ_FILE",
    ],
)
def test_a_list_of_names_puts_each_named_tool_first(engine: str, query: str) -> None:
    top = _ranked(engine, query)[:3]
    assert top == [
        ("fetch", "exact_name"),
        ("git_status", "exact_name"),
        ("read_file", "exact_name"),
    ]


def test_one_ordinary_word_that_is_a_name_still_comes_first(engine: str) -> None:
    assert _ranked(engine, "fetch")[0] == ("fetch", "exact_name")


@pytest.mark.parametrize(
    "query",
    [
        "fetch the git status of a file",  # a sentence: no word is an identifier
        "fetch time",  # plain words only: read as a phrase, not as a list
        "fetch read_file from the repository",  # ordinary words that name no tool
    ],
)
def test_a_sentence_is_not_a_list_of_names(engine: str, query: str) -> None:
    ranked = _ranked(engine, query, limit=10)
    named = [name for name, reason in ranked if reason == "exact_name"]
    assert "fetch" not in named and "time" not in named


def test_the_list_rule_never_contradicts_the_fast_proof() -> None:
    """Both engines' fast paths skip the tier when ``names_none`` proves the text names no tool;
    a list of names must never be such a text."""
    table = NameTable(_tools())
    finder = table.finder
    for query in [
        "fetch git_status read_file",
        "fetch, git_status and read_file",
        "time gitStatus",
    ]:
        assert finder.name_list(query)
        assert not finder.names_none(query) and not finder.names_none_py(query)
    assert finder.name_list("fetch time") == []
    assert finder.name_list("fetch the git_status") == []  # "the" names no tool


def test_engines_agree_on_lists_and_sentences() -> None:
    queries = [
        "fetch git_status read_file",
        "git_status fetch and time",
        "fetch time",
        "fetch the git status of a file",
        "read_file or fetch or time",
    ]
    for query in queries:
        assert _ranked("rust", query, 10) == _ranked("python", query, 10), query


def test_a_long_select_is_cut_at_a_name_boundary_on_both_engines(engine: str) -> None:
    names = [f"tool_{i:03d}_" + "x" * 30 for i in range(40)]
    session = DiscoverySession(
        [Tool(name=n, description="A tool") for n in names],
        engine=engine,  # type: ignore[arg-type]
    )
    query = "select:" + ", ".join(names)
    assert len(query) > DEFAULT_MAX_QUERY_LENGTH
    result = session.search(query, limit=25)
    kept = len(result.activated)
    assert result.missing == ()  # no fragment of a name
    assert list(result.activated) == names[:kept]
    assert len(result.query) <= DEFAULT_MAX_QUERY_LENGTH and result.query.endswith(names[kept - 1])
    assert result.notices == (
        f"select: cut at the {DEFAULT_MAX_QUERY_LENGTH}-character query cap after {kept} names; "
        f"{len(names) - kept} more not looked up",
    )


def test_a_select_of_one_long_name_is_kept_whole(engine: str) -> None:
    """A name over the query cap (but not over the name cap) is looked up whole, not cut."""
    name = "n" * (DEFAULT_MAX_QUERY_LENGTH + 100)
    session = DiscoverySession(
        [Tool(name=name, description="Long"), Tool(name="other", description="Other")],
        engine=engine,  # type: ignore[arg-type]
    )
    result = session.search(f"select:{name},other")
    assert result.activated == (name,) and result.missing == ()
    assert result.notices == (
        f"select: cut at the {DEFAULT_MAX_QUERY_LENGTH}-character query cap after 1 name; "
        "1 more not looked up",
    )
