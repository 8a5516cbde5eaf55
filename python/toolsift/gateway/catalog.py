"""The gateway's catalogue side: the downstream servers' tools as one catalogue, and as
FastMCP tools.

A :class:`GatewayCatalog` starts a :class:`~toolsift.gateway.downstream.Downstream` per
configured server and serves at once: each server joins the catalogue when it has connected
and listed its tools (``connecting``, ``connected`` or ``failed`` with its last error:
:meth:`GatewayCatalog.servers`). A search made while some server is still in its first
connection attempt waits for it a little (:data:`FIRST_WAIT` after the start at most).

A listing is converted and checked in a worker thread, tool by tool: a tool that is invalid
(past a cap, a bad schema) or whose canonical name another server already holds is refused
alone, with one log line, and the rest of its server serves. A burst of ``list_changed`` is
one relisting (the downstream debounces it). The FastMCP tool that ``tools/list`` shows and
the one a call runs are both made from the catalogue's :class:`~toolsift.Tool` of that name,
on first use: the listed definition is always the executed tool.

Example:
    >>> from toolsift.tools import Tool
    >>> _refusal("fs", "write", "it is listed twice")
    "server 'fs': tool 'write' refused: it is listed twice"
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from fastmcp.server.providers import Provider
from fastmcp.tools.base import Tool as FastMCPTool
from fastmcp.tools.base import ToolResult
from pydantic import PrivateAttr

from ..errors import ToolsiftError
from ..loaders import from_mcp
from ..metatool import meta_tool, regex_meta_tool
from ..tools import Tool
from .downstream import Downstream
from .resources import Extras

__all__ = [
    "CALL_TOOL",
    "FIRST_WAIT",
    "SEARCH_TOOLS",
    "GatewayCatalog",
    "CatalogProvider",
    "synthetic_tools",
]

log = logging.getLogger("toolsift.gateway")

#: The tool names of the ``search-and-call`` style (FastMCP's search transforms' names).
SEARCH_TOOLS, CALL_TOOL = "search_tools", "call_tool"
#: How long after the start a search waits for servers still in their first connection
#: attempt (seconds); later searches never wait.
FIRST_WAIT = 10.0
#: At most this many refused tools of one listing are logged one by one.
_LOGGED_REFUSALS = 20


class _GatewayTool(FastMCPTool):
    """A tool whose call the gateway handles (a downstream tool, or a synthetic one)."""

    _handler: Any = PrivateAttr(default=None)

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return await self._handler(self.name, arguments)


def gateway_tool(
    name: str, description: str, schema: dict[str, Any], handler: Any, **extra: Any
) -> Any:
    """A FastMCP tool whose calls go to ``handler(name, arguments)``."""
    tool = _GatewayTool(name=name, description=description, parameters=schema, **extra)
    tool._handler = handler
    return tool


def synthetic_tools(gateway: Any) -> list[Any]:
    """The gateway's own tools in its ``style``: the search meta-tool(s), or
    ``search_tools`` and ``call_tool``."""
    settings = gateway.settings
    definition = meta_tool(gateway.registry.template)
    if settings.style == "activate":
        tools = [
            gateway_tool(
                definition.name,
                definition.description,
                dict(definition.to_mcp()["inputSchema"]),
                gateway._search_activate,
            )
        ]
        if settings.regex_tool:
            regex = regex_meta_tool(gateway.registry.template)
            tools.append(
                gateway_tool(
                    regex.name,
                    regex.description,
                    dict(regex.to_mcp()["inputSchema"]),
                    gateway._search_activate_regex,
                )
            )
    else:
        search_schema = dict(definition.to_mcp()["inputSchema"])
        tools = [
            gateway_tool(
                SEARCH_TOOLS,
                "Search for tools by what they do. Returns the matching tool definitions "
                "(name, description, inputSchema), best first; call one with call_tool. "
                "`select:NAME` fetches a tool by exact name. When no tool fits the request, "
                "it says so: rephrase, or go on without a tool.",
                search_schema,
                gateway._search_definitions,
            ),
            gateway_tool(
                CALL_TOOL,
                "Call a tool found with search_tools, by its name, with its arguments.",
                {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The tool's name."},
                        "arguments": {
                            "type": "object",
                            "description": "The tool's arguments.",
                        },
                    },
                    "required": ["name"],
                },
                gateway._call_proxy,
            ),
        ]
    return tools


def _refusal(server: str, tool: str, reason: str) -> str:
    return f"server {server!r}: tool {tool!r} refused: {reason}"


class CatalogProvider(Provider):
    """The gateway's tools for FastMCP: ``tools/list`` gets the tools the current client may
    see (the search tools and its listed tools), a call looks any tool up by name in O(1).
    Each downstream tool's FastMCP tool is made from the catalogue on first use, and made
    again when the catalogue's tool of that name changes."""

    def __init__(self, gateway: Any) -> None:
        super().__init__()
        self.gateway = gateway
        self.synthetic: dict[str, Any] = {}
        self._built: dict[str, tuple[Tool, Any]] = {}

    def fastmcp_tool(self, tool: Tool) -> Any:
        """The FastMCP tool of catalogue tool ``tool`` (made once per definition)."""
        cached = self._built.get(tool.name)
        if cached is not None and cached[0] is tool:
            return cached[1]
        built = gateway_tool(
            tool.name,
            tool.description,
            dict(tool.to_mcp()["inputSchema"]),
            self.gateway._call_downstream,
            title=tool.title,
        )
        self._built[tool.name] = (tool, built)
        return built

    def forget(self, names: Any) -> None:
        for name in names:
            self._built.pop(name, None)

    async def _list_tools(self) -> list[Any]:
        gateway = self.gateway
        # A client's first listing sees the servers that connect in the first seconds (the
        # meta-tool's description names them); later listings never wait.
        await gateway.catalog.settle()
        find = gateway.registry.find
        try:
            state = await gateway.synced()
        except Exception as exc:  # the shared store does not answer: the search tools only
            log.warning("tools/list without the client's tools: %s", exc)
            return list(self.synthetic.values())
        listed = [find(n) for n in gateway.listed(state)]
        return [*self.synthetic.values(), *(self.fastmcp_tool(t) for t in listed if t)]

    async def _get_tool(self, name: str, version: Any = None) -> Any:
        found = self.synthetic.get(name)
        if found is None:  # a downstream tool, by any of its names
            tool = self.gateway.registry.find(name)
            found = self.fastmcp_tool(tool) if tool is not None else None
        return found

    # Prompts and resources of the downstream servers (toolsift.gateway.resources).
    async def _list_prompts(self) -> list[Any]:
        return self.gateway.catalog.extras.prompts()

    async def _get_prompt(self, name: str, version: Any = None) -> Any:
        return self.gateway.catalog.extras.prompt(name)

    async def _list_resources(self) -> list[Any]:
        return self.gateway.catalog.extras.resources()

    async def _get_resource(self, uri: str, version: Any = None) -> Any:
        return self.gateway.catalog.extras.resource(uri)

    async def _list_resource_templates(self) -> list[Any]:
        return self.gateway.catalog.extras.templates()

    async def _get_resource_template(self, uri: str, version: Any = None) -> Any:
        return self.gateway.catalog.extras.template(uri)


class GatewayCatalog:
    """The downstream servers of a gateway and the catalogue their tools make.

    Arguments:
        gateway: the gateway (its ``registry``, ``settings`` and synthetic tools).
    """

    def __init__(self, gateway: Any) -> None:
        self.gateway = gateway
        self.downstreams = {
            s.name: Downstream(
                s, self.on_tools, gateway.settings.call_timeout, on_extras=self.on_extras
            )
            for s in gateway.config.servers
        }
        #: Serialises catalogue changes (tool lists, settings).
        self.changes = asyncio.Lock()
        self.provider = CatalogProvider(gateway)
        #: The downstream prompts and resources.
        self.extras = Extras(self)
        #: Each server's refused tools: raw name -> why.
        self.refused: dict[str, dict[str, str]] = {}
        self._started = 0.0

    # --- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start connecting to every downstream server; return at once (they join as they
        connect)."""
        self._started = time.monotonic()
        for downstream in self.downstreams.values():
            downstream.start()

    async def stop(self) -> None:
        await asyncio.gather(*(d.stop() for d in self.downstreams.values()))

    async def settle(self) -> None:
        """Within :data:`FIRST_WAIT` of the start, wait for the servers still in their first
        connection attempt (a search then sees their tools); later, return at once."""
        left = self._started + FIRST_WAIT - time.monotonic()
        waiting = [d for d in self.downstreams.values() if d.state == "connecting"]
        if left > 0 and waiting:
            await asyncio.gather(*(d.wait_ready(left) for d in waiting))

    def servers(self) -> dict[str, dict[str, Any]]:
        """Each server's state: ``state`` (connecting, connected or failed), ``error`` (its
        last error), ``connections``, ``tools`` and ``refused`` (raw name -> why)."""
        catalog = self.gateway.registry.catalog
        return {
            name: {
                "state": d.state,
                "error": d.last_error,
                "connections": d.connections,
                "tools": len(catalog.get(name, ())),
                "refused": dict(self.refused.get(name, {})),
            }
            for name, d in self.downstreams.items()
        }

    # --- listings ------------------------------------------------------------------------------

    async def on_tools(self, server: str, tools: list[Any] | None) -> None:
        """A downstream server listed its tools (``None``: it went away; its tools stay listed
        and their calls fail until it is back)."""
        if tools is None:
            return
        gateway = self.gateway
        async with self.changes:
            checked = await asyncio.to_thread(self._check, server, tools)
            if checked is None:
                return
            accepted, refused = checked
            old = {t.name for t in gateway.registry.catalog.get(server, ())}
            try:
                await asyncio.to_thread(gateway.registry.set_server, server, accepted)
            except ToolsiftError as exc:  # not expected: the tools were checked one by one
                log.error("server %r: its tool list was refused: %s", server, exc)
                return
            self._log_refused(server, refused)
            self.provider.forget(old)
            gateway._register_synthetic()  # the meta-tool description lists the servers
        await gateway.registry.notify_all()

    def _check(self, server: str, items: list[Any]) -> tuple[list[Tool], dict[str, str]] | None:
        """``items`` as catalogue tools, each checked alone (in a worker thread): the tools
        and the refused ones (raw name -> why), or ``None`` when nothing changed."""
        refused: dict[str, str] = {}
        try:
            tools = from_mcp(items, server)  # the common case: every tool is valid
        except ToolsiftError:
            tools = []
            for index, item in enumerate(items):
                try:
                    tools.extend(from_mcp([item], server))
                except ToolsiftError as exc:
                    raw = getattr(item, "name", None)
                    refused[raw if isinstance(raw, str) else f"#{index}"] = str(exc)
        catalog = self.gateway.registry.catalog
        taken = {t.name: s for s, ts in catalog.items() if s != server for t in ts}
        accepted: list[Tool] = []
        seen: set[str] = set()
        for tool in tools:
            raw = tool.mcp_tool_name or tool.name
            holder = taken.get(tool.name)
            if holder is not None:
                refused[raw] = f"its name {tool.name!r} is already server {holder!r}'s"
            elif tool.name in seen:
                refused[raw] = f"its name {tool.name!r} is listed twice"
            else:
                seen.add(tool.name)
                accepted.append(tool)
        if catalog.get(server) == tuple(accepted) and refused == self.refused.get(server, {}):
            return None
        return accepted, refused

    def _log_refused(self, server: str, refused: dict[str, str]) -> None:
        before = self.refused.get(server, {})
        new = [(raw, why) for raw, why in refused.items() if before.get(raw) != why]
        for raw, why in new[:_LOGGED_REFUSALS]:
            log.warning(_refusal(server, raw, why))
        if len(new) > _LOGGED_REFUSALS:
            log.warning(
                "server %r: %d more tools refused (see the dashboard's catalogue)",
                server,
                len(new) - _LOGGED_REFUSALS,
            )
        self.refused[server] = refused

    async def on_extras(self, server: str, extras: dict[str, list[Any]] | None) -> None:
        """A downstream server listed its prompts and resources (``None``: it went away)."""
        if extras is None:
            return
        if self.extras.set_server(server, extras):
            await self.extras.notify_all()

    # --- settings ------------------------------------------------------------------------------

    def set_call_timeout(self, seconds: float) -> None:
        for downstream in self.downstreams.values():
            downstream.call_timeout = seconds
