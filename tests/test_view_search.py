"""A session view's one-call search (``Index.search_view``, ``_CatalogSession._search_view``)
is a deliberate twin of the view's general path: on arbitrary Unicode tools and queries, over
conversations with activations and catalogue updates, every search it answers equals the general
path's (fresh and already-active matches, scores to 1e-9, activations, totals, generations), and
the pure-Python engine's view answers the same."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import Catalog, DiscoverySession, Tool, default_tools

from .conftest import HAVE_RUST

pytestmark = pytest.mark.skipif(
    not HAVE_RUST, reason="the one-call view search is the Rust engine's"
)

VOCAB = [
    "send", "email", "read", "file", "write", "search", "create", "issue", "calendar", "event",
    "message", "user", "list", "delete", "page", "repo", "branch", "invoice", "ticket", "note",
    "files", "reading", "créer", "日本語", "naïve", "Straße",
]  # fmt: skip
word = st.sampled_from(VOCAB) | st.text(min_size=1, max_size=8)
text = st.lists(word, min_size=0, max_size=8).map(" ".join)
# Mostly the queries the one call takes (plain words), some it declines (any text).
plain = st.lists(st.sampled_from(VOCAB[:20]), min_size=1, max_size=6).map(" ".join)
query = st.one_of(
    plain, plain, plain, st.lists(word, max_size=6).map(" ".join), st.text(max_size=30)
)


def _tools(prefix: str, descriptions: list[tuple[str, str]], server: str | None) -> list[Tool]:
    return [
        Tool(
            name=f"{prefix}{i}{suffix}",
            server=server,
            mcp_tool_name=f"{prefix}{i}{suffix}" if server else None,
            description=description,
        )
        for i, (suffix, description) in enumerate(descriptions)
    ]


descriptions = st.lists(st.tuples(st.text(max_size=6), text), max_size=14)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("search"), query, st.none() | st.integers(1, 12)),
        st.tuples(st.just("activate"), st.integers(0, 40), st.none()),
        st.tuples(st.just("connect"), descriptions, st.none()),
    ),
    min_size=1,
    max_size=10,
)


def _outcome(call):
    try:
        return call()
    except Exception as error:  # noqa: BLE001 - compared, not hidden
        return (type(error), str(error))


def _matches(matches) -> list[tuple[str, float]]:
    return [(m.tool.name, m.score) for m in matches]


def _same_matches(got, expected) -> None:
    assert [n for n, _ in got] == [n for n, _ in expected]
    for (_, a), (_, b) in zip(got, expected):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _same(got, expected) -> None:
    """Two searches' outcomes: equal results (scores to 1e-9), or the same error."""
    if isinstance(expected, tuple):
        assert got == expected
        return
    assert not isinstance(got, tuple), got
    for name in ("query", "limit", "activated", "already_active", "selected", "total_tools"):
        assert getattr(got, name) == getattr(expected, name), name
    assert (got.query_kind, got.missing, got.generation) == (
        expected.query_kind,
        expected.missing,
        expected.generation,
    )
    _same_matches(_matches(got.matches), _matches(expected.matches))
    _same_matches(_matches(got.already_active_matches), _matches(expected.already_active_matches))


@settings(max_examples=150, deadline=None)
@given(
    builtins=descriptions,
    mail=descriptions,
    ops=operations,
    mode=st.sampled_from(["all", "mcp-only"]),
    always=st.sampled_from([("read", "bash", "edit"), (), ("mail",), ("b0", "b1", "b2")]),
    default_limit=st.integers(1, 8),
    max_limit=st.sampled_from([25, 3]),
)
def test_the_view_search_equals_the_general_path(
    builtins, mail, ops, mode, always, default_limit, max_limit
):
    tools = _tools("b", builtins, None)
    servers = {"mail": _tools("mcp__mail__m", mail, "mail")}
    catalogs = [Catalog(tools, servers=servers, engine=e) for e in ("rust", "rust", "python")]
    options = {
        "mode": mode,
        "always_available": always,
        "default_limit": min(default_limit, max_limit),
        "max_limit": max_limit,  # a larger limit is clamped to it
    }
    fast, general, python = (c.session(**options) for c in catalogs)
    for op, arg, limit in ops:
        if op == "activate":
            names = [t.name for t in catalogs[0].tools]
            picked = [names[arg % len(names)]] if names else []
            assert fast.activate(picked) == general.activate(picked) == python.activate(picked)
            continue
        if op == "connect":
            for catalog in catalogs:
                catalog.connect_server("crm", _tools("mcp__crm__c", arg, "crm"))
            continue
        one = _outcome(lambda: fast._search_view(arg, limit))  # noqa: B023
        expected = _outcome(lambda: DiscoverySession.search(general, arg, limit))  # noqa: B023
        if one is None:  # declined: the general path answers for it too
            one = _outcome(lambda: fast.search(arg, limit))  # noqa: B023
        _same(one, expected)
        _same(_outcome(lambda: python.search(arg, limit)), expected)  # noqa: B023


def test_the_view_search_answers_plain_queries_over_many_turns():
    """On the built-in catalogue, a ten-turn conversation's plain queries all take the one call
    (each activating search carries the filter to the next), and answer as the general path."""
    catalog = Catalog(default_tools(), engine="rust")
    fast, general = catalog.session(), catalog.session()
    queries = [
        "send a message to a channel", "create a calendar event", "read a file",
        "open a pull request", "message", "send message channel", "list files in a folder",
        "weather forecast for tomorrow", "create an issue", "search the web",
    ]  # fmt: skip
    for i, q in enumerate(queries):
        limit = [None, 3, 8, 25][i % 4]
        found = fast._search_view(q, limit)
        assert found is not None, q
        _same(found, DiscoverySession.search(general, q, limit))
    assert fast.selected == general.selected and len(fast.selected) > 20
    assert any(DiscoverySession.search(general, q).already_active for q in queries)
    # A query that names a tool, a select: and a +word take the general path.
    for q in ("select:mcp__github__create_issue", "+slack message", "use read_file now"):
        assert fast._search_view(q, None) is None


def test_activating_searches_leave_no_new_containers_for_the_collector() -> None:
    """What a view keeps from one search to the next is set in place (and its ViewFilter is
    untracked): a container that outlived each search while the older one it replaced was
    freed would pile up in Python's young generation without starting its collection."""
    import gc

    catalog = Catalog(default_tools())
    sessions = [catalog.session() for _ in range(200)]
    for session in sessions:
        session.search("open a pull request", limit=1)  # each view's filter and state made
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects(0))
        for query in ("send an email", "create a calendar event", "read a file"):
            for session in sessions:
                assert session.search(query, limit=2).activated  # activating, one call each
        grown = len(gc.get_objects(0)) - before
    finally:
        gc.enable()
    assert grown < len(sessions)  # the tuples a search replaced: 600 here, one a search
    assert not gc.is_tracked(sessions[0]._view_filter_now)  # noqa: SLF001
