"""Helpers of the MCP tests: configs of real MCP servers from PyPI, and `toolsift serve` over
stdio driven by the official MCP client SDK."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("the MCP SDK and FastMCP need Python 3.11+", allow_module_level=True)

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

PY = sys.executable


def make_repo(path: Path) -> Path:
    """A git repository with one commit, for mcp-server-git."""
    path.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "init", "-q", str(path)], check=True, env=env)
    (path / "README.md").write_text("hello\n")
    subprocess.run(["git", "-C", str(path), "add", "README.md"], check=True, env=env)
    subprocess.run(["git", "-C", str(path), "commit", "-q", "-m", "init"], check=True, env=env)
    return path


def servers(repo: Path) -> dict[str, Any]:
    """The three real servers, started as `python -m` modules of this environment."""
    return {
        "time": {"command": PY, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
        "git": {"command": PY, "args": ["-m", "mcp_server_git", "--repository", str(repo)]},
        "fetch": {"command": PY, "args": ["-m", "mcp_server_fetch", "--ignore-robots-txt"]},
    }


def write_config(path: Path, mcp_servers: dict[str, Any], **tool_search: Any) -> Path:
    path.write_text(json.dumps({"mcpServers": mcp_servers, "tool_search": tool_search}))
    return path


@dataclass
class Served:
    """A client session with `toolsift serve`, and what it saw."""

    session: ClientSession
    notifications: list[Any] = field(default_factory=list)
    pid: int = 0

    def list_changed(self) -> int:
        return sum(
            1
            for n in self.notifications
            if getattr(n, "method", "") == "notifications/tools/list_changed"
        )

    async def names(self) -> list[str]:
        return [t.name for t in (await self.session.list_tools()).tools]

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        result = await self.session.call_tool(name, arguments)
        text = "".join(getattr(c, "text", "") for c in result.content)
        return bool(result.is_error), text


def child_env() -> dict[str, str]:
    """The environment of a `toolsift serve` child process: PATH, and PYTHONPATH passed on so
    that the child runs the code under test, not an installed copy."""
    return {k: os.environ[k] for k in ("PATH", "PYTHONPATH") if k in os.environ}


@contextlib.asynccontextmanager
async def serve(config: Path, *extra: str) -> AsyncIterator[Served]:
    """`toolsift serve CONFIG` over stdio, with the official MCP SDK's ClientSession."""
    params = StdioServerParameters(
        command=PY,
        args=["-m", "toolsift", "serve", str(config), *extra],
        env=child_env(),
    )
    served = Served(session=None)  # type: ignore[arg-type]

    async def on_message(message: Any) -> None:
        served.notifications.append(message)

    before = set(children(os.getpid()))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as streams:
            async with ClientSession(streams[0], streams[1], message_handler=on_message) as s:
                await s.initialize()
                served.session = s
                started = [p for p in children(os.getpid()) if p not in before]
                served.pid = started[0] if started else 0
                yield served


def children(pid: int) -> dict[int, str]:
    """The child processes of ``pid`` and their command lines."""
    out = {}
    for child in psutil.Process(pid).children():
        try:
            out[child.pid] = " ".join(child.cmdline())
        except psutil.Error:  # exited meanwhile
            continue
    return out


def kill(pid: int) -> None:
    """Kill process ``pid`` at once (SIGKILL, or TerminateProcess on Windows)."""
    psutil.Process(pid).kill()
