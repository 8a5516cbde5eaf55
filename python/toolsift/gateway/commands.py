"""The MCP commands of the ``toolsift`` command line: ``serve`` and ``catalog``.

``toolsift serve CONFIG`` runs the gateway in front of the servers of an ``mcpServers`` config
file (JSON, or TOML with ``[mcpServers.NAME]`` tables) and its ``tool_search`` block.
``toolsift catalog --config CONFIG -o tools.jsonl`` connects to the same servers once and writes
their tools as toolsift JSONL records, so a catalogue can be searched offline
(``toolsift search --catalog tools.jsonl``). FastMCP is imported only when a command runs.

On the command line: ``toolsift serve mcp.json --transport http --port 8765`` and
``toolsift catalog --config mcp.json -o tools.jsonl``.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="toolsift")
    >>> add_parsers(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["serve", "mcp.json", "--transport", "http"]).transport
    'http'
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ..config import (
    GatewayConfig,
    ToolSearchConfig,
    load_config,
    load_gateway_config,
    with_overrides,
)
from ..errors import ConfigError

__all__ = ["add_parsers"]

_MCP_HINT = "this command needs the MCP extra: pip install 'toolsift[mcp]'"


def add_parsers(subparsers: Any) -> None:
    """Add ``serve`` and ``catalog`` to the ``toolsift`` command's subparsers."""
    serve = subparsers.add_parser(
        "serve",
        help="run an MCP gateway with tool search in front of the servers of an mcpServers "
        "config file",
    )
    serve.add_argument("config", help="mcpServers config file (JSON or TOML) with tool_search")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="with --transport http")
    serve.add_argument("--port", type=int, default=8765, help="with --transport http")
    serve.add_argument(
        "--settings",
        default=None,
        metavar="FILE",
        help="a toolsift.toml whose tool_search settings replace the config file's",
    )
    serve.add_argument(
        "--call-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long a downstream tool call may take (default: the config's, else 30)",
    )
    serve.add_argument(
        "--semantic",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="semantic ranking on or off (default: the config's tool_search.semantic, else on "
        "when toolsift[semantic] is installed)",
    )
    serve.add_argument(
        "--min-confidence",
        type=float,
        default=None,
        metavar="C",
        help="answer that no tool matches below this confidence, 0 to 1 (0: never; default: "
        "the config's tool_search.min_confidence, else the fitted default)",
    )
    serve.set_defaults(handler=_serve)

    catalog = subparsers.add_parser(
        "catalog",
        help="connect to the servers of an mcpServers config and write their tools as JSONL",
    )
    catalog.add_argument("--config", required=True, metavar="FILE", help="mcpServers config")
    catalog.add_argument("-o", "--output", required=True, metavar="FILE", help="JSONL to write")
    catalog.set_defaults(handler=_catalog)


def _gateway_config(args: argparse.Namespace, path: str) -> GatewayConfig:
    config = load_gateway_config(path)
    settings = config.tool_search
    if getattr(args, "settings", None):
        settings = load_config(args.settings)
    if getattr(args, "call_timeout", None) is not None:
        if not args.call_timeout > 0:
            raise ConfigError(f"--call-timeout must be above 0, got {args.call_timeout}")
        settings = with_overrides(settings, call_timeout=args.call_timeout)
    settings = _semantic_overrides(args, settings)
    return GatewayConfig(config.servers, settings, config.path)


def _semantic_overrides(args: argparse.Namespace, settings: ToolSearchConfig) -> ToolSearchConfig:
    """``--semantic/--no-semantic`` and ``--min-confidence`` over the config's settings."""
    confidence = getattr(args, "min_confidence", None)
    if confidence is not None and not 0 <= confidence <= 1:
        raise ConfigError(f"--min-confidence must be between 0 and 1, got {confidence}")
    return with_overrides(
        settings, semantic=getattr(args, "semantic", None), min_confidence=confidence
    )


def _serve(args: argparse.Namespace) -> int:
    config = _gateway_config(args, args.config)
    try:
        from .server import Gateway
    except ImportError as exc:
        raise ConfigError(f"{_MCP_HINT} ({exc})") from None
    gateway = Gateway(config)
    if args.transport == "stdio":
        gateway.run("stdio")
    else:
        gateway.run("http", host=args.host, port=args.port)
    return 0


def _catalog(args: argparse.Namespace) -> int:
    config = _gateway_config(args, args.config)
    try:
        import asyncio

        from ..loaders import from_mcp
        from .downstream import DownstreamError, connect_once
    except ImportError as exc:
        raise ConfigError(f"{_MCP_HINT} ({exc})") from None

    async def gather() -> list[Any]:
        return await asyncio.gather(
            *(connect_once(s) for s in config.servers), return_exceptions=True
        )

    results = asyncio.run(gather())
    lines: list[str] = []
    failed = []
    for server, tools in zip(config.servers, results):
        if isinstance(tools, DownstreamError):
            failed.append(str(tools))
            continue
        if isinstance(tools, BaseException):
            raise tools
        for tool in from_mcp(tools, server.name):
            lines.append(json.dumps(tool.to_dict(), ensure_ascii=False))
    if failed:
        raise ConfigError("; ".join(failed))
    tmp = f"{args.output}.tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + ("\n" if lines else ""))
    os.replace(tmp, args.output)
    print(
        f"wrote {len(lines)} tools of {len(config.servers)} servers to {args.output}",
        file=sys.stderr,
    )
    return 0
