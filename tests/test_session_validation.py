"""DiscoverySession: every bad argument is refused at the call, with a typed error that says what
to pass, and leaves the session as it was."""

from __future__ import annotations

from typing import Any

import pytest
from toolsift import (
    DiscoverySession,
    DuplicateToolError,
    LimitError,
    QueryError,
    Tool,
    ToolDefinitionError,
    meta_tool,
)


def builtins() -> list[Tool]:
    return [
        Tool(name="read", description="Read a file from disk"),
        Tool(name="web_fetch", description="Fetch a web page and return its text"),
        Tool(name="todo_write", description="Write the task list"),
    ]


def slack() -> dict[str, Any]:
    return {
        "tools": [
            {"name": "send_message", "description": "Send a message to a Slack channel"},
            {"name": "list_channels", "description": "List Slack channels", "inputSchema": {}},
        ]
    }


@pytest.fixture
def session() -> DiscoverySession:
    s = DiscoverySession(builtins(), mode="all", summaries={"slack": "Slack workspace"})
    s.connect_server("slack", slack())
    s.search("fetch a web page", limit=1)  # one activation, so `selected` is not empty
    return s


def state(s: DiscoverySession) -> tuple[Any, ...]:
    """Everything a caller can observe of a session's catalogue, mode and activations."""
    return (
        s.tools,
        s.visible_tools,
        s.hidden_tools,
        s.selected,
        s.server_summaries(),
        s.mode,
        s.effective_mode,
        s.generation,
        s.catalog_generation,
        s.meta_tool_name,
        meta_tool(s).description,
    )


def assert_unchanged_and_working(s: DiscoverySession, before: tuple[Any, ...]) -> None:
    assert state(s) == before
    assert s.search("slack message", limit=1).activated == ("mcp__slack__send_message",)


# --- the constructor -----------------------------------------------------------------------------

LOADERS = r"toolsift\.load_tools\(.*from_mcp.*toolsift\.load_catalog"


@pytest.mark.parametrize(
    ("tools", "match"),
    [
        ([{"name": "x", "description": "d"}], r"^tools\[0\] must be a toolsift\.Tool, got dict: "),
        ([Tool(name="a"), "b"], r"^tools\[1\] must be a toolsift\.Tool, got str"),
        ("read", r"^tools must be a list of toolsift\.Tool objects, got str"),
        ({"tools": []}, r"^tools must be a list of toolsift\.Tool objects, got dict"),
        (None, r"^tools must be a list of toolsift\.Tool objects, got None"),
        (5, r"^tools must be a list of toolsift\.Tool objects, got int"),
    ],
)
def test_tools_that_are_not_tool_objects_name_the_loaders(tools, match):
    with pytest.raises(TypeError, match=match) as info:
        DiscoverySession(tools)
    assert info.match(LOADERS)


def test_a_bad_engine_is_refused_at_construction_as_tool_index_refuses_it():
    from toolsift import ToolIndex

    with pytest.raises(ValueError) as from_index:
        ToolIndex([], engine="bogus")  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"^engine must be 'auto', 'rust' or 'python', got 'bogus'$"
    ):
        DiscoverySession(builtins(), engine="bogus")  # type: ignore[arg-type]
    with pytest.raises(ValueError) as from_session:
        DiscoverySession(engine=5)  # type: ignore[arg-type]
    assert str(from_session.value) == str(from_index.value).replace("'bogus'", "5")


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"auto_max_tools": "40"}, TypeError, r"^auto_max_tools must be an int, got str\.$"),
        ({"auto_max_tools": None}, TypeError, r"^auto_max_tools must be an int, got None\.$"),
        ({"auto_max_tools": True}, TypeError, r"^auto_max_tools must be an int, got bool\.$"),
        ({"auto_max_tools": 40.0}, TypeError, r"^auto_max_tools must be an int, got float\.$"),
        ({"auto_max_tools": -1}, ValueError, r"^auto_max_tools must be >= 0, got -1\.$"),
        ({"auto_max_tokens": "16000"}, TypeError, r"^auto_max_tokens must be an int, got str"),
        ({"auto_max_tokens": -5}, ValueError, r"^auto_max_tokens must be >= 0, got -5\.$"),
        ({"mode": "sometimes"}, ValueError, r"^mode must be one of 'off', 'all', 'mcp-only'"),
        ({"mcp_discovery": "false"}, TypeError, r"^mcp_discovery must be True or False, got str"),
        ({"mcp_discovery": None}, TypeError, r"^mcp_discovery must be True or False, got None"),
        (
            {"rebuild_on_activation": 1},
            TypeError,
            r"^rebuild_on_activation must be True or False, got int",
        ),
        (
            {"always_available": None},
            TypeError,
            r"^always_available must be a list of tool or server names \(pass \(\) for none\), "
            r"got None\.$",
        ),
        (
            {"always_available": ["read", 5]},
            TypeError,
            r"^always_available\[1\] must be a tool or server name \(str\), got int\.$",
        ),
        ({"always_available": ["read", ""]}, ValueError, r"^always_available\[1\] must not be"),
        (
            {"summaries": [("slack", "Slack")]},
            TypeError,
            r"^summaries must be a mapping of server name to one-line summary, got list\.$",
        ),
        (
            {"summaries": {"github": ["a"]}},
            TypeError,
            r"^summaries\['github'\] must be a one-line summary \(str\), got list\.$",
        ),
        (
            {"summaries": {"github": None}},
            TypeError,
            r"^summaries\['github'\] must be a one-line summary \(str\), got None\.$",
        ),
        (
            {"summaries": {5: "five"}},
            TypeError,
            r"^summaries keys must be server names \(str\), got int\.$",
        ),
        ({"meta_tool_name": None}, TypeError, r"^meta_tool_name must be a str, got NoneType\.$"),
        ({"meta_tool_name": ""}, ValueError, r"^meta_tool_name must not be empty\.$"),
        ({"profile": "klingon"}, ValueError, r"klingon"),
    ],
)
def test_bad_constructor_options_are_refused(options, error, match):
    with pytest.raises(error, match=match):
        DiscoverySession(builtins(), **options)


def test_auto_thresholds_of_zero_are_allowed():
    s = DiscoverySession(builtins(), mode="auto", auto_max_tools=0, auto_max_tokens=0)
    assert s.effective_mode == "all"


def test_from_default_catalog_checks_its_options():
    with pytest.raises(TypeError, match=r"^summaries\['github'\] must be a one-line summary"):
        DiscoverySession.from_default_catalog(summaries={"github": ["a"]})
    with pytest.raises(ValueError, match=r"^engine must be"):
        DiscoverySession.from_default_catalog(engine="bogus")


def test_duplicate_tools_in_the_constructor():
    with pytest.raises(DuplicateToolError, match=r"Duplicate tool name 'read'"):
        DiscoverySession([Tool(name="read"), Tool(name="read")])


# --- add_tools / remove_tools --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tools", "match"),
    [
        ([{"name": "x"}], r"^add_tools\(\) tools\[0\] must be a toolsift\.Tool, got dict: "),
        ([Tool(name="deploy"), None], r"^add_tools\(\) tools\[1\] must be a toolsift\.Tool"),
        (Tool(name="deploy"), r"^add_tools\(\) tools must be a list of toolsift\.Tool objects"),
        (None, r"^add_tools\(\) tools must be a list of toolsift\.Tool objects, got None"),
        ("deploy", r"^add_tools\(\) tools must be a list of toolsift\.Tool objects, got str"),
    ],
)
def test_add_tools_takes_tool_objects_only(session, tools, match):
    before = state(session)
    with pytest.raises(TypeError, match=match) as info:
        session.add_tools(tools)
    assert info.match(LOADERS)
    assert_unchanged_and_working(session, before)


def test_add_tools_refuses_mcp_tools(session):
    before = state(session)
    tool = Tool(name="mcp__github__x", server="github", mcp_tool_name="x")
    with pytest.raises(ValueError, match=r"MCP server 'github': .*connect_server\('github'"):
        session.add_tools([Tool(name="deploy"), tool])
    assert_unchanged_and_working(session, before)


def test_add_tools_bad_source_and_duplicates_change_nothing(session):
    before = state(session)
    with pytest.raises(ValueError, match=r"^source must be 'builtin', 'extension' or 'custom'"):
        session.add_tools([Tool(name="deploy")], source="bogus")  # type: ignore[arg-type]
    with pytest.raises(DuplicateToolError, match=r"'read'"):
        session.add_tools([Tool(name="deploy"), Tool(name="read")])
    assert_unchanged_and_working(session, before)


@pytest.mark.parametrize(
    ("names", "match"),
    [
        (None, r"^remove_tools\(\) names must be a list of tool names, got None\.$"),
        (["todo_write", 5], r"^remove_tools\(\) names\[1\] must be a tool name \(str\), got int"),
        ([["read"]], r"^remove_tools\(\) names\[0\] must be a tool name \(str\), got list"),
    ],
)
def test_remove_tools_takes_a_list_of_names(session, names, match):
    before = state(session)
    with pytest.raises(TypeError, match=match):
        session.remove_tools(names)
    assert_unchanged_and_working(session, before)


# --- connect_server / disconnect_server ----------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (
            (5, []),
            {},
            TypeError,
            r"^connect_server\(\) name must be a server name \(str\), got int",
        ),
        ((None, slack()), {}, TypeError, r"^connect_server\(\) name must be .* got None\.$"),
        (("", []), {}, ValueError, r"^connect_server\(\) name must not be empty"),
        (("x", []), {"summary": 5}, TypeError, r"^connect_server\(\) summary must be .* got int"),
        (("x", slack()), {"summary": ["a"]}, TypeError, r"^connect_server\(\) summary .* list\.$"),
        (("x", None), {}, TypeError, r"^connect_server\(\) tools must be a list of .* got None\.$"),
        (("x", 5), {}, TypeError, r"^connect_server\(\) tools must be a list of .* got int\.$"),
        (("x", "tools"), {}, TypeError, r"^connect_server\(\) tools must be a list of .* got str"),
        (
            ("x", [Tool(name="mcp__x__a", server="x"), {"name": "b"}]),
            {},
            TypeError,
            r"^connect_server\(\) tools\[1\] is dict but tools\[0\] is a toolsift\.Tool",
        ),
        (
            ("x", [Tool(name="a")]),
            {},
            ValueError,
            r"^Tool 'a' is not an MCP tool \(server=None\)",
        ),
        (
            ("slack", [Tool(name="x", server="gitlab")]),
            {},
            ValueError,
            r"^Tool 'x' belongs to server 'gitlab', not 'slack'\.$",
        ),
        (("x", [5]), {}, ToolDefinitionError, r"^\$\[0\]: A tool definition must be a JSON object"),
        (
            ("x", {"tools": [{"name": "read_file"}, {"name": "read_file"}]}),
            {},
            DuplicateToolError,
            r"Duplicate tool name 'mcp__x__read_file'",
        ),
        (
            ("x", [Tool(name="read", server="x")]),
            {},
            DuplicateToolError,
            r"^Duplicate tool name 'read'",
        ),
    ],
)
def test_connect_server_refuses_bad_arguments(session, args, kwargs, error, match):
    before = state(session)
    with pytest.raises(error, match=match):
        session.connect_server(*args, **kwargs)
    assert_unchanged_and_working(session, before)


def test_a_bad_reconnect_keeps_the_server_as_it_was(session):
    before = state(session)
    with pytest.raises(TypeError, match=r"summary"):
        session.connect_server("slack", {"tools": []}, summary=5)  # type: ignore[arg-type]
    with pytest.raises(ToolDefinitionError):
        session.connect_server("slack", {"tools": [{"name": ""}]}, summary="new")
    assert_unchanged_and_working(session, before)


def test_a_good_summary_still_reaches_the_meta_tool(session):
    session.connect_server("x", {"tools": [{"name": "do_thing"}]}, summary="Does things")
    assert "Does things" in meta_tool(session).description


@pytest.mark.parametrize(
    ("name", "error", "match"),
    [
        (5, TypeError, r"^disconnect_server\(\) name must be a server name \(str\), got int\.$"),
        (["slack"], TypeError, r"^disconnect_server\(\) name must be .* got list\.$"),
        ("", ValueError, r"^disconnect_server\(\) name must not be empty"),
    ],
)
def test_disconnect_server_takes_a_server_name(session, name, error, match):
    before = state(session)
    with pytest.raises(error, match=match):
        session.disconnect_server(name)
    assert_unchanged_and_working(session, before)


def test_disconnecting_an_unknown_server_is_still_ignored(session):
    before = state(session)
    session.disconnect_server("nope")
    assert_unchanged_and_working(session, before)


# --- activation, modes, search -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "match"),
    [
        (None, r"^activate\(\) names must be a list of tool names, got None\.$"),
        (5, r"^activate\(\) names must be a list of tool names, got int\.$"),
        (["mcp__slack__send_message", 5], r"^activate\(\) names\[1\] must be a tool name"),
    ],
)
def test_activate_takes_a_list_of_names(session, names, match):
    before = state(session)
    with pytest.raises(TypeError, match=match):
        session.activate(names)
    assert_unchanged_and_working(session, before)


def test_one_name_as_a_str_is_one_name(session):
    """As ``exclude``, ``servers`` and ``always_available`` take it: one tool, not its letters."""
    assert session.activate("mcp__slack__send_message") == ("mcp__slack__send_message",)
    assert "mcp__slack__send_message" in session.selected
    session.add_tools([Tool(name="deploy", description="Deploy the app")])
    session.remove_tools("deploy")
    assert "deploy" not in {t.name for t in session.tools}


def test_activate_with_a_generator_of_names_still_works(session):
    assert session.activate(n for n in ["mcp__slack__list_channels"]) == (
        "mcp__slack__list_channels",
    )


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (("sometimes",), {}, ValueError, r"^mode must be one of"),
        (("off",), {"mcp_discovery": "yes"}, TypeError, r"^mcp_discovery must be True or False"),
        (("off",), {"mcp_discovery": 1}, TypeError, r"^mcp_discovery must be True or False"),
    ],
)
def test_set_mode_refuses_bad_arguments(session, args, kwargs, error, match):
    before = state(session)
    with pytest.raises(error, match=match):
        session.set_mode(*args, **kwargs)
    assert_unchanged_and_working(session, before)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((None,), QueryError, r"^Query must be a string, got NoneType\.$"),
        (("  ",), QueryError, r"^Query must not be empty\.$"),
        (("slack", 0), LimitError, r"^Limit must be a positive integer, got 0\.$"),
        (("slack", "3"), LimitError, r"^Limit must be a positive integer, got '3'\.$"),
        (("slack", True), LimitError, r"^Limit must be a positive integer, got True\.$"),
    ],
)
def test_search_refuses_bad_queries_and_limits(session, args, error, match):
    before = state(session)
    with pytest.raises(error, match=match):
        session.search(*args)
    assert_unchanged_and_working(session, before)


@pytest.mark.parametrize(
    ("tools", "match"),
    [
        ([{"name": "x"}], r"^schema_tokens\(\) tools\[0\] must be a toolsift\.Tool, got dict"),
        ("read", r"^schema_tokens\(\) tools must be a list of toolsift\.Tool objects, got str"),
    ],
)
def test_schema_tokens_takes_tool_objects(session, tools, match):
    with pytest.raises(TypeError, match=match):
        session.schema_tokens(tools)
    assert session.schema_tokens(list(session.tools)) == session.schema_tokens()


def test_activations_of_gone_tools_are_remembered_up_to_a_bound(monkeypatch) -> None:
    """Activation survives a reconnect, but a server that keeps coming back with new tool names
    cannot grow the activation list without end (every search reads it)."""
    from toolsift._session import state as _session_state

    monkeypatch.setattr(_session_state, "KEEP_GONE_ACTIVATIONS", 50)
    session = DiscoverySession([Tool(name="read", description="read a file")], mode="all")

    def churn(generation: int) -> list[str]:
        tools = [
            Tool(name=f"mcp__churn__t{generation}_{j}", server="churn", mcp_tool_name=f"t{j}")
            for j in range(20)
        ]
        session.connect_server("churn", tools)
        session.activate([t.name for t in tools])
        return [t.name for t in tools]

    first = churn(0)
    session.disconnect_server("churn")
    session.connect_server(
        "churn", [Tool(name=first[0], server="churn", mcp_tool_name="t0", description="back")]
    )
    assert first[0] in session.selected  # a reconnect keeps the activation
    for generation in range(1, 30):
        churn(generation)
    assert len(session._selected) <= 50 + 20 + 1  # gone ones bounded, live ones all kept
    assert set(session.selected) == {f"mcp__churn__t29_{j}" for j in range(20)}
    assert session.search("read a file").already_active == ("read",)  # still searches
