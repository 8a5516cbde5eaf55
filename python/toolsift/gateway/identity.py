"""Who a gateway request comes from: the one place client identities are decided.

* stdio (and in-memory) serves one client, the process: key ``process``;
* over HTTP, an authenticated request's principal (the token's ``client_id``, issuer and
  subject) owns its rate-limit bucket; its activations and search history belong to its MCP
  session when it has one (``user:…/session:…``), else to the principal (``user:…``);
* an unauthenticated request with an MCP session (the handshake-era protocol) is its session:
  ``session:…``;
* an unauthenticated request without a session (the sessionless 2026-07-28 protocol over
  HTTP) has no identity (``key`` is ``None``): nothing it does persists, and it never shares
  anything with another client.

Example:
    >>> Identity(principal="alice", session="abc").key.startswith("user:alice~")
    True
    >>> Identity(session="abc").key, Identity(session="abc").bucket_key
    ('session:abc', None)
    >>> Identity().key is None
    True
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

__all__ = ["Identity", "PROCESS", "identify"]


@dataclass(frozen=True)
class Identity:
    """A request's client identity.

    Attributes:
        principal: the authenticated principal (a readable name), or ``None``.
        session: the MCP session id, or ``None`` (stdio, or the sessionless protocol).
        process: the request came over stdio: the process is the one client.
        digest: tells principals of the same name apart (issuer, client id, subject).
    """

    principal: str | None = None
    session: str | None = None
    process: bool = False
    digest: str = ""

    @property
    def _user(self) -> str:
        return f"user:{self.principal}~{self.digest or _digest(self.principal or '')}"

    @property
    def key(self) -> str | None:
        """The key of the client's state (activations, searches), ``None``: nothing persists."""
        if self.process:
            return "process"
        if self.principal is not None:
            return f"{self._user}/session:{self.session}" if self.session else self._user
        return f"session:{self.session}" if self.session else None

    @property
    def bucket_key(self) -> str | None:
        """The key of the principal's rate-limit bucket, kept across its sessions and apart
        from its states (``None``: no principal, the state has a bucket of its own)."""
        if self.principal is not None and not self.process:
            return self._user
        return None


#: The identity of the one client of a stdio gateway.
PROCESS = Identity(process=True)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _over_http(ctx: Any) -> bool:
    """Whether the request came over HTTP (also when the app runs under another server than
    ``FastMCP.run``, which alone sets the context's ``transport``)."""
    if ctx.transport in ("sse", "streamable-http"):
        return True
    from fastmcp.server.dependencies import get_http_request

    try:
        get_http_request()
    except RuntimeError:
        return False
    return True


def identify(ctx: Any) -> Identity:
    """The identity of the request of FastMCP context ``ctx`` (``None``: no request, so no
    identity)."""
    if ctx is None:  # outside any request (e.g. FastMCP listing tools at startup)
        return Identity()
    if not _over_http(ctx):
        return PROCESS
    session: str | None = None
    try:
        if not ctx._is_modern_protocol():  # handshake era: a negotiated Mcp-Session-Id
            session = ctx.session_id or None
    except Exception:  # no request (outside one): nothing to tell
        session = None
    from fastmcp.server.dependencies import get_access_token
    from mcp.server.auth.provider import principal_components

    token = get_access_token()
    if token is None:
        return Identity(session=session)
    client_id, issuer, subject = principal_components(token)
    name = (subject or client_id or "?")[:64]
    digest = _digest(json.dumps([client_id, issuer, subject]))
    return Identity(principal=name, session=session, digest=digest)
