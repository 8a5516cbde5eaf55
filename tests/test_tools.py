from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift.errors import ToolDefinitionError
from toolsift.tools import Tool, mcp_name


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


GRIN = "\U0001f600"  # outside the BMP: two UTF-16 code units


# --- construction and derived values -----------------------------------------------------------


def test_defaults() -> None:
    tool = Tool("echo")
    assert tool.description == ""
    assert dict(tool.input_schema) == {"type": "object", "properties": {}}
    assert tool.server is None and tool.mcp_tool_name is None
    assert tool.display_label == "echo"
    assert tool.display_summary == ""
    assert tool.schema_keys == ()
    assert tool.aliases() == ("echo",)


def test_default_schemas_are_not_shared() -> None:
    assert Tool("a").input_schema["properties"] is not Tool("b").input_schema["properties"]


def test_frozen_and_read_only_schema() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    tool = Tool("read", input_schema=schema)
    with pytest.raises(dataclasses.FrozenInstanceError):
        tool.name = "write"  # type: ignore[misc]
    with pytest.raises(TypeError):
        tool.input_schema["type"] = "array"  # type: ignore[index]
    schema["type"] = "array"  # the caller's dict is copied at the top level
    assert tool.input_schema["type"] == "object"


def test_hash_by_name_and_equality_by_value() -> None:
    a = Tool("search", "one")
    b = Tool("search", "two")
    assert hash(a) == hash(b) == hash("search")
    assert a != b
    assert a == Tool("search", "one")
    assert {a, Tool("search", "one")} == {a}


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"name": "echo"}, "echo"),
        ({"name": "echo", "label": "Echo tool"}, "Echo tool"),
        ({"name": "mcp__fs__read", "server": "fs", "mcp_tool_name": "read"}, "fs/read"),
        ({"name": "read", "server": "fs"}, "fs/read"),
        ({"name": "mcp__fs__read", "server": "fs", "label": "Read"}, "Read"),
        (
            {"name": "mcp___a_b__x_y", "server": "@a/b", "mcp_tool_name": "x.y"},
            "@a/b/x.y",
        ),
    ],
)
def test_display_label(kwargs: dict[str, Any], expected: str) -> None:
    assert Tool(**kwargs).display_label == expected


@pytest.mark.parametrize(
    ("description", "summary", "expected"),
    [
        ("", None, ""),
        ("short", None, "short"),
        ("x" * 250, None, "x" * 200),
        ("x" * 200, None, "x" * 200),
        ("文" * 250, None, "文" * 200),  # BMP: one unit per character
        (GRIN * 150, None, GRIN * 100),  # exactly 200 units
        ("x" * 199 + GRIN + "tail", None, "x" * 199),  # the pair would straddle unit 200
        ("x" * 198 + GRIN + "tail", None, "x" * 198 + GRIN),  # the pair ends on unit 200
        ("x" + GRIN * 100, None, "x" + GRIN * 99),
        ("x" * 300, "explicit", "explicit"),
        ("x" * 300, "", ""),  # an explicit empty summary is kept
        ("short", "y" * 500, "y" * 500),  # an explicit summary is never cut
    ],
)
def test_display_summary_cuts_at_200_utf16_units(
    description: str, summary: str | None, expected: str
) -> None:
    tool = Tool("t", description, summary=summary)
    assert tool.display_summary == expected
    if summary is None:
        assert utf16_units(tool.display_summary) <= 200
        assert description.startswith(tool.display_summary)


def test_schema_keys_sorted_by_code_point() -> None:
    keys = ["b", "B", "ä", "a", GRIN, "\uffff", "_", "10", "9"]
    tool = Tool("t", input_schema={"type": "object", "properties": {k: {} for k in keys}})
    assert tool.schema_keys == tuple(sorted(keys, key=lambda k: [ord(c) for c in k]))
    assert tool.schema_keys[:3] == ("10", "9", "B")


@pytest.mark.parametrize(
    "schema",
    [{}, {"type": "object"}, {"type": "object", "properties": {}}],
)
def test_schema_keys_empty(schema: dict[str, Any]) -> None:
    assert Tool("t", input_schema=schema).schema_keys == ()


# --- validation --------------------------------------------------------------------------------

NAME = "mcp__github__create_issue"


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        (
            {"description": 3},
            "description",
            f"Tool {NAME!r}: field 'description' must be a string, got int.",
        ),
        (
            {"input_schema": []},
            "input_schema",
            f"Tool {NAME!r}: field 'input_schema' must be a JSON object, got list.",
        ),
        (
            {"input_schema": "{}"},
            "input_schema",
            f"Tool {NAME!r}: field 'input_schema' must be a JSON object, got str.",
        ),
        (
            {"input_schema": {"properties": ["a"]}},
            "input_schema.properties",
            f"Tool {NAME!r}: field 'input_schema.properties' must be a JSON object, got list.",
        ),
        (
            {"input_schema": {"properties": None}},
            "input_schema.properties",
            f"Tool {NAME!r}: field 'input_schema.properties' must be a JSON object, got None.",
        ),
        (
            {"input_schema": {"properties": {1: {}}}},
            "input_schema.properties",
            f"Tool {NAME!r}: field 'input_schema.properties' has a key that is not a string: 1.",
        ),
        (
            {"server": 7},
            "server",
            f"Tool {NAME!r}: field 'server' must be a string or None, got int.",
        ),
        ({"server": ""}, "server", f"Tool {NAME!r}: field 'server' must not be empty (use None)."),
        ({"mcp_tool_name": ""}, "mcp_tool_name", None),
        ({"label": ""}, "label", None),
        ({"label": 1.5}, "label", None),
        ({"title": ["x"]}, "title", None),
        ({"summary": b"x"}, "summary", None),
        ({"search_hint": 0}, "search_hint", None),
        ({"source": {}}, "source", None),
    ],
)
def test_field_errors_name_the_tool_and_field(
    kwargs: dict[str, Any], field: str, message: str | None
) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        Tool(NAME, **kwargs)
    assert info.value.tool == NAME
    assert info.value.field == field
    assert isinstance(info.value, ValueError)
    if message is not None:
        assert str(info.value) == message
    else:
        assert str(info.value).startswith(f"Tool {NAME!r}: field {field!r} must ")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Tool '': field 'name' must not be empty."),
        ("  \t", "Tool '  \\t': field 'name' must not be empty."),
        (42, "Tool 42: field 'name' must be a string, got int."),
        (None, "Tool without a name: field 'name' must be a string, got None."),
    ],
)
def test_name_errors(name: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match="field 'name'") as info:
        Tool(name)
    assert str(info.value) == message
    assert info.value.field == "name"


# --- MCP names and aliases ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [
        ("github", "create_issue", "mcp__github__create_issue"),
        ("sequential-thinking", "think", "mcp__sequential-thinking__think"),
        # A part outside [A-Za-z0-9_-], or that could be read another way, gets a hash.
        (
            "@smithery-ai/slack",
            "slack_post_message",
            "mcp___smithery-ai_slack_b85c176108__slack_post_message",
        ),
        (
            "ai.smithery/notion",
            "research.check",
            "mcp__ai_smithery_notion_0210642a98__research_check_d50246d5ea",
        ),
        ("my server", "say hi!", "mcp__my_server_b129874b63__say_hi_d949583bba"),
        ("文件", "读取", "mcp___39932f24fe___534cb3fa8f"),
        (f"x{GRIN}", "t", "mcp__x_c3cd6bb319__t"),
        ("a", "b__c", "mcp__a__b__c"),  # a tool part may hold "__"; a server part may not
        ("a__b", "c", "mcp__a_b_63e5c1c455__c"),
        ("a_", "_b", "mcp__a_571fb0e30b___b"),
        ("s", "x_0123456789", "mcp__s__x_0123456789_a9c59ebfa5"),  # looks like a hash
    ],
)
def test_mcp_name(server: str, tool: str, expected: str) -> None:
    assert mcp_name(server, tool) == expected


@given(
    st.lists(
        st.tuples(st.text(min_size=1, max_size=6), st.text(min_size=1, max_size=6)),
        min_size=2,
        max_size=8,
        unique=True,
    )
)
def test_mcp_names_of_different_tools_differ(pairs: list[tuple[str, str]]) -> None:
    """Lossy sanitising once gave `a`/`b__c` and `a__b`/`c`, `get.time` and `get_time`, and
    any two non-ASCII names of one length the same canonical name."""
    names = [mcp_name(server, tool) for server, tool in pairs]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", n) for n in names)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"name": "echo"}, ("echo",)),
        (
            {"name": NAME, "server": "github", "mcp_tool_name": "create_issue"},
            (
                "mcp__github__create_issue",
                "create_issue",
                "github.create_issue",
                "github/create_issue",
            ),
        ),
        (
            {
                "name": "mcp___a_b__deep_research_check",
                "server": "@a/b",
                "mcp_tool_name": "deep_research.check",
            },
            (
                "mcp___a_b__deep_research_check",
                "deep_research.check",
                "@a/b.deep_research.check",
                "@a/b/deep_research.check",
                "deep_research_check",
            ),
        ),
        ({"name": "read", "server": "fs"}, ("read", "fs.read", "fs/read")),
        ({"name": "x", "mcp_tool_name": "y"}, ("x", "y")),
    ],
)
def test_aliases(kwargs: dict[str, Any], expected: tuple[str, ...]) -> None:
    assert Tool(**kwargs).aliases() == expected


# --- serialisers -------------------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "labels": {"type": "array", "items": {}}},
    "required": ["title"],
}
ISSUE = Tool(
    NAME,
    "Create a new issue.",
    SCHEMA,
    server="github",
    mcp_tool_name="create_issue",
    title="Create issue",
    source="github/github-mcp-server",
)


def test_to_mcp() -> None:
    assert ISSUE.to_mcp() == {
        "name": "create_issue",
        "title": "Create issue",
        "description": "Create a new issue.",
        "inputSchema": SCHEMA,
    }
    assert list(ISSUE.to_mcp()) == ["name", "title", "description", "inputSchema"]
    assert Tool("plain", "d").to_mcp() == {
        "name": "plain",
        "description": "d",
        "inputSchema": {"type": "object", "properties": {}},
    }


def test_to_openai_and_anthropic() -> None:
    assert ISSUE.to_openai_chat() == {
        "type": "function",
        "function": {"name": NAME, "description": "Create a new issue.", "parameters": SCHEMA},
    }
    assert ISSUE.to_openai_responses() == {
        "type": "function",
        "name": NAME,
        "description": "Create a new issue.",
        "parameters": SCHEMA,
    }
    assert ISSUE.to_anthropic() == {
        "name": NAME,
        "description": "Create a new issue.",
        "input_schema": SCHEMA,
    }


@pytest.mark.parametrize(
    "method", ["to_mcp", "to_openai_chat", "to_openai_responses", "to_anthropic", "to_dict"]
)
def test_serialisers_return_plain_json_that_can_be_mutated(method: str) -> None:
    out = getattr(ISSUE, method)()
    text = json.dumps(out)
    assert json.loads(text) == out
    schema = out.get("inputSchema") or out.get("input_schema") or out.get("parameters")
    if schema is None:
        schema = out["function"]["parameters"]
    assert type(schema) is dict
    schema["properties"]["labels"]["items"]["type"] = "string"
    schema["required"].append("labels")
    assert ISSUE.input_schema["required"] == ["title"]
    assert ISSUE.input_schema["properties"]["labels"]["items"] == {}


def test_to_dict_omits_none_and_derived_values() -> None:
    assert ISSUE.to_dict() == {
        "name": NAME,
        "description": "Create a new issue.",
        "input_schema": SCHEMA,
        "server": "github",
        "mcp_tool_name": "create_issue",
        "title": "Create issue",
        "source": "github/github-mcp-server",
    }
    assert Tool("x").to_dict() == {
        "name": "x",
        "description": "",
        "input_schema": {"type": "object", "properties": {}},
    }


def test_from_dict_round_trip_and_unknown_keys() -> None:
    record = ISSUE.to_dict()
    assert Tool.from_dict(record) == ISSUE
    assert Tool.from_dict({**record, "metadata": {"x": 1}, "group": "core"}) == ISSUE
    assert Tool.from_dict({"name": "x"}) == Tool("x")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "A tool record must be a JSON object, got list."),
        ({"description": "d"}, "Tool without a name: field 'name' is required."),
        ({"name": "x", "description": None}, "Tool 'x': field 'description' must be a string"),
    ],
)
def test_from_dict_errors(data: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        Tool.from_dict(data)
    assert str(info.value).startswith(message)


def test_pickle_copy_and_replace() -> None:
    for clone in (
        pickle.loads(pickle.dumps(ISSUE)),
        copy.copy(ISSUE),
        copy.deepcopy(ISSUE),
    ):
        assert clone == ISSUE
        assert clone.display_label == ISSUE.display_label
        assert clone.schema_keys == ISSUE.schema_keys
    changed = dataclasses.replace(ISSUE, description="x" * 300, mcp_tool_name="new_issue")
    assert changed.display_summary == "x" * 200  # derived values are recomputed
    assert changed.display_label == "github/new_issue"
    assert changed.input_schema == ISSUE.input_schema


# --- property-based round trip -----------------------------------------------------------------

_texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=300)
_names = st.text(min_size=1, max_size=40).filter(lambda s: not s.isspace())
_json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _texts
_json = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_texts, inner, max_size=3),
    max_leaves=10,
)
_schemas = st.fixed_dictionaries(
    {"type": st.just("object")},
    optional={
        "properties": st.dictionaries(_texts, _json, max_size=5),
        "required": st.lists(_texts, max_size=3),
        "additionalProperties": st.booleans(),
    },
)


@st.composite
def tools(draw: st.DrawFn) -> Tool:
    server = draw(st.none() | _names)
    raw = draw(_names)
    return Tool(
        name=mcp_name(server, raw) if server is not None else raw,
        description=draw(_texts),
        input_schema=draw(_schemas),
        server=server,
        mcp_tool_name=raw if server is not None else None,
        label=draw(st.none() | _names),
        title=draw(st.none() | _texts),
        summary=draw(st.none() | _texts),
        search_hint=draw(st.none() | _texts),
        source=draw(st.none() | _texts),
    )


@settings(deadline=None)
@given(tools())
def test_to_dict_from_dict_round_trip(tool: Tool) -> None:
    record = json.loads(json.dumps(tool.to_dict()))
    again = Tool.from_dict(record)
    assert again == tool
    assert again.to_dict() == tool.to_dict()
    assert (again.display_label, again.display_summary, again.schema_keys) == (
        tool.display_label,
        tool.display_summary,
        tool.schema_keys,
    )
    assert again.aliases() == tool.aliases()
    assert again.aliases()[0] == tool.name


@given(st.text(max_size=400))
def test_summary_is_the_longest_utf16_prefix(description: str) -> None:
    summary = Tool("t", description).display_summary
    assert description.startswith(summary)
    assert utf16_units(summary) <= 200
    rest = description[len(summary) :]
    if rest:  # the next character would not fit
        assert utf16_units(summary + rest[0]) > 200


def test_a_qualified_alias_is_never_captured_by_another_servers_raw_name() -> None:
    """`server.tool` was first-come: server `other` with a raw tool named `fs.write`, listed
    first, got the calls meant for server `fs`'s `write`."""
    from toolsift import DiscoverySession
    from toolsift.shared_catalog import Catalog

    other = {"tools": [{"name": "fs.write", "inputSchema": {"type": "object"}}]}
    fs = {"tools": [{"name": "write", "inputSchema": {"type": "object"}}]}
    session = DiscoverySession()
    catalog = Catalog()
    for name, tools in (("other", other), ("fs", fs)):
        session.connect_server(name, tools)
        catalog.connect_server(name, tools)
    view = catalog.session()
    for finder in (session, view):
        for form in ("fs.write", "fs/write", "mcp__fs__write"):
            assert finder.find_tool(form).name == "mcp__fs__write", form
        raw = finder.find_tool(mcp_name("other", "fs.write"))
        assert raw.server == "other" and raw.mcp_tool_name == "fs.write"
        assert finder.find_tool("other.fs.write").server == "other"
