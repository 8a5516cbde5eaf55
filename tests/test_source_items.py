"""The compressed source of an index built from a catalogue's bytes (``rust/build/source.rs``,
``toolsift._core.SourceItems``): every tool read back from it equals the tool the loaders
load, across the compressed blocks' boundaries, in any order of reading."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import ToolIndex
from toolsift._index.records import SourceTools
from toolsift.loaders import load_catalog

#: Text that JSON writes raw or escaped: accents, CJK, emoji, quotes, backslashes, controls.
_UNICODE = ["é", "日本語", "😀", "ß", '"', "\\", "\t", "\u2028", "Ωmega", "\u00a0"]


def _synthetic(n: int, seed: int) -> list[dict[str, object]]:
    """``n`` tools of varied size, with Unicode in every text field."""
    rng = random.Random(seed)
    tools = []
    for i in range(n):
        words = [
            rng.choice(_UNICODE + ["read", "file", "event", "mail"])
            for _ in range(rng.randrange(0, 60))
        ]
        tools.append(
            {
                "name": f"tool_{i}_{rng.choice(['a', 'é', '日'])}",
                "description": " ".join(words),
                "server": f"srv-{i % 7}-{rng.choice(_UNICODE[:4])}",
                "input_schema": {
                    "type": "object",
                    "properties": {
                        f"p{j}": {"type": "string", "description": rng.choice(_UNICODE) * j}
                        for j in range(rng.randrange(0, 5))
                    },
                },
            }
        )
    return tools


def _assert_every_tool(path: Path, order_seed: int = 0) -> SourceTools:
    """Reads every tool of ``from_records(path)`` in a shuffled order and compares it with the
    tool ``load_catalog`` loads."""
    index = ToolIndex.from_records(path)
    want = load_catalog(path)
    tools = index._tools
    assert isinstance(tools, SourceTools)
    assert len(tools) == len(want)
    order = list(range(len(want)))
    random.Random(order_seed).shuffle(order)
    for i in order:
        assert tools[i] == want[i], i
    return tools


@pytest.mark.parametrize("n", [1, 63, 64, 65, 128, 1000])  # (frames of 64 tools)
@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_every_tool_of_a_unicode_catalogue_reads_back(
    tmp_path: Path, n: int, ensure_ascii: bool
) -> None:
    path = tmp_path / "tools.jsonl"
    lines = [json.dumps(t, ensure_ascii=ensure_ascii) for t in _synthetic(n, n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tools = _assert_every_tool(path, order_seed=n)
    source = tools._source
    assert source is not None and len(source) == n
    for i in (0, n // 2, n - 1):  # each item is its line's bytes, exactly
        assert source.item(i) == lines[i].encode("utf-8")
    with pytest.raises(IndexError, match="out of range"):
        source.item(n)
    assert source.nbytes < path.stat().st_size


def test_a_json_array_catalogue_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(_synthetic(300, 7), indent=2, ensure_ascii=False), "utf-8")
    _assert_every_tool(path, order_seed=3)


def test_every_tool_of_mcp_mixed_reads_back(shared_data: Path) -> None:
    tools = _assert_every_tool(shared_data / "mcp_mixed.tools.jsonl")
    assert tools._source is not None
    assert tools._source.nbytes < (shared_data / "mcp_mixed.tools.jsonl").stat().st_size / 4


#: Any text JSON in UTF-8 can hold (no lone surrogates: those are the loaders' error).
_TEXT = st.characters(exclude_categories=("Cs",))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(_TEXT, max_size=40), st.text(_TEXT, max_size=200)),
        min_size=2,  # (one object alone is a JSON document, read by the loaders)
        max_size=150,
        unique_by=lambda t: t[0],
    )
)
def test_generated_catalogues_read_back(tools: list[tuple[str, str]]) -> None:
    items = [
        {
            "name": f"t{i}",
            "description": d,
            "input_schema": {"properties": {"q": {"description": k}}},
        }
        for i, (k, d) in enumerate(tools)
    ]
    data = "\n".join(json.dumps(item, ensure_ascii=False) for item in items).encode("utf-8")
    index = ToolIndex.from_records(data)
    assert isinstance(index._tools, SourceTools)
    want = ToolIndex.from_records([json.loads(line) for line in data.decode("utf-8").split("\n")])
    for i in reversed(range(len(items))):
        assert index._tools[i] == want._tools[i]
