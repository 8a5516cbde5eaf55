"""The gateway's reconnection backoff: a downstream server that was up for a while and then
died is started again after the first delay, not the longest one (found by the soak: a server
killed every few seconds came back only every 30 s once it had been killed six times). A
server that dies at once after every start keeps backing off."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("the MCP SDK and FastMCP need Python 3.11+", allow_module_level=True)

from toolsift.config import ServerConfig  # noqa: E402
from toolsift.gateway import downstream as ds  # noqa: E402


def _delays(monkeypatch: pytest.MonkeyPatch, up_for: float, sessions: int) -> list[float]:
    """The waits before each reconnection of a server that connects, stays up ``up_for``
    seconds (of a fake clock) and dies, ``sessions`` times."""
    now = [0.0]
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(delay: float, *args: Any) -> None:
        if delay > 0:
            waits.append(delay)
            now[0] += delay
        await real_sleep(0)

    monkeypatch.setattr(ds.asyncio, "sleep", sleep)
    down = ds.Downstream(ServerConfig("s", command="unused"), on_tools=None)
    down._clock = lambda: now[0]

    async def session() -> None:
        down.connections += 1
        down._up_since = now[0]
        now[0] += up_for
        raise ds.DownstreamError("the connection was closed")

    down._session = session  # type: ignore[method-assign]

    async def run() -> None:
        task = asyncio.get_running_loop().create_task(down._run())
        while len(waits) < sessions:
            await real_sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    return waits[:sessions]


def test_a_server_that_was_up_is_restarted_after_the_first_delay(monkeypatch) -> None:
    assert _delays(monkeypatch, up_for=3.0, sessions=10) == [ds.BACKOFF_FIRST] * 10


def test_a_server_that_dies_at_once_backs_off(monkeypatch) -> None:
    waits = _delays(monkeypatch, up_for=0.0, sessions=8)
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    assert waits[-1] == ds.BACKOFF_MAX
