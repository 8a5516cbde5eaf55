"""``tool_search.storage``: where the gateway keeps its clients' state, as a URL.

* ``memory://`` (the default): in the gateway process, lost when it stops; one replica only;
* ``redis://[USER:PASSWORD@]HOST[:PORT][/DB]`` and ``rediss://…`` (TLS): a Redis server shared
  by every replica of the gateway;
* ``valkey://…`` and ``valkeys://…`` (TLS): a Valkey server, the same way.

A URL's password is never shown: :func:`mask_url` replaces it wherever a URL is printed,
logged or sent to the dashboard.

Example:
    >>> check_storage_url("redis://:hunter2@cache:6379/0")
    'redis://:hunter2@cache:6379/0'
    >>> mask_url("redis://:hunter2@cache:6379/0")
    'redis://:***@cache:6379/0'
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["MEMORY", "STORAGE_SCHEMES", "check_storage_url", "mask_url", "storage_problem"]

#: The default storage: the gateway process's memory.
MEMORY = "memory://"
#: The schemes ``tool_search.storage`` accepts.
STORAGE_SCHEMES = ("memory", "redis", "rediss", "valkey", "valkeys")


def mask_url(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``.

    Example:
        >>> mask_url("valkey://app:pw@db:6379"), mask_url("memory://")
        ('valkey://app:***@db:6379', 'memory://')
    """
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return "<an invalid URL>"
    if not password:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[-1]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


def storage_problem(url: object) -> str | None:
    """Why ``url`` is not a storage URL, in words (``None``: it is one).

    Example:
        >>> storage_problem("redis://cache:6379/x")
        "the database after the host must be a number, got 'x'"
    """
    if not isinstance(url, str) or not url:
        return f"must be a storage URL (memory://, redis://HOST:PORT/DB, …), got {url!r}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"is not a valid URL: {exc}"
    scheme = parts.scheme.lower()
    if scheme not in STORAGE_SCHEMES:
        known = ", ".join(f"{s}://" for s in STORAGE_SCHEMES)
        return f"must start with one of {known}, got {mask_url(url)!r}"
    if scheme == "memory":
        return None if url.lower() == MEMORY else f"must be exactly memory://, got {url!r}"
    if not parts.hostname:
        return f"names no host: {mask_url(url)!r} (e.g. {scheme}://127.0.0.1:6379/0)"
    if port == 0:
        return f"port 0 is not a port: {mask_url(url)!r}"
    db = parts.path.strip("/")
    if db and not db.isdigit():
        return f"the database after the host must be a number, got {db!r}"
    if parts.query or parts.fragment:
        return f"takes no query or fragment: {mask_url(url)!r}"
    return None


def check_storage_url(url: object) -> str:
    """``url`` if it is a storage URL.

    Raises:
        ValueError: it is not (the message says why, the password masked).
    """
    problem = storage_problem(url)
    if problem is not None:
        raise ValueError(problem)
    return str(url)
