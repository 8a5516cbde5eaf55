"""The dashboard's HTTP routes: the page, its static files and the JSON API (Starlette).

=========================  =========================================================
``GET /dashboard/``        the page (plain HTML, CSS and one script, shipped inside the package)
``GET /api/catalog``       servers (tools, schema tokens, connection state) and tools
``GET /api/tool?name=``    one tool's full definition
``GET /api/search?q=``     a trial search (``limit``, ``contract``), each score explained
``GET /api/settings``      the ``tool_search`` settings; ``PUT`` changes them (``save``)
``GET /api/sessions``      the connected clients: activations, searches, token savings
=========================  =========================================================

Every API call is checked by :class:`Guard`: the gateway's Host and Origin rule
(:func:`toolsift.gateway.http.refusal`: on a local bind a ``Host`` that is not local gets 421,
an ``Origin`` other than the page's own scheme, host and port gets 403), then the token when one
is set (``Authorization: Bearer TOKEN``, compared in constant time). A body must be JSON
(``Content-Type: application/json``) of at most :data:`MAX_BODY_BYTES` (413 otherwise, refused
from its ``Content-Length`` before it is read, or as soon as the bytes streamed pass the cap).
The page cannot be framed by another site.

Example:
    >>> from toolsift import default_tools
    >>> from toolsift.config import ToolSearchConfig
    >>> from toolsift.dashboard.backend import Dashboard
    >>> board = Dashboard.for_tools(default_tools(), ToolSearchConfig())
    >>> [r.path for r in routes(board, Guard())][:2]
    ['/', '/dashboard/']
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable
from importlib import resources
from typing import Any, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .._options import limit_error
from ..errors import ConfigError, StoreError, ToolsiftError
from ..gateway.http import FRAME_HEADERS, is_local, refusal
from ..gateway.http import check_bind as _check_bind
from .backend import Dashboard

__all__ = ["Guard", "routes", "is_local", "check_bind", "TOKEN_ENV", "MAX_BODY_BYTES"]

#: The environment variable holding the dashboard's token.
TOKEN_ENV = "TOOLSIFT_DASHBOARD_TOKEN"
#: The largest request body the API reads (a settings change is a few hundred bytes).
MAX_BODY_BYTES = 1024 * 1024
_STATIC = {
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
    "index.html": "text/html; charset=utf-8",
}


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve the dashboard on a non-local address without a token.

    Raises:
        ConfigError: ``host`` is not local and ``token`` is empty.

    Example:
        >>> check_bind("127.0.0.1", None)
    """
    try:
        _check_bind(
            host,
            token,
            what="the dashboard",
            how=f"pass --dashboard-token TOKEN or set {TOKEN_ENV}",
        )
    except ConfigError as exc:
        raise ConfigError(str(exc), key="dashboard_token") from None


class Guard:
    """The checks of every API call.

    Arguments:
        token: the token every call must carry (``None``: none needed, for a local bind).
        local: the server is bound to a local address: a request must name a local ``Host``.
    """

    def __init__(self, token: str | None = None, *, local: bool = True) -> None:
        self.token = token or None
        self.local = local

    def refusal(self, request: Request) -> Response | None:
        """The response refusing ``request``, or ``None`` when it may proceed."""
        refused = refusal(request.headers, request.url.scheme, local=self.local)
        if refused is not None:
            return _error(refused.status, refused.message)
        if request.method in ("PUT", "POST"):
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return _error(415, "the body must be JSON (Content-Type: application/json)")
        if self.token is not None:
            given = request.headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            ok = scheme.lower() == "bearer" and hmac.compare_digest(
                value.strip().encode(), self.token.encode()
            )
            if not ok:
                return _error(401, "a valid dashboard token is needed (Authorization: Bearer)")
        return None


def _error(status: int, message: str, field: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"error": message}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status)


Handler = Callable[[Request], Awaitable[Response]]


async def _body(request: Request) -> bytes | Response:
    """The request's body, or the response refusing it: over :data:`MAX_BODY_BYTES` (413),
    judged by ``Content-Length`` first and by the bytes read while streaming."""
    too_big = _error(413, f"the body is over {MAX_BODY_BYTES:,} bytes")
    length = request.headers.get("content-length")
    if length is not None:
        if not length.strip().isdigit():
            return _error(400, "the Content-Length header is not a number")
        if int(length) > MAX_BODY_BYTES:
            return too_big
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return too_big
        chunks.append(chunk)
    return b"".join(chunks)


def routes(board: Dashboard, guard: Guard) -> list[Route]:
    """The page's and the API's routes over ``board``, every API call checked by ``guard``."""

    def guarded(handler: Handler) -> Handler:
        async def endpoint(request: Request) -> Response:
            refused = guard.refusal(request)
            return refused if refused is not None else await handler(request)

        return endpoint

    async def home(_request: Request) -> Response:
        return RedirectResponse("/dashboard/")

    async def page(request: Request) -> Response:
        name = request.path_params.get("name", "index.html")
        if name not in _STATIC:
            return _error(404, "not found")
        text = resources.files(__package__).joinpath("static", name).read_bytes()
        headers = {"cache-control": "no-store", **FRAME_HEADERS}
        return Response(text, media_type=_STATIC[name], headers=headers)

    async def catalog(_request: Request) -> Response:
        return JSONResponse(board.catalog())

    async def tool(request: Request) -> Response:
        found = board.tool(request.query_params.get("name", ""))
        if found is None:
            return _error(404, f"no tool named {request.query_params.get('name', '')!r}", "name")
        return JSONResponse(found)

    async def search(request: Request) -> Response:
        params = request.query_params
        limit: Any = params.get("limit") or None
        if limit is not None:
            try:
                limit = int(limit)
            except ValueError:
                return _error(400, str(limit_error(limit)), "limit")
        try:
            found = board.search(
                params.get("q", ""), limit, params.get("contract", "search_tool_bm25")
            )
        except ToolsiftError as exc:
            kind = type(exc).__name__
            field = {"LimitError": "limit", "DiscoveryError": "enabled"}.get(kind, "q")
            return _error(400, str(exc), field)
        except ValueError as exc:
            return _error(400, str(exc), "contract")
        return JSONResponse(found)

    async def settings(request: Request) -> Response:
        if request.method == "GET":
            return JSONResponse(board.settings_view())
        raw = await _body(request)
        if isinstance(raw, Response):
            return raw
        try:
            body = json.loads(raw or b"{}")
        except (ValueError, RecursionError):  # RecursionError: nested too deeply
            return _error(400, "the body must be JSON (and not nested too deeply)")
        if not isinstance(body, dict):
            return _error(400, "the body must be a JSON object")
        save = body.get("save", False)
        if not isinstance(save, bool):
            return _error(400, f"save must be true or false, got {save!r}", "save")
        client = request.client
        who = f"{client.host}:{client.port}" if client is not None else "?"
        try:
            view = await board.update(body.get("tool_search", {}), save=save, who=who)
        except ConfigError as exc:
            field = (exc.key or "").removeprefix("tool_search.")
            return _error(422, str(exc), field or None)
        except OSError as exc:
            return _error(500, f"cannot write {board.config_path}: {exc.strerror or exc}")
        return JSONResponse(view)

    async def sessions(_request: Request) -> Response:
        # Off the event loop (for the most part): the gateway's MCP traffic never waits for
        # this page's poll. With a shared store: every replica's clients.
        try:
            return JSONResponse({"sessions": await board.shared_sessions()})
        except StoreError as exc:
            return _error(503, str(exc))

    return [
        Route("/", home, methods=["GET"]),
        Route("/dashboard/", page, methods=["GET"]),
        Route("/dashboard/static/{name}", page, methods=["GET"]),
        Route("/api/catalog", guarded(catalog), methods=["GET"]),
        Route("/api/tool", guarded(tool), methods=["GET"]),
        Route("/api/search", guarded(search), methods=["GET"]),
        Route("/api/settings", guarded(settings), methods=["GET", "PUT", "POST"]),
        Route("/api/sessions", guarded(sessions), methods=["GET"]),
    ]
