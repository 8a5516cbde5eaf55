"""The gateway's JSON-RPC input, fuzzed (outside CI): a million hostile messages, counted.

Every input is one line of text fed to the gateway exactly as ``toolsift serve --transport
stdio`` reads it: the MCP SDK's stdio transport (the JSON-RPC parse), its server session, the
FastMCP server and toolsift's gateway (the execution gate, the catalogue provider, the search
meta-tool, the routing of calls to a real downstream server over stdio), all in this process
with the transport's stdin and stdout replaced by in-memory streams. The inputs are hostile:
malformed JSON, wrong types, huge and deeply nested params, unknown methods, batches, responses
and notifications the server never asked for, ``tools/call`` with bad names and arguments, and
meta-tool calls with hostile queries and limits, plus byte-level mutations of all of them.

After each input the harness sends a ``ping`` and waits for its answer (and, when the input is
a well-formed request, for that request's answer). For every input it records: a *crash* (the
server stops serving, an answer is an internal error, or an exception escapes toolsift's code
into the server's error log), a *hang* (no answer within ``--hang-seconds`` of wall time) and
the longest CPU and wall time of one input. Counts go to stdout and, as JSON, to ``--out``.

Usage::

    nice -n 10 python fuzz/gateway_fuzz.py --inputs 1000000 --seed 1 --out fuzz-gateway.json
    python fuzz/gateway_fuzz.py --inputs 2000          # a quick look

Exit status 1 if any crash or hang was seen.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import mcp_types
from fastmcp.server.context import reset_transport, set_transport
from mcp.server.stdio import stdio_server
from toolsift.config import GatewayConfig, ServerConfig, ToolSearchConfig
from toolsift.gateway import Gateway

try:  # imported by the tests as fuzz.gateway_fuzz, or run as a script from fuzz/
    from .soak import DOWNSTREAM
except ImportError:
    from soak import DOWNSTREAM  # type: ignore[no-redef]

#: The loggers an exception of the server is logged to (FastMCP's does not propagate).
LOGGERS = ("", "fastmcp", "mcp", "toolsift")
#: JSON-RPC's internal error: an exception the server did not expect.
INTERNAL_ERROR = -32603
PROTOCOL = "2025-11-25"


class _Stdin:
    """The transport's stdin: lines from an in-memory stream."""

    def __init__(self, receive: Any) -> None:
        self._receive = receive

    def __aiter__(self) -> _Stdin:
        return self

    async def __anext__(self) -> str:
        try:
            return str(await self._receive.receive())
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _Stdout:
    """The transport's stdout: every line the server writes, routed by its ``id``."""

    def __init__(self, harness: GatewayHarness) -> None:
        self._harness = harness
        self._buffer = ""

    async def write(self, text: str) -> None:
        self._buffer += text
        while "\n" in self._buffer:
            line, self._buffer = self._buffer.split("\n", 1)
            self._harness._answer(json.loads(line))

    async def flush(self) -> None:
        return None


class _Errors(logging.Handler):
    """Records every logged exception whose traceback passes through toolsift's code."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.exc_info or record.exc_info[1] is None:
            return
        text = "".join(traceback.format_exception(*record.exc_info))
        if "/toolsift/" in text.replace("\\", "/"):
            self.found.append(text[-2000:])


def gateway_config(folder: Path) -> GatewayConfig:
    """One real downstream server (stdio, standard library only) with two echo tools."""
    script = folder / "downstream.py"
    script.write_text(DOWNSTREAM)
    servers = (
        ServerConfig("stable", command=sys.executable, args=(str(script), "stable")),
        ServerConfig(
            "shifting", command=sys.executable, args=(str(script), "shifting", "shift", "5")
        ),
    )
    return GatewayConfig(servers, ToolSearchConfig(call_timeout=5.0))


def _server_loggers() -> list[logging.Logger]:
    """The root logger and every logger of the server's packages (``LOGGERS``), children too."""
    prefixes = tuple(name for name in LOGGERS if name)
    found = [logging.getLogger()]
    for name in list(logging.root.manager.loggerDict):
        if name in prefixes or name.startswith(tuple(p + "." for p in prefixes)):
            found.append(logging.getLogger(name))
    return found


class GatewayHarness:
    """``toolsift serve --transport stdio`` in this process, fed line by line.

    Use as a context manager; :meth:`feed` sends one input and waits for its answers.
    """

    def __init__(self, folder: Path, hang_seconds: float = 10.0) -> None:
        self.folder = folder
        self.hang_seconds = hang_seconds
        self.loop = asyncio.new_event_loop()
        self.gateway = Gateway(gateway_config(folder))
        self._send: Any = None
        self._receive: Any = None
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._serving: asyncio.Task[None] | None = None
        self._counter = 0
        self.errors = _Errors()
        self._logger_state: list[tuple[logging.Logger, bool, int]] = []
        self.answers: Counter[str] = Counter()

    def __enter__(self) -> GatewayHarness:
        for name in LOGGERS:
            logging.getLogger(name).addHandler(self.errors)
        # A logging.config call elsewhere in the process (``disable_existing_loggers``) may have
        # disabled the server's loggers or raised their level: the harness must see every
        # exception they log, so it turns them back on until it exits.
        self._logger_state = []
        for logger in _server_loggers():
            self._logger_state.append((logger, logger.disabled, logger.level))
            logger.disabled = False
            if logger.level > logging.WARNING:
                logger.setLevel(logging.WARNING)
        self.loop.run_until_complete(self._start())
        return self

    def __exit__(self, *exc: Any) -> None:
        for name in LOGGERS:
            logging.getLogger(name).removeHandler(self.errors)
        for logger, disabled, level in self._logger_state:
            logger.disabled = disabled
            logger.setLevel(level)
        with contextlib.suppress(Exception):
            self.loop.run_until_complete(self._stop())
        self.loop.close()

    async def _start(self) -> None:
        send, receive = anyio.create_memory_object_stream[str](1000)
        self._send, self._receive = send, receive
        mcp = self.gateway.mcp

        async def serve() -> None:
            token = set_transport("stdio")
            try:
                async with mcp._lifespan_manager():
                    async with stdio_server(_Stdin(receive), _Stdout(self)) as (read, write):  # type: ignore[arg-type]
                        await mcp._mcp_server.run(
                            read, write, mcp._mcp_server.create_initialization_options()
                        )
            finally:
                reset_transport(token)

        self._serving = asyncio.get_running_loop().create_task(serve())
        init = {
            "jsonrpc": "2.0",
            "id": "init",
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "1"},
            },
        }
        answer = await self._request(json.dumps(init), "init", 120.0)
        if answer is None or "result" not in answer:
            raise RuntimeError(f"the gateway did not initialize: {answer}")
        await self._send.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    async def _stop(self) -> None:
        await self._send.aclose()
        if self._serving is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self._serving, 10)
        await self._receive.aclose()

    def _answer(self, message: Any) -> None:
        if not isinstance(message, dict):
            self.answers["non-object written"] += 1
            return
        key = json.dumps(message.get("id"))
        if "error" in message:
            self.answers[f"error {message['error'].get('code')}"] += 1
        elif isinstance(message.get("result"), dict) and "isError" in message["result"]:
            self.answers["tool error" if message["result"]["isError"] else "tool result"] += 1
        elif "result" in message:
            self.answers["result"] += 1
        else:
            self.answers[str(message.get("method"))] += 1
        future = self._waiting.pop(key, None)
        if future is not None and not future.done():
            future.set_result(message)

    async def _request(self, line: str, key: Any, timeout: float) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[json.dumps(key)] = future
        await self._send.send(line)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            self._waiting.pop(json.dumps(key), None)
            return None

    @property
    def serving(self) -> bool:
        return self._serving is not None and not self._serving.done()

    def feed(self, text: str) -> str | None:
        """Send ``text`` (split into lines as stdin would be) and wait for its answers; the
        problem seen (``"hang: ..."``, ``"crash: ..."``) or ``None``."""
        return self.loop.run_until_complete(self._feed(text))

    async def _feed(self, text: str) -> str | None:
        expected: list[Any] = []
        pending = []
        for line in text.split("\n"):
            key = _request_id(line)
            if key is not None and json.dumps(key) not in self._waiting:
                future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
                self._waiting[json.dumps(key)] = future
                pending.append(future)
                expected.append(key)
            await self._send.send(line)
        self._counter += 1
        ping = f"fuzz-ping-{self._counter}"
        pong = await self._request(
            json.dumps({"jsonrpc": "2.0", "id": ping, "method": "ping"}), ping, self.hang_seconds
        )
        problem = None
        if pong is None:
            problem = "hang: no answer to the ping that followed"
        elif pending:
            done, _ = await asyncio.wait(pending, timeout=self.hang_seconds)
            if len(done) < len(pending):
                problem = f"hang: no answer to request {expected!r:.200}"
            for future in done:
                answer = future.result()
                error = answer.get("error") if isinstance(answer, dict) else None
                if isinstance(error, dict) and error.get("code") == INTERNAL_ERROR:
                    problem = f"crash: internal error {error.get('message')!r:.300}"
        for key in expected:
            self._waiting.pop(json.dumps(key), None)
        if not self.serving:
            problem = "crash: the server stopped serving"
        if self.errors.found:
            problem = f"crash: {self.errors.found[-1][-600:]}"
            self.errors.found.clear()
        return problem


def _request_id(line: str) -> Any:
    """The id of ``line`` if the transport reads it as a request (it must be answered)."""
    try:
        message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception:
        return None
    if isinstance(message, mcp_types.JSONRPCRequest):
        return message.id
    return None


# --- hostile messages --------------------------------------------------------------------------

TOOL_NAMES = [
    "search_tool_bm25", "mcp__stable__stable_echo", "mcp__locked__strongroom_hatch",
    "mcp__shifting__shifting_echo", "mcp__shifting__shifting_extra", "stable.stable_echo",
    "stable/stable_echo", "stable_echo", "search_tools", "call_tool", "", " ", "mcp__", "__",
    "mcp__stable__", "mcp__nope__x", "\x00", "\ud800", "a" * 5000, "tool_search_tool_regex",
]  # fmt: skip
QUERIES = [
    "echo the nonce", "select:mcp__stable__stable_echo", "select:stable_echo,shifting_echo",
    "select:mcp__locked__strongroom_hatch", "+echo stable", "select:", "strongroom", "echo",
    "select:mcp__shifting__shifting_extra", "repeat extra",
]  # fmt: skip
HOSTILE = [
    "", " ", "\x00", "\ud800", "\udfff", "\u2028", "\ufeff", "select:", "select:,", "+", "++",
    "中文检索", "İ", "ß", "\u0301" * 5, "ay" * 500, "9" * 5000, "[" * 2000, "{" * 300, '"',
    "\\", "\\u", "\\ud83d", "null", "true", "-0", "1e999", "NaN", "Infinity", "\t\r\n",
    "\U0001f600", "\n", '{"jsonrpc":"2.0"}', "]", "}", ",", ":",
]  # fmt: skip
METHODS = [
    "tools/call", "tools/call", "tools/call", "tools/call", "tools/list", "ping", "initialize",
    "resources/list", "resources/read", "resources/templates/list", "prompts/list",
    "prompts/get", "completion/complete", "logging/setLevel", "notifications/initialized",
    "notifications/cancelled", "notifications/progress", "notifications/roots/list_changed",
    "tasks/get", "tasks/list", "", "tools/", "TOOLS/CALL", "rpc.discover", "x" * 3000,
]  # fmt: skip


KEYS = ["query", "limit", "name", "arguments", "pattern", "nonce", "", "\x00", "_meta"]


def hostile_value(rng: random.Random, depth: int = 0) -> Any:
    """A JSON value: scalars of every type and edge, strings from HOSTILE, nested values."""
    kind = rng.randrange(12 if depth < 4 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice(
            [0, -1, 1, 25, 26, 2**31, 2**63, 2**64, -(2**63), 10**400 if rng.random() < 0.1 else 7]
        )
    if kind == 3:
        return rng.choice([0.5, -0.0, 1e308, 1e-320, 3.14])
    if kind in (4, 5, 6, 7):
        return rng.choice(HOSTILE + QUERIES + TOOL_NAMES)
    if kind in (8, 9):
        return [hostile_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(KEYS): hostile_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def deep(rng: random.Random) -> str:
    """A deeply nested or huge JSON text (as text: past json's recursion limit)."""
    n = rng.choice([100, 1000, 10_000, 100_000])
    if rng.random() < 0.5:
        return "[" * n + "]" * n
    return '{"a":' * n + "1" + "}" * n


def arguments(rng: random.Random, name: str) -> Any:
    roll = rng.random()
    if roll < 0.05:
        return hostile_value(rng)  # not an object
    if name in ("search_tool_bm25", "tool_search_tool_regex") or roll < 0.4:
        args: dict[str, Any] = {}
        if rng.random() < 0.9:
            query = rng.choice(QUERIES + HOSTILE)
            args["query"] = query if rng.random() < 0.7 else hostile_value(rng)
        if rng.random() < 0.4:
            args["limit"] = rng.choice([1, 3, 25, 26, 0, -1, 2**64, 1.5, "5", None, True, [1]])
        if rng.random() < 0.1:
            args["pattern"] = rng.choice(["^echo", "(a)\\1", "[", "a" * 10_000, ".*" * 100])
        if rng.random() < 0.1:
            args[rng.choice(HOSTILE)] = hostile_value(rng)
        return args
    if roll < 0.8:
        return {"nonce": rng.choice(["n", *HOSTILE]), "client": rng.randint(-5, 5)}
    return {
        rng.choice(HOSTILE + ["nonce", "name"]): hostile_value(rng)
        for _ in range(rng.randint(0, 5))
    }


def message(rng: random.Random, counter: int) -> Any:
    """A JSON-RPC message (as a Python value), valid in shape or not."""
    method = "tools/call" if rng.random() < 0.5 else rng.choice(METHODS)
    ident: Any = f"m{counter}"
    if rng.random() < 0.1:
        ident = rng.choice(
            [counter, -counter, 2**70 + counter, 1.5, None, [counter], {"a": counter}, True]
        )
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if method == "tools/call":
        name = rng.choice(TOOL_NAMES) if rng.random() < 0.95 else hostile_value(rng)
        msg["params"] = {"name": name, "arguments": arguments(rng, str(name))}
        if rng.random() < 0.05:
            msg["params"]["_meta"] = hostile_value(rng)
    elif method.startswith("notifications/"):
        msg.pop("id")
        msg["params"] = {"requestId": rng.choice([f"m{counter - 1}", counter, None]), "progress": 1}
    elif rng.random() < 0.6:
        msg["params"] = hostile_value(rng)
    roll = rng.random()
    if roll < 0.03:
        msg["jsonrpc"] = rng.choice(["1.0", 2, None, ""])
    elif roll < 0.06:
        msg.pop("method")
        msg["result"] = hostile_value(rng)  # a response nobody asked for
    elif roll < 0.08:
        msg["error"] = {"code": hostile_value(rng), "message": hostile_value(rng)}
    if roll > 0.97:
        return [msg, message(rng, counter + 1)]  # a batch (not in MCP since 2025-06-18)
    return msg


def mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        at = rng.randint(0, len(text))
        op = rng.randrange(6)
        if op == 0:
            text = text[:at] + rng.choice(HOSTILE) + text[at:]
        elif op == 1:
            text = text[:at] + text[at + rng.randint(1, 8) :]
        elif op == 2:
            text = text[:at] + chr(rng.randint(0, 0x10FFFF)) + text[at:]
        elif op == 3:
            text = text[:at]
        elif op == 4:
            text = text[:at] + text[at : at + 64] * rng.randint(2, 4) + text[at + 64 :]
        else:
            text = text[:at] + text[at:].swapcase()
    return text


def hostile_input(rng: random.Random, counter: int) -> str:
    """One input line (it may hold newlines: the transport reads them as several lines)."""
    roll = rng.random()
    if roll < 0.02:
        return deep(rng)
    if roll < 0.03:
        name = rng.choice(TOOL_NAMES[:5])
        wrapped = json.dumps({"query": 1})[:-1] + ',"x":' + deep(rng) + "}"
        params = f'{{"name":"{name}","arguments":{wrapped}}}'
        return f'{{"jsonrpc":"2.0","id":"d{counter}","method":"tools/call","params":{params}}}'
    text = json.dumps(message(rng, counter), ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.3:
        text = mutate(rng, text)
    # Lone surrogates cannot be written as UTF-8; the transport reads bytes with
    # errors="replace", so they arrive as U+FFFD.
    return text.encode("utf-8", "replace").decode("utf-8")


def run(
    inputs: int, seed: int, hang_seconds: float, log: Any, max_seconds: float | None = None
) -> dict[str, Any]:
    rng = random.Random(f"gateway:{seed}")
    crashes = hangs = 0
    worst_cpu = worst_wall = total_cpu = 0.0
    examples: list[str] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="toolsift-fuzz-") as tmp:
        harness = GatewayHarness(Path(tmp), hang_seconds).__enter__()
        try:
            done = 0
            for n in range(1, inputs + 1):
                if max_seconds is not None and time.perf_counter() - start > max_seconds:
                    break
                done = n
                text = hostile_input(rng, n)
                t0, w0 = time.process_time(), time.perf_counter()
                problem = harness.feed(text)
                cpu, wall = time.process_time() - t0, time.perf_counter() - w0
                total_cpu += cpu
                worst_cpu, worst_wall = max(worst_cpu, cpu), max(worst_wall, wall)
                if problem is not None:
                    if problem.startswith("hang"):
                        hangs += 1
                    else:
                        crashes += 1
                    if len(examples) < 20:
                        examples.append(f"input {n}: {problem}\n  {text[:300]!r}")
                    print(f"gateway: input {n}: {problem[:300]}", file=log, flush=True)
                    if not harness.serving:  # start again, so the count goes on
                        harness.__exit__(None, None, None)
                        harness = GatewayHarness(Path(tmp), hang_seconds).__enter__()
                if n % 10_000 == 0:
                    print(
                        f"gateway: {n:,} inputs, {crashes} crashes, {hangs} hangs, max "
                        f"{worst_cpu * 1000:.1f} ms CPU, {worst_wall * 1000:.1f} ms wall, "
                        f"{n / (time.perf_counter() - start):.0f}/s",
                        file=log,
                        flush=True,
                    )
        finally:
            answers = dict(harness.answers.most_common())
            harness.__exit__(None, None, None)
    return {
        "target": "gateway",
        "inputs": done,
        "planned": inputs,
        "crashes": crashes,
        "hangs": hangs,
        "max_cpu_ms_per_input": round(worst_cpu * 1000, 3),
        "max_wall_ms_per_input": round(worst_wall * 1000, 3),
        "mean_cpu_us_per_input": round(total_cpu / max(done, 1) * 1e6, 1),
        "wall_seconds": round(time.perf_counter() - start, 1),
        "answers": answers,
        "examples": examples,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang-seconds", type=float, default=10.0, help="wall-time bound")
    parser.add_argument("--max-seconds", type=float, default=None, help="stop after (a time box)")
    parser.add_argument("--out", help="write the counts as JSON here")
    args = parser.parse_args(argv)
    # The server's own logs go only to the harness's counter of exceptions.
    for name in LOGGERS:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.setLevel(logging.WARNING)
    logging.getLogger().addHandler(logging.NullHandler())
    result = run(args.inputs, args.seed, args.hang_seconds, sys.stderr, args.max_seconds)
    print(json.dumps({k: v for k, v in result.items() if k != "examples"}), flush=True)
    for example in result["examples"]:
        print(example, file=sys.stderr)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2))
    return 1 if result["crashes"] or result["hangs"] else 0


if __name__ == "__main__":
    sys.exit(main())
