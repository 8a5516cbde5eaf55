"""The name table's compiled build (one call over the tools' names) against its Python
specification (``_index_tool``, tool by tool), and the table carried over updates (shared base
dicts, a small overlay) against a table built anew.

Names come from arbitrary Unicode (lone surrogates included), with servers whose canonical name
sanitising changes (the branch that indexes every alias), and from a vocabulary of names that
collide once normalised (``read_file``, ``readFile``, ``READ-FILE``).
"""

from __future__ import annotations

import json
import random
import sys
from unittest import mock

import pytest
import toolsift._names.table as table_module
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolsift import Tool, ToolIndex
from toolsift._names.table import NameTable, built_in_python
from toolsift._snapshot.tools_section import NameView
from toolsift.errors import ToolsiftError
from toolsift.query import name_key
from toolsift.tools import mcp_name

core = pytest.importorskip("toolsift._core", reason="the compiled build needs the Rust extension")

VOCAB = [
    "read_file", "readFile", "READ-FILE", "search", "search_graph", "searchGraph", "get",
    "café", "Café_menu", "ΟΔΥΣΣΕΥΣ", "日本語", "ﬁle", "read file", "fs", "fs.read", "mcp",
    "mcp__fs__read_file", "a😀b", "x/y", "", "ǅemo", "İstanbul", "ß",
]  # fmt: skip
text = st.sampled_from(VOCAB) | st.text(max_size=12)
servers = st.none() | st.sampled_from(["fs", "café", "gh", "@org/slack", "😀", ""]) | text


@st.composite
def name_rows(draw):
    """A tool's (name, server, mcp_tool_name): canonical MCP names, raw names, or anything."""
    server = draw(servers)
    raw = draw(text)
    mcp = draw(st.none() | st.just(raw) | text)
    if server is None:
        name = draw(text)
    else:
        kind = draw(st.sampled_from(["canonical", "raw", "other"]))
        name = {"canonical": mcp_name(server, raw), "raw": raw}.get(kind) or draw(text)
    return name, server, mcp


views = st.lists(name_rows(), max_size=14).map(lambda rows: [NameView(*row) for row in rows])
probe_texts = (
    st.sampled_from(VOCAB)
    | st.text(max_size=24)
    | st.lists(st.sampled_from(VOCAB), max_size=10).map(" ".join)
)


def python_table(tools):
    """The table built tool by tool (the compiled key sets made from its dicts)."""
    with mock.patch.object(table_module, "_build_name_table", None):
        return NameTable(tools)


def pure_table(tools):
    """The table of a pure-Python install: no compiled build, no compiled proof."""
    with mock.patch.object(table_module, "_build_name_table", None):
        with mock.patch.object(table_module, "_NameKeys", None):
            return NameTable(tools)


@given(value=text | st.text())
def test_the_compiled_name_key_is_name_key(value):
    # A tool without a server is stored under its name's key alone (when it has one).
    plain, qualified, _ = core._build_name_table([NameView(value, None, None)])
    assert list(plain) == ([name_key(value)] if name_key(value) else [])
    assert len(qualified) == 0 and list(qualified) == []


@settings(max_examples=400)
@given(tools=views)
def test_the_compiled_build_makes_the_python_dicts(tools):
    plain, qualified, keys = core._build_name_table(tools)
    want_plain, want_qualified, _ = built_in_python(tools)
    # The same keys, in the same order, with the same ids, read as the dicts are.
    for got, want in ((plain, want_plain), (qualified, want_qualified)):
        assert list(got.items()) == list(want.items())
        assert len(got) == len(want) and list(got) == list(want)
        assert set(got.keys()) == set(want.keys()) and list(got.values()) == list(want.values())
        for key in [*want, "", "no such key", "x\ud800"]:
            assert (key in got) == (key in want)
            assert got.get(key) == want.get(key) and got.get(key, 7) == want.get(key, 7)
        with pytest.raises(KeyError):
            got["no such key"]
    assert isinstance(keys, core.NameKeys)
    assert len(keys) >= len(set(plain) | set(qualified))


@given(tools=views, texts=st.lists(probe_texts, max_size=6))
def test_the_compiled_table_answers_as_the_python_one(tools, texts):
    compiled, python, pure = NameTable(tools), python_table(tools), pure_table(tools)
    keys = {name_key(t) for t in texts} | set(python._plain) | set(python._qualified)
    for key in keys | {"mcp" + k for k in keys}:
        assert compiled.lookup_key(key) == python.lookup_key(key) == pure.lookup_key(key)
    names = [*texts, *(a for t in tools for a in t.aliases())]
    assert compiled.lookup_names(names) == python.lookup_names(names) == pure.lookup_names(names)
    for t in texts:
        assert (
            compiled.finder.find_names(t)
            == python.finder.find_names(t)
            == pure.finder.find_names(t)
        ), t
        assert compiled.finder.find_names(t) == compiled.finder.find_names_slow(t), t
        every = range(len(tools))
        assert compiled.suggest(t, every) == python.suggest(t, every) == pure.suggest(t, every)


def test_surrogates_and_sanitised_names_are_indexed_by_every_alias():
    tools = [
        NameView("mcp__caf___read", "café", "read"),
        NameView("mcp__s__x\ud800y", "s", "x\ud800y"),
        NameView("mcp__fs__read_file", "fs", "read_file"),
    ]
    plain, qualified, _ = core._build_name_table(tools)
    assert (dict(plain.items()), dict(qualified.items())) == built_in_python(tools)[:2]
    table = NameTable(tools)
    assert table.lookup("café/read") == table.lookup("mcp__caf___read") == (0,)
    assert table.lookup("s.x\ud800y") == (1,)


# ---------------------------------------------------------------------------------------------
# The table a record build makes beside its index (taken by the first search).

record_items = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(VOCAB) | st.text(max_size=8)},
        optional={"server": st.sampled_from(["fs", "café", "gh", "x.y"]), "title": text},
    ),
    max_size=12,
)


def assert_same_maps(got, want) -> None:
    for got_map, want_map in zip(got[:2], want[:2]):
        assert list(got_map.items()) == list(want_map.items())


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(items=record_items, server=st.none() | st.sampled_from(["srv", "café"]))
def test_a_record_build_makes_the_table_of_its_tools(items, server):
    try:
        index = ToolIndex.from_records(items, server=server)
    except ToolsiftError:
        return  # refused as the loaders refuse it: no index, no table
    tools = list(index._tools)
    want = built_in_python(tools)
    columns = getattr(index._tools, "columns", None)
    if isinstance(columns, core.NameColumns):
        held = sys.getsizeof(columns)
        first = core._build_name_table(columns)  # the table the build made
        assert sys.getsizeof(columns) <= held
        again = core._build_name_table(columns)  # taken once: made from the columns now
        assert_same_maps(first, want)
        assert_same_maps(again, want)
        assert len(first[2]) == len(again[2])
    fresh = ToolIndex(tools)
    selects = ["select:" + ",".join(t.name for t in tools[:3])] if tools else []
    for query in [*selects, "read file", "search"]:
        assert ranked(index, query) == ranked(fresh, query)


def ranked(index: ToolIndex, query: str) -> list[tuple[str, float]] | str:
    """The ranked names and scores of ``query``, or the name of the error it raises."""
    try:
        return [(m.name, m.score) for m in index.search(query)]
    except ToolsiftError as exc:
        return type(exc).__name__


def test_the_first_search_takes_the_table_a_build_made(tmp_path):
    rows = [{"name": f"tool_{i}", "description": "read a file"} for i in range(300)]
    rows += [{"name": "read_file", "server": "fs", "description": "Read a file"}]
    path = tmp_path / "tools.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    index = ToolIndex.from_records(str(path), server="s")
    columns = index._tools.columns
    held = sys.getsizeof(columns)
    assert index.search("select:read_file")[0].name == "mcp__fs__read_file"
    # The table left the columns for the index's name table: only the columns are held now.
    assert sys.getsizeof(columns) < held
    assert index.search("tool_7")[0].name == "mcp__s__tool_7"


# ---------------------------------------------------------------------------------------------
# The table a build of `Tool` objects makes beside its index (taken by the first search).


def tools_of(rows) -> list[Tool]:
    """The `Tool`s of name rows that `Tool` takes, first of each name kept."""
    tools: dict[str, Tool] = {}
    for name, server, mcp in rows:
        try:
            tool = Tool(name=name, server=server, mcp_tool_name=mcp)
        except ToolsiftError:
            continue
        tools.setdefault(tool.name, tool)
    return list(tools.values())


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(name_rows(), max_size=14))
def test_a_tool_build_makes_the_table_of_its_tools(rows):
    tools = tools_of(rows)
    weights = [1.0] * 11
    index, parts = core._build_tools(tools, weights, 1.2, 0.75, 0.5, "omp")
    assert parts is not None and len(index) == len(tools)
    want = built_in_python(tools)
    assert_same_maps(parts, want)
    assert len(parts[2]) == len(core._build_name_table(tools)[2])
    # The index's first search takes it, and answers as a table made from the tools.
    built, fresh = ToolIndex(tools, engine="rust"), python_table(tools)
    assert built._lookups._name_parts is not None
    assert_same_maps((built.names._plain, built.names._qualified), want)
    assert built._lookups._name_parts is None  # taken: held once, by the table
    probes = [*(a for t in tools for a in t.aliases()), "read file", "readFile"]
    assert built.names.lookup_names(probes) == fresh.lookup_names(probes)
    selects = ["select:" + ",".join(t.name for t in tools[:3])] if tools else []
    python = ToolIndex(tools, engine="python")
    assert python._lookups._name_parts is None  # the twin makes its table on first use
    for query in [*selects, "read file"]:
        assert ranked(built, query) == ranked(python, query)


# ---------------------------------------------------------------------------------------------
# Updates: a base shared by reference and an overlay of the added tools.


def mcp_tool(server: str, raw: str) -> Tool:
    return Tool(name=mcp_name(server, raw), server=server, mcp_tool_name=raw, description="x")


RAWS = ["read_file", "readFile", "search", "get_user", "café", "send", "list"]
tool_sets = st.lists(
    st.tuples(st.sampled_from(["fs", "gh", "café", "w"]), st.sampled_from(RAWS)), max_size=10
).map(lambda rows: list({t.name: t for t in (mcp_tool(s, r) for s, r in rows)}.values()))


def assert_answers_as(table: NameTable, fresh: NameTable, texts) -> None:
    keys = set(fresh._plain) | set(fresh._qualified) | set(table._plain) | set(table._qualified)
    if table._added is not None:
        keys |= set(table._added[0]) | set(table._added[1])
    for key in keys | {"mcp" + k for k in keys}:
        assert table.lookup_key(key) == fresh.lookup_key(key), key
    names = [*texts, *(a for t in fresh.sources for a in t.aliases())]
    assert table.lookup_names(names) == fresh.lookup_names(names)
    for t in texts:
        assert table.finder.find_names(t) == fresh.finder.find_names_slow(t), t
        assert table.finder.find_names_slow(t) == fresh.finder.find_names_slow(t), t


@pytest.mark.parametrize("overlay_at_least", [0, 10**9])
@settings(
    max_examples=150,
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # the same value throughout
)
@given(
    base=tool_sets,
    steps=st.lists(st.tuples(tool_sets, st.integers(0, 2**16)), min_size=1, max_size=6),
    texts=st.lists(probe_texts | st.sampled_from(RAWS), max_size=4),
)
def test_tables_carried_over_updates_answer_as_rebuilt(
    monkeypatch, overlay_at_least, base, steps, texts
):
    monkeypatch.setattr(table_module, "_OVERLAY_AT_LEAST", overlay_at_least)
    monkeypatch.setattr(table_module, "_OVERLAY_FRACTION", 0.0 if overlay_at_least == 0 else 1.0)
    texts = [*texts, "use read_file now", "readfile and searching words here today"]
    index = ToolIndex(base)
    for new, seed in steps:
        assert index.names is not None  # built: the update carries it over
        rng = random.Random(seed)
        new_names = {t.name for t in new}
        remove = [t.name for t in index.tools if rng.random() < 0.4 and t.name not in new_names]
        before, index = index, index.with_tools(add=new, remove=remove)
        assert_answers_as(index.names, NameTable(index.tools), texts)
        assert_answers_as(before.names, NameTable(before.tools), texts)  # copy-on-write


def test_an_update_shares_the_base_dicts_and_layers_the_compiled_keys():
    tools = [mcp_tool(f"s{i % 50}", f"tool_{i}") for i in range(2000)]
    table = NameTable(tools)
    added = [mcp_tool("new", f"fetch_{i}") for i in range(20)]
    new_ids = [-1 if i % 100 == 0 else i - (i // 100 + 1) for i in range(len(tools))]
    kept = [t for i, t in enumerate(tools) if new_ids[i] >= 0]
    updated = table.remapped(kept + added, new_ids, len(kept))
    # No copy of the catalogue's dicts: the added tools' keys are in an overlay of their own.
    assert updated._plain is table._plain and updated._qualified is table._qualified
    assert updated._added is not None
    assert len(updated._added[0]) + len(updated._added[1]) == 40
    assert len(updated.keys) == len(table.keys) + 40
    assert updated.lookup("new/fetch_3") == (len(kept) + 3,)
    assert updated.lookup("tool_0") == ()  # removed: its stale key names nothing
    assert updated.finder.find_names("call fetch_3 now") == [((len(kept) + 3,), "call now")]
    assert "fetch3" not in table._plain and table.lookup("fetch_3") == ()
    # A second update layers on the first without copying the base either.
    n = len(updated.sources)
    again = updated.remapped([*updated.sources, mcp_tool("new", "fetch_x")], list(range(n)), n)
    assert again._plain is table._plain
    assert again.lookup("fetchx") == (len(kept) + 20,)


def test_a_large_overlay_is_merged_by_a_rebuild(monkeypatch):
    monkeypatch.setattr(table_module, "_OVERLAY_AT_LEAST", 10)
    tools = [mcp_tool("s", f"tool_{i}") for i in range(40)]
    table = NameTable(tools)
    added = [mcp_tool("new", f"fetch_{i}") for i in range(20)]
    updated = table.remapped(tools + added, list(range(40)), 40)
    assert updated._added is None and updated._plain is not table._plain
    assert updated.lookup("fetch_19") == (59,)
