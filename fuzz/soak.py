"""The gateway soak (outside CI): many MCP client sessions through ``toolsift serve`` while one
downstream server is killed and restarted every few seconds and another changes its tool list.

``toolsift serve`` runs over Streamable HTTP in front of three downstream servers (small MCP
servers over stdio that this script writes to a temporary folder):

- ``stable``: ``stable_echo``, which echoes its arguments;
- ``flaky``: ``flaky_echo``; the soak kills its process every ``--kill-every`` seconds and the
  gateway starts it again (with its backoff);
- ``shifting``: ``shifting_echo``, and ``shifting_extra``, which it adds and removes every
  ``--change-every`` seconds, telling the gateway with ``notifications/tools/list_changed``;
- ``locked``: ``strongroom_hatch``, which no client ever activates (the gate must refuse every
  call of it: no search of the soak shares a word with it).

- ``roster``: ``badge_000`` ... one badge tool per client; client ``i`` activates only
  ``badge_i``, so a badge of another client in a session's tool list is an activation seen by
  another client, and a call of it that succeeds went through the gate.

Each of ``--clients`` clients (the official MCP SDK's client) runs ``--cycles`` cycles: a
search that activates a tool (``select:NAME``, words from its description, or its own badge),
a call of it with a fresh nonce, the reply checked against the request (server, tool, nonce,
client, cycle); every few cycles a call of a tool the client never activated (the locked tool,
another client's badge: the gate must refuse it) and a ``tools/list`` (it must list no tool
the client did not activate). The last ``--sessionless`` clients speak the sessionless
protocol (2026-07-28: no MCP session, so the gateway keeps one state for all of them, by
design); the others hold an MCP session each (the handshake). ``--hostile`` more sessions run
beside them until they finish: bad arguments, calls that fail downstream, unknown tools,
``select:`` names that do not exist (the answer must name them as ``missing``), searches
cancelled in flight, and, with ``--token``, requests without it or with a wrong one (which
must be refused). With ``--token T`` the gateway is started with ``--token T`` and every
client sends ``Authorization: Bearer T``.

It counts lost replies (no answer within ``--reply-timeout``), mismatched replies, calls the
gate let through, activations seen by another client, requests served without the token, and
the errors by kind (a call to a server that is down must end at once in a tool error naming
it), and samples the gateway's resident memory (RSS) every half second (reported after the
warm-up: the first 10% of the cycles).

The clients themselves (their cycles, the hostile sessions, the counters) are in
``fuzz/soak_clients.py``.

Usage::

    nice -n 10 python fuzz/soak.py --clients 50 --cycles 1000 --out soak.json
    python fuzz/soak.py --clients 5 --cycles 20        # a quick look

Exit status 1 if a reply was lost or mismatched, a call went through the gate, an activation
was seen by another client, a request was served without the token, or a client did not
finish.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psutil

if not __package__:  # run as a script (python fuzz/soak.py): `fuzz` from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fuzz.soak_clients import (
    META,
    TARGETS,
    VAULT,
    Roles,
    Tally,
    Triggers,
    _ClientLog,
    badge,
    canonical,
    client_session,
    downstream_pid,
    error_kind,
    run_client,
    run_hostile,
    sessionless_client,
    unauthenticated,
)

__all__ = [
    "META",
    "TARGETS",
    "VAULT",
    "Roles",
    "Tally",
    "Triggers",
    "badge",
    "canonical",
    "client_session",
    "downstream_pid",
    "error_kind",
    "gateway",
    "passed",
    "run_client",
    "run_hostile",
    "sessionless_client",
    "soak",
    "unauthenticated",
    "write_setup",
]


#: A minimal MCP server over stdio (newline-delimited JSON-RPC), standard library only, so that
#: a killed one is back in a few milliseconds. ``argv``: its name, then ``shift SECONDS`` for a
#: server that adds and removes ``NAME_extra`` every SECONDS (and says so to its client).
DOWNSTREAM = textwrap.dedent(
    """
    import json, signal, sys, threading, time

    NAME = sys.argv[1]
    SHIFT = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "shift" else 0.0
    SCHEMA = {"type": "object", "properties": {"nonce": {"type": "string"},
              "client": {"type": "integer"}, "cycle": {"type": "integer"}},
              "required": ["nonce"]}
    TOOLS = {f"{NAME}_echo": f"Echo the nonce back from the {NAME} server."}
    FAILING = "stable_fail"
    if NAME == "stable":  # a tool whose every call fails (the hostile clients call it)
        TOOLS[FAILING] = "Always answers with a tool error."
    if NAME == "locked":  # shares no word with the soak's queries (no argument either)
        TOOLS = {"strongroom_hatch": "Unlock strongroom hatch."}
    if NAME == "roster":  # one badge per client: argv "badges N"
        TOOLS = {f"badge_{i:03d}": f"Badge {i:03d} of the roster."
                 for i in range(int(sys.argv[3]))}
    EXTRA = (f"{NAME}_extra", f"Repeat the nonce from the {NAME} server's extra tool.")
    lock = threading.Lock()
    state = {"extra": False, "ready": False, "changes": 0}

    def send(message):
        with lock:
            sys.stdout.write(json.dumps(message) + "\\n")
            sys.stdout.flush()

    def tools():
        found = dict(TOOLS)
        if state["extra"]:
            found[EXTRA[0]] = EXTRA[1]
        return [{"name": n, "description": d,
                 "inputSchema": {"type": "object"} if NAME == "locked" else SCHEMA}
                for n, d in found.items()]

    def toggle():
        state["extra"] = not state["extra"]
        state["changes"] += 1
        if state["ready"]:
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})

    def shift():
        while True:
            time.sleep(SHIFT)
            toggle()

    if SHIFT:
        threading.Thread(target=shift, daemon=True).start()
    if hasattr(signal, "SIGUSR1"):  # a change on demand (in a thread: send() takes the lock)
        signal.signal(signal.SIGUSR1, lambda *_: threading.Thread(target=toggle).start())

    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        method, mid = msg.get("method"), msg.get("id")
        if method == "notifications/initialized":
            state["ready"] = True
        if mid is None:
            continue
        if method == "initialize":
            result = {"protocolVersion": msg["params"]["protocolVersion"],
                      "capabilities": {"tools": {"listChanged": True}},
                      "serverInfo": {"name": NAME, "version": "1"}}
        elif method == "tools/list":
            result = {"tools": tools()}
        elif method == "tools/call":
            name = msg["params"]["name"]
            args = msg["params"].get("arguments") or {}
            if name == FAILING and NAME == "stable":
                result = {"content": [{"type": "text", "text": "failed on purpose"}],
                          "isError": True}
            elif name in TOOLS or (state["extra"] and name == EXTRA[0]):
                text = json.dumps({"server": NAME, "tool": name, **args}, sort_keys=True)
                result = {"content": [{"type": "text", "text": text}], "isError": False}
            else:
                result = {"content": [{"type": "text", "text": f"no tool {name}"}],
                          "isError": True}
        elif method == "ping":
            result = {}
        else:
            send({"jsonrpc": "2.0", "id": mid,
                  "error": {"code": -32601, "message": f"unknown method {method}"}})
            continue
        send({"jsonrpc": "2.0", "id": mid, "result": result})
    """
)


def write_setup(folder: Path, change_every: float, call_timeout: float, badges: int = 64) -> Path:
    """The downstream script and the gateway's config in ``folder`` (``badges``: the roster's
    size, at least the number of clients); the config's path."""
    script = folder / "downstream.py"
    script.write_text(DOWNSTREAM)
    py = sys.executable
    servers = {
        "stable": {"command": py, "args": [str(script), "stable"]},
        "flaky": {"command": py, "args": [str(script), "flaky"]},
        "shifting": {"command": py, "args": [str(script), "shifting", "shift", str(change_every)]},
        "locked": {"command": py, "args": [str(script), "locked"]},
        "roster": {"command": py, "args": [str(script), "roster", "badges", str(badges)]},
    }
    config = folder / "mcp.json"
    settings = {"max_results": 1, "call_timeout": call_timeout}
    config.write_text(json.dumps({"mcpServers": servers, "tool_search": settings}))
    return config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def gateway(config: Path, nice: int = 0, token: str | None = None) -> Any:
    """``toolsift serve CONFIG --transport http`` on a free port (with ``--token`` when
    ``token`` is given): (process, url)."""
    port = free_port()
    command = [sys.executable, "-m", "toolsift", "serve", str(config), "--transport", "http"]
    if token is not None:
        command += ["--token", token]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=(lambda: os.nice(nice)) if nice else None,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None:
                raise RuntimeError("toolsift serve exited")
            if time.monotonic() > deadline:
                raise RuntimeError("toolsift serve did not listen within 120 s")
            time.sleep(0.2)
        yield process, f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def chaos(
    gateway_pid: int, kill_every: float, stop: asyncio.Event, counts: Counter[str]
) -> None:
    """Kill the ``flaky`` server every ``kill_every`` seconds; count the restarts seen."""
    seen: set[int] = set()
    while kill_every > 0 and not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), kill_every)
        if stop.is_set():
            break
        pid = downstream_pid(gateway_pid, "flaky")
        if pid is None:
            counts["kill skipped (still restarting)"] += 1
            continue
        if pid not in seen:
            seen.add(pid)
            counts["flaky processes seen"] += 1
        with contextlib.suppress(psutil.Error):
            psutil.Process(pid).kill()
            counts["kills"] += 1


async def sample_rss(
    gateway_pid: int, stop: asyncio.Event, samples: list[tuple[float, int]]
) -> None:
    process = psutil.Process(gateway_pid)
    start = time.monotonic()
    while not stop.is_set():
        with contextlib.suppress(psutil.Error):
            samples.append((time.monotonic() - start, process.memory_info().rss))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


def rss_summary(samples: list[tuple[float, int]], done: list[float]) -> dict[str, Any]:
    """RSS at the quarters of the run (after the warm-up: the first 10% of the cycles)."""
    if not samples:
        return {}
    mib = 2**20
    warm = done[0] if done else 0.0
    steady = [r for t, r in samples if t >= warm] or [samples[-1][1]]
    quarters = [steady[min(len(steady) - 1, len(steady) * q // 4)] for q in range(5)]
    return {
        "rss_start_mib": round(samples[0][1] / mib, 1),
        "rss_after_warmup_mib": round(steady[0] / mib, 1),
        "rss_quarters_mib": [round(r / mib, 1) for r in quarters],
        "rss_end_mib": round(steady[-1] / mib, 1),
        "rss_max_mib": round(max(r for _, r in samples) / mib, 1),
        "rss_growth_after_warmup_mib": round((steady[-1] - steady[0]) / mib, 1),
        "samples": len(samples),
    }


async def soak(
    url: str,
    gateway_pid: int,
    clients: int,
    cycles: int,
    kill_every: float,
    seed: int = 0,
    reply_timeout: float = 60.0,
    progress: float = 0.0,
    triggers: Triggers | None = None,
    max_seconds: float | None = None,
    *,
    sessionless: int = 0,
    hostile: int = 0,
    token: str | None = None,
) -> dict[str, Any]:
    """``clients`` clients of ``cycles`` cycles through the gateway at ``url`` (its process
    ``gateway_pid``), the last ``sessionless`` of them sessionless, ``hostile`` hostile
    sessions beside them, every request with ``token`` if given; the ``flaky`` server killed
    every ``kill_every`` seconds (0: never) and on the ``triggers``' cues; the counts (see
    :func:`passed`). With ``max_seconds``, the clients start no new cycle after that time
    (``cycles_done`` then says how far they got)."""
    tally = Tally()
    roles = Roles(clients=clients, sessionless=min(sessionless, clients), token=token)
    done = asyncio.Event()
    client_log = _ClientLog(tally)
    logging.getLogger("mcp").addHandler(client_log)
    logging.getLogger("mcp").propagate = False
    counts: Counter[str] = Counter()
    samples: list[tuple[float, int]] = []
    stop = asyncio.Event()
    start = time.monotonic()
    warm: list[float] = []
    deadline = start + max_seconds if max_seconds else None

    async def watch() -> None:
        last = time.monotonic()
        while not stop.is_set():
            if not warm and tally.cycles >= clients * cycles // 10:
                warm.append(time.monotonic() - start)
            if progress and time.monotonic() - last >= progress:
                last = time.monotonic()
                rss = samples[-1][1] / 2**20 if samples else 0.0
                print(
                    f"soak: {time.monotonic() - start:.0f} s, {tally.cycles:,} cycles, "
                    f"{tally.lost} lost, {tally.mismatched} mismatched, {tally.ungated} ungated, "
                    f"{tally.leaked} leaked, "
                    f"{counts['kills']} kills, RSS {rss:.1f} MiB",
                    file=sys.stderr,
                    flush=True,
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.5)

    background = [
        asyncio.create_task(chaos(gateway_pid, kill_every, stop, counts)),
        asyncio.create_task(sample_rss(gateway_pid, stop, samples)),
        asyncio.create_task(watch()),
    ]
    if token is not None:  # the token is required: a request without it is refused
        for sent in (None, f"{token}-wrong"):
            status = await unauthenticated(url, sent)
            if status not in (401, 403):
                tally.auth_bypass += 1
                tally.examples.append(f"auth bypass: token {sent!r} answered {status}")
    hostiles = [
        asyncio.create_task(run_hostile(url, i, seed, reply_timeout, tally, done, token))
        for i in range(hostile)
    ]
    results = await asyncio.gather(
        *(
            run_client(url, i, cycles, seed, reply_timeout, tally, triggers, deadline, roles)
            for i in range(clients)
        ),
        return_exceptions=True,
    )
    done.set()
    results += await asyncio.gather(*hostiles, return_exceptions=True)
    stop.set()
    await asyncio.gather(*background, return_exceptions=True)
    logging.getLogger("mcp").removeHandler(client_log)
    for result in results:
        if isinstance(result, BaseException):
            tally.note(f"client ended ({type(result).__name__})", repr(result))
    shifting = downstream_pid(gateway_pid, "shifting")
    return {
        "clients": clients,
        "cycles_per_client": cycles,
        "cycles_done": tally.cycles,
        "calls": tally.calls,
        "replies_ok": tally.replies_ok,
        "lost": tally.lost,
        "mismatched": tally.mismatched,
        "ungated": tally.ungated,
        "gate_probes": tally.probes,
        "gate_refusals": tally.gate_refusals,
        "listed_unactivated": tally.listed_unactivated,
        "leaked_activations": tally.leaked,
        "auth_bypass": tally.auth_bypass,
        "sessionless_clients": roles.sessionless,
        "hostile_clients": hostile,
        "authenticated": token is not None,
        "protocols": dict(tally.protocols),
        "hostile": dict(sorted(tally.hostile.items())),
        "errors": dict(tally.errors.most_common()),
        "chaos": {**counts, **(triggers.counts if triggers else {})},
        "shifting_alive": shifting is not None,
        "wall_seconds": round(time.monotonic() - start, 1),
        **rss_summary(samples, warm),
        "examples": tally.examples,
    }


def passed(result: dict[str, Any]) -> bool:
    """No lost or mismatched reply, no call through the gate, no activation seen by another
    client, no request served without the token, no hostile request answered as if it were
    fine, every client finished."""
    return (
        result["lost"] == 0
        and result["mismatched"] == 0
        and result["ungated"] == 0
        and result["listed_unactivated"] == 0
        and result["leaked_activations"] == 0
        and result["auth_bypass"] == 0
        and not any("UNEXPECTED" in kind for kind in result["hostile"])
        and result["cycles_done"] == result["clients"] * result["cycles_per_client"]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--cycles", type=int, default=1000, help="cycles per client")
    parser.add_argument("--kill-every", type=float, default=3.0, help="seconds between kills")
    parser.add_argument("--change-every", type=float, default=2.0, help="tool list changes")
    parser.add_argument("--call-timeout", type=float, default=10.0, help="gateway's, seconds")
    parser.add_argument("--reply-timeout", type=float, default=60.0, help="a lost reply")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--progress", type=float, default=30.0, help="seconds between lines")
    parser.add_argument(
        "--max-seconds", type=float, default=None, help="start no cycle after this (a time box)"
    )
    parser.add_argument(
        "--sessionless",
        type=int,
        default=None,
        help="how many of the clients are sessionless (default: a fifth)",
    )
    parser.add_argument("--hostile", type=int, default=4, help="hostile sessions beside them")
    parser.add_argument(
        "--token",
        default=None,
        help="start the gateway with --token TOKEN and send Authorization: Bearer TOKEN",
    )
    parser.add_argument("--out", help="write the counts as JSON here")
    args = parser.parse_args(argv)
    sessionless = args.clients // 5 if args.sessionless is None else args.sessionless
    with tempfile.TemporaryDirectory(prefix="toolsift-soak-") as tmp:
        config = write_setup(
            Path(tmp), args.change_every, args.call_timeout, badges=max(args.clients, 1)
        )
        with gateway(config, token=args.token) as (process, url):
            result = asyncio.run(
                soak(
                    url,
                    process.pid,
                    args.clients,
                    args.cycles,
                    args.kill_every,
                    args.seed,
                    args.reply_timeout,
                    args.progress,
                    max_seconds=args.max_seconds,
                    sessionless=sessionless,
                    hostile=args.hostile,
                    token=args.token,
                )
            )
    print(json.dumps({k: v for k, v in result.items() if k != "examples"}, indent=2))
    for example in result["examples"]:
        print(example, file=sys.stderr)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))
    return 0 if passed(result) else 1


if __name__ == "__main__":
    sys.exit(main())
