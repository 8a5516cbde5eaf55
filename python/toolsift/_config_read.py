"""Reading a config file: a regular file of at most :data:`MAX_CONFIG_BYTES`, decoded as UTF-8
and parsed as TOML (a ``.toml`` name) or JSON, whose top level is an object.

Devices, FIFOs, directories and oversized files are refused with a :class:`ConfigError`
(through :func:`toolsift.limits.read_regular_file`, the catalogue loader's reader), so
``toolsift serve /dev/zero`` reports an error instead of reading forever.

Example:
    >>> try:
    ...     read_config_text("/dev/null")
    ... except ConfigError as exc:
    ...     print(exc)
    /dev/null: is not a regular file (a device, a FIFO or a socket): not a config file
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Union

from .errors import ConfigError
from .limits import read_regular_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

__all__ = ["MAX_CONFIG_BYTES", "parse_config_text", "read_config", "read_config_text"]

StrPath = Union[str, "os.PathLike[str]"]

#: The largest config file read (bytes): anything bigger is not a config.
MAX_CONFIG_BYTES = 16 * 1024 * 1024


def read_config(path: StrPath) -> tuple[str, dict[str, Any]]:
    file, text = read_config_text(path)
    return file, parse_config_text(file, text)


def read_config_text(path: StrPath) -> tuple[str, str]:
    """The text of a config file: a regular file of at most :data:`MAX_CONFIG_BYTES`."""
    file = os.fspath(path)
    try:
        data, problem = read_regular_file(file, MAX_CONFIG_BYTES, "config file")
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read: {exc.strerror or exc}", path=file) from None
    if data is None:
        raise ConfigError(f"{file}: {problem}", path=file)
    if not data.strip():
        raise ConfigError(f"{file}: the file is empty.", path=file)
    try:
        return file, data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{file}: not valid UTF-8: {exc}", path=file) from None


def parse_config_text(file: str, text: str) -> dict[str, Any]:
    try:
        if file.endswith(".toml"):
            doc: Any = tomllib.loads(text)
        else:
            doc = json.loads(text)
    except (RecursionError, ValueError) as exc:
        kind = "TOML" if file.endswith(".toml") else "JSON"
        raise ConfigError(f"{file}: not valid {kind}: {exc}", path=file) from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{file}: the top level must be an object.", path=file)
    return doc
