"""A real Redis server for the tests: Debian's ``redis-server`` on a free loopback port, without
persistence (``--save "" --appendonly no``). ``.ci/run`` installs it where it is missing; a test
that needs it skips, with the reason, only where ``redis-server`` is not on PATH."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time

import pytest

REDIS_SERVER = shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """One ``redis-server`` process; :meth:`stop` and :meth:`start` again keep its port."""

    def __init__(self) -> None:
        if REDIS_SERVER is None:
            pytest.skip(
                "redis-server is not on PATH (Debian: apt-get install redis-server; .ci/run "
                "installs it): the shared-storage tests need a real Redis"
            )
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="toolsift-redis-")
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def url(self, db: int = 0, password: str = "") -> str:
        auth = f":{password}@" if password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        args = [str(REDIS_SERVER), "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--save", "", "--appendonly", "no", "--dir", self.dir, "--databases", "64"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def command(self, *words: str) -> bytes:
        """One command in Redis's inline protocol; the raw reply."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as conn:
            conn.sendall((" ".join(words) + "\r\n").encode())
            return conn.recv(1 << 20)
