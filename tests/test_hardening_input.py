"""Hardening of the input: catalogue files (regular files of bounded size), tools (capped names,
descriptions and schemas, no cycles), long JSON numbers, snapshots and paths. Each hostile input
ends at once, in both engines, with a typed error naming what is wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest
import toolsift
from hypothesis import given
from hypothesis import strategies as st
from toolsift import (
    CatalogError,
    SnapshotError,
    Tool,
    ToolDefinitionError,
    ToolIndex,
    limits,
)
from toolsift._snapshot import format as _snapshot
from toolsift.errors import QueryError
from toolsift.loaders import load_catalogs

from ._hardening import hardening_index as _index

# 2. Loaders read a bounded regular file: devices, FIFOs and oversize files are refused.


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_is_not_read_as_a_catalogue_or_snapshot(device) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist on this system")
    with pytest.raises(CatalogError, match="not a regular file"):
        toolsift.load_catalog(device)
    with pytest.raises(SnapshotError, match="not a regular file"):
        ToolIndex.load(device)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_without_a_writer_does_not_block(tmp_path) -> None:
    fifo = tmp_path / "tools.json"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def load() -> None:
        try:
            toolsift.load_catalog(fifo)
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion below
            done.append(exc)

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(30)  # returns at once; the bound only keeps a regression from hanging the run
    assert done and isinstance(done[0], CatalogError), done


def test_a_catalogue_over_max_bytes_is_refused_before_it_is_read(tmp_path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{"name": "a", "description": "x" * 100}]))
    with pytest.raises(CatalogError, match="over the catalogue size cap of 50"):
        toolsift.load_catalog(path, max_bytes=50)
    assert [t.name for t in toolsift.load_catalog(path, max_bytes=10_000)] == ["a"]
    snap = tmp_path / "index.tsift"
    _index("python").save(snap)
    with pytest.raises(SnapshotError, match="over the snapshot size cap"):
        ToolIndex.load(snap, max_bytes=10)
    with pytest.raises(TypeError, match="max_bytes must be an int"):
        toolsift.load_catalog(path, max_bytes="10")  # type: ignore[arg-type]


def test_the_cli_refuses_a_device_catalogue_with_a_message() -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("/dev/zero does not exist on this system")
    run = subprocess.run(
        [sys.executable, "-m", "toolsift", "search", "--catalog", "/dev/zero", "x"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode != 0
    assert "not a regular file" in run.stderr and "Traceback" not in run.stderr


# 3. Cyclic and over-deep or oversize schemas are refused at Tool creation.


def test_a_cyclic_schema_is_refused_at_tool_creation() -> None:
    d: dict = {"type": "object", "properties": {}}
    d["properties"]["self"] = d
    with pytest.raises(ToolDefinitionError, match="contains itself") as info:
        Tool(name="a", input_schema=d)
    assert info.value.field == "input_schema"
    listed: list = []
    listed.append(listed)
    with pytest.raises(ToolDefinitionError, match="contains itself"):
        Tool(name="a", input_schema={"type": "object", "enum": listed})


def test_a_schema_too_deep_or_too_large_is_refused() -> None:
    deep: dict = {"type": "object"}
    node = deep
    for _ in range(limits.MAX_SCHEMA_DEPTH + 5):
        node["items"] = {}
        node = node["items"]
    with pytest.raises(ToolDefinitionError, match="nested too deep"):
        Tool(name="a", input_schema=deep)
    wide = {"type": "object", "enum": list(range(limits.MAX_SCHEMA_NODES + 1))}
    with pytest.raises(ToolDefinitionError, match="too large"):
        Tool(name="a", input_schema=wide)
    shared = {"type": "string"}  # one dict used twice is a DAG, not a cycle
    ok = Tool(name="a", input_schema={"properties": {"x": shared, "y": shared}})
    assert ok.schema_keys == ("x", "y")


def test_names_and_descriptions_past_their_caps_are_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="over the cap") as info:
        Tool(name="a" * (limits.MAX_NAME_LENGTH + 1))
    assert info.value.field == "name" and len(str(info.value)) < 300
    with pytest.raises(ToolDefinitionError, match="over the cap") as info:
        Tool(name="a", description="x" * (limits.MAX_DESCRIPTION_LENGTH + 1))
    assert info.value.field == "description"
    Tool(name="a" * limits.MAX_NAME_LENGTH, description="x" * limits.MAX_DESCRIPTION_LENGTH)


# 4. A JSON integer past Python's digit limit is a CatalogError naming the file and line.


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_huge_json_integer_names_the_file_and_line(tmp_path, suffix) -> None:
    path = tmp_path / f"tools{suffix}"
    path.write_text('{"name": "a"}\n{"name": "b", "x": ' + "9" * 5000 + "}\n")
    with pytest.raises(CatalogError, match=r"tools\.jsonl?:2: invalid JSON: a number is too long"):
        toolsift.load_catalog(path)


def test_the_cli_reports_a_huge_integer_without_a_traceback(tmp_path) -> None:
    path = tmp_path / "tools.json"
    path.write_text('[{"name": "a", "x": ' + "9" * 5000 + "}]")
    run = subprocess.run(
        [sys.executable, "-m", "toolsift", "search", "--catalog", str(path), "x"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode != 0 and "number is too long" in run.stderr
    assert "Traceback" not in run.stderr


# 5. A snapshot whose tool record or header is nested too deep is a SnapshotError.


def _tampered(engine: str, record: bytes | None = None, head: bytes | None = None) -> bytes:
    """A valid snapshot (checksums made again by the format's writer) with its tool record or
    its header replaced."""
    index = ToolIndex([Tool(name="a", description="alpha")], engine=engine)  # type: ignore[arg-type]
    cols, meta = _snapshot.loads(index.to_bytes())
    old_head, old_record = meta.split(b"\n")
    return _snapshot.dumps(cols, b"\n".join([head or old_head, record or old_record]))


DEEP = b"[" * 100_000 + b"]" * 100_000


def test_a_deep_tool_record_in_a_snapshot_is_a_snapshot_error(engine) -> None:
    record = b'{"name":"a","description":"alpha","input_schema":{"x":' + DEEP + b"}}"
    loaded = ToolIndex.from_bytes(_tampered(engine, record=record), engine=engine)  # type: ignore[arg-type]
    with pytest.raises(SnapshotError, match="nested too deep"):
        loaded.search("alpha")
    record = (
        b'{"name":"a","description":"alpha","input_schema":{"x":' + b"[" * 100 + b"]" * 100 + b"}}"
    )
    loaded = ToolIndex.from_bytes(_tampered(engine, record=record), engine=engine)  # type: ignore[arg-type]
    with pytest.raises(SnapshotError, match="nested too deep"):
        list(loaded.tools)


def test_a_deep_snapshot_header_is_a_snapshot_error(engine) -> None:
    with pytest.raises(SnapshotError, match="nested too deep"):
        ToolIndex.from_bytes(_tampered(engine, head=DEEP), engine=engine)  # type: ignore[arg-type]


# 12. Path mistakes get a clear answer.


def test_bytes_paths_and_a_single_path_to_load_catalogs(tmp_path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{"name": "a"}]))
    assert [t.name for t in toolsift.load_catalog(os.fsencode(path))] == ["a"]
    with pytest.raises(TypeError, match="not a single path"):
        load_catalogs(str(path))
    with pytest.raises(TypeError, match="not a single path"):
        load_catalogs(path)
    with pytest.raises(TypeError, match="path must be a str, bytes or os.PathLike"):
        toolsift.load_catalog(5)  # type: ignore[arg-type]


# 14. from_bytes of a non-bytes value: the same TypeError in both engines.


@pytest.mark.parametrize("data", [5, "snapshot", None, [1, 2]])
def test_from_bytes_of_a_non_bytes_value_is_a_type_error(engine, data) -> None:
    with pytest.raises(TypeError, match="snapshot data must be bytes"):
        ToolIndex.from_bytes(data, engine=engine)  # type: ignore[arg-type]


def test_the_empty_query_stays_a_query_error(engine) -> None:
    with pytest.raises(QueryError):
        _index(engine).search("   ")


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=3),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner),
        max_leaves=60,
    ),
    st.integers(1, 6),
)
def test_the_fast_schema_check_agrees_with_the_located_one(schema, cap) -> None:
    """``schema_problem``'s first walk (no paths) decides exactly as the walk that names the
    place, under small caps so that depth and size problems are common."""
    from toolsift import limits

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(limits, "MAX_SCHEMA_DEPTH", cap)
        patch.setattr(limits, "MAX_SCHEMA_NODES", cap * 4)
        assert limits._fits(schema) == (limits._located_problem(schema) is None)
