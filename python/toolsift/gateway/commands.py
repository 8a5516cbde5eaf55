"""The MCP commands of the ``toolsift`` command line: ``serve`` and ``catalog``.

``toolsift serve CONFIG`` runs the gateway in front of the servers of an ``mcpServers`` config
file (JSON, or TOML with ``[mcpServers.NAME]`` tables) and its ``tool_search`` block.
``toolsift catalog --config CONFIG -o tools.jsonl`` connects to the same servers once and writes
their tools as toolsift JSONL records, so a catalogue can be searched offline
(``toolsift search --catalog tools.jsonl``): the tools of the servers it reached, with a
warning naming the others (``--strict``: fail instead). FastMCP is imported only when a command
runs.

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
import tempfile
from typing import Any

from ..config import (
    GatewayConfig,
    ToolSearchConfig,
    check_setting,
    load_config,
    load_gateway_config,
    with_overrides,
)
from ..errors import ConfigError, ToolsiftError

__all__ = ["add_parsers", "call_timeout", "gateway", "gather_tools"]

_MCP_HINT = "this command needs the MCP extra: pip install 'toolsift[mcp]'"


def add_parsers(subparsers: Any) -> None:
    """Add ``serve`` and ``catalog`` to the ``toolsift`` command's subparsers."""
    serve = subparsers.add_parser(
        "serve",
        help="run an MCP gateway with tool search in front of the servers of an mcpServers "
        "config file",
        description="Run an MCP gateway in front of the servers of an mcpServers config file "
        "(JSON, or TOML with [mcpServers.NAME] tables): clients see a search meta-tool instead "
        "of every tool, and the tools a search finds. Settings come from the file's tool_search "
        "block.",
    )
    serve.add_argument("config", help="mcpServers config file (JSON or TOML) with tool_search")
    serve.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (for a client that starts the gateway) or http (Streamable HTTP on /mcp)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="the address to bind with http")
    serve.add_argument("--port", type=int, default=8765, help="the port to bind with http")
    serve.add_argument(
        "--token",
        default=None,
        metavar="TOKEN",
        help="the bearer token every /mcp request must carry (default: $TOOLSIFT_TOKEN, else "
        "tool_search.token; required to bind to a non-local address)",
    )
    serve.add_argument(
        "--settings",
        default=None,
        metavar="FILE",
        help="a toolsift.toml whose tool_search settings replace the config file's",
    )
    serve.add_argument(
        "--call-timeout",
        type=call_timeout,
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
    serve.add_argument(
        "--storage",
        type=_storage_url,
        default=None,
        metavar="URL",
        help="where the clients' state is kept: memory:// (this process; the default, else the "
        "config's tool_search.storage) or redis://HOST:PORT/DB, rediss://, valkey://, valkeys:// "
        "(shared by every replica behind a load balancer; needs toolsift[redis])",
    )
    serve.add_argument(
        "--replica-id",
        default=None,
        metavar="ID",
        help="this replica's name, shown by the dashboard beside the clients it served last "
        "(default: HOST:PID)",
    )
    serve.set_defaults(handler=_serve)

    catalog = subparsers.add_parser(
        "catalog",
        help="connect to the servers of an mcpServers config and write their tools as JSONL",
        description="Connect once to every server of an mcpServers config file, list its tools "
        "and write them as toolsift JSONL records (for `toolsift search --catalog` or "
        "`toolsift dashboard --catalog`). A server that cannot be reached is named in a "
        "warning and left out; with --strict the command fails instead.",
    )
    catalog.add_argument("--config", required=True, metavar="FILE", help="mcpServers config")
    catalog.add_argument("-o", "--output", required=True, metavar="FILE", help="JSONL to write")
    catalog.add_argument(
        "--strict",
        action="store_true",
        help="fail (and write nothing) when a server cannot be reached",
    )
    catalog.set_defaults(handler=_catalog)


def call_timeout(text: str) -> float:
    """``--call-timeout``'s value, checked by the config file's rule (a finite number above 0).

    Example:
        >>> call_timeout("2.5")
        2.5
    """
    try:
        return float(check_setting("call_timeout", float(text)))
    except (ConfigError, ValueError):
        raise argparse.ArgumentTypeError(
            f"must be a finite number of seconds above 0, got {text!r}"
        ) from None


def _storage_url(text: str) -> str:
    """``--storage``'s value, checked by the config file's rule (the password masked)."""
    try:
        return str(check_setting("storage", text))
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("tool_search.storage ")) from None


def gateway(args: argparse.Namespace, config: GatewayConfig) -> Any:
    """The gateway ``serve`` runs: its shared store (``--storage``) checked first.

    Raises:
        StoreError: the store does not answer (the message names it, password masked).
        ConfigError: the MCP extra (or the ``redis`` one) is not installed.
    """
    try:
        from .server import Gateway
        from .storage import check_store
    except ImportError as exc:
        raise ConfigError(f"{_MCP_HINT} ({exc})") from None
    built = Gateway(config, replica=getattr(args, "replica_id", None))
    if built.store is not None:
        import asyncio

        asyncio.run(check_store(config.tool_search.storage))
    return built


def _gateway_config(args: argparse.Namespace, path: str) -> GatewayConfig:
    config = load_gateway_config(path)
    settings = config.tool_search
    if getattr(args, "settings", None):
        settings = load_config(args.settings)
    if getattr(args, "call_timeout", None) is not None:
        settings = with_overrides(settings, call_timeout=call_timeout(str(args.call_timeout)))
    settings = _semantic_overrides(args, settings)
    settings = with_overrides(settings, storage=getattr(args, "storage", None))
    from .http import resolve_token

    token = resolve_token(getattr(args, "token", None), settings.token)
    return GatewayConfig(config.servers, with_overrides(settings, token=token), config.path)


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
    served = gateway(args, config)
    if args.transport == "stdio":
        served.run("stdio")
    else:
        served.run("http", host=args.host, port=args.port)
    return 0


def gather_tools(config: GatewayConfig) -> tuple[list[Any], list[str]]:
    """Connect once to every server of ``config`` at the same time: the toolsift tools of the
    servers reached, and an error message for each of the others."""
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

    tools: list[Any] = []
    failed: list[str] = []
    for server, listed in zip(config.servers, asyncio.run(gather())):
        if isinstance(listed, DownstreamError):
            failed.append(str(listed))
            continue
        if isinstance(listed, BaseException):
            raise listed
        try:
            tools += from_mcp(listed, server.name)
        except ToolsiftError as exc:  # a tool the catalogue cannot hold
            failed.append(f"Server {server.name!r}: {exc}")
    return tools, failed


def _catalog(args: argparse.Namespace) -> int:
    config = _gateway_config(args, args.config)
    tools, failed = gather_tools(config)
    if failed and (args.strict or not tools):
        raise ConfigError("; ".join(failed))
    for problem in failed:
        print(f"toolsift: warning: {problem} (left out)", file=sys.stderr)
    lines = [json.dumps(tool.to_dict(), ensure_ascii=False) for tool in tools]
    _write_atomic(args.output, "\n".join(lines) + ("\n" if lines else ""))
    reached = len(config.servers) - len(failed)
    print(
        f"wrote {len(lines)} tools of {reached} of {len(config.servers)} servers to {args.output}",
        file=sys.stderr,
    )
    return 0


def _write_atomic(path: str, text: str) -> None:
    """Write ``path`` through a new temporary file in its directory (never a fixed name, which
    a planted symbolic link could redirect), then ``os.replace``."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".toolsift-", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
