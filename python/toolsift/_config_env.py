"""``${VAR}`` in a server's ``args``, ``env``, ``url`` and ``headers``: the gateway's environment.

``${VAR}`` is the value of the environment variable ``VAR``, ``${VAR:-default}`` the default
when ``VAR`` is unset or empty, and ``$${`` a literal ``${``. Nothing else is special: no shell
is involved, ``$VAR`` without braces stays as written, and the result is never expanded again.
An unset variable without a default, or an unterminated ``${``, is a :class:`ConfigError`
naming the key, so a server never starts with a literal ``${TOKEN}`` as its credential.

Example:
    >>> expand("Bearer ${TOKEN}", "headers.Authorization", {"TOKEN": "abc"})
    'Bearer abc'
    >>> expand("${HOME_DIR:-/srv}/data", "args", {})
    '/srv/data'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .errors import ConfigError

__all__ = ["expand"]

_REFERENCE = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{")


def expand(text: str, key: str, environ: Mapping[str, str]) -> str:
    """``text`` with every ``${VAR}`` and ``${VAR:-default}`` replaced from ``environ``.

    Raises:
        ConfigError: a variable is unset and has no default, or a ``${`` is not a reference
            (``key`` names the setting).
    """
    if "${" not in text:
        return text

    def value(found: re.Match[str]) -> str:
        whole, name, default = found.group(0), found.group(1), found.group(2)
        if whole == "$${":
            return "${"
        if name is None:
            raise ConfigError(
                f"{key}: '${{' must start a reference like ${{VAR}} or ${{VAR:-default}} "
                "(write $${ for a literal '${')",
                key=key,
            )
        got = environ.get(name)
        if got:
            return got
        if default is not None:
            return default
        if got is None:
            raise ConfigError(
                f"{key}: the environment variable {name} is not set (use ${{{name}:-default}} "
                "for a default)",
                key=key,
            )
        return got

    return _REFERENCE.sub(value, text)
