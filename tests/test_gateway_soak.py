"""The gateway under load, CI-sized: several MCP clients over Streamable HTTP through
`toolsift serve` (sessionful ones and sessionless ones, with a hostile session beside them),
while a downstream server is killed (and started again by the gateway) and another changes its
tool list. No reply is lost or mismatched, no call passes the gate, no client sees another's
activations, every hostile request is refused or reported as it should be, and a call to the
killed server ends in a tool error naming it. (The full soak, 50 clients x 1,000 cycles with
kills every few seconds, is `fuzz/soak.py`; figures in RELIABILITY.md.)"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("the MCP SDK and FastMCP need Python 3.11+", allow_module_level=True)

from fuzz import soak, soak_clients  # noqa: E402

CLIENTS, CYCLES, SESSIONLESS = 5, 20, 2
TOKEN = "soak-token"


def _after_the_kill(url: str, killed: int, gateway_pid: int) -> tuple[bool, str]:
    """A new session calls the flaky server until the gateway has started it again."""

    async def scenario() -> tuple[bool, str]:
        async with soak.client_session(url, TOKEN) as session:
            name = soak.canonical("flaky", "flaky_echo")
            await session.call_tool(soak.META, {"query": f"select:{name}"})
            while True:  # bounded by the wait_for below
                result = await session.call_tool(name, {"nonce": "back"})
                text = soak_clients._text(result)
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
    # Authentication on: the sessionless clients carry the gateway's token, so they are one
    # principal (they share its state, as the soak's model of them expects); without a token a
    # sessionless client could keep no activations at all.
    with soak.gateway(config, token=TOKEN) as (process, url):
        triggers = soak.Triggers(process.pid, kill_at=[total // 3], change_at=[total // 2])
        result = asyncio.run(
            soak.soak(
                url,
                process.pid,
                CLIENTS,
                CYCLES,
                kill_every=0,
                triggers=triggers,
                sessionless=SESSIONLESS,
                hostile=1,
                token=TOKEN,
            )
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
    assert result["leaked_activations"] == 0, examples
    assert soak.passed(result)
    refused = result["gate_refusals"]
    assert result["replies_ok"] > 0 and refused > 0
    # Both kinds of client spoke to the gateway, each in its own protocol.
    protocols = result["protocols"]
    assert sum(n for k, n in protocols.items() if k.startswith("sessionless")) == SESSIONLESS
    assert sum(n for k, n in protocols.items() if k.startswith("session ")) == CLIENTS - SESSIONLESS
    # The hostile session ran, and every one of its requests was refused or answered right.
    hostile = result["hostile"]
    assert sum(hostile.values()) > 0 and not any("UNEXPECTED" in k for k in hostile), hostile
    # Kinds of errors a client may meet here, and nothing else.
    expected = {
        "server down (unavailable)",
        "server down (failed during the call)",
        "tool removed from its server",
        "sessionless: probed tool activated by a co-tenant",
        # A sessionless client knows of its co-tenants' activations only from their answers,
        # which may race with the catalogue change; its own activations must hold.
        "sessionless: refused a tool a co-tenant's search activated",
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


class _Listing:
    """A client session whose every search activates its own badge and whose tool list also
    shows another client's badge: an activation seen by another client."""

    def __init__(self, leaked: str) -> None:
        self.leaked = leaked

    async def call_tool(self, name: str, arguments: dict) -> SimpleNamespace:
        if name == soak.META:
            text = json.dumps({"activated_tools": [soak.badge(0)]})
        elif name == soak.badge(0):
            text = json.dumps({"server": "roster", "tool": "badge_000", **arguments})
        else:
            text = f"Tool '{name}' is not active in this session."
        return SimpleNamespace(
            is_error=name not in (soak.META, soak.badge(0)), content=[SimpleNamespace(text=text)]
        )

    async def list_tools(self) -> SimpleNamespace:
        names = [soak.META, soak.badge(0), self.leaked]
        return SimpleNamespace(tools=[SimpleNamespace(name=n) for n in names])


def test_the_soak_counts_an_activation_seen_by_another_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The soak's own check can fail: a tool list showing another client's badge is counted."""

    @contextlib.asynccontextmanager
    async def fake(url: str, token: str | None = None, tally: object = None):
        yield _Listing(soak.badge(1))

    monkeypatch.setattr(soak_clients, "client_session", fake)
    monkeypatch.setattr(
        soak_clients.random,
        "Random",
        lambda seed: SimpleNamespace(
            random=lambda: 0.0, getrandbits=lambda n: 0, choice=lambda xs: xs[0]
        ),
    )
    tally = soak.Tally()
    roles = soak.Roles(clients=2)
    asyncio.run(soak.run_client("http://unused", 0, 25, 0, 5.0, tally, roles=roles))
    assert tally.leaked == 1 and tally.mismatched == 0 and tally.replies_ok == 25
