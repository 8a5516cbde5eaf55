"""The dashboard on the command line: ``toolsift serve CONFIG --dashboard`` and
``toolsift dashboard [CONFIG]``.

``serve --dashboard`` serves the page beside the gateway, from the same process: with
``--transport http`` on the same address as the MCP endpoint (``/mcp``), with stdio on
``--host``/``--port``. ``toolsift dashboard`` shows a catalogue without live servers: the
``--catalog`` files (e.g. written by ``toolsift catalog``), else the built-in catalogue, with the
``tool_search`` settings of CONFIG (a ``toolsift.toml`` or ``mcpServers`` file; a file that does
not exist yet is created on the first save). Starlette and uvicorn (FastMCP's stack) are
imported only when a command runs.

On the command line: ``toolsift serve mcp.json --transport http --dashboard`` and
``toolsift dashboard toolsift.toml --catalog tools.jsonl``.

Example:
    >>> import argparse
    >>> from toolsift.gateway.commands import add_parsers as add_gateway
    >>> parser = argparse.ArgumentParser(prog="toolsift")
    >>> sub = parser.add_subparsers(dest="command")
    >>> add_gateway(sub)
    >>> add_parsers(sub)
    >>> parser.parse_args(["serve", "mcp.json", "--dashboard"]).dashboard
    True
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from typing import Any

from ..config import ToolSearchConfig, load_config
from ..errors import ConfigError

__all__ = ["add_parsers"]

_HINT = "the dashboard needs the MCP extra: pip install 'toolsift[mcp]'"


def add_parsers(subparsers: Any) -> None:
    """Add ``--dashboard`` to ``serve`` and the ``dashboard`` command."""
    serve = subparsers.choices["serve"]
    serve.add_argument(
        "--dashboard",
        action="store_true",
        help="also serve the web dashboard (with --transport http: on the same address; with "
        "stdio: on --host/--port)",
    )
    _token_argument(serve)
    serve.set_defaults(gateway_handler=serve.get_default("handler"), handler=_serve)

    board = subparsers.add_parser(
        "dashboard",
        help="open the web dashboard on a catalogue without live servers (--catalog files, "
        "else the built-in catalogue)",
        description="Serve the web dashboard on a catalogue without live servers: browse the "
        "tools, try searches with each score explained, and change the tool_search settings "
        "of CONFIG (Apply, or Apply & save to write them to the file). For live servers use "
        "`toolsift serve CONFIG --dashboard`.",
    )
    board.add_argument(
        "config",
        nargs="?",
        default=None,
        help="toolsift.toml or mcpServers config whose tool_search settings are shown and "
        "saved (created on the first save); without one, the defaults, and saving is off",
    )
    board.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="FILE",
        help="MCP, OpenAI, Anthropic or toolsift JSON/JSONL catalogue (repeatable), e.g. "
        "written by `toolsift catalog`; default: the built-in catalogue",
    )
    board.add_argument(
        "--server", default=None, metavar="NAME", help="the MCP server of a raw tools/list file"
    )
    board.add_argument("--host", default="127.0.0.1", help="the address to bind")
    board.add_argument("--port", type=int, default=8765, help="the port to bind")
    _token_argument(board)
    board.set_defaults(handler=_dashboard)


def _token_argument(parser: Any) -> None:
    parser.add_argument(
        "--dashboard-token",
        default=None,
        metavar="TOKEN",
        help="the token every dashboard API call must carry (default: $TOOLSIFT_DASHBOARD_TOKEN;"
        " required to bind to a non-local address)",
    )


def _token(args: argparse.Namespace) -> str | None:
    from .api import TOKEN_ENV

    return args.dashboard_token or os.environ.get(TOKEN_ENV) or None


def _logging() -> None:
    """Settings changes (``toolsift.dashboard``) and gateway warnings go to stderr."""
    logger = logging.getLogger("toolsift")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


def _url(host: str, port: int, token: str | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/dashboard/"
    if token:
        return f"{url} (open {url}#token=TOKEN)"
    # Without a token any local user or process may change the settings: fine on a machine of
    # one user, not on a shared one.
    return f"{url} (no token: any local user can change the settings; see --dashboard-token)"


def _serve(args: argparse.Namespace) -> int:
    if not args.dashboard:
        return int(args.gateway_handler(args))
    try:
        from ..gateway.commands import _gateway_config, gateway
        from .api import Guard, check_bind, is_local, routes
        from .backend import Dashboard
    except ImportError as exc:
        raise ConfigError(f"{_HINT} ({exc})") from None
    token = _token(args)
    check_bind(args.host, token)
    config = _gateway_config(args, args.config)
    served = gateway(args, config)
    board = Dashboard.from_gateway(served, args.settings or config.path)
    guard = Guard(token, local=is_local(args.host))
    _logging()
    print(f"toolsift dashboard: {_url(args.host, args.port, token)}", file=sys.stderr)
    if args.transport == "http":
        for route in routes(board, guard):
            served.mcp.custom_route(route.path, sorted(route.methods or ()))(route.endpoint)
        served.run("http", host=args.host, port=args.port)
        return 0
    asyncio.run(_stdio_and_dashboard(served, board, guard, args.host, args.port))
    return 0


async def _stdio_and_dashboard(gateway: Any, board: Any, guard: Any, host: str, port: int) -> None:
    """The gateway on stdio and the dashboard on ``host:port``, until either ends."""
    server = _server(board, guard, host, port)
    stdio = asyncio.create_task(gateway.mcp.run_stdio_async(show_banner=False))
    http = asyncio.create_task(server.serve())
    try:
        await asyncio.wait([stdio, http], return_when=asyncio.FIRST_COMPLETED)
    finally:
        server.should_exit = True  # uvicorn stops on its own, closing its connections
        stdio.cancel()
        await asyncio.gather(stdio, http, return_exceptions=True)
    for task in (stdio, http):
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


def _server(board: Any, guard: Any, host: str, port: int) -> Any:
    import uvicorn
    from starlette.applications import Starlette

    from .api import routes

    app = Starlette(routes=routes(board, guard))
    # No access log: with stdio, stdout carries the MCP messages.
    config = uvicorn.Config(
        app, host=host, port=port, log_config=None, access_log=False, lifespan="off"
    )
    return uvicorn.Server(config)


def _dashboard(args: argparse.Namespace) -> int:
    try:  # Starlette and uvicorn come with the MCP extra
        from .api import Guard, check_bind, is_local
        from .backend import Dashboard
    except ImportError as exc:
        raise ConfigError(f"{_HINT} ({exc})") from None
    token = _token(args)
    check_bind(args.host, token)
    settings = ToolSearchConfig()
    if args.config is not None and os.path.exists(args.config):
        settings = load_config(args.config)
    if args.catalog:
        from ..loaders import load_catalog

        tools = []
        for path in args.catalog:
            try:
                tools += load_catalog(path, server=args.server)
            except OSError as exc:
                raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
        source = ", ".join(args.catalog)
    else:
        from ..catalog import default_tools

        tools, source = default_tools(), "built-in catalogue"
    board = Dashboard.for_tools(tools, settings, config_path=args.config, source=source)
    guard = Guard(token, local=is_local(args.host))
    _logging()
    print(f"toolsift dashboard: {_url(args.host, args.port, token)}", file=sys.stderr)
    asyncio.run(_server(board, guard, args.host, args.port).serve())
    return 0
