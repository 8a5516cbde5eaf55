"""What the soak's clients do (``fuzz/soak.py`` runs them): the sessionful and sessionless
clients' cycles, the hostile sessions, the chaos cues, and what they all count.

Each client checks every reply against its request, probes the execution gate with tools it
never activated (the locked tool, another client's badge) and reads its tool list for tools it
never activated (an activation seen by another client). See ``fuzz/soak.py`` for the setup.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import signal
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
import psutil
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

META = "search_tool_bm25"


def canonical(server: str, tool: str) -> str:
    return f"mcp__{server}__{tool}"


#: The tools a client searches for and calls: (server, tool name, words of its description).
TARGETS = [
    ("stable", "stable_echo", "echo the nonce back from the stable server"),
    ("flaky", "flaky_echo", "echo the nonce back from the flaky server"),
    ("shifting", "shifting_echo", "echo the nonce back from the shifting server"),
    ("shifting", "shifting_extra", "repeat the nonce from the shifting server's extra tool"),
]
VAULT = canonical("locked", "strongroom_hatch")


def badge(index: int) -> str:
    """Client ``index``'s own tool (canonical name)."""
    return canonical("roster", f"badge_{index:03d}")


def downstream_pid(gateway_pid: int, name: str) -> int | None:
    for child in psutil.Process(gateway_pid).children():
        with contextlib.suppress(psutil.Error):
            cmdline = child.cmdline()
            if len(cmdline) > 2 and cmdline[1].endswith("downstream.py") and cmdline[2] == name:
                return child.pid
    return None


@dataclass
class Tally:
    """What the clients saw, over all of them."""

    cycles: int = 0
    calls: int = 0
    replies_ok: int = 0
    lost: int = 0
    mismatched: int = 0
    ungated: int = 0
    gate_refusals: int = 0
    probes: int = 0
    listed_unactivated: int = 0
    leaked: int = 0
    auth_bypass: int = 0
    hostile: Counter[str] = field(default_factory=Counter)
    protocols: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def note(self, kind: str, text: str) -> None:
        self.errors[kind] += 1
        if len(self.examples) < 30 and kind not in {e.split(":")[0] for e in self.examples}:
            self.examples.append(f"{kind}: {text[:300]}")


class _ClientLog(logging.Handler):
    """Counts what the MCP SDK's client logs (in this process, not the gateway's)."""

    def __init__(self, tally: Tally) -> None:
        super().__init__(logging.WARNING)
        self.tally = tally

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        detail = f" ({type(exc).__name__})" if exc is not None else ""
        self.tally.errors[f"client SDK log: {record.getMessage()[:60]}{detail}"] += 1


def error_kind(text: str, server: str) -> str:
    """The kind of a tool error (the soak's counters)."""
    if f"Server {server!r} is unavailable" in text:
        return "server down (unavailable)"
    if f"Server {server!r} failed during" in text:
        return "server down (failed during the call)"
    if f"Server {server!r} did not answer" in text:
        return "server too slow (call timeout)"
    if "is not active in this session" in text:
        return "gate refused an activated tool"
    if "Unknown tool" in text or "no tool" in text:
        return "tool removed from its server"
    return "other tool error"


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def _headers(token: str | None) -> dict[str, str] | None:
    return {"Authorization": f"Bearer {token}"} if token is not None else None


@contextlib.asynccontextmanager
async def client_session(
    url: str, token: str | None = None, tally: Tally | None = None
) -> AsyncIterator[ClientSession]:
    """An MCP session over Streamable HTTP (the initialize handshake: the gateway keeps a
    state for this session alone)."""
    async with create_mcp_http_client(headers=_headers(token)) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                init = await session.initialize()
                if tally is not None:
                    version = getattr(init, "protocol_version", None)
                    tally.protocols[f"session {version}"] += 1
                yield session


@contextlib.asynccontextmanager
async def sessionless_client(
    url: str, token: str | None = None, tally: Tally | None = None
) -> AsyncIterator[Any]:
    """A client of the sessionless protocol (no MCP session: the gateway cannot tell such
    clients apart and keeps one state for all of them, by design). Its ``call_tool`` and
    ``list_tools`` answer as a session's do."""
    async with create_mcp_http_client(headers=_headers(token)) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode="auto") as client:
            if tally is not None:
                tally.protocols[f"sessionless {client.protocol_version}"] += 1
            yield client


async def unauthenticated(url: str, token: str | None) -> int:
    """The HTTP status of an ``initialize`` sent with ``token`` (None: no header)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "soak", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream", **(_headers(token) or {})}
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(url, json=body, headers=headers)
        return response.status_code


class Triggers:
    """Chaos on cue: kill the ``flaky`` server, or make the ``shifting`` one change its tool
    list (``SIGUSR1``), when the clients have done a given number of cycles in all."""

    def __init__(
        self, gateway_pid: int, kill_at: Sequence[int] = (), change_at: Sequence[int] = ()
    ) -> None:
        self.gateway_pid = gateway_pid
        self.kill_at, self.change_at = set(kill_at), set(change_at)
        self.counts: Counter[str] = Counter()
        self.killed: list[int] = []

    def fire(self, cycles: int) -> None:
        if cycles in self.kill_at:
            pid = downstream_pid(self.gateway_pid, "flaky")
            if pid is not None:
                with contextlib.suppress(psutil.Error):
                    psutil.Process(pid).kill()
                    self.killed.append(pid)
                    self.counts["kills on cue"] += 1
        if cycles in self.change_at:
            pid = downstream_pid(self.gateway_pid, "shifting")
            if pid is not None:
                os.kill(pid, signal.SIGUSR1)
                self.counts["tool list changes on cue"] += 1


@dataclass
class Roles:
    """Who is who among the clients: the sessionless ones share one state in the gateway."""

    clients: int
    sessionless: int = 0
    token: str | None = None
    #: What the sessionless clients activated, together (they share the gateway's state).
    shared: set[str] = field(default_factory=set)
    #: Sessionless searches sent whose answers are not yet in ``shared``.
    pending: int = 0

    async def settled(self, limit: float) -> None:
        """Wait (at most ``limit`` seconds) until every sessionless search sent so far is in
        ``shared``: a tool a co-tenant's search activated a moment ago is then known."""
        deadline = time.monotonic() + limit
        while self.pending and time.monotonic() < deadline:
            await asyncio.sleep(0.01)

    def is_sessionless(self, index: int) -> bool:
        return index >= self.clients - self.sessionless

    @property
    def sessionful(self) -> list[int]:
        return list(range(self.clients - self.sessionless))


async def run_client(
    url: str,
    index: int,
    cycles: int,
    seed: int,
    reply_timeout: float,
    tally: Tally,
    triggers: Triggers | None = None,
    deadline: float | None = None,
    roles: Roles | None = None,
) -> None:
    rng = random.Random(f"{seed}:{index}")
    roles = roles or Roles(clients=index + 1)
    sessionless = roles.is_sessionless(index)
    # A sessionless client shares the gateway's state with the others: their activations too.
    activated: set[str] = roles.shared if sessionless else set()
    own: set[str] = set()  # what this client's own searches activated (or found active)
    sessionful = roles.sessionful
    others = [i for i in sessionful if i != index]  # badges this client must never reach
    others_badges = {badge(i) for i in sessionful if i != index}

    async def request(coro: Any, what: str) -> Any:
        try:
            return await asyncio.wait_for(coro, reply_timeout)
        except TimeoutError:
            tally.lost += 1
            tally.note("lost reply", what)
        except Exception as exc:  # a protocol-level error (not a tool error)
            tally.note(f"protocol error ({type(exc).__name__})", f"{what}: {exc}")
        return None

    connect = sessionless_client if sessionless else client_session
    async with connect(url, roles.token, tally) as session:
        for cycle in range(cycles):
            if deadline is not None and time.monotonic() > deadline:
                break
            if rng.random() < 0.2:  # the client's own badge: no other client activates it
                server, tool = "roster", f"badge_{index:03d}"
                name = badge(index)
                query = f"select:{name}"
            else:
                server, tool, words = rng.choice(TARGETS)
                name = canonical(server, tool)
                query = f"select:{name}" if rng.random() < 0.5 else words
            roles.pending += sessionless
            try:
                found = await request(session.call_tool(META, {"query": query}), f"search {query}")
                if found is not None and not found.is_error:
                    content = json.loads(_text(found))
                    seen = {*content["activated_tools"], *content.get("already_active_tools", ())}
                    activated.update(seen)
                    own.update(seen)
                else:  # what did the search activate? The tools listed now are those active.
                    if found is not None:
                        tally.note("search error", _text(found))
                    listed = await request(session.list_tools(), "tools/list after a failed search")
                    if listed is not None:
                        activated.update(t.name for t in listed.tools)
                        own.update(t.name for t in listed.tools)
            finally:
                roles.pending -= sessionless
            nonce = f"{index}-{cycle}-{rng.getrandbits(64):016x}"
            arguments = {"nonce": nonce, "client": index, "cycle": cycle}
            tally.calls += 1
            reply = await request(session.call_tool(name, arguments), f"call {name}")
            if reply is not None:
                text = _text(reply)
                # (A sessionless client may find a tool activated by another one a moment ago,
                # which it has not heard of yet: only a session's own activations are certain.)
                if name not in activated and not sessionless:
                    # The search did not find it: the gate must refuse it.
                    tally.probes += 1
                    if reply.is_error and "is not active in this session" in text:
                        tally.gate_refusals += 1
                    elif reply.is_error and "Unknown tool" in text:
                        tally.note("tool removed from its server", text)
                    else:
                        tally.ungated += 1
                        tally.examples.append(
                            f"ungated: client {index} cycle {cycle}: {name} (activated: "
                            f"{sorted(activated)}) answered {text[:300]}"
                        )
                        print(tally.examples[-1], file=sys.stderr, flush=True)
                elif reply.is_error:
                    kind = error_kind(text, server)
                    if kind == "gate refused an activated tool" and name not in own:
                        # Only a co-tenant's answer said it was active.
                        kind = "sessionless: refused a tool a co-tenant's search activated"
                    role = "sessionless" if sessionless else "session"
                    tally.note(kind, f"client {index} ({role}) cycle {cycle}: {text}")
                else:
                    expected = {"server": server, "tool": tool, **arguments}
                    try:
                        same = json.loads(text) == expected
                    except ValueError:
                        same = False
                    if same:
                        tally.replies_ok += 1
                    else:
                        tally.mismatched += 1
                        tally.examples.append(f"mismatch: sent {expected}, got {text[:300]}")
            if cycle % 10 == 9:
                # Tools this client never activated: the locked one, another client's badge
                # (a keyword search may activate a badge too: its weakest matches fill the
                # limit, as search_tool_bm25's do; those are not probed).
                probes = [] if VAULT in activated else [VAULT]
                unseen = [b for b in (badge(i) for i in others) if b not in activated]
                if unseen:
                    probes.append(unseen[cycle // 10 % len(unseen)])
                for probe_name in probes:
                    tally.probes += 1
                    probe = await request(
                        session.call_tool(probe_name, {"nonce": nonce}), "gate probe"
                    )
                    if probe is None:
                        continue
                    text = _text(probe)
                    if probe.is_error and f"Tool '{probe_name}' is not active" in text:
                        tally.gate_refusals += 1
                        continue
                    if sessionless:
                        await roles.settled(reply_timeout)
                        if probe_name in activated:
                            # A co-tenant's search activated it meanwhile: the shared state
                            # has it, so the gate rightly let the call through.
                            tally.errors["sessionless: probed tool activated by a co-tenant"] += 1
                            continue
                    tally.ungated += 1
                    tally.examples.append(
                        f"ungated: client {index} cycle {cycle}: {probe_name} (activated: "
                        f"{sorted(activated)}) answered {text[:300]}"
                    )
                    print(tally.examples[-1], file=sys.stderr, flush=True)
            if cycle % 25 == 24:
                listed = await request(session.list_tools(), "tools/list")
                if listed is not None:
                    names = {t.name for t in listed.tools}
                    if VAULT in names and VAULT not in activated:
                        tally.listed_unactivated += 1
                    # Listed, yet never activated here: another client's activation.
                    if sessionless:
                        leaked = names & others_badges - activated
                        if leaked:  # perhaps a co-tenant's search in flight: let it land
                            await roles.settled(reply_timeout)
                            leaked -= activated
                    else:
                        leaked = {n for n in names if n.startswith("mcp__")} - activated
                    if leaked:
                        tally.leaked += 1
                        tally.examples.append(
                            f"leak: client {index} cycle {cycle} lists {sorted(leaked)} "
                            f"(activated: {sorted(activated)})"
                        )
                        print(tally.examples[-1], file=sys.stderr, flush=True)
            tally.cycles += 1
            if triggers is not None:
                triggers.fire(tally.cycles)


#: The hostile clients' bad meta-tool arguments (each must end in a tool error).
BAD_ARGUMENTS: list[dict[str, Any]] = [
    {"query": 5},
    {"query": ""},
    {"query": "   "},
    {"query": "echo", "limit": -3},
    {"query": "echo", "limit": "many"},
    {"query": ["echo"]},
    {},
    {"query": "+++ ---"},
]
UNKNOWN_TOOLS = ["mcp__nope__missing", "nope", "mcp__stable__", "x" * 300, "search_tools"]


async def run_hostile(
    url: str, index: int, seed: int, reply_timeout: float, tally: Tally, stop: asyncio.Event,
    token: str | None = None,
) -> None:  # fmt: skip
    """A hostile session beside the others until ``stop``: bad arguments, calls that fail,
    unknown tools, misspelt ``select:`` names, cancelled searches and (with ``token``)
    requests without the token or with a wrong one. Each outcome is counted in
    ``tally.hostile``; one the gateway should not give is also an error."""
    rng = random.Random(f"{seed}:hostile:{index}")
    hostile = tally.hostile

    async def request(coro: Any, what: str) -> Any:
        try:
            return await asyncio.wait_for(coro, reply_timeout)
        except TimeoutError:
            tally.lost += 1
            tally.note("lost reply (hostile)", what)
        except Exception as exc:
            tally.note(f"protocol error (hostile, {type(exc).__name__})", f"{what}: {exc}")
        return None

    def expect_error(result: Any, kind: str, needle: str = "") -> None:
        if result is None:
            return
        text = _text(result)
        if result.is_error and needle in text:
            hostile[f"{kind}: refused"] += 1
        elif result.is_error and "Server 'stable'" in text:  # down or slow: still a tool error
            hostile[f"{kind}: refused (the server down or slow)"] += 1
        else:
            hostile[f"{kind}: UNEXPECTED"] += 1
            tally.note(f"hostile {kind} not refused", _text(result))

    async with client_session(url, token) as session:
        while not stop.is_set():
            op = rng.randrange(6 if token is not None else 5)
            if op == 0:
                arguments = rng.choice(BAD_ARGUMENTS)
                found = await request(session.call_tool(META, arguments), f"bad {arguments}")
                expect_error(found, "bad meta-tool arguments")
            elif op == 1:
                failing = canonical("stable", "stable_fail")
                await request(session.call_tool(META, {"query": f"select:{failing}"}), "select")
                called = await request(session.call_tool(failing, {"nonce": 1}), "failing call")
                expect_error(called, "call that fails downstream", "failed on purpose")
            elif op == 2:
                unknown = rng.choice(UNKNOWN_TOOLS)
                called = await request(session.call_tool(unknown, {}), f"unknown {unknown[:20]}")
                expect_error(called, "unknown tool")
            elif op == 3:
                wrong = "select:stabel_echo,flaky_ecko"
                found = await request(session.call_tool(META, {"query": wrong}), wrong)
                if found is not None:
                    content = json.loads(_text(found)) if not found.is_error else {}
                    if content.get("missing") == ["stabel_echo", "flaky_ecko"] and content.get(
                        "suggestions", {}
                    ).get("stabel_echo"):
                        hostile["misspelt select: missing and suggestions reported"] += 1
                    else:
                        hostile["misspelt select: UNEXPECTED"] += 1
                        tally.note("misspelt select: not reported", _text(found))
            elif op == 4:
                task = asyncio.ensure_future(
                    session.call_tool(META, {"query": "echo the nonce back"})
                )
                await asyncio.sleep(rng.random() * 0.02)
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                hostile["searches cancelled in flight"] += 1
                # The session still works after a cancellation.
                found = await request(session.call_tool(META, {"query": "select:nope"}), "after")
                if found is None or found.is_error:
                    tally.note("session broken after a cancelled search", repr(found))
            else:
                sent = rng.choice([None, "wrong-token"])
                with contextlib.suppress(Exception):
                    status = await asyncio.wait_for(unauthenticated(url, sent), reply_timeout)
                    if status in (401, 403):
                        hostile["request without the token: refused"] += 1
                    else:
                        tally.auth_bypass += 1
                        tally.examples.append(f"auth bypass: token {sent!r} answered {status}")
            await asyncio.sleep(0.05)  # hostile, not a flood: the soak measures the others
