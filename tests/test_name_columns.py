"""The packed name columns of a lazy index (``toolsift._snapshot.name_columns``): the compiled
``NameColumns`` reads back exactly what the lists hold, its name -> position map is the dict of
the names, an update's ``take`` is the lists' slicing, and the name table built from them is
the one built from the tools."""

from __future__ import annotations

import pickle
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import Tool, ToolIndex
from toolsift._names.table import NameTable, built_in_python
from toolsift._snapshot.name_columns import ListColumns, name_columns, taken
from toolsift._snapshot.tools_section import NameViews

core = pytest.importorskip("toolsift._core")

_text = st.text(st.characters(codec="utf-8"), max_size=12)
_row = st.tuples(
    st.one_of(_text, st.sampled_from(["mcp__fs__read", "plan", "a"])),
    st.one_of(st.none(), st.sampled_from(["fs", "web", "é"]), _text),
    st.one_of(st.none(), _text, st.sampled_from(["read", ""])),
)


def _columns(rows: list[tuple[str, str | None, str | None]]) -> tuple[list, list, list]:
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


@settings(max_examples=200, deadline=None)
@given(st.lists(_row, max_size=30), st.data())
def test_packed_columns_read_back_as_the_lists(rows, data) -> None:
    names, servers, mcp = _columns(rows)
    packed = core.NameColumns(names, servers, mcp)
    assert len(packed) == len(names)
    assert list(packed.names) == names
    assert list(packed.servers) == servers
    assert list(packed.mcp_tool_names) == mcp
    assert packed.names == names and packed.servers[:] == servers
    for i in range(-len(names), len(names)):
        assert (packed.names[i], packed.servers[i], packed.mcp_tool_names[i]) == rows[i]
    step = data.draw(st.sampled_from([1, 2, -1, -3]))
    assert packed.mcp_tool_names[::step] == mcp[::step]
    assert packed.names[1:-1] == names[1:-1]
    # The name -> position map is the dict of the names: last position, first-seen order.
    want = dict(zip(names, range(len(names))))
    positions = packed.positions
    assert len(positions) == len(want)
    assert list(positions) == list(want)
    assert dict(positions.items()) == want
    for name in [*names, "absent name", 3]:
        assert positions.get(name) == want.get(name)  # type: ignore[call-overload]
        assert (name in positions) == (name in want)
    # An update: the kept positions, then the added tools.
    keep = data.draw(st.lists(st.integers(0, max(len(names) - 1, 0)), max_size=len(names)))
    keep = keep if names else []
    add = data.draw(st.lists(_row, max_size=5))
    more = _columns(add)
    got = packed.take(keep, *more)
    want_lists = ListColumns(names, servers, mcp).take(keep, *more)
    assert list(got.names) == want_lists.names
    assert list(got.servers) == want_lists.servers
    assert list(got.mcp_tool_names) == want_lists.mcp_tool_names
    assert dict(got.positions.items()) == want_lists.positions
    again = pickle.loads(pickle.dumps(packed))
    assert (list(again.names), list(again.servers)) == (names, servers)
    assert list(again.mcp_tool_names) == mcp


def test_packed_columns_refuse_what_they_cannot_hold() -> None:
    with pytest.raises(IndexError, match="different lengths"):
        core.NameColumns(["a", "b"], [None], [None, None])
    with pytest.raises(TypeError, match="str or None"):
        core.NameColumns(["a"], [3], [None])
    packed = core.NameColumns(["a"], [None], [None])
    with pytest.raises(IndexError):
        packed.names[1]
    with pytest.raises(IndexError):
        packed.take([1], [], [], [])
    with pytest.raises(KeyError):
        packed.positions["b"]
    # A lone surrogate: the columns stay Python lists, read the same way.
    lone = name_columns(["a\ud800"], ["s"], [None])
    assert isinstance(lone, ListColumns) and lone.positions == {"a\ud800": 0}
    mixed = taken(packed, [0], ["b\udc00"], [None], ["x"])
    assert isinstance(mixed, ListColumns)
    assert (mixed.names, mixed.mcp_tool_names) == (["a", "b\udc00"], [None, "x"])


def test_packed_columns_cost_a_fraction_of_the_lists() -> None:
    n = 20_000
    names = [f"mcp__server-{i % 1500}__get_issue_{i}" for i in range(n)]
    servers = [f"server-{i % 1500}" for i in range(n)]
    mcp = [f"get_issue_{i}" for i in range(n)]
    packed = core.NameColumns(names, servers, mcp)
    listed = sum(sys.getsizeof(x) for x in (names, mcp)) + sum(map(sys.getsizeof, names + mcp))
    assert sys.getsizeof(packed) < listed / 3
    assert mcp[123] == packed.mcp_tool_names[123]


@settings(max_examples=60, deadline=None)
@given(st.lists(_row, max_size=20))
def test_the_name_table_of_packed_columns_is_the_table_of_the_lists(rows) -> None:
    names, servers, mcp = _columns(rows)
    packed = NameViews(core.NameColumns(names, servers, mcp))
    listed = NameViews(ListColumns(names, servers, mcp))
    table = NameTable(packed)
    plain, qualified, _ = built_in_python(listed)
    assert dict(table._plain.items()) == plain
    assert dict(table._qualified.items()) == qualified


def test_a_loaded_index_keeps_its_names_packed_through_updates(tmp_path) -> None:
    tools = [
        Tool(name=f"mcp__s{i % 3}__t{i}", description=f"tool {i}", server=f"s{i % 3}")
        for i in range(40)
    ]
    path = tmp_path / "index.tsift"
    ToolIndex(tools).save(path)
    loaded = ToolIndex.load(path)
    assert type(loaded._tools.columns).__name__ == "NameColumns"
    updated = loaded.with_tools(
        [Tool(name="mcp__s9__new", description="fresh", server="s9")], remove=["mcp__s1__t1"]
    )
    assert type(updated._tools.columns).__name__ == "NameColumns"
    assert "mcp__s1__t1" not in updated and updated.get("mcp__s9__new") is not None
    assert updated.search("select:new")[0].name == "mcp__s9__new"
    assert [t.name for t in updated] == [t.name for t in tools if t.name != "mcp__s1__t1"] + [
        "mcp__s9__new"
    ]
