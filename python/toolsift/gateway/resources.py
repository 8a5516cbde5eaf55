"""The downstream servers' prompts and resources, proxied by the gateway under their server's
name, as its tools are.

* A prompt ``NAME`` of server ``SERVER`` is listed as ``mcp__SERVER__NAME`` (the canonical
  name a tool of that name would get: :func:`toolsift.tools.mcp_name`).
* A resource ``URI`` of server ``SERVER`` is listed as ``toolsift:///SERVER/URI`` (``SERVER``
  as in the canonical names; ``URI`` whole, so ``file:///a.txt`` of server ``fs`` is
  ``toolsift:///fs/file:///a.txt``); a resource template's URI template likewise.

Prompts and resources are not searched and not gated: a client lists them, and gets or reads
them by their gateway name; the request goes to their server with the call rules of
:meth:`toolsift.gateway.downstream.Downstream.request` (a ``call_timeout``, the server's error
as the request's error). A server's ``list_changed`` for prompts or resources relists them and
tells the clients.

Example:
    >>> resource_uri("fs", "file:///a.txt")
    'toolsift:///fs/file:///a.txt'
"""

from __future__ import annotations

import base64
import contextlib
from typing import Any

import mcp_types
from fastmcp.exceptions import PromptError, ResourceError
from fastmcp.prompts import Message, Prompt, PromptResult
from fastmcp.prompts.base import PromptArgument
from fastmcp.resources import Resource, ResourceContent, ResourceResult, ResourceTemplate
from pydantic import AnyUrl, PrivateAttr

from ..tools import _name_part, mcp_name
from .downstream import DownstreamError

__all__ = ["Extras", "resource_uri"]

_SCHEME = "toolsift:///"


def resource_uri(server: str, uri: str) -> str:
    """The gateway's URI (or URI template) of ``uri`` of ``server``."""
    return f"{_SCHEME}{_name_part(server, True)}/{uri}"


def _normal(uri: str) -> str:
    """``uri`` as FastMCP writes it (a client may send either form)."""
    with contextlib.suppress(Exception):
        return str(AnyUrl(uri))
    return uri


class _Prompt(Prompt):
    _route: Any = PrivateAttr(default=None)

    async def render(self, arguments: dict[str, Any] | None = None) -> PromptResult:
        extras, server, name = self._route
        try:
            result = await extras.request(
                server, lambda c: c.get_prompt_mcp(name, arguments or {}), f"prompt {name!r}"
            )
        except DownstreamError as exc:
            raise PromptError(str(exc)) from None
        return PromptResult(
            messages=[Message(content=m.content, role=m.role) for m in result.messages],
            description=result.description,
        )


def _contents(result: mcp_types.ReadResourceResult) -> ResourceResult:
    items = []
    for item in result.contents:
        if isinstance(item, mcp_types.BlobResourceContents):
            items.append(ResourceContent(base64.b64decode(item.blob), mime_type=item.mime_type))
        else:
            items.append(ResourceContent(getattr(item, "text", ""), mime_type=item.mime_type))
    return ResourceResult(contents=items)


class _Resource(Resource):
    _route: Any = PrivateAttr(default=None)

    async def read(self) -> ResourceResult:
        extras, server, uri = self._route
        try:
            result = await extras.request(
                server, lambda c: c.read_resource_mcp(uri), f"resource {uri!r}"
            )
        except DownstreamError as exc:
            raise ResourceError(str(exc)) from None
        return _contents(result)


class _Template(ResourceTemplate):
    _route: Any = PrivateAttr(default=None)

    async def create_resource(self, uri: str, params: dict[str, Any], context: Any = None) -> Any:
        extras, server, template = self._route
        prefix = resource_uri(server, "")
        normal = _normal(uri)
        backend = uri[len(prefix) :] if uri.startswith(prefix) else normal[len(_normal(prefix)) :]
        resource = _Resource(uri=AnyUrl(uri), name=self.name, mime_type=self.mime_type)
        resource._route = (extras, server, backend)
        return resource


class Extras:
    """The prompts, resources and resource templates of every downstream server."""

    def __init__(self, catalog: Any) -> None:
        self.catalog = catalog
        self._prompts: dict[str, dict[str, Any]] = {}
        self._resources: dict[str, dict[str, Any]] = {}
        self._templates: dict[str, dict[str, Any]] = {}
        self._listed: dict[str, Any] = {}

    async def request(self, server: str, make: Any, what: str) -> Any:
        downstream = self.catalog.downstreams[server]
        client = downstream._live()
        return await downstream.request(make(client), what, client)

    def set_server(self, server: str, extras: dict[str, list[Any]]) -> bool:
        """``server``'s new prompts and resources; ``True`` if they changed."""
        key = {k: [item.model_dump_json() for item in v] for k, v in extras.items()}
        if self._listed.get(server) == key:
            return False
        self._listed[server] = key
        prompts = {}
        for item in extras.get("prompts", []):
            prompt = _Prompt(
                name=mcp_name(server, item.name),
                title=item.title,
                description=item.description,
                arguments=[
                    PromptArgument(
                        name=a.name, description=a.description, required=bool(a.required)
                    )
                    for a in item.arguments or []
                ],
            )
            prompt._route = (self, server, item.name)
            prompts[prompt.name] = prompt
        resources = {}
        for item in extras.get("resources", []):
            resource = _Resource(
                uri=AnyUrl(resource_uri(server, str(item.uri))),
                name=item.name,
                title=item.title,
                description=item.description,
                mime_type=item.mime_type or "text/plain",
            )
            resource._route = (self, server, str(item.uri))
            resources[str(resource.uri)] = resource
        templates = {}
        for item in extras.get("resourceTemplates", []):
            template = _Template(
                uri_template=resource_uri(server, item.uri_template),
                name=item.name,
                title=item.title,
                description=item.description,
                mime_type=item.mime_type or "text/plain",
                parameters={},
            )
            template._route = (self, server, item.uri_template)
            templates[template.uri_template] = template
        self._prompts[server] = prompts
        self._resources[server] = resources
        self._templates[server] = templates
        return True

    def prompts(self) -> list[Any]:
        return [p for server in self._prompts.values() for p in server.values()]

    def prompt(self, name: str) -> Any:
        for server in self._prompts.values():
            if name in server:
                return server[name]
        return None

    def resources(self) -> list[Any]:
        return [r for server in self._resources.values() for r in server.values()]

    def resource(self, uri: str) -> Any:
        normal = _normal(uri)
        for server in self._resources.values():
            found = server.get(normal) or server.get(uri)
            if found is not None:
                return found
        return None

    def templates(self) -> list[Any]:
        return [t for server in self._templates.values() for t in server.values()]

    def template(self, uri: str) -> Any:
        for server in self._templates.values():
            for template in server.values():
                if template.matches(uri) is not None:
                    return template
        return None

    async def notify_all(self) -> None:
        """Tell every client that prompts and resources may have changed."""
        registry = self.catalog.gateway.registry
        for state in registry.states():
            session = state.notify
            if session is None:
                continue
            for note in (
                mcp_types.PromptListChangedNotification(),
                mcp_types.ResourceListChangedNotification(),
            ):
                with contextlib.suppress(Exception):
                    await session.send_notification(note)
