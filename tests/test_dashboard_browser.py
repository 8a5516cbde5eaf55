"""The dashboard in a real browser: `toolsift serve --transport http --dashboard` in front of real
MCP servers (mcp-server-time, mcp-server-git), a real MCP client making a search, and headless
Chromium (Debian's package, driven by Playwright) using the page: the catalogue, a setting
toggled live, a trial search with its explanation, an invalid value refused, the settings saved,
and the client's session with its token-savings chart.

Set TOOLSIFT_DASHBOARD_SCREENSHOT=PATH to keep a screenshot of the page (docs/images), and
TOOLSIFT_CHROMIUM to use another Chromium or Chrome executable than Debian's chromium.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("the MCP SDK and FastMCP need Python 3.11+", allow_module_level=True)

from fastmcp import Client  # noqa: E402
from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

from ._mcp import PY, make_repo, servers, write_config  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
#: The gateway's token: FastMCP's client is sessionless, so it keeps its activations (one
#: client across its requests) only as an authenticated principal.
MCP_TOKEN = "mcp-token"
GET_TIME = "mcp__time__get_current_time"


def _chromium() -> str:
    """The browser: $TOOLSIFT_CHROMIUM, else Debian's chromium (never a downloaded one)."""
    given = os.environ.get("TOOLSIFT_CHROMIUM")
    found = given or shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.path.exists(CHROMIUM):
        found = CHROMIUM
    if found is None or not os.path.exists(found):
        pytest.fail(
            "the dashboard's browser test needs Chromium: install Debian's package "
            "(apt-get update && apt-get install -y chromium; CI installs it) or set "
            f"TOOLSIFT_CHROMIUM to a Chromium or Chrome executable (got {found!r})"
        )
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


@contextlib.contextmanager
def _gateway(config: Path, port: int) -> Iterator[str]:
    command = [PY, "-m", "toolsift", "serve", str(config), "--transport", "http"]
    command += ["--port", str(port), "--dashboard", "--token", MCP_TOKEN]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # both servers connected (startup waits for their tool lists)
            if process.poll() is not None:
                pytest.fail(f"toolsift serve exited: {process.stderr.read().decode()[-2000:]}")
            with contextlib.suppress(OSError, ValueError):
                states = {s["name"]: s["state"] for s in _get(f"{base}/api/catalog")["servers"]}
                if states == {"time": "connected", "git": "connected"}:
                    break
            time.sleep(0.1)
        else:
            pytest.fail("the gateway's servers did not connect")
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stderr.close()


def _client_search(base: str) -> None:
    async def scenario() -> None:
        async with Client(f"{base}/mcp", auth=MCP_TOKEN) as client:
            result = await client.call_tool_mcp(
                "search_tool_bm25", {"query": "current time in a timezone", "limit": 1}
            )
            assert not result.is_error
            names = [t.name for t in await client.list_tools()]
            assert GET_TIME in names

    asyncio.run(scenario())


def _client_sees_saved_settings(base: str) -> None:
    """A client's next search uses the settings applied from the page (max_results 2, the
    gate off, the time server always available)."""

    async def scenario() -> None:
        async with Client(f"{base}/mcp", auth=MCP_TOKEN) as client:
            names = [t.name for t in await client.list_tools()]
            assert {GET_TIME, "mcp__time__convert_time"} <= set(names)
            result = await client.call_tool_mcp("search_tool_bm25", {"query": "git commit log"})
            content = json.loads("".join(c.text for c in result.content))
            assert len(content["activated_tools"]) == 2
            # The gate is off: a tool no search activated can be called.
            status = await client.call_tool_mcp("mcp__git__git_branch", {"repo_path": "."})
            assert "not active in this session" not in "".join(
                getattr(c, "text", "") for c in status.content
            )

    # Playwright's sync API runs an event loop in this thread: the client runs in another.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, scenario()).result()


def _screenshot(page: Page) -> None:
    target = os.environ.get("TOOLSIFT_DASHBOARD_SCREENSHOT")
    if target:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=target, full_page=True)


def test_dashboard_in_chromium_against_a_live_gateway(tmp_path: Path) -> None:
    executable = _chromium()
    repo = make_repo(tmp_path / "repo")
    mcp = {k: v for k, v in servers(repo).items() if k in ("time", "git")}
    config = write_config(tmp_path / "mcp.json", mcp, max_results=3)
    port = _free_port()
    with _gateway(config, port) as base:
        _client_search(base)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                errors: list[str] = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.goto(f"{base}/dashboard/")

                # The catalogue: both servers connected, with their tools and schema tokens.
                servers_table = page.locator("#servers tbody")
                expect(servers_table.locator("tr[data-server=git]")).to_contain_text("connected")
                expect(servers_table.locator("tr[data-server=time]")).to_contain_text("2")
                page.fill("#tool-filter", "git_st")
                page.locator("#tools button[data-name=mcp__git__git_status]").click()
                expect(page.locator("#tool-definition")).to_contain_text('"inputSchema"')

                # The live session of the MCP client, with what it activated and its savings.
                session = page.locator("#sessions .session").first
                expect(session).to_contain_text(GET_TIME)
                expect(session.locator("ol.searches")).to_contain_text("current time in a timezone")
                expect(session.locator("svg.savings")).to_contain_text("saved")

                # A trial search, explained term by term.
                page.fill("#query", "show the working tree status")
                page.click("#search-btn")
                first = page.locator("#results tr.match").first
                expect(first).to_have_attribute("data-name", "mcp__git__git_status")
                assert page.locator("#results tr.match").count() == 3  # max_results = 3
                explain = page.locator("#results tr.explain[data-name=mcp__git__git_status]")
                expect(explain).to_contain_text("status")
                expect(explain).to_contain_text("contribution")
                expect(page.locator("#response")).to_contain_text('"activated_tools"')

                # A setting changed live: max results 1, then the same search returns one match.
                page.fill("#settings-form input[name=max_results]", "1")
                page.click("#apply")
                expect(page.locator("#settings-status")).to_have_text("applied")
                page.click("#search-btn")
                expect(page.locator("#results tr.match")).to_have_count(1)

                # An out-of-range value is refused next to its field; nothing is saved.
                before = config.read_text()
                page.fill("#settings-form input[name=max_results]", "0")
                page.click("#save")
                expect(page.locator(".field-error[data-field=max_results]")).to_contain_text(
                    "positive integer"
                )
                assert config.read_text() == before

                # A minimum confidence over 1 is refused next to its field.
                page.fill("#settings-form input[name=max_results]", "2")
                page.fill("#settings-form input[name=min_confidence]", "1.5")
                page.click("#apply")
                expect(page.locator(".field-error[data-field=min_confidence]")).to_contain_text(
                    "between 0 and 1"
                )
                expect(page.locator("#semantic-on")).to_have_text("(BM25+ now)")

                # Toggle the gate, pick an always-available server, semantic ranking off and a
                # minimum confidence, save: the file has them (semantic as a JSON boolean).
                page.select_option("#settings-form select[name=semantic]", "false")
                page.fill("#settings-form input[name=min_confidence]", "0.4")
                page.uncheck("#settings-form input[name=gate]")
                page.fill("#always-filter", "time")
                page.check("#always-list input[value=time]")
                page.click("#save")
                expect(page.locator("#settings-status")).to_contain_text("saved")
                saved = json.loads(config.read_text())
                assert saved["tool_search"]["gate"] is False
                assert saved["tool_search"]["max_results"] == 2
                assert saved["tool_search"]["always_available"] == ["time"]
                assert saved["tool_search"]["semantic"] is False
                assert saved["tool_search"]["min_confidence"] == 0.4
                assert set(saved["mcpServers"]) == {"time", "git"}
                assert json.loads(Path(f"{config}.bak").read_text())["tool_search"] == {
                    "max_results": 3
                }
                live = _get(f"{base}/api/settings")["settings"]
                assert live["gate"] is False and live["always_available"] == ["time"]
                _client_sees_saved_settings(base)

                page.fill("#always-filter", "")
                page.fill("#query", "select:mcp__git__git_log,git_lgo")
                page.click("#search-btn")
                expect(page.locator("#missing")).to_contain_text("git_lgo")
                page.fill("#query", "show the working tree status")
                page.click("#search-btn")
                expect(page.locator("#results tr.match")).to_have_count(2)
                # The sessions panel refreshes on its own: the client's later search shows up.
                searches = page.locator("#sessions .session ol.searches li").first
                expect(searches).to_contain_text("git commit log", timeout=15_000)
                _screenshot(page)
                assert errors == []
            finally:
                browser.close()
