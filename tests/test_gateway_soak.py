"""The gateway under load, CI-sized: several MCP client sessions over Streamable HTTP through
`toolsift serve`, while a downstream server is killed (and started again by the gateway) and
another changes its tool list. No reply is lost or mismatched, no call passes the gate, and a
call to the killed server ends in a tool error naming it. (The full soak, 50 sessions x 1,000
cycles with kills every few seconds, is `fuzz/soak.py`; figures in RELIABILITY.md.)"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("the MCP SDK and FastMCP need Python 3.11+", allow_module_level=True)

from fuzz import soak  # noqa: E402

CLIENTS, CYCLES = 5, 20


def _after_the_kill(url: str, killed: int, gateway_pid: int) -> tuple[bool, str]:
    """A new session calls the flaky server until the gateway has started it again."""

    async def scenario() -> tuple[bool, str]:
        async with soak.client_session(url) as session:
            name = soak.canonical("flaky", "flaky_echo")
            await session.call_tool(soak.META, {"query": f"select:{name}"})
            while True:  # bounded by the wait_for below
                result = await session.call_tool(name, {"nonce": "back"})
                text = soak._text(result)
                if not result.is_error:
                    return soak.downstream_pid(gateway_pid, "flaky") != killed, text
                assert "Server 'flaky'" in text, text  # down: a tool error naming it
                await asyncio.sleep(0.2)

    async def bounded() -> tuple[bool, str]:
        return await asyncio.wait_for(scenario(), 120)

    return asyncio.run(bounded())


def test_sessions_through_a_killed_and_a_changing_downstream(tmp_path: Path) -> None:
    config = soak.write_setup(tmp_path, change_every=0, call_timeout=10.0)
    total = CLIENTS * CYCLES
    with soak.gateway(config) as (process, url):
        triggers = soak.Triggers(process.pid, kill_at=[total // 3], change_at=[total // 2])
        result = asyncio.run(
            soak.soak(url, process.pid, CLIENTS, CYCLES, kill_every=0, triggers=triggers)
        )
        assert triggers.counts == {"kills on cue": 1, "tool list changes on cue": 1}
        restarted, text = _after_the_kill(url, triggers.killed[0], process.pid)
    assert restarted and json.loads(text) == {
        "server": "flaky",
        "tool": "flaky_echo",
        "nonce": "back",
    }
    examples = "\n".join(result["examples"])
    assert result["cycles_done"] == total, examples
    assert result["lost"] == 0 and result["mismatched"] == 0, examples
    assert result["ungated"] == 0 and result["listed_unactivated"] == 0, examples
    assert soak.passed(result)
    refused = result["gate_refusals"]
    assert result["replies_ok"] > 0 and refused > 0
    # Kinds of errors a client may meet here, and nothing else.
    expected = {
        "server down (unavailable)",
        "server down (failed during the call)",
        "tool removed from its server",
    }
    unexpected = {
        k: n for k, n in result["errors"].items() if k not in expected and "client SDK" not in k
    }
    assert not unexpected, examples


def test_the_soak_counts_a_call_through_the_gate(tmp_path: Path) -> None:
    """The soak's own check can fail: with the gate off, the never-activated tool answers and
    is counted as a call through the gate."""
    config = soak.write_setup(tmp_path, change_every=0, call_timeout=10.0)
    settings = json.loads(config.read_text())
    settings["tool_search"]["gate"] = "off"
    config.write_text(json.dumps(settings))
    with soak.gateway(config) as (process, url):
        result = asyncio.run(soak.soak(url, process.pid, 1, 10, kill_every=0))
    assert result["ungated"] >= 1 and not soak.passed(result)
