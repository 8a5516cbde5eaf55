"""The tool section of a ``ToolIndex`` snapshot: tools decode lazily, one at a time, on first read.

A loaded index answers searches, ``select:``, the exact-name tier, ``get``, updates and a second
``save`` without decoding the tools it never shows; each tool it does show equals the saved one;
a record that is corrupt, or that disagrees with the index, raises ``SnapshotError`` when read.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import SnapshotError, Tool, ToolIndex
from toolsift._snapshot.tools_section import LazyTools, encode_tool_section

TOOLS = [
    Tool(
        name=f"mcp__{server}__{verb}_{obj}",
        description=f"{verb.capitalize()} a {obj} on {server}. Ünïcödé 工具 {i}",
        input_schema={"type": "object", "properties": {obj: {"type": "string"}, "id": {}}},
        server=server,
        mcp_tool_name=f"{verb}_{obj}",
        title=f"{verb} {obj}" if i % 3 == 0 else None,
        search_hint="hint" if i % 4 == 0 else None,
    )
    for i, (server, verb, obj) in enumerate(
        (s, v, o)
        for s in ("github", "slack", "fs")
        for v in ("create", "read", "delete")
        for o in ("issue", "file", "message")
    )
] + [Tool(name="plain_tool", description="No server at all", mcp_tool_name="plainTool")]

QUERIES = [
    "create an issue on github",
    "read_file",
    "slack/delete_message please",
    "select:fs.read_file,plainTool,nope",
    "+github issue",
    "工具",
    "mcp__fs__delete_file",
]


def decoded(index: ToolIndex) -> int:
    tools = index._tools
    assert isinstance(tools, LazyTools)
    return sum(type(item) is Tool for item in tools._items)


def test_load_decodes_only_the_tools_it_shows(engine):
    index = ToolIndex(TOOLS, engine=engine)
    back = ToolIndex.from_bytes(index.to_bytes(), engine=engine)
    assert decoded(back) == 0
    assert len(back) == len(TOOLS) and "plain_tool" in back
    for q in QUERIES:
        got = back.search(q, 3)
        assert got == index.search(q, 3)
    shown = decoded(back)
    assert 0 < shown < len(TOOLS)
    assert back.to_bytes() == index.to_bytes()  # records never read are written back as stored
    assert back.get("plain_tool") == TOOLS[-1]
    assert list(back) == TOOLS and back.tools == tuple(TOOLS)


def test_updates_of_a_loaded_index_stay_lazy_and_equal_a_rebuild(engine):
    index = ToolIndex(TOOLS, engine=engine)
    back = ToolIndex.from_bytes(index.to_bytes(), engine=engine)
    back.search("read_file")  # builds the name table from the name columns
    new = [
        Tool(name="mcp__slack__read_message", description="Read again", server="slack",
             mcp_tool_name="read_message"),
        Tool(name="mcp__jira__create_issue", description="Jira issue", server="jira",
             mcp_tool_name="create_issue"),
    ]  # fmt: skip
    updated = back.replace_server("slack", new[:1]).with_tools(add=new[1:], remove=["plain_tool"])
    expected = ToolIndex(
        [t for t in TOOLS if t.server != "slack" and t.name != "plain_tool"] + new, engine=engine
    )
    assert decoded(updated) <= decoded(back) + len(new)
    assert updated.tools == expected.tools
    for q in QUERIES + ["read message", "select:jira.create_issue", "create_issue"]:
        assert updated.search(q) == expected.search(q)


def _raw(index: ToolIndex, section: bytes) -> bytes:
    return index._index.to_bytes(section)


def test_a_corrupt_or_mismatched_record_raises_snapshot_error_when_read(engine):
    index = ToolIndex(TOOLS[:2], engine=engine)
    head = {"format": "toolsift.ToolIndex", "version": 2, "field_weights": {}}
    good = encode_tool_section(TOOLS[:2], head)
    header, first, second = good.split(b"\n")
    for bad, message in [
        (b"{not json", "tool 1"),
        (b'{"name": 5}', "tool 1"),
        (first, "does not match"),  # tool 0's record in tool 1's place
    ]:
        back = ToolIndex.from_bytes(_raw(index, b"\n".join([header, first, bad])), engine=engine)
        assert back.get(TOOLS[0].name) == TOOLS[0]
        with pytest.raises(SnapshotError, match=message):
            back.get(TOOLS[1].name)
    for section, message in [
        (b"\n".join([header, first]), "holds 1 tools for 2"),
        (header.replace(b'"version":2', b'"version":1') + b"\n" + first + b"\n" + second, "older"),
        (header.replace(b'"version":2', b'"version":3') + b"\n" + first + b"\n" + second, "newer"),
        (json.dumps({"format": "toolsift.ToolIndex", "version": 1, "tools": []}).encode(), "older"),
        (b"[1, 2]\n" + first + b"\n" + second, "holds no tools"),
        (header.replace(b'"servers"', b'"serverz"') + b"\n" + first + b"\n" + second, "columns"),
    ]:
        with pytest.raises(SnapshotError, match=message):
            ToolIndex.from_bytes(_raw(index, section), engine=engine)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=12).filter(lambda s: s.strip()),
            st.one_of(st.none(), st.text(min_size=1, max_size=6)),
            st.text(max_size=30),
        ),
        min_size=1,
        max_size=8,
        unique_by=lambda t: t[0],
    )
)
def test_any_tools_round_trip_through_the_lazy_section(rows):
    tools = [
        Tool(name=name, server=server, description=desc, mcp_tool_name=name if server else None)
        for name, server, desc in rows
    ]
    index = ToolIndex(tools, engine="python")
    back = ToolIndex.from_bytes(index.to_bytes(), engine="python")
    assert back.tools == tuple(tools)
    assert [back.names.lookup(t.name) for t in tools] == [index.names.lookup(t.name) for t in tools]
