"""`toolsift serve` ends its downstream servers' process groups however it exits: a server's
own children (a `sleep` it started) included, and while another server is being reconnected.
Killed by SIGTERM, the gateway once left every downstream process running."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

if sys.version_info < (3, 11) or sys.platform == "win32":  # pragma: no cover
    pytest.skip("POSIX signals and the MCP SDK (Python 3.11+)", allow_module_level=True)

from ._mcp import PY, write_config  # noqa: E402
from .test_gateway_downstream import attacker  # noqa: E402


def _descendants(pid: int) -> set[int]:
    try:
        return {p.pid for p in psutil.Process(pid).children(recursive=True)}
    except psutil.Error:
        return set()


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_no_downstream_survives_the_gateway(tmp_path: Path, signum: int) -> None:
    servers = {
        "ok": attacker("O", grandchild=True),
        "dying": attacker("D", exit_after_initialize=True),  # reconnected again and again
    }
    config = write_config(tmp_path / "mcp.json", servers)
    gateway = subprocess.Popen(
        [PY, "-m", "toolsift", "serve", str(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen: set[int] = set()
    assert gateway.stdin is not None
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    gateway.stdin.write(json.dumps(initialize).encode() + b"\n")
    gateway.stdin.flush()  # the gateway starts its servers with its first session
    try:
        deadline = time.monotonic() + 30
        sleeping = False
        while not sleeping:  # the ok server and its grandchild are up
            assert time.monotonic() < deadline, "the downstream servers did not start"
            seen |= _descendants(gateway.pid)
            sleeping = any(_cmd(p).startswith("sleep") for p in seen)
            time.sleep(0.05)
        for _ in range(10):  # and the dying server is being reconnected meanwhile
            seen |= _descendants(gateway.pid)
            time.sleep(0.05)
        assert len(seen) >= 3, [_cmd(p) for p in seen]
        gateway.send_signal(signum)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in seen) and time.monotonic() < deadline:
            time.sleep(0.05)
        if signum == signal.SIGTERM:
            gateway.wait(timeout=10)
    finally:
        gateway.stdin.close()  # the end of its input ends a gateway still unwinding
        try:
            gateway.wait(timeout=10)
        except subprocess.TimeoutExpired:
            gateway.kill()
            gateway.wait()
    survivors = [(p, _cmd(p)) for p in seen if _alive(p)]
    for pid, _ in survivors:
        psutil.Process(pid).kill()
    assert survivors == []


def _cmd(pid: int) -> str:
    try:
        return " ".join(psutil.Process(pid).cmdline())
    except psutil.Error:
        return ""
