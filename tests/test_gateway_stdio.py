"""`toolsift serve` over stdio, driven by the official MCP client SDK, in front of three real MCP
servers from PyPI: mcp-server-time, mcp-server-git (on a repository made here) and
mcp-server-fetch (its tool list; there is no network)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from pathlib import Path

import pytest

from ._mcp import children, kill, make_repo, serve, servers, write_config

GET_TIME = "mcp__time__get_current_time"
GIT_STATUS = "mcp__git__git_status"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def only(mcp_servers: dict, *names: str) -> dict:
    """The servers a test's point needs: each one is a process that imports the MCP SDK (about
    3 s of CPU), so a test starts no more of them than it uses."""
    return {name: mcp_servers[name] for name in names}


def test_list_search_list_changed_list_call(tmp_path: Path, repo: Path) -> None:
    config = write_config(tmp_path / "mcp.json", servers(repo), max_results=2)

    async def scenario() -> None:
        async with serve(config) as s:
            assert await s.names() == ["search_tool_bm25"]
            meta = (await s.session.list_tools()).tools[0]
            assert meta.input_schema["properties"]["limit"]["maximum"] == 25
            assert "- git (" in meta.description and "- fetch (" in meta.description
            # The gate: a tool this session never activated is refused, naming how to fix it.
            error, text = await s.call(GET_TIME, {"timezone": "UTC"})
            assert error and f"Tool '{GET_TIME}' is not active in this session" in text
            assert f"select:{GET_TIME}" in text
            changed = s.list_changed()
            error, text = await s.call("search_tool_bm25", {"query": "current time in a timezone"})
            content = json.loads(text)
            assert not error and content["activated_tools"][0] == GET_TIME
            assert content["match_count"] == 2 and content["total_tools"] > 10
            await asyncio.sleep(0.05)
            assert s.list_changed() == changed + 1
            listed = await s.names()
            assert listed[0] == "search_tool_bm25" and GET_TIME in listed
            assert set(listed[1:]) == set(content["activated_tools"])
            error, text = await s.call(GET_TIME, {"timezone": "UTC"})
            assert not error and json.loads(text)["timezone"] == "UTC"
            error, text = await s.call("time.get_current_time", {"timezone": "UTC"})
            assert not error and json.loads(text)["timezone"] == "UTC"  # another of its names
            error, text = await s.call("time.convert_time", {})
            assert error and "not active in this session" not in text  # active: the gate passes
            # Routing by canonical name to the git server, on the repository made above.
            error, text = await s.call("search_tool_bm25", {"query": f"select:{GIT_STATUS}"})
            assert json.loads(text)["activated_tools"] == [GIT_STATUS]
            error, text = await s.call(GIT_STATUS, {"repo_path": str(repo)})
            assert not error and "working tree clean" in text
            # The fetch server's tools are in the catalogue.
            error, text = await s.call("search_tool_bm25", {"query": "fetch a url from the web"})
            assert "mcp__fetch__fetch" in json.loads(text)["activated_tools"]
            # The limit is capped at 25 in the server too, and checked.
            error, text = await s.call("search_tool_bm25", {"query": "git", "limit": 1000})
            assert not error and json.loads(text)["match_count"] <= 25
            error, text = await s.call("search_tool_bm25", {"query": "git", "limit": 0})
            assert error and "Limit must be a positive integer" in text

    asyncio.run(scenario())


def test_each_client_session_has_its_own_activations(tmp_path: Path, repo: Path) -> None:
    config = write_config(tmp_path / "mcp.json", only(servers(repo), "time"))

    async def scenario() -> None:
        async with serve(config) as a, serve(config) as b:
            await a.call("search_tool_bm25", {"query": f"select:{GET_TIME}"})
            assert GET_TIME in await a.names()
            assert await b.names() == ["search_tool_bm25"]
            error, _ = await b.call(GET_TIME, {"timezone": "UTC"})
            assert error

    asyncio.run(scenario())


def test_gate_off_allows_any_call(tmp_path: Path, repo: Path) -> None:
    config = write_config(tmp_path / "mcp.json", only(servers(repo), "time"), gate="off")

    async def scenario() -> None:
        async with serve(config) as s:
            error, text = await s.call(GET_TIME, {"timezone": "UTC"})
            assert not error and '"timezone": "UTC"' in text

    asyncio.run(scenario())


def _wait_for(predicate, timeout: float = 30.0) -> None:
    async def poll() -> None:
        async with asyncio.timeout(timeout):
            while not await predicate():
                await asyncio.sleep(0.2)

    return poll()


def test_a_killed_downstream_fails_its_call_and_the_others_answer(
    tmp_path: Path, repo: Path
) -> None:
    config = write_config(tmp_path / "mcp.json", only(servers(repo), "time", "git"))

    async def scenario() -> None:
        async with serve(config) as s:
            await s.call("search_tool_bm25", {"query": f"select:{GIT_STATUS},{GET_TIME}"})
            error, _ = await s.call(GIT_STATUS, {"repo_path": str(repo)})
            assert not error
            git = [p for p, c in children(s.pid).items() if "mcp_server_git" in c]
            assert len(git) == 1
            kill(git[0])
            error, text = await s.call(GIT_STATUS, {"repo_path": str(repo)})
            assert error and "Server 'git'" in text
            error, text = await s.call(GET_TIME, {"timezone": "UTC"})
            assert not error and '"timezone": "UTC"' in text

            async def git_is_back() -> bool:
                error, _ = await s.call(GIT_STATUS, {"repo_path": str(repo)})
                return not error

            await _wait_for(git_is_back)  # reconnected, with backoff

    asyncio.run(scenario())


def test_a_hung_downstream_call_times_out(tmp_path: Path, repo: Path) -> None:
    # A local HTTP server that accepts and never answers: mcp-server-fetch hangs on it.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    mcp_servers = only(servers(repo), "time", "fetch")
    mcp_servers["fetch"]["args"].append("--allow-private-ips")
    config = write_config(tmp_path / "mcp.json", mcp_servers, call_timeout=1.5)

    async def scenario() -> None:
        async with serve(config) as s:
            await s.call("search_tool_bm25", {"query": "select:mcp__fetch__fetch,get_current_time"})
            url = f"http://127.0.0.1:{port}/slow"
            error, text = await s.call("mcp__fetch__fetch", {"url": url})
            assert error and "Server 'fetch' did not answer 'fetch' within 1.5 s" in text
            error, text = await s.call(GET_TIME, {"timezone": "UTC"})
            assert not error

    try:
        asyncio.run(scenario())
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        listener.close()


def test_search_rate_limit(tmp_path: Path, repo: Path) -> None:
    config = write_config(tmp_path / "mcp.json", only(servers(repo), "time"), rate_limit="2/min")

    async def scenario() -> None:
        async with serve(config) as s:
            for _ in range(2):
                error, _ = await s.call("search_tool_bm25", {"query": "time"})
                assert not error
            error, text = await s.call("search_tool_bm25", {"query": "time"})
            assert error and "Search rate limit exceeded (2/min for this client)" in text

    asyncio.run(scenario())


def test_the_regex_meta_tool_activates_its_matches(tmp_path: Path, repo: Path) -> None:
    """`regex_tool: true` adds Anthropic-style `tool_search_tool_regex` beside the BM25
    meta-tool: a pattern activates its matches for this client, which can then call them; a
    pattern outside the accepted syntax is a tool error that names its position."""
    servers_ = {k: v for k, v in servers(repo).items() if k in ("time", "git")}
    config = write_config(tmp_path / "mcp.json", servers_, regex_tool=True)

    async def scenario() -> None:
        async with serve(config) as s:
            assert await s.names() == ["search_tool_bm25", "tool_search_tool_regex"]
            error, text = await s.call("tool_search_tool_regex", {"pattern": "^git_(status|log)$"})
            assert not error, text
            # Names are canonical (mcp__git__git_status): an anchored raw name finds nothing.
            assert json.loads(text)["activated_tools"] == []
            error, text = await s.call("tool_search_tool_regex", {"pattern": "git_(status|log)$"})
            assert not error, text
            # Both names match at the same place: ties go by name.
            assert json.loads(text)["activated_tools"] == ["mcp__git__git_log", GIT_STATUS]
            assert GIT_STATUS in await s.names()
            error, text = await s.call(GIT_STATUS, {"repo_path": str(repo)})
            assert not error, text
            error, text = await s.call("tool_search_tool_regex", {"pattern": r"(a)\1"})
            assert error and "position 3" in text, text

    asyncio.run(scenario())
