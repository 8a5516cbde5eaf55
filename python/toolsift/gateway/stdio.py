"""A downstream stdio server's pipes, read with a bound, and its process group, always ended.

The MCP SDK's stdio client (``mcp.client.stdio.stdio_client``, its ``stdout_reader``) joins
every chunk of a line it has not finished to all it holds (``(buffer + chunk).split("\\n")``):
a server that writes one endless line costs quadratic time on the gateway's event loop (every
other server waits) and memory without bound. :func:`bounded_stdio_client` is the same client
with a linear reader that refuses a message over :data:`MAX_MESSAGE_BYTES`: the connection of
that one server is closed with an error naming it, and the gateway reconnects it.

Every spawned server leads its own process group (as the SDK spawns it); the groups still
alive are ended when the gateway exits, whatever the path (an exception, ``SIGINT``,
``SIGTERM``): :func:`end_children`.

Example:
    >>> MAX_MESSAGE_BYTES // (1024 * 1024)
    32
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import AsyncGenerator, Callable
from typing import Any, TextIO

import anyio
import anyio.lowlevel
from mcp.client import stdio as sdk_stdio
from mcp.client.stdio import StdioServerParameters

__all__ = ["MAX_MESSAGE_BYTES", "MessageTooLarge", "bounded_stdio_client", "end_children"]

log = logging.getLogger("toolsift.gateway")

#: The largest message (one stdout line) a downstream server may send, in bytes.
MAX_MESSAGE_BYTES = 32 * 1024 * 1024

#: The process groups of the servers spawned and not yet stopped.
_GROUPS: set[int] = set()


class MessageTooLarge(Exception):
    """A downstream server sent a message over the cap."""


def end_children(grace: float = 1.0) -> None:
    """End the process group of every downstream server still running: ``SIGTERM``, then
    ``SIGKILL`` for what is left after ``grace`` seconds. Safe to call more than once."""
    groups = list(_GROUPS)
    if not groups or sys.platform == "win32":
        return
    for group in groups:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGTERM)
    deadline = time.monotonic() + grace
    alive = groups
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = [g for g in alive if _group_alive(g)]
    for group in alive:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)
    _GROUPS.difference_update(groups)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


#: The handlers the exit guard replaced, called after it ends the servers.
_PREVIOUS: dict[int, Any] = {}


def _on_signal(signum: int, frame: Any) -> None:
    end_children()
    previous = _PREVIOUS.get(signum)
    if callable(previous):  # asyncio's or uvicorn's: the gateway then stops as it would
        previous(signum, frame)
    elif previous != signal.SIG_IGN:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def install_exit_guard() -> None:
    """End the servers' process groups on any exit: at interpreter exit, and on ``SIGTERM``
    or ``SIGINT`` before the handler that was there (asyncio's, uvicorn's, or the default)
    runs: a shutdown that hangs, or a default ``SIGTERM`` that runs no clean-up, leaves no
    server behind."""
    global _GUARDED
    if _GUARDED:
        return
    _GUARDED = True
    atexit.register(end_children)
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(ValueError, OSError):  # not the main thread
            current = signal.getsignal(signum)
            if current is not _on_signal and current != signal.SIG_IGN:
                _PREVIOUS[signum] = current
                signal.signal(signum, _on_signal)


_GUARDED = False


def _lines(max_bytes: int) -> Callable[[bytes], list[bytes]]:
    """A splitter of a byte stream into lines, linear in its input: each chunk is searched
    once and an unfinished line is kept as a list of parts. Raises :class:`MessageTooLarge`
    as soon as a line passes ``max_bytes``."""
    parts: list[bytes] = []
    size = 0

    def feed(chunk: bytes) -> list[bytes]:
        nonlocal size
        out = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            piece = chunk[start:end]
            if size + len(piece) > max_bytes:
                raise MessageTooLarge(size + len(piece))
            out.append(b"".join((*parts, piece)) if parts else piece)
            parts.clear()
            size = 0
            start = end + 1
        rest = chunk[start:]
        if rest:
            size += len(rest)
            if size > max_bytes:
                raise MessageTooLarge(size)
            parts.append(rest)
        return out

    return feed


@contextlib.asynccontextmanager
async def bounded_stdio_client(
    server: StdioServerParameters,
    errlog: TextIO = sys.stderr,
    *,
    max_bytes: int = MAX_MESSAGE_BYTES,
    on_error: Callable[[str], None] | None = None,
) -> AsyncGenerator[Any, None]:
    """The SDK's ``stdio_client`` with a linear, bounded stdout reader: a message (line) over
    ``max_bytes`` closes the connection, after ``on_error`` is called with the reason."""
    install_exit_guard()
    process = await sdk_stdio._create_platform_compatible_process(
        command=server.command,
        args=server.args,
        env=sdk_stdio.get_default_environment() | (server.env or {}),
        errlog=errlog,
        cwd=server.cwd,
    )
    group = process.pid
    _GROUPS.add(group)
    send_in, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_out = anyio.create_memory_object_stream[Any](0)
    shutting_down = False
    writer_done = anyio.Event()
    encoding, errors = server.encoding, server.encoding_error_handler

    async def stdout_reader() -> None:
        assert process.stdout is not None
        feed = _lines(max_bytes)
        try:
            async with send_in:
                try:
                    async for chunk in process.stdout:
                        for line in feed(chunk):
                            if not line.strip():
                                continue
                            text = line.decode(encoding, errors)
                            try:
                                await send_in.send(sdk_stdio._parse_line(text))
                            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                                return
                except MessageTooLarge as exc:
                    reason = (
                        f"it sent a message over {max_bytes:,} bytes ({exc.args[0]:,} bytes "
                        "read so far without an end of line)"
                    )
                    if on_error is not None:
                        on_error(reason)
                    await send_in.aclose()  # the session sees the end before the drain
                finally:
                    await sdk_stdio._drain_stdout(process)
        except anyio.ClosedResourceError:
            pass
        except (anyio.BrokenResourceError, ConnectionError):
            if not shutting_down:
                log.exception("reading a downstream server's stdout failed")

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_out:
                async for message in write_out:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((data + "\n").encode(encoding, errors))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await send_in.aclose()
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(sdk_stdio._WRITER_FLUSH_TIMEOUT):
            await writer_done.wait()
        await sdk_stdio._stop_server_process(process)
        if _group_alive(group):  # the server exited but left children in its group
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGKILL)
        _GROUPS.discard(group)
        for stream in (read_stream, write_stream, send_in, write_out):
            await stream.aclose()
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            shutting_down = True
            with anyio.CancelScope(shield=True):
                await shutdown()
            tg.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()
