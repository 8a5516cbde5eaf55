"""Checks on the built-in default catalogue (python/toolsift/data/default_catalog.json).

Only the standard library is used to read the catalogue, so these tests run without the
compiled extension.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import shared_dir

REPO_ROOT = Path(__file__).resolve().parents[1]
CATALOG_PATH = REPO_ROOT / "python" / "toolsift" / "data" / "default_catalog.json"

SHINGLE = 8  # words in a run that counts as shared text


@pytest.fixture(scope="module")
def catalog() -> dict[str, Any]:
    with CATALOG_PATH.open(encoding="utf-8") as fh:
        return json.load(fh)


def _tools(catalog: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(srv["name"], tool) for srv in catalog["servers"] for tool in srv["tools"]]


def _schema_descriptions(node: Any) -> Iterator[str]:
    """Every ``description`` string nested anywhere in a JSON schema."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield value
            else:
                yield from _schema_descriptions(value)
    elif isinstance(node, list):
        for item in node:
            yield from _schema_descriptions(item)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _shingles(text: str) -> set[tuple[str, ...]]:
    w = _words(text)
    return {tuple(w[k : k + SHINGLE]) for k in range(len(w) - SHINGLE + 1)}


def _norm(text: str) -> str:
    return " ".join(_words(text))


def test_top_level_shape(catalog: dict[str, Any]) -> None:
    assert catalog["version"] == 1
    assert isinstance(catalog["description"], str) and catalog["description"].strip()
    assert isinstance(catalog["servers"], list)
    for srv in catalog["servers"]:
        assert set(srv) == {"name", "summary", "tools"}, srv.get("name")
        assert isinstance(srv["name"], str) and srv["name"].strip()
        assert isinstance(srv["summary"], str) and srv["summary"].strip()
        assert isinstance(srv["tools"], list) and srv["tools"], srv["name"]


def test_sizes(catalog: dict[str, Any]) -> None:
    assert len(catalog["servers"]) >= 12
    assert len(_tools(catalog)) >= 150


def test_server_names_unique(catalog: dict[str, Any]) -> None:
    names = [srv["name"] for srv in catalog["servers"]]
    assert len(names) == len(set(names))


def test_tool_names_unique_per_server(catalog: dict[str, Any]) -> None:
    for srv in catalog["servers"]:
        names = [tool["name"] for tool in srv["tools"]]
        dupes = sorted({n for n in names if names.count(n) > 1})
        assert not dupes, f"{srv['name']}: duplicate tool names {dupes}"


def test_some_names_collide_across_servers(catalog: dict[str, Any]) -> None:
    # Deliberate: exact-name lookup has to cope with the same name on several servers.
    seen: dict[str, set[str]] = {}
    for server, tool in _tools(catalog):
        seen.setdefault(tool["name"], set()).add(server)
    assert sum(1 for servers in seen.values() if len(servers) > 1) >= 3


def test_tool_objects(catalog: dict[str, Any]) -> None:
    for server, tool in _tools(catalog):
        where = f"{server}/{tool.get('name')}"
        assert set(tool) <= {"name", "title", "description", "inputSchema"}, where
        assert isinstance(tool["name"], str) and tool["name"].strip(), where
        assert re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", tool["name"]), where
        assert isinstance(tool["description"], str) and tool["description"].strip(), where
        if "title" in tool:
            assert isinstance(tool["title"], str) and tool["title"].strip(), where
        schema = tool["inputSchema"]
        assert isinstance(schema, dict), where
        assert schema.get("type") == "object", where
        props = schema.get("properties")
        assert isinstance(props, dict), where
        for pname, pschema in props.items():
            assert isinstance(pschema, dict), f"{where}.{pname}"
            assert "type" in pschema, f"{where}.{pname}"
            desc = pschema.get("description")
            assert isinstance(desc, str) and desc.strip(), f"{where}.{pname}"
        required = schema.get("required", [])
        assert isinstance(required, list), where
        assert len(required) == len(set(required)), where
        for req in required:
            assert req in props, f"{where}: required {req!r} is not a property"


def test_enums_are_well_formed(catalog: dict[str, Any]) -> None:
    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            if "enum" in node:
                values = node["enum"]
                assert isinstance(values, list) and values, where
                assert len(values) == len(set(values)), where
                if "default" in node:
                    assert node["default"] in values, where
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for item in node:
                walk(item, where)

    for server, tool in _tools(catalog):
        walk(tool["inputSchema"], f"{server}/{tool['name']}")


def test_descriptions_are_not_duplicated_within_catalog(catalog: dict[str, Any]) -> None:
    descs = [_norm(tool["description"]) for _, tool in _tools(catalog)]
    assert len(descs) == len(set(descs))


# --- originality: nothing taken from the third-party corpora in shared/data -------------


def _shared_dir() -> Path | None:
    base = shared_dir()
    return None if base is None else base / "data"


def _shared_descriptions(folder: Path) -> Iterator[str]:
    for path in sorted(folder.glob("*.tools.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if not line:
                    continue
                rec = json.loads(line)
                if isinstance(rec.get("description"), str):
                    yield rec["description"]
                yield from _schema_descriptions(rec.get("input_schema"))


@pytest.mark.shared_data
def test_no_text_copied_from_shared_data(catalog: dict[str, Any]) -> None:
    folder = _shared_dir()
    if folder is None:
        pytest.skip(
            "shared data folder not found (looked at $TOOLSIFT_SHARED_DIR and "
            "../shared/data next to the repository); originality check not run"
        )
    theirs_exact: set[str] = set()
    theirs_runs: set[tuple[str, ...]] = set()
    for text in _shared_descriptions(folder):
        theirs_exact.add(_norm(text))
        theirs_runs |= _shingles(text)
    assert theirs_exact, f"no tool descriptions found under {folder}"

    ours: list[tuple[str, str]] = []
    for server, tool in _tools(catalog):
        where = f"{server}/{tool['name']}"
        ours.append((where, tool["description"]))
        ours.extend((where, d) for d in _schema_descriptions(tool["inputSchema"]))

    problems = []
    for where, text in ours:
        norm = _norm(text)
        # Very short parameter blurbs ("Page size.") may coincide by chance; only
        # descriptions of four words or more count as copied when identical.
        if len(norm.split()) >= 4 and norm in theirs_exact:
            problems.append(f"{where}: identical description {text!r}")
        shared = _shingles(text) & theirs_runs
        if shared:
            run = " ".join(sorted(shared)[0])
            problems.append(f"{where}: shares the {SHINGLE}-word run {run!r}")
    assert not problems, "\n".join(problems)


def test_catalog_is_reachable_as_package_data() -> None:
    import importlib.resources

    try:
        pkg = importlib.resources.files("toolsift.data")
    except ImportError as exc:  # e.g. toolsift/__init__ needs the compiled extension
        pytest.skip(f"toolsift.data is not importable here: {exc}")
    text = pkg.joinpath("default_catalog.json").read_text(encoding="utf-8")
    assert json.loads(text) == json.loads(CATALOG_PATH.read_text(encoding="utf-8"))
