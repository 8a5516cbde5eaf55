from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift.errors import CatalogError, DuplicateToolError, ToolDefinitionError
from toolsift.loaders import (
    from_anthropic,
    from_mcp,
    from_openai,
    from_records,
    load_catalog,
    load_catalogs,
    load_tools,
)
from toolsift.tools import Tool, mcp_name

from .conftest import require_shared

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
EMPTY = {"type": "object", "properties": {}}


def write_json(path: Path, obj: Any) -> Path:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    path.write_text(text, encoding="utf-8")
    return path


# --- one case per format: file on disk, from_* function and load_tools agree ------------------

MCP_RESULT = {
    "tools": [
        {
            "name": "read_file",
            "title": "Read file",
            "description": "Read a file.",
            "inputSchema": SCHEMA,
            "annotations": {"title": "ignored: the top-level title wins", "readOnlyHint": True},
        },
        {"name": "list.dir", "inputSchema": EMPTY, "annotations": {"title": "List directory"}},
        {"name": "stat", "description": None},
    ],
    "nextCursor": None,
}
MCP_TOOLS = [
    Tool(
        "mcp__fs__read_file",
        "Read a file.",
        SCHEMA,
        server="fs",
        mcp_tool_name="read_file",
        title="Read file",
    ),
    Tool(
        "mcp__fs__list_dir_8fa48d49bb",  # a hash tells "list.dir" from a "list_dir"
        "",
        EMPTY,
        server="fs",
        mcp_tool_name="list.dir",
        title="List directory",
    ),
    Tool("mcp__fs__stat", server="fs", mcp_tool_name="stat"),
]

OPENAI_CHAT = [
    {
        "type": "function",
        "function": {"name": "get_weather", "description": "Weather.", "parameters": SCHEMA},
    },
    {"type": "function", "function": {"name": "now", "strict": True}},
]
OPENAI_RESPONSES = [
    {"type": "function", "name": "get_weather", "description": "Weather.", "parameters": SCHEMA},
    {"type": "function", "name": "now", "parameters": None, "strict": False},
]
OPENAI_LEGACY_FUNCTIONS = [
    {"name": "get_weather", "description": "Weather.", "parameters": SCHEMA},
    {"name": "now", "parameters": EMPTY},
]
ANTHROPIC = [
    {"name": "get_weather", "description": "Weather.", "input_schema": SCHEMA},
    {
        "type": "custom",
        "name": "now",
        "input_schema": EMPTY,
        "cache_control": {"type": "ephemeral"},
    },
]
PLAIN_TOOLS = [Tool("get_weather", "Weather.", SCHEMA), Tool("now")]

RECORDS = [
    {
        "name": "search",
        "description": "Search the web.",
        "input_schema": SCHEMA,
        "server": "exa",
        "source": "Ziqiao-git/ToolGym",
        "group": "core",
    },
    {
        "name": "FinanceTool",
        "description": "Stock prices.",
        "input_schema": EMPTY,
        "server": None,
        "metadata": {"domain": "finance"},
    },
    {
        "name": "mcp__exa__crawl",
        "description": "Crawl a page.",
        "server": "exa",
        "label": "Crawl",
        "summary": "Crawl.",
        "search_hint": "fetch page",
        "title": "Crawler",
    },
]
RECORD_TOOLS = [
    Tool(
        "mcp__exa__search",
        "Search the web.",
        SCHEMA,
        server="exa",
        mcp_tool_name="search",
        source="Ziqiao-git/ToolGym",
    ),
    Tool("FinanceTool", "Stock prices.", EMPTY),
    Tool(
        "mcp__exa__crawl",
        "Crawl a page.",
        server="exa",
        mcp_tool_name="crawl",
        label="Crawl",
        summary="Crawl.",
        search_hint="fetch page",
        title="Crawler",
    ),
]

CATALOGUE = {
    "servers": [
        {"name": "fs", "summary": "Local files.", "tools": MCP_RESULT["tools"]},
        {"name": "@smithery-ai/slack", "tools": [{"name": "post", "inputSchema": EMPTY}]},
    ]
}
SLACK_POST = Tool(
    mcp_name("@smithery-ai/slack", "post"),
    "",
    EMPTY,
    server="@smithery-ai/slack",
    mcp_tool_name="post",
)

FORMATS: list[tuple[str, str, Any, Callable[[Any], list[Tool]], dict[str, Any], list[Tool]]] = [
    ("mcp", "json", MCP_RESULT, lambda o: from_mcp(o, "fs"), {"server": "fs"}, MCP_TOOLS),
    (
        "mcp-list",
        "json",
        MCP_RESULT["tools"],
        lambda o: from_mcp(o, "fs"),
        {"server": "fs"},
        MCP_TOOLS,
    ),
    ("openai-chat", "json", OPENAI_CHAT, from_openai, {}, PLAIN_TOOLS),
    ("openai-responses", "json", OPENAI_RESPONSES, from_openai, {}, PLAIN_TOOLS),
    ("openai-legacy", "json", OPENAI_LEGACY_FUNCTIONS, from_openai, {}, PLAIN_TOOLS),
    ("anthropic", "json", ANTHROPIC, from_anthropic, {}, PLAIN_TOOLS),
    ("records", "jsonl", RECORDS, from_records, {}, RECORD_TOOLS),
]


@pytest.mark.parametrize(
    ("fmt", "ext", "obj", "loader", "kwargs", "expected"), FORMATS, ids=[f[0] for f in FORMATS]
)
def test_each_format(
    tmp_path: Path,
    fmt: str,
    ext: str,
    obj: Any,
    loader: Callable[[Any], list[Tool]],
    kwargs: dict[str, Any],
    expected: list[Tool],
) -> None:
    assert loader(obj) == expected
    assert load_tools(obj, **kwargs) == expected
    path = tmp_path / f"tools.{ext}"
    if ext == "jsonl":
        write_jsonl(path, obj)
    else:
        write_json(path, obj)
    assert load_catalog(path, **kwargs) == expected
    assert load_catalog(str(path), **kwargs) == expected


@pytest.mark.parametrize(
    ("doc", "kwargs", "expected"),
    [
        ({**MCP_RESULT, "server": "fs"}, {}, MCP_TOOLS),  # tools/list with its own server key
        ({**MCP_RESULT, "server": "other"}, {"server": "fs"}, MCP_TOOLS),  # the argument wins
        ({"jsonrpc": "2.0", "id": 1, "result": MCP_RESULT}, {"server": "fs"}, MCP_TOOLS),
        (CATALOGUE, {}, [*MCP_TOOLS, SLACK_POST]),
        ({"servers": {"fs": MCP_RESULT["tools"]}}, {}, MCP_TOOLS),
        (
            {"fs": MCP_RESULT["tools"], "@smithery-ai/slack": [{"name": "post"}]},
            {},
            [*MCP_TOOLS, SLACK_POST],
        ),
        ({"fs": MCP_RESULT}, {}, MCP_TOOLS),  # server name -> tools/list result
        ({}, {}, []),
        ([], {}, []),
        (ANTHROPIC[0], {}, PLAIN_TOOLS[:1]),  # a single tool
        ({"name": "stat"}, {"server": "fs"}, MCP_TOOLS[2:]),  # bare item + server: MCP
        ({"name": "stat"}, {}, [Tool("stat")]),  # bare item, no server: plain record
        ({"name": [{"name": "x"}]}, {}, [Tool("mcp__name__x", server="name", mcp_tool_name="x")]),
    ],
)
def test_load_tools_containers(doc: Any, kwargs: dict[str, Any], expected: list[Tool]) -> None:
    assert load_tools(doc, **kwargs) == expected


def test_a_server_entry_is_not_a_tool() -> None:
    entry = {"name": "fs", "summary": "Local files.", "tools": MCP_RESULT["tools"]}
    assert load_tools(entry) == MCP_TOOLS
    # With a schema key it is a tool that happens to have a "tools" argument list.
    tool = {"name": "batch", "input_schema": EMPTY, "tools": []}
    assert load_tools(tool) == [Tool("batch")]


def test_jsonl_server_entries(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "servers.jsonl",
        [
            {"name": "fs", "tools": MCP_RESULT["tools"]},
            {"name": "@smithery-ai/slack", "tools": [{"name": "post", "inputSchema": EMPTY}]},
            {"name": "loose", "description": "a plain record"},
        ],
    )
    assert load_catalog(path) == [*MCP_TOOLS, SLACK_POST, Tool("loose", "a plain record")]

    path.write_text(
        json.dumps({"name": "s", "tools": [{"name": "a"}, {"name": "b", "inputSchema": 1}]}) + "\n",
        encoding="utf-8",
    )
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    assert str(info.value) == (
        f"{path}:1:$.tools[1]: tool 'mcp__s__b': field 'inputSchema' must be a JSON object, "
        "got int."
    )
    assert info.value.line == 1

    path.write_text(json.dumps({"name": "s", "tools": [{"name": "a"}] * 2}), encoding="utf-8")
    with pytest.raises(DuplicateToolError, match=r"servers\.jsonl:1:\$\.tools\[0\] and "):
        load_catalog(path)

    path.write_text('{"name": "a"}\n{"name": 3, "tools": []}\n', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"servers\.jsonl:2: the server name must be"):
        load_catalog(path)


def test_catalogue_file(tmp_path: Path) -> None:
    path = write_json(tmp_path / "catalog.json", CATALOGUE)
    assert load_catalog(path) == [*MCP_TOOLS, SLACK_POST]


def test_load_tools_detects_each_item_format() -> None:
    mixed = [
        MCP_RESULT["tools"][0],
        OPENAI_CHAT[0],
        OPENAI_RESPONSES[1],
        {"name": "legacy", "parameters": EMPTY},
        {"name": "claude", "input_schema": EMPTY},
        RECORDS[0],
    ]
    tools = load_tools(mixed, server="fs")
    assert [(t.name, t.mcp_tool_name) for t in tools] == [
        ("mcp__fs__read_file", "read_file"),
        ("mcp__fs__get_weather", "get_weather"),
        ("mcp__fs__now", "now"),
        ("mcp__fs__legacy", "legacy"),
        ("mcp__fs__claude", "claude"),
        ("mcp__exa__search", "search"),  # a record's own server wins
    ]
    assert [t.name for t in load_tools(mixed[1:])] == [
        "get_weather",
        "now",
        "legacy",
        "claude",
        "mcp__exa__search",
    ]


def test_record_server_null_overrides_document_server() -> None:
    tools = load_tools({"tools": [{"name": "x", "server": None}], "server": "fs"})
    assert tools == [Tool("x")]


def test_records_round_trip_through_to_dict() -> None:
    tools = from_mcp(MCP_RESULT, "fs") + from_records(RECORDS)
    records = [json.loads(json.dumps(t.to_dict())) for t in tools]
    assert from_records(records) == tools
    assert [Tool.from_dict(r) for r in records] == tools


def test_mcp_round_trip_through_to_mcp() -> None:
    tools = from_mcp(MCP_RESULT, "fs")
    assert from_mcp([t.to_mcp() for t in tools], "fs") == tools


def test_openai_and_anthropic_round_trip() -> None:
    tools = from_anthropic(ANTHROPIC)
    assert from_openai([t.to_openai_chat() for t in tools]) == tools
    assert from_openai([t.to_openai_responses() for t in tools]) == tools
    assert from_anthropic([t.to_anthropic() for t in tools]) == tools
    assert from_openai({"model": "gpt", "tools": OPENAI_CHAT}) == PLAIN_TOOLS  # request body


# --- unsupported provider tools ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("loader", "items", "kept"),
    [
        (from_openai, [{"type": "web_search"}, *OPENAI_RESPONSES], PLAIN_TOOLS),
        (from_openai, [{"type": "mcp", "server_label": "x"}, OPENAI_CHAT[0]], PLAIN_TOOLS[:1]),
        (
            from_anthropic,
            [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}, *ANTHROPIC],
            PLAIN_TOOLS,
        ),
        (load_tools, [{"type": "bash_20250124", "name": "bash"}, *ANTHROPIC], PLAIN_TOOLS),
        (load_tools, [{"type": "custom", "name": "sql", "format": {}}, *ANTHROPIC], PLAIN_TOOLS),
        (load_tools, [{"type": "web_search", "source": "x"}, *OPENAI_CHAT], PLAIN_TOOLS),
    ],
)
def test_unsupported_tools_raise_or_are_skipped(
    loader: Callable[..., list[Tool]], items: list[Any], kept: list[Tool]
) -> None:
    with pytest.raises(ToolDefinitionError, match="skip_unsupported=True") as info:
        loader(items)
    assert info.value.field == "type"
    assert str(info.value).startswith("$[0]: ")
    assert loader(items, skip_unsupported=True) == kept


def test_unsupported_message() -> None:
    with pytest.raises(ToolDefinitionError) as info:
        from_anthropic([{"type": "web_search_20250305", "name": "web_search"}])
    assert str(info.value) == (
        "$[0]: Tool 'web_search' has type 'web_search_20250305': it is not a function tool with "
        "an input schema, so it cannot be indexed (pass skip_unsupported=True to skip such tools)."
    )
    assert info.value.tool == "web_search"


def test_load_catalog_skip_unsupported(tmp_path: Path) -> None:
    path = write_json(tmp_path / "tools.json", [{"type": "web_search"}, *OPENAI_CHAT])
    with pytest.raises(CatalogError, match=r"tools\.json:\$\[0\]: a tool has type 'web_search'"):
        load_catalog(path)
    assert load_catalog(path, skip_unsupported=True) == PLAIN_TOOLS
    assert load_catalogs([path], skip_unsupported=True) == PLAIN_TOOLS


# --- item errors: place, tool and field --------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message", "tool", "field"),
    [
        (
            lambda: from_mcp([{"name": "a"}, {"name": "b", "inputSchema": []}], "gh"),
            "$[1]: Tool 'mcp__gh__b': field 'inputSchema' must be a JSON object, got list.",
            "mcp__gh__b",
            "inputSchema",
        ),
        (
            lambda: from_mcp([{"name": "b", "inputSchema": {"properties": 1}}], "gh"),
            "$[0]: Tool 'mcp__gh__b': field 'inputSchema.properties' must be a JSON object, "
            "got int.",
            "mcp__gh__b",
            "inputSchema.properties",
        ),
        (
            lambda: from_mcp([{"name": "b", "annotations": {"title": 3}}], "gh"),
            "$[0]: Tool 'mcp__gh__b': field 'annotations.title' must be a string or None, got int.",
            "mcp__gh__b",
            "annotations.title",
        ),
        (
            lambda: from_mcp([{"name": "b", "annotations": []}], "gh"),
            "$[0]: Tool 'b': field 'annotations' must be a JSON object, got list.",
            "b",
            "annotations",
        ),
        (
            lambda: from_mcp([{"description": "no name"}], "gh"),
            "$[0]: Tool without a name: field 'name' is required.",
            None,
            "name",
        ),
        (
            lambda: from_mcp([{"name": ""}], "gh"),
            "$[0]: Tool '': field 'name' must not be empty.",
            "",
            "name",
        ),
        (
            lambda: from_mcp(["read_file"], "gh"),
            "$[0]: A tool definition must be a JSON object, got str.",
            None,
            None,
        ),
        (
            lambda: from_openai([{"type": "function", "function": {"name": "f", "parameters": 1}}]),
            "$[0]: Tool 'f': field 'function.parameters' must be a JSON object, got int.",
            "f",
            "function.parameters",
        ),
        (
            lambda: from_openai([{"type": "function", "function": {"name": 5}}]),
            "$[0]: Tool 5: field 'function.name' must be a string, got int.",
            None,
            "function.name",
        ),
        (
            lambda: from_openai(
                [{"type": "function", "function": {"name": "f", "description": 1}}]
            ),
            "$[0]: Tool 'f': field 'function.description' must be a string, got int.",
            "f",
            "function.description",
        ),
        (
            lambda: from_openai([{"type": "function", "function": "f"}]),
            "$[0]: Tool without a name: field 'function' must be a JSON object, got str.",
            None,
            "function",
        ),
        (
            lambda: from_openai([{"type": "function", "name": "f", "parameters": []}]),
            "$[0]: Tool 'f': field 'parameters' must be a JSON object, got list.",
            "f",
            "parameters",
        ),
        (
            lambda: from_anthropic([{"name": "f", "input_schema": "{}"}]),
            "$[0]: Tool 'f': field 'input_schema' must be a JSON object, got str.",
            "f",
            "input_schema",
        ),
        (
            lambda: from_records([{"name": "f", "server": ""}]),
            "$[0]: Tool 'f': field 'server' must be a non-empty string or null, got ''.",
            "f",
            "server",
        ),
        (
            lambda: from_records([{"name": "f", "server": "s", "mcp_tool_name": "g"}]),
            "$[0]: Tool 'mcp__s__f': field 'mcp_tool_name' is 'g' but 'name' is 'f': give the raw "
            "MCP name in both, or the canonical name in 'name'.",
            "mcp__s__f",
            "mcp_tool_name",
        ),
        (
            lambda: from_records([{"name": "f", "search_hint": 1}]),
            "$[0]: Tool 'f': field 'search_hint' must be a string or None, got int.",
            "f",
            "search_hint",
        ),
        (
            lambda: load_tools(
                {"tools": [{"name": "x"}, {"name": "y", "inputSchema": 1}]}, server="s"
            ),
            "$.tools[1]: Tool 'mcp__s__y': field 'inputSchema' must be a JSON object, got int.",
            "mcp__s__y",
            "inputSchema",
        ),
        (
            lambda: load_tools([{"name": "x", "inputSchema": {}}]),
            "$[0]: Tool 'x': field 'server' is required for an MCP tool (pass server=...).",
            "x",
            "server",
        ),
        (
            lambda: load_tools({"servers": [{"name": "s", "tools": [{"name": "x", "title": 1}]}]}),
            "$.servers[0].tools[0]: Tool 'mcp__s__x': field 'title' must be a string or None, "
            "got int.",
            "mcp__s__x",
            "title",
        ),
        (
            lambda: load_tools({"a b": [{"name": "x", "inputSchema": 1}]}),
            "$[\"a b\"][0]: Tool 'mcp__a_b_c8687a08aa__x': field 'inputSchema' must be a JSON "
            "object, got int.",
            "mcp__a_b_c8687a08aa__x",
            "inputSchema",
        ),
    ],
)
def test_item_errors(
    call: Callable[[], Any], message: str, tool: str | None, field: str | None
) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        call()
    assert str(info.value) == message
    assert info.value.tool == tool
    assert info.value.field == field
    assert not isinstance(info.value, DuplicateToolError)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("tools", "$: Expected a tool, a list of tools or a JSON object, got str."),
        ({"tools": {"a": 1}}, "$.tools: 'tools' must be a list of tools, got dict."),
        ({"servers": 3}, "$.servers: 'servers' must be a list or a JSON object, got int."),
        ({"servers": [[]]}, "$.servers[0]: A server entry must be a JSON object, got list."),
        (
            {"servers": [{"tools": []}]},
            "$.servers[0].name: The server name must be a non-empty string, got None.",
        ),
        (
            {"servers": [{"name": "s"}]},
            "$.servers[0].tools: The tools of server 's' must be a list of tools, got None.",
        ),
        ({"github": 1}, "$.github: The tools of server 'github' must be a list of tools, got int."),
        (
            {"tools": [], "server": ""},
            "$.server: The server name must be a non-empty string, got ''.",
        ),
    ],
)
def test_document_structure_errors(doc: Any, message: str) -> None:
    with pytest.raises(CatalogError) as info:
        load_tools(doc)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: from_mcp({"tools": []}, 3), TypeError),
        (lambda: from_mcp({"tools": []}, ""), ValueError),
        (lambda: from_mcp({"result": {}}, "s"), TypeError),
        (lambda: load_tools([], server=""), ValueError),
        (lambda: load_catalog("x.json", server=1), TypeError),  # type: ignore[arg-type]
        (lambda: from_openai("tools"), TypeError),
        (lambda: from_records(None), TypeError),
    ],
)
def test_argument_errors(call: Callable[[], Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        call()


# --- duplicates --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: from_mcp([{"name": "a"}, {"name": "b"}, {"name": "a"}], "s"),
            "Duplicate tool name 'mcp__s__a' at $[0] and $[2].",
        ),
        (
            lambda: from_openai([OPENAI_CHAT[0], OPENAI_RESPONSES[0]]),
            "Duplicate tool name 'get_weather' at $[0] and $[1].",
        ),
        (
            lambda: from_records(
                [{"name": "x", "server": "s"}, {"name": "mcp__s__x", "server": "s"}]
            ),
            "Duplicate tool name 'mcp__s__x' at $[0] and $[1].",
        ),
        (
            lambda: load_tools(
                {
                    "servers": [
                        {"name": "s", "tools": [{"name": "x"}]},
                        {"name": "s", "tools": [{"name": "x"}]},
                    ]
                }
            ),
            "Duplicate tool name 'mcp__s__x' at $.servers[0].tools[0] and $.servers[1].tools[0].",
        ),
    ],
)
def test_duplicates_name_both_places(call: Callable[[], Any], message: str) -> None:
    with pytest.raises(DuplicateToolError) as info:
        call()
    assert str(info.value) == message
    assert info.value.field == "name"
    assert isinstance(info.value, ToolDefinitionError)


def test_same_tool_name_on_two_servers_is_not_a_duplicate() -> None:
    tools = load_tools({"a": [{"name": "search"}], "b": [{"name": "search"}]})
    assert [t.name for t in tools] == ["mcp__a__search", "mcp__b__search"]


def test_duplicates_in_a_file_and_across_files(tmp_path: Path) -> None:
    one = write_jsonl(tmp_path / "one.jsonl", [{"name": "x"}, {"name": "y"}, {"name": "x"}])
    with pytest.raises(DuplicateToolError) as info:
        load_catalog(one)
    assert str(info.value) == f"Duplicate tool name 'x' at {one}:1 and {one}:3."

    a = write_jsonl(tmp_path / "a.jsonl", [{"name": "x"}, {"name": "y"}])
    b = write_json(tmp_path / "b.json", {"tools": [{"name": "z"}, {"name": "y"}]})
    assert [t.name for t in load_catalogs([a])] == ["x", "y"]
    with pytest.raises(DuplicateToolError) as info:
        load_catalogs([a, b])
    assert str(info.value) == f"Duplicate tool name 'y' at {a}:2 and {b}:$.tools[1]."
    assert info.value.tool == "y"


# --- catalogue files ---------------------------------------------------------------------------


def test_jsonl_error_names_file_line_tool_and_field(tmp_path: Path) -> None:
    rows: list[Any] = [{"name": f"t{i}"} for i in range(16)]
    rows.append({"name": "search", "description": "", "input_schema": [], "server": None})
    path = write_jsonl(tmp_path / "tools.jsonl", rows)
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    error = info.value
    assert str(error) == (
        f"{path}:17: tool 'search': field 'input_schema' must be a JSON object, got list."
    )
    assert (error.path, error.line, error.field) == (str(path), 17, "input_schema")
    assert isinstance(error, ValueError)


def test_json_error_names_file_path_tool_and_field(tmp_path: Path) -> None:
    doc = {"servers": [{"name": "s", "tools": [{"name": "ok"}, {"name": "x", "inputSchema": 1}]}]}
    path = write_json(tmp_path / "catalog.json", doc)
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    assert str(info.value) == (
        f"{path}:$.servers[0].tools[1]: tool 'mcp__s__x': field 'inputSchema' must be a JSON "
        "object, got int."
    )
    assert (info.value.path, info.value.line, info.value.field) == (str(path), None, "inputSchema")


@pytest.mark.parametrize(
    ("name", "content", "line", "message"),
    [
        ("bad.jsonl", '{"name": "a"}\n\n{"name": "b",}\n', 3, "invalid JSON: Expecting property"),
        (
            "bad.json",
            '{\n  "tools": [\n    {"name": "a"}\n    {"name": "b"}\n  ]\n}',
            4,
            "invalid JSON",
        ),
        ("bad.json", "[1, 2", 1, "invalid JSON"),
        (
            "list.jsonl",
            '{"name": "a"}\n["b"]\n',
            2,
            "a tool definition must be a JSON object, got list.",
        ),
        ("lies.json", '{"name": "a"}\n{"name": "b", "server": 3}\n', 2, "field 'server'"),
    ],
)
def test_parse_errors(tmp_path: Path, name: str, content: str, line: int, message: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog(path)
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert message in str(info.value)
    assert info.value.line == line


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"name": "a"}\n{"name": "caf\xe9"}\n')
    with pytest.raises(CatalogError, match=r"latin1\.jsonl:2: not valid UTF-8") as info:
        load_catalog(path)
    assert info.value.line == 2


@pytest.mark.parametrize(
    ("name", "content", "names"),
    [
        ("empty.jsonl", "", []),
        ("blank.json", " \n\t\n", []),
        ("blank-lines.jsonl", '\n{"name": "a"}\n\n  \n{"name": "b"}', ["a", "b"]),
        ("crlf.jsonl", '{"name": "a"}\r\n{"name": "b"}\r\n', ["a", "b"]),
        ("bom.jsonl", '\ufeff{"name": "a"}\n', ["a"]),
        ("bom.json", '\ufeff[{"name": "a"}]', ["a"]),
        # U+2028 is legal inside a JSON string; str.splitlines() would break the line there.
        ("sep.jsonl", '{"name": "a", "description": "x\u2028y"}\n{"name": "b"}\n', ["a", "b"]),
        ("jsonl-named.json", '{"name": "a"}\n{"name": "b"}\n', ["a", "b"]),
        ("json-named.jsonl", '[\n  {"name": "a"},\n  {"name": "b"}\n]\n', ["a", "b"]),
        ("one-line.jsonl", '{"name": "a"}', ["a"]),
        ("no-extension", '{"tools": [{"name": "a"}], "server": "s"}', ["mcp__s__a"]),
        ("ndjson.ndjson", '{"name": "a"}\n', ["a"]),
    ],
)
def test_file_shapes(tmp_path: Path, name: str, content: str, names: list[str]) -> None:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8"))  # no newline translation
    assert [t.name for t in load_catalog(path)] == names


def test_unicode_text_survives(tmp_path: Path) -> None:
    description = "读取文件 \U0001f600 " * 30
    path = write_jsonl(tmp_path / "zh.jsonl", [{"name": "读取", "description": description}])
    (tool,) = load_catalog(path)
    assert tool.description == description
    assert len(tool.display_summary.encode("utf-16-le")) // 2 <= 200


def test_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_catalog(tmp_path / "nope.json")


# --- property: MCP items survive a load -> to_mcp -> load cycle ---------------------------------

_names = st.text(min_size=1, max_size=30).filter(lambda s: not s.isspace())
_mcp_items = st.fixed_dictionaries(
    {"name": _names},
    optional={
        "title": st.text(max_size=20),
        "description": st.text(max_size=300),
        "inputSchema": st.fixed_dictionaries(
            {"type": st.just("object")},
            optional={"properties": st.dictionaries(st.text(max_size=10), st.just({}), max_size=4)},
        ),
    },
)


@settings(deadline=None)
@given(
    _names.filter(lambda s: s not in ("tools", "servers")),  # reserved in the mapping form
    st.lists(_mcp_items, max_size=8, unique_by=lambda item: item["name"]),
)
def test_mcp_load_round_trip(server: str, items: list[dict[str, Any]]) -> None:
    try:
        tools = from_mcp(items, server)
    except DuplicateToolError:  # distinct raw names can sanitise to one canonical name
        return
    assert [t.mcp_tool_name for t in tools] == [item["name"] for item in items]
    assert all(t.server == server for t in tools)
    assert from_mcp({"tools": [t.to_mcp() for t in tools]}, server) == tools
    assert from_records([t.to_dict() for t in tools]) == tools
    assert load_tools({server: [t.to_mcp() for t in tools]}) == tools


# --- the shared corpora ------------------------------------------------------------------------


def shared_data_dir() -> Path:
    return require_shared("data")


SHARED = [
    ("mcp_mixed", 11_578),
    ("popular_mcp_servers", 238),
    ("codebase_memory_mcp", 15),
    ("metatool", 199),
    ("gorilla_hf", 907),
]


@pytest.mark.shared_data
@pytest.mark.parametrize(("stem", "count"), SHARED, ids=[s for s, _ in SHARED])
def test_shared_catalogues_load(stem: str, count: int) -> None:
    path = shared_data_dir() / f"{stem}.tools.jsonl"
    tools = load_catalog(path)
    assert len(tools) == count
    assert len({t.name for t in tools}) == count  # no duplicate canonical names
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for tool, record in zip(tools, records):
        assert tool.description == record["description"]
        assert tool.server == record["server"]
        if record["server"] is None:
            assert tool.name == record["name"] and tool.mcp_tool_name is None
        else:
            assert tool.mcp_tool_name == record["name"]
            assert tool.name.startswith("mcp__")
        assert tool.title == record.get("title")


@pytest.mark.shared_data
def test_popular_servers_are_contained_in_mcp_mixed() -> None:
    data = shared_data_dir()
    with pytest.raises(DuplicateToolError, match="popular_mcp_servers.tools.jsonl:"):
        load_catalogs([data / "popular_mcp_servers.tools.jsonl", data / "mcp_mixed.tools.jsonl"])
    tools = load_catalogs([data / "metatool.tools.jsonl", data / "gorilla_hf.tools.jsonl"])
    assert len(tools) == 199 + 907


@pytest.mark.shared_data
def test_codebase_memory_tools() -> None:
    tools = {
        t.mcp_tool_name: t
        for t in load_catalog(shared_data_dir() / "codebase_memory_mcp.tools.jsonl")
    }
    assert {"search_graph", "trace_path", "get_code_snippet", "query_graph", "search_code"} <= set(
        tools
    )
    tool = tools["index_repository"]
    assert tool.name == f"mcp__{tool.server}__index_repository"
    assert "repo_path" in tool.schema_keys
    assert tool.title is not None
