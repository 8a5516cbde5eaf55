"""The analysis profiles' public names, ``"english"`` and ``"omp"``: the former name ``"seed"`` is
still taken wherever a profile is (the API, config files, the CLI, eval ranker names), and nothing
prints it: every place that echoes a profile says ``"omp"``."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
import toolsift
from toolsift import Catalog, DiscoverySession, FieldWeights, ProfileError, ToolIndex
from toolsift._snapshot.format import HEADER_LEN
from toolsift._text.analysis import analyze
from toolsift.config import (
    ToolSearchConfig,
    load_config,
    parse_tool_search,
    save_config,
    with_overrides,
)
from toolsift.errors import ConfigError
from toolsift.evaluate import _expand, make_ranker

from ._cli import cli

ENGINES = [pytest.param(e, id=e) for e in toolsift.available_engines()]
QUERY = "open a pull request"


def _ranking(index: ToolIndex | DiscoverySession) -> list[tuple[str, float]]:
    found = index.search(QUERY, 8)
    matches = found.matches if isinstance(found, toolsift.DiscoveryResult) else found
    return [(m.name, m.score) for m in matches]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_former_name_builds_the_omp_index_and_is_never_echoed(engine: str) -> None:
    tools = toolsift.default_tools()
    old, new = (ToolIndex(tools, engine=engine, profile=p) for p in ("seed", "omp"))
    assert old.profile == new.profile == "omp"
    assert repr(old) == repr(new) and "seed" not in repr(old)
    assert _ranking(old) == _ranking(new)
    assert old.field_weights == FieldWeights.for_profile("seed") == FieldWeights()
    records = [t.to_dict() for t in tools]
    assert ToolIndex.from_records(records, engine=engine, profile="seed").profile == "omp"
    hybrid = pytest.importorskip("toolsift.hybrid")
    assert hybrid.HybridIndex(old).profile == "omp"


@pytest.mark.parametrize("engine", ENGINES)
def test_snapshots_keep_their_bytes_and_load_as_omp(engine: str) -> None:
    # The snapshot stores the profile as a number (0: omp, the tag it always had), not a name:
    # files written under the former name load unchanged, and new files are the same bytes.
    tools = toolsift.default_tools()
    data = ToolIndex(tools, engine=engine, profile="seed").to_bytes()
    assert data == ToolIndex(tools, engine=engine, profile="omp").to_bytes()
    assert struct.unpack_from("<I", data, HEADER_LEN + 24) == (0,)
    loaded = ToolIndex.from_bytes(data, engine=engine)
    assert loaded.profile == "omp" and _ranking(loaded) == _ranking(ToolIndex(tools, profile="omp"))


def test_the_engines_and_analysis_take_the_former_name() -> None:
    assert analyze("a a b", profile="seed", query=True) == ["a", "a", "b"]
    if "rust" in toolsift.available_engines():
        from toolsift import _core

        assert _core.analyze("a a b", profile="seed", query=True) == ["a", "a", "b"]
        index = _core.Index(["a"], [[(0, "read file")]], [1.0], profile="seed")
        assert index.profile == "omp"
        assert _core.Index(["a"], [[(0, "read file")]], [1.0]).profile == "omp"  # the default


@pytest.mark.parametrize("engine", ENGINES)
def test_an_unknown_profile_lists_only_the_names(engine: str) -> None:
    for build in (
        lambda: ToolIndex([], engine=engine, profile="Seed"),  # type: ignore[arg-type]
        lambda: Catalog(engine=engine, profile="plain"),  # type: ignore[arg-type]
    ):
        with pytest.raises(ProfileError) as info:
            build()
        assert '"omp"' in str(info.value) and "seed" not in str(info.value)


def test_sessions_and_catalogues_take_the_former_name() -> None:
    tools = toolsift.default_tools()
    assert Catalog(tools, profile="seed").index.profile == "omp"
    expected = _ranking(DiscoverySession(tools, mode="all", profile="omp"))
    assert _ranking(DiscoverySession(tools, mode="all", profile="seed")) == expected
    catalog = Catalog(tools, profile="omp")  # a config naming the profile the former way agrees
    session = catalog.session(config=ToolSearchConfig(profile="seed"), mode="all")
    assert _ranking(session) == expected


def test_config_files_take_the_former_name_and_save_the_name(tmp_path: Path) -> None:
    toml = tmp_path / "toolsift.toml"
    toml.write_text('[tool_search]\nprofile = "seed"\nmax_results = 4\n', encoding="utf-8")
    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps({"tool_search": {"profile": "seed"}}), encoding="utf-8")
    for path in (toml, mcp):
        config = load_config(path)
        assert config.profile == "omp" and "seed" not in repr(config)
        saved = tmp_path / f"saved{path.suffix}"
        save_config(config, saved)
        text = saved.read_text(encoding="utf-8")
        assert "omp" in text and "seed" not in text
        assert load_config(saved) == config
    assert ToolSearchConfig(profile="seed").profile == "omp"
    assert with_overrides(ToolSearchConfig(), profile="seed").to_dict()["profile"] == "omp"
    with pytest.raises(ConfigError) as info:
        parse_tool_search({"profile": "plain"})
    assert "english, omp" in str(info.value) and "seed" not in str(info.value)


def test_the_cli_takes_the_former_name_and_shows_only_the_name(capsys, tmp_path: Path) -> None:
    argv = ("search", QUERY, "--format", "json", "--limit", "3")
    code, err, old = cli(capsys, *argv, "--profile", "seed")
    assert code == 0, err
    assert (code, old) == cli(capsys, *argv, "--profile", "omp")[::2]
    assert "seed" not in old
    for command in (("--help",), ("search", "--help"), ("stats", "--help"), ("eval", "--help")):
        code, err, out = cli(capsys, *command)
        assert code == 0, err
        assert "seed" not in out.lower(), command
    assert "english,omp" in cli(capsys, "search", "--help")[2]
    code, err, out = cli(capsys, *argv, "--profile", "plain")
    assert code == 2 and "invalid choice" in err and "omp" in err and "seed" not in err


def test_eval_ranker_names_take_the_former_name_and_report_the_name() -> None:
    assert _expand("toolsift@seed,toolsift-plain@seed,toolsift+pairs=0.2@seed,bm25s") == [
        "toolsift@omp",
        "toolsift-plain@omp",
        "toolsift+pairs=0.2@omp",
        "bm25s",
    ]
    tools = toolsift.default_tools()
    old, new = make_ranker("toolsift-plain@seed", tools), make_ranker("toolsift-plain@omp", tools)
    assert old(QUERY, 5) == new(QUERY, 5)


def test_the_dashboard_offers_and_applies_only_the_name(tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    from starlette.applications import Starlette
    from starlette.testclient import TestClient
    from toolsift.dashboard.api import Guard, routes
    from toolsift.dashboard.backend import Dashboard

    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {}, "tool_search": {"profile": "seed"}}))
    board = Dashboard.for_tools(toolsift.default_tools(), load_config(path), config_path=str(path))
    client = TestClient(Starlette(routes=routes(board, Guard())), base_url="http://127.0.0.1:8765")
    settings = client.get("/api/settings")
    assert settings.json()["choices"]["profile"] == ["english", "omp"]
    assert settings.json()["settings"]["profile"] == "omp" and "seed" not in settings.text
    client.put("/api/settings", json={"tool_search": {"profile": "english"}})
    applied = client.put("/api/settings", json={"tool_search": {"profile": "seed"}, "save": True})
    assert applied.status_code == 200, applied.text
    assert applied.json()["settings"]["profile"] == "omp" and "seed" not in applied.text
    assert json.loads(path.read_text())["tool_search"]["profile"] == "omp"
