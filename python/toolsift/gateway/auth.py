"""Authentication of the gateway's ``/mcp`` endpoint: a static bearer token, or any FastMCP
auth provider.

The static token (``--token``, ``$TOOLSIFT_TOKEN`` or ``tool_search.token``) is checked by
:class:`StaticToken`, a FastMCP ``TokenVerifier``: the same mechanism as a JWT or OAuth
provider passed to ``Gateway(config, auth=...)``, so both paths give the request an
authenticated principal (every holder of the static token is one principal, ``token``).
A wrong or missing token gets ``401``.

Example:
    >>> import asyncio
    >>> verifier = StaticToken("s3cret")
    >>> asyncio.run(verifier.verify_token("s3cret")).client_id
    'token'
    >>> asyncio.run(verifier.verify_token("guess")) is None
    True
"""

from __future__ import annotations

import hmac

from fastmcp.server.auth import AccessToken, TokenVerifier

__all__ = ["StaticToken"]


class StaticToken(TokenVerifier):
    """One bearer token, compared in constant time; its holders are the principal ``client_id``.

    Arguments:
        token: the token every request must carry (``Authorization: Bearer TOKEN``).
        client_id: the principal the token stands for.
    """

    def __init__(self, token: str, *, client_id: str = "token") -> None:
        if not token:
            raise ValueError("the token must not be empty")
        super().__init__()
        self._token = token.encode("utf-8", "surrogatepass")
        self.client_id = client_id

    async def verify_token(self, token: str) -> AccessToken | None:
        given = token.encode("utf-8", "surrogatepass")
        if not hmac.compare_digest(given, self._token):
            return None
        return AccessToken(token=token, client_id=self.client_id, scopes=[])
