"""The HTTP checks shared by the gateway's ``/mcp`` endpoint and the dashboard.

ONE rule for both, applied before a request reaches either:

* on a local bind (``127.0.0.1``, ``::1``, ``localhost``) the ``Host`` header must name a local
  address: anything else is a DNS-rebinding attempt and gets ``421 Misdirected Request``;
* a request that carries an ``Origin`` (a browser's) must come from the server's own origin
  (scheme, host and port all equal) or one of the configured allowed origins, on any bind:
  anything else gets ``403 Forbidden``;
* serving on a non-local address needs a token (:func:`check_bind`).

:class:`HostOriginGuard` applies the rule to a whole ASGI app (the gateway's, with the
dashboard's routes on it); the dashboard's own guard calls :func:`refusal` itself.

Example:
    >>> refusal({"host": "evil.example:8765"}, "http", local=True).status
    421
    >>> refusal({"host": "127.0.0.1:8765", "origin": "http://evil.example"}, "http").status
    403
    >>> refusal({"host": "127.0.0.1:8765", "origin": "http://127.0.0.1:8765"}, "http") is None
    True
"""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError

__all__ = [
    "FRAME_HEADERS",
    "HostOriginGuard",
    "Refusal",
    "TOKEN_ENV",
    "check_bind",
    "health",
    "is_local",
    "normalized_origin",
    "refusal",
    "resolve_token",
]

#: The environment variable holding the ``/mcp`` token.
TOKEN_ENV = "TOOLSIFT_TOKEN"

#: Response headers that keep a page out of other sites' frames (clickjacking).
FRAME_HEADERS = {"x-frame-options": "DENY", "content-security-policy": "frame-ancestors 'none'"}
_DEFAULT_PORTS = {"http": 80, "https": 443}


def is_local(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost``.

    Example:
        >>> is_local("127.0.0.1"), is_local("::1"), is_local("0.0.0.0")
        (True, True, False)
    """
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: object, *, what: str = "the gateway", how: str = "") -> None:
    """Refuse to serve on a non-local address without a token.

    Arguments:
        host: the address to bind to.
        token: the token requests must carry (or any truthy marker of authentication).
        what: what is served, in words; ``how``: how to give a token, in words.

    Raises:
        ConfigError: ``host`` is not local and ``token`` is empty.

    Example:
        >>> check_bind("127.0.0.1", None)
    """
    if not is_local(host) and not token:
        how = how or "pass --token TOKEN or set TOOLSIFT_TOKEN"
        raise ConfigError(
            f"{what} on {host} (not a local address) needs a token: {how}, or bind to 127.0.0.1",
            key="token",
        )


def health(
    downstreams: list[str], store_reachable: bool, *, shared: bool = False
) -> tuple[bool, dict[str, Any]]:
    """Whether a gateway can serve, and the JSON body of its ``GET /healthz``: it can when its
    state store answers and at least one of its downstream servers (``downstreams``: each
    one's state) is connected. One failed server does not take every replica out of a load
    balancer: the others still serve; the body counts them. No server name, URL or error is
    shown (the route needs no token).

    Example:
        >>> health(["connected", "failed"], True)[0], health(["connected"], False)[0]
        (True, False)
    """
    counts = {k: downstreams.count(k) for k in ("connected", "connecting", "failed")}
    healthy = store_reachable and (counts["connected"] > 0 or not downstreams)
    return healthy, {
        "status": "ok" if healthy else "unavailable",
        "store": {"kind": "shared" if shared else "memory", "reachable": store_reachable},
        "downstreams": {"total": len(downstreams), **counts},
    }


def resolve_token(given: str | None, configured: str | None) -> str | None:
    """The ``/mcp`` token: ``given`` (``--token``), else ``$TOOLSIFT_TOKEN``, else
    ``configured`` (``tool_search.token``); ``None`` when none is set.

    Example:
        >>> resolve_token("a", "b")
        'a'
    """
    return given or os.environ.get(TOKEN_ENV) or configured or None


def normalized_origin(origin: str) -> str | None:
    """``scheme://host:port`` of a URL or origin (default ports made explicit), or ``None``
    when it names no host (``null``, garbage).

    Example:
        >>> normalized_origin("HTTP://LocalHost"), normalized_origin("null")
        ('http://localhost:80', None)
    """
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not scheme or not host:
        return None
    port = port if port is not None else _DEFAULT_PORTS.get(scheme)
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}" if port is not None else f"{scheme}://{shown}"


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused: the HTTP status and a message for the user."""

    status: int
    message: str


def refusal(
    headers: Mapping[str, str],
    scheme: str,
    *,
    local: bool = True,
    allowed_origins: Iterable[str] = (),
) -> Refusal | None:
    """The refusal of a request with ``headers`` received over ``scheme``, or ``None``.

    Arguments:
        headers: the request's headers (lower-case names).
        scheme: ``http`` or ``https``, as the server received the request.
        local: the server is bound to a local address: ``Host`` must name one.
        allowed_origins: origins trusted besides the server's own.
    """
    host = headers.get("host", "")
    try:
        hostname = urlsplit(f"//{host}").hostname or ""
    except ValueError:
        hostname = ""
    if local and not is_local(hostname):
        return Refusal(421, f"host {host!r} is not this local server")
    origin = headers.get("origin")
    if origin is not None:
        given = normalized_origin(origin)
        allowed = {normalized_origin(o) for o in allowed_origins}
        if given is None or (
            given != normalized_origin(f"{scheme}://{host}") and given not in allowed
        ):
            return Refusal(403, f"requests from origin {origin!r} are refused")
    return None


class HostOriginGuard:
    """ASGI middleware applying :func:`refusal` to every HTTP request of an app.

    Arguments:
        app: the app to guard.
        local: the server is bound to a local address.
        allowed_origins: origins trusted besides the server's own.
    """

    def __init__(self, app: Any, *, local: bool, allowed_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.local = local
        self.allowed_origins = tuple(allowed_origins)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {
                k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]
            }
            refused = refusal(
                headers,
                scope.get("scheme", "http"),
                local=self.local,
                allowed_origins=self.allowed_origins,
            )
            if refused is not None:
                body = json.dumps({"error": refused.message}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": refused.status,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
