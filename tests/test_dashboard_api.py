"""The dashboard's JSON API over a catalogue (Starlette's TestClient): the catalogue, trial
searches with explanations, settings validated by the config parser, applied live and saved,
and the security checks (token, Host, Origin, non-local bind)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP (Starlette, uvicorn) needs 3.11+
    pytest.skip("the dashboard needs the MCP extra (Python 3.11+)", allow_module_level=True)

from starlette.applications import Starlette  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from toolsift import ToolIndex, default_tools  # noqa: E402
from toolsift.config import ToolSearchConfig, load_config, load_gateway_config  # noqa: E402
from toolsift.dashboard.api import Guard, check_bind, routes  # noqa: E402
from toolsift.dashboard.backend import Dashboard  # noqa: E402
from toolsift.errors import ConfigError  # noqa: E402

from ._cli import cli  # noqa: E402

PR = "mcp__github__create_pull_request"


def _client(board: Dashboard, guard: Guard | None = None, host: str = "127.0.0.1") -> TestClient:
    app = Starlette(routes=routes(board, guard or Guard()))
    return TestClient(app, base_url=f"http://{host}:8765")


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    servers = {"time": {"command": "mcp-server-time"}}
    path.write_text(json.dumps({"mcpServers": servers, "tool_search": {"max_results": 5}}))
    return path


@pytest.fixture
def board(config: Path) -> Dashboard:
    return Dashboard.for_tools(default_tools(), load_config(config), config_path=str(config))


def test_page_and_static_files_are_served(board: Dashboard) -> None:
    client = _client(board)
    page = client.get("/dashboard/")
    assert page.status_code == 200 and "toolsift" in page.text
    assert '<script src="/dashboard/static/app.js">' in page.text
    script = client.get("/dashboard/static/app.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert client.get("/dashboard/static/style.css").status_code == 200
    assert client.get("/dashboard/static/..%2Fapi.py").status_code == 404
    assert client.get("/", follow_redirects=False).headers["location"] == "/dashboard/"


def test_catalog_lists_servers_tools_and_tokens(board: Dashboard) -> None:
    body = _client(board).get("/api/catalog").json()
    assert body["total_tools"] == len(default_tools())
    github = next(s for s in body["servers"] if s["name"] == "github")
    assert github["state"] == "offline" and github["tools"] > 0
    tools = [t for t in body["tools"] if t["server"] == "github"]
    assert github["schema_tokens"] == sum(t["schema_tokens"] for t in tools) > 0
    assert body["total_schema_tokens"] == sum(s["schema_tokens"] for s in body["servers"])
    one = _client(board).get("/api/tool", params={"name": PR}).json()
    assert one["definition"]["name"] == PR and "inputSchema" in one["definition"]
    missing = _client(board).get("/api/tool", params={"name": "nope"})
    assert missing.status_code == 404 and missing.json()["field"] == "name"


def test_search_ranks_explains_and_renders_the_contract(board: Dashboard) -> None:
    body = _client(board).get("/api/search", params={"q": "open a pull request"}).json()
    assert body["kind"] == "keyword" and body["limit"] == 5  # the config's max_results
    first = body["matches"][0]
    assert first["name"] == PR and first["reason"] in ("bm25", "exact_name")
    assert first["normalized_score"] == 1.0
    assert all(0 < m["normalized_score"] <= 1 for m in body["matches"])
    # The explanation is ToolIndex.explain's: its contributions add up to the match's score.
    why = first["explanation"]
    assert why["score"] == pytest.approx(first["score"], abs=1e-9)
    assert sum(t["contribution"] for t in why["terms"]) == pytest.approx(first["score"])
    assert {"name", "description"} & set(why["terms"][0]["fields"])
    index = ToolIndex(default_tools())
    assert first["score"] == pytest.approx(index.search("open a pull request")[0].score)
    # The JSON the model gets: search_tool_bm25's content text.
    content = json.loads(body["response"])
    assert content["query"] == "open a pull request"
    assert content["activated_tools"][0] == PR


def test_select_reports_missing_names_with_suggestions(board: Dashboard) -> None:
    params = {"q": f"select:{PR},create_pul_request", "contract": "toolsearch"}
    body = _client(board).get("/api/search", params=params).json()
    assert body["kind"] == "select"
    assert [m["name"] for m in body["matches"]] == [PR]
    assert body["matches"][0]["reason"] == "select"
    assert body["matches"][0]["normalized_score"] is None
    assert body["missing"] == ["create_pul_request"]
    assert "create_pull_request" in body["suggestions"]["create_pul_request"]
    assert body["response"]["missing"] == ["create_pul_request"]


def test_search_errors_name_their_field(board: Dashboard) -> None:
    client = _client(board)
    empty = client.get("/api/search", params={"q": "  "})
    assert empty.status_code == 400 and empty.json()["field"] == "q"
    bad_limit = client.get("/api/search", params={"q": "x", "limit": "0"})
    assert bad_limit.status_code == 400 and bad_limit.json()["field"] == "limit"
    contract = client.get("/api/search", params={"q": "x", "contract": "nope"})
    assert contract.status_code == 400 and contract.json()["field"] == "contract"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"max_results": 0}, "max_results"),
        ({"max_results": 30}, "max_results"),  # above max_limit (25)
        ({"threshold": -1}, "threshold"),
        ({"mode": "sometimes"}, "mode"),
        ({"profile": "klingon"}, "profile"),
        ({"rate_limit": "lots"}, "rate_limit"),
        ({"always_available": [""]}, "always_available"),
        ({"bogus": 1}, "bogus"),
        ({"semantic": "maybe"}, "semantic"),
        ({"semantic": 1}, "semantic"),
        ({"min_confidence": 1.5}, "min_confidence"),
        ({"min_confidence": -0.1}, "min_confidence"),
        ({"min_confidence": "high"}, "min_confidence"),
    ],
)
def test_invalid_settings_are_refused_nothing_applied_nothing_saved(
    board: Dashboard, config: Path, changes: dict, field: str
) -> None:
    before = config.read_text()
    response = _client(board).put("/api/settings", json={"tool_search": changes, "save": True})
    assert response.status_code == 422
    assert response.json()["field"] == field
    assert f"tool_search.{field}" in response.json()["error"]
    assert config.read_text() == before and not Path(f"{config}.bak").exists()
    assert board.settings == load_config(config)


def test_settings_apply_live_and_save_atomically(
    board: Dashboard,
    config: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # import-linter (tests/test_architecture.py, same worker) configures logging with
    # disable_existing_loggers: make sure the dashboard's logger still reports.
    monkeypatch.setattr(logging.getLogger("toolsift.dashboard"), "disabled", False)
    client = _client(board)
    before = config.read_text()
    assert client.get("/api/settings").json()["settings"]["max_results"] == 5
    changes = {"max_results": 2, "always_available": ["github"], "gate": False}
    with caplog.at_level(logging.INFO, logger="toolsift.dashboard"):
        applied = client.put("/api/settings", json={"tool_search": changes})
    assert applied.status_code == 200
    assert applied.json()["settings"]["max_results"] == 2
    assert config.read_text() == before  # applied, not saved
    assert "max_results: 5 -> 2" in caplog.text and "testclient" in caplog.text
    # New searches see the change: 2 results, and github's tools are no longer hidden.
    body = client.get("/api/search", params={"q": "open a pull request"}).json()
    assert len(body["matches"]) == 2 and PR in body["already_active"]
    saved = client.put("/api/settings", json={"tool_search": {"threshold": 1.5}, "save": True})
    assert saved.status_code == 200
    on_disk = load_gateway_config(config)  # the mcpServers block is kept
    assert [s.name for s in on_disk.servers] == ["time"]
    assert on_disk.tool_search.threshold == 1.5 and on_disk.tool_search.max_results == 2
    assert on_disk.tool_search.always_available == ("github",)
    assert Path(f"{config}.bak").read_text() == before


def test_semantic_and_min_confidence_apply_live_and_save(board: Dashboard, config: Path) -> None:
    """Semantic ranking switched on from the page with a confidence bar no ranked search
    clears: the next search finds nothing and says so, ``select:`` still answers; the bar set
    back to the default (``null``) finds matches again; the file holds what was saved."""
    client = _client(board)
    view = client.get("/api/settings").json()
    assert {"semantic", "min_confidence"} <= set(view["editable"])
    assert view["choices"]["semantic"] == ["auto", True, False]
    assert view["semantic_on"] is False  # the suite runs with TOOLSIFT_SEMANTIC=off
    changes = {"semantic": True, "min_confidence": 1.0}
    on = client.put("/api/settings", json={"tool_search": changes, "save": True})
    assert on.status_code == 200, on.json()
    assert on.json()["semantic_on"] is True
    assert on.json()["settings"]["semantic"] is True
    assert on.json()["settings"]["min_confidence"] == 1.0
    nothing = client.get("/api/search", params={"q": "open a pull request"}).json()
    assert nothing["matches"] == [] and json.loads(nothing["response"])["no_match"] is True
    named = client.get("/api/search", params={"q": f"select:{PR}"}).json()
    assert [m["name"] for m in named["matches"]] == [PR]
    saved = load_config(config)
    assert saved.semantic is True and saved.min_confidence == 1.0
    default = client.put("/api/settings", json={"tool_search": {"min_confidence": None}})
    assert "min_confidence" not in default.json()["settings"]
    found = client.get("/api/search", params={"q": "open a pull request"}).json()
    assert found["matches"][0]["name"] == PR
    off = client.put("/api/settings", json={"tool_search": {"semantic": "off"}, "save": True})
    assert off.json()["settings"]["semantic"] is False and off.json()["semantic_on"] is False
    saved = load_config(config)
    assert saved.semantic is False and saved.min_confidence is None


def test_rate_limit_off_and_saving_without_a_config(board: Dashboard) -> None:
    client = _client(board)
    on = client.put("/api/settings", json={"tool_search": {"rate_limit": "30/min"}})
    assert on.json()["settings"]["rate_limit"] == "30/min"
    off = client.put("/api/settings", json={"tool_search": {"rate_limit": "off"}})
    assert "rate_limit" not in off.json()["settings"]
    loose = Dashboard.for_tools(default_tools(), ToolSearchConfig())
    refused = _client(loose).put("/api/settings", json={"tool_search": {}, "save": True})
    assert refused.status_code == 422 and "no config file" in refused.json()["error"]
    assert _client(loose).get("/api/settings").json()["saveable"] is False


def test_discovery_off_is_reported_by_a_search(board: Dashboard) -> None:
    client = _client(board)
    client.put("/api/settings", json={"tool_search": {"enabled": False}})
    off = client.get("/api/search", params={"q": "weather"})
    assert off.status_code == 400 and "disabled" in off.json()["error"]


def test_token_is_checked_on_every_api_call(board: Dashboard) -> None:
    client = _client(board, Guard("s3cret", local=False), host="dash.example")
    for path in ("/api/catalog", "/api/settings", "/api/sessions", "/api/search?q=x"):
        assert client.get(path).status_code == 401
        assert client.get(path, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.put("/api/settings", json={"tool_search": {"max_results": 1}}).status_code == 401
    assert board.settings.max_results == 5
    ok = client.get("/api/catalog", headers={"Authorization": "Bearer s3cret"})
    assert ok.status_code == 200
    assert client.get("/dashboard/").status_code == 200  # the page holds no data


def test_foreign_host_and_origin_are_refused(board: Dashboard) -> None:
    rebound = _client(board, host="evil.example")  # DNS rebinding onto a local bind
    assert rebound.get("/api/catalog").status_code == 421
    client = _client(board)
    foreign = {"Origin": "http://evil.example"}
    put = client.put("/api/settings", json={"tool_search": {"gate": False}}, headers=foreign)
    assert put.status_code == 403 and board.settings.gate is True
    same = {"Origin": "http://127.0.0.1:8765"}
    assert client.get("/api/catalog", headers=same).status_code == 200


def test_an_origin_must_match_scheme_host_and_port(board: Dashboard) -> None:
    """An extension page or an https origin on the same host:port is another origin."""
    client = _client(board)
    for origin in (
        "https://127.0.0.1:8765",
        "chrome-extension://127.0.0.1:8765",
        "http://127.0.0.1:8766",
        "null",
    ):
        put = client.put(
            "/api/settings", json={"tool_search": {"gate": False}}, headers={"Origin": origin}
        )
        assert put.status_code == 403, origin
    assert board.settings.gate is True


def test_a_text_plain_body_is_refused(board: Dashboard) -> None:
    """A cross-site form can send text/plain without a preflight: only JSON bodies count."""
    client = _client(board)
    body = json.dumps({"tool_search": {"gate": False}})
    put = client.put("/api/settings", content=body, headers={"content-type": "text/plain"})
    assert put.status_code == 415 and board.settings.gate is True


def test_the_page_cannot_be_framed(board: Dashboard) -> None:
    page = _client(board).get("/dashboard/")
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["content-security-policy"] == "frame-ancestors 'none'"


def test_the_mcp_token_is_never_shown_nor_changed_by_the_dashboard(tmp_path: Path) -> None:
    path = tmp_path / "toolsift.json"
    path.write_text(json.dumps({"tool_search": {"token": "s3cret", "max_results": 5}}))
    board = Dashboard.for_tools(default_tools(), load_config(path), config_path=str(path))
    client = _client(board)
    assert "s3cret" not in client.get("/api/settings").text
    refused = client.put("/api/settings", json={"tool_search": {"token": "mine"}})
    assert refused.status_code == 422 and refused.json()["field"] == "token"
    saved = client.put("/api/settings", json={"tool_search": {"max_results": 3}, "save": True})
    assert saved.status_code == 200 and "s3cret" not in saved.text
    assert board.settings.token == "s3cret"
    on_disk = json.loads(path.read_text())["tool_search"]
    assert on_disk["token"] == "s3cret" and on_disk["max_results"] == 3


def test_non_local_bind_needs_a_token(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    with pytest.raises(ConfigError, match="TOOLSIFT_DASHBOARD_TOKEN"):
        check_bind("0.0.0.0", None)
    check_bind("0.0.0.0", "t")
    check_bind("localhost", None)
    code, err, _ = cli(capsys, "dashboard", "--host", "0.0.0.0")
    assert code == 2 and "needs a token" in err
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"t": {"command": "mcp-server-time"}}}))
    code, err, _ = cli(capsys, "serve", str(config), "--dashboard", "--host", "10.1.2.3")
    assert code == 2 and "--dashboard-token" in err


@pytest.mark.parametrize(
    "name", ["toolsift.dashboard", "toolsift.dashboard.backend", "toolsift.dashboard.api"]
)
def test_docstring_examples(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_reconfigure_keeps_activations_and_sessions_report_searches() -> None:
    from toolsift.gateway.sessions import RECENT_SEARCHES, SessionRegistry

    board = Dashboard.for_tools(default_tools(), ToolSearchConfig())
    registry: SessionRegistry = board.registry
    state = registry.state("client-1")
    for i in range(RECENT_SEARCHES + 3):
        result = state.session.search("open a pull request" if i == 0 else f"weather {i}", 1)
        state.record(result.query, result)
    assert PR in state.session.selected
    old = state.session
    registry.reconfigure(ToolSearchConfig(max_results=3, gate=False))
    fresh = registry.state("client-1").session
    assert fresh is not old
    assert fresh.default_limit == 3 and PR in fresh.selected  # made again, activations kept
    (view,) = board.sessions()
    assert view["key"] == "client-1" and PR in view["activated"]
    assert len(view["searches"]) == RECENT_SEARCHES  # bounded, latest first
    assert view["searches"][0]["query"] == f"weather {RECENT_SEARCHES + 2}"
    tokens = view["tokens"]
    assert tokens["all_schemas"] == fresh.schema_tokens() > tokens["sent"] > 0
    assert tokens["saved"] == tokens["all_schemas"] - tokens["sent"]


def test_plain_function_tools_without_a_server(tmp_path: Path) -> None:
    from toolsift import Tool

    tools = [Tool(name="read_file", description="Read a file"), Tool(name="deploy")]
    board = Dashboard.for_tools(tools, ToolSearchConfig(), source="tools.json")
    catalog = board.catalog()
    assert [s["name"] for s in catalog["servers"]] == ["(built-in)"]
    assert board.search("read a file")["matches"][0]["name"] == "read_file"


def test_gateway_settings_apply_live_but_style_needs_a_restart(config: Path) -> None:
    from toolsift.gateway.server import Gateway

    gateway = Gateway(load_gateway_config(config))
    client = _client(Dashboard.from_gateway(gateway))
    body = client.get("/api/catalog").json()
    assert body["live"] is True
    assert [(s["name"], s["state"], s["tools"]) for s in body["servers"]] == [
        ("time", "connecting", 0)  # not started: no connection yet
    ]
    refused = client.put("/api/settings", json={"tool_search": {"style": "search-and-call"}})
    assert refused.status_code == 422 and refused.json()["field"] == "style"
    assert "restart" in refused.json()["error"] and gateway.settings.style == "activate"
    state = gateway.registry.state("client-1")
    applied = client.put("/api/settings", json={"tool_search": {"gate": False, "call_timeout": 5}})
    assert applied.status_code == 200
    assert gateway.settings.gate is False and gateway.config.tool_search.gate is False
    assert gateway.downstreams["time"].call_timeout == 5.0
    assert state.session.default_limit == 5 and gateway.may_call(state, "anything")


def test_dashboard_command_reads_catalog_files_and_settings(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import toolsift.dashboard.command as command

    seen: dict = {}

    class _Server:
        async def serve(self) -> None:
            seen["served"] = True

    def fake_server(board: Dashboard, guard: Guard, host: str, port: int) -> _Server:
        seen.update(board=board, guard=guard, address=(host, port))
        return _Server()

    monkeypatch.setattr(command, "_server", fake_server)
    monkeypatch.setattr(command, "_logging", lambda: None)  # no handler left on a closed stream
    tools = tmp_path / "tools.jsonl"
    tools.write_text(
        json.dumps({"name": "mcp__notes__add", "server": "notes", "description": "Add a note"})
        + "\n"
    )
    settings = tmp_path / "toolsift.toml"  # does not exist yet: created on the first save
    code, err, _ = cli(
        capsys, "dashboard", str(settings), "--catalog", str(tools), "--port", "9001"
    )
    assert code == 0 and seen["served"] and seen["address"] == ("127.0.0.1", 9001)
    assert "http://127.0.0.1:9001/dashboard/" in err
    board = seen["board"]
    assert [t["name"] for t in board.catalog()["tools"]] == ["mcp__notes__add"]
    assert board.config_path == str(settings) and seen["guard"].token is None
    code, _, _ = cli(capsys, "dashboard", "--dashboard-token", "t", "--host", "0.0.0.0")
    assert code == 0 and seen["guard"].token == "t" and seen["guard"].local is False
    assert seen["board"].catalog()["total_tools"] == len(default_tools())  # built-in


def test_client_sessions_are_views_of_one_catalogue_changed_once() -> None:
    from toolsift import Tool
    from toolsift.gateway.sessions import SessionRegistry

    registry = SessionRegistry(ToolSearchConfig(always_available=()))
    registry.set_server("files", [Tool(name="grep", description="Search files")])
    first, second = registry.state("a").session, registry.state("b").session
    assert first.search("search files", 1).activated == ("grep",)
    registry.set_server("files", [Tool(name="find", description="Find files")])  # replaced
    generation = registry.shared.generation
    registry.set_server("git", [Tool(name="mcp__git__log", server="git", description="Git log")])
    assert registry.shared.generation == generation + 1  # one change, whatever the clients
    assert {t.name for t in second.tools} == {"find", "mcp__git__log"}
    assert first.selected == ()
    registry.set_server("files", [Tool(name="grep", description="Search files")])  # back
    assert first.selected == ("grep",) and second.selected == ()  # activation outlasts it
    registry.reconfigure(ToolSearchConfig(always_available=(), profile="omp"))
    assert registry.shared.index.profile == "omp"
    again = registry.state("a").session
    assert again is not first and again.search("git log", 1).activated == ("mcp__git__log",)
    assert again.selected == ("grep", "mcp__git__log")
    assert registry.find("grep") is not None and registry.find("find") is None


def test_without_the_mcp_extra_the_commands_say_what_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain `pip install toolsift` has no Starlette: an error naming the extra, no traceback."""
    for name in [m for m in sys.modules if m.startswith(("starlette", "toolsift.dashboard."))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "starlette", None)  # `import starlette` now fails
    code, err, _ = cli(capsys, "dashboard")
    assert code == 2 and "pip install 'toolsift[mcp]'" in err and "Traceback" not in err


def test_a_deeply_nested_body_is_a_400_not_a_500(board: Dashboard) -> None:
    """A RecursionError escaped the JSON error handling: 500."""
    body = "[" * 100_000 + "]" * 100_000
    response = _client(board).put(
        "/api/settings", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400 and "nested too deeply" in response.json()["error"]


@pytest.mark.parametrize("save", ["false", "no", 0, 1, None, [], {}])
def test_save_must_be_a_json_boolean(board: Dashboard, config: Path, save: object) -> None:
    """``"save": "false"`` saved the settings (``bool("false")``)."""
    before = config.read_text()
    response = _client(board).put(
        "/api/settings", json={"tool_search": {"max_results": 2}, "save": save}
    )
    assert response.status_code == 400 and response.json()["field"] == "save"
    assert config.read_text() == before and board.settings.max_results == 5


def test_a_body_over_the_cap_is_refused_early(board: Dashboard, config: Path) -> None:
    """A 400 MB PUT was read whole (853 MiB of memory) before being refused."""
    from toolsift.dashboard.api import MAX_BODY_BYTES

    client = _client(board)
    padding = " " * MAX_BODY_BYTES
    declared = client.put(
        "/api/settings",
        content=b"{}",
        headers={"content-type": "application/json", "content-length": str(10**9)},
    )
    assert declared.status_code == 413
    read: list[int] = []

    def chunks():  # streamed without a Content-Length: refused once the cap is passed
        for _ in range(64):
            read.append(1)
            yield b" " * (MAX_BODY_BYTES // 8)

    streamed = client.put(
        "/api/settings", content=chunks(), headers={"content-type": "application/json"}
    )
    assert streamed.status_code == 413 and "over 1,048,576 bytes" in streamed.json()["error"]
    json_body = {"content-type": "application/json"}
    fits = client.put(
        "/api/settings", content=padding[:-100] + '{"save": false}', headers=json_body
    )
    assert fits.status_code == 200
    assert client.put("/api/settings", content=padding + "{}", headers=json_body).status_code == 413


def test_saving_from_the_page_writes_only_the_changed_key(tmp_path: Path) -> None:
    """Apply & save wrote every default: a 3-key file became 13 keys, re-indented."""
    path = tmp_path / "mcp.json"
    text = '{\n    "mcpServers": {"time": {"command": "mcp-server-time"}},\n'
    text += '    "tool_search": {"max_results": 5, "gate": false, "mode": "all"}\n}\n'
    path.write_text(text)
    board = Dashboard.for_tools(default_tools(), load_config(path), config_path=str(path))
    saved = _client(board).put(
        "/api/settings", json={"tool_search": {"rate_limit": "3/1234567s"}, "save": True}
    )
    assert saved.status_code == 200, saved.text
    block = json.loads(path.read_text())["tool_search"]
    assert block == {"max_results": 5, "gate": False, "mode": "all", "rate_limit": "3/1234567s"}
    assert path.read_text().startswith('{\n    "mcpServers": {\n        "time"')
    again = _client(board).put("/api/settings", json={"tool_search": {"threshold": 1.0}})
    assert again.status_code == 200  # the settings still parse: no 422 on every later change
