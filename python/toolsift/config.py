"""One configuration file for tool search: ``toolsift.toml``, or the ``tool_search`` block of an
``mcpServers`` JSON file (the Claude Desktop / Cursor format that ``toolsift serve`` reads).

Every entry point reads it through this module: :meth:`toolsift.DiscoverySession.from_config`,
the command line (``--config``) and the gateway (``toolsift serve``). A TOML file holds a
``[tool_search]`` table and, for the gateway, ``[mcpServers.NAME]`` tables; a JSON file holds
``"tool_search"`` and ``"mcpServers"`` objects. Unknown keys and values of the wrong type raise
:class:`~toolsift.errors.ConfigError` naming the file and the key. :func:`save_config` writes the
``tool_search`` block back atomically (a temporary file, then ``os.replace``), keeping the
previous file as ``FILE.bak`` and every other key of the file as it was.

Example:
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "toolsift.toml"
    >>> _ = path.write_text('[tool_search]\\nmax_results = 3\\nrate_limit = "5/min"\\n')
    >>> config = load_config(path)
    >>> config.max_results, config.rate_limit.per_seconds
    (3, 60.0)
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, Union

from ._config_toml import dumps_toml
from ._text.analysis import PROFILE_ALIASES, PROFILES, check_profile
from .errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

__all__ = [
    "ToolSearchConfig",
    "ServerConfig",
    "GatewayConfig",
    "RateLimit",
    "load_config",
    "load_gateway_config",
    "parse_tool_search",
    "save_config",
]

StrPath = Union[str, "os.PathLike[str]"]
SearchStyle = Literal["activate", "search-and-call"]

_MODES = ("off", "all", "mcp-only", "auto")
_STYLES = ("activate", "search-and-call")
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hour)s?\s*$")
_UNITS = {"s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0}
_UNITS.update({"h": 3600.0, "hour": 3600.0})


@dataclass(frozen=True)
class RateLimit:
    """A token bucket's size and refill: ``count`` searches per ``per_seconds`` seconds.

    Example:
        >>> RateLimit.parse("5/min")
        RateLimit(count=5, per_seconds=60.0)
    """

    count: int
    per_seconds: float

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        """``"N/sec"``, ``"N/min"``, ``"N/hour"`` or ``"N/10s"``; a ValueError otherwise."""
        found = _RATE.match(text) if isinstance(text, str) else None
        if found is None or int(found.group(1)) < 1:
            raise ValueError(
                f"must be like '5/min' (a positive count per sec, min or hour), got {text!r}"
            )
        every = float(found.group(2) or 1)
        if every <= 0:
            raise ValueError(f"must have a positive period, got {text!r}")
        return cls(int(found.group(1)), every * _UNITS[found.group(3)])

    def __str__(self) -> str:
        for unit, seconds in (("hour", 3600.0), ("min", 60.0), ("sec", 1.0)):
            if self.per_seconds == seconds:
                return f"{self.count}/{unit}"
        return f"{self.count}/{self.per_seconds:g}s"


@dataclass(frozen=True)
class ToolSearchConfig:
    """The ``tool_search`` settings, typed and frozen; every field has a default.

    Attributes:
        enabled: discovery on (``False`` is ``mode = "off"``: every tool is listed).
        always_available: tools (any of a tool's names) or whole servers never hidden.
        max_results: how many tools one search activates or returns by default.
        max_limit: the cap on a search's ``limit`` in every entry point (default 25).
        threshold: matches scoring below this are dropped (0.0 = off).
        mode: the discovery mode: ``"all"``, ``"mcp-only"``, ``"auto"`` or ``"off"``.
        profile: the analysis profile (``"english"`` or ``"omp"``).
        style: the gateway's surface: ``"activate"`` (a search activates its matches for that
            client, which then lists them) or ``"search-and-call"`` (``search_tools`` +
            ``call_tool``, as FastMCP's search transforms).
        gate: refuse calls to tools the client session never activated or selected.
        regex_tool: also offer the regex search meta-tool (Anthropic
            ``tool_search_tool_regex``-style: a pattern over names, descriptions and
            parameters), in the ``activate`` style.
        rate_limit: searches allowed per client session (a token bucket), or ``None``.
        call_timeout: seconds a downstream tool call may take before it fails.
        meta_tool_name: the name of the search tool the model sees.
        semantic: semantic ranking: ``True``, ``False`` or ``"auto"`` (on when the
            ``toolsift[semantic]`` extra is installed; ``TOOLSIFT_SEMANTIC`` decides otherwise).
        min_confidence: "nothing fits": a search whose best match is less confident than
            this (0..1) answers that no tool matches; ``None`` is the fitted default, 0 never
            abstains.

    Example:
        >>> ToolSearchConfig(max_results=3).max_results
        3
    """

    enabled: bool = True
    always_available: tuple[str, ...] = ()
    max_results: int = 8
    max_limit: int = 25
    threshold: float = 0.0
    mode: Literal["off", "all", "mcp-only", "auto"] = "all"
    profile: str = "english"
    style: SearchStyle = "activate"
    gate: bool = True
    regex_tool: bool = False
    rate_limit: RateLimit | None = None
    call_timeout: float = 30.0
    meta_tool_name: str = "search_tool_bm25"
    semantic: bool | Literal["auto"] = "auto"
    min_confidence: float | None = None

    def __post_init__(self) -> None:
        if self.profile in PROFILE_ALIASES:  # a former name: the profile's own is kept
            object.__setattr__(self, "profile", PROFILE_ALIASES[self.profile])
        if self.max_results > self.max_limit:
            raise ConfigError(
                f"tool_search.max_results ({self.max_results}) is above max_limit "
                f"({self.max_limit}).",
                key="max_results",
            )

    @property
    def effective_mode(self) -> str:
        """``mode``, or ``"off"`` when ``enabled`` is false."""
        return self.mode if self.enabled else "off"

    def to_dict(self) -> dict[str, Any]:
        """The settings as the plain values a config file holds (``rate_limit`` as text).

        Example:
            >>> ToolSearchConfig(gate=False).to_dict()["gate"]
            False
        """
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "always_available":
                value = list(value)
            elif f.name in ("rate_limit", "min_confidence"):
                if value is None:
                    continue
                value = str(value) if f.name == "rate_limit" else value
            out[f.name] = value
        return out


@dataclass(frozen=True)
class ServerConfig:
    """One downstream MCP server of an ``mcpServers`` block.

    Attributes:
        name: the key it is configured under (the ``server`` part of canonical names).
        command, args, env, cwd: a stdio server's process.
        url, headers: a Streamable HTTP (or SSE, ``transport = "sse"``) server.
        transport: ``"stdio"``, ``"http"`` or ``"sse"`` (inferred from ``command``/``url``).
    """

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    transport: Literal["stdio", "http", "sse"] = "stdio"

    def to_mcp_config(self) -> dict[str, Any]:
        """The entry as FastMCP's ``MCPConfig`` reads it."""
        if self.transport == "stdio":
            entry: dict[str, Any] = {"command": self.command, "args": list(self.args)}
            if self.env:
                entry["env"] = dict(self.env)
            if self.cwd:
                entry["cwd"] = self.cwd
            return entry
        entry = {"url": self.url, "transport": self.transport}
        if self.headers:
            entry["headers"] = dict(self.headers)
        return entry


@dataclass(frozen=True)
class GatewayConfig:
    """What ``toolsift serve`` reads: the downstream servers and the ``tool_search`` block."""

    servers: tuple[ServerConfig, ...]
    tool_search: ToolSearchConfig
    path: str | None = None


# --- reading -----------------------------------------------------------------------------------


def _read(path: StrPath) -> tuple[str, dict[str, Any]]:
    file = os.fspath(path)
    try:
        data = Path(file).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read: {exc.strerror or exc}", path=file) from None
    if not data.strip():
        raise ConfigError(f"{file}: the file is empty.", path=file)
    try:
        if file.endswith(".toml"):
            doc: Any = tomllib.loads(data.decode("utf-8-sig"))
        else:
            doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        kind = "TOML" if file.endswith(".toml") else "JSON"
        raise ConfigError(f"{file}: not valid {kind}: {exc}", path=file) from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{file}: the top level must be an object.", path=file)
    return file, doc


def _fail(file: str | None, key: str, problem: str) -> ConfigError:
    where = f"{file}: " if file else ""
    return ConfigError(f"{where}{key} {problem}", path=file, key=key)


def _typed(value: Any, kind: str, file: str | None, key: str) -> Any:
    if kind == "bool":
        if not isinstance(value, bool):
            raise _fail(file, key, f"must be true or false, got {value!r}")
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise _fail(file, key, f"must be a positive integer, got {value!r}")
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(file, key, f"must be a number, got {value!r}")
        value = float(value)
        if not math.isfinite(value) or value < 0:
            raise _fail(file, key, f"must be a finite number >= 0, got {value!r}")
    elif kind == "str":
        if not isinstance(value, str) or not value:
            raise _fail(file, key, f"must be a non-empty string, got {value!r}")
    return value


def parse_tool_search(block: Any, *, path: StrPath | None = None) -> ToolSearchConfig:
    """A :class:`ToolSearchConfig` from a ``tool_search`` mapping (as read from TOML or JSON).

    Raises:
        ConfigError: an unknown key or a value of the wrong type; the message names the key
            (``tool_search.KEY``) and the file.

    Example:
        >>> parse_tool_search({"style": "search-and-call", "gate": "off"}).gate
        False
    """
    file = os.fspath(path) if path is not None else None
    if not isinstance(block, Mapping):
        raise _fail(file, "tool_search", f"must be a table/object, got {type(block).__name__}")
    known = {f.name for f in fields(ToolSearchConfig)}
    values: dict[str, Any] = {}
    for key, value in block.items():
        name = f"tool_search.{key}"
        if key not in known:
            raise _fail(file, name, f"is not a known key (known: {', '.join(sorted(known))})")
        if key in ("enabled",):
            values[key] = _typed(value, "bool", file, name)
        elif key in ("gate", "regex_tool"):
            if value in ("on", "off"):
                value = value == "on"
            values[key] = _typed(value, "bool", file, name)
        elif key in ("max_results", "max_limit"):
            values[key] = _typed(value, "int", file, name)
        elif key in ("threshold", "call_timeout"):
            values[key] = _typed(value, "float", file, name)
            if key == "call_timeout" and values[key] == 0:
                raise _fail(file, name, "must be above 0")
        elif key == "always_available":
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise _fail(file, name, f"must be a list of tool or server names, got {value!r}")
            values[key] = tuple(value)
        elif key == "mode":
            if value not in _MODES:
                raise _fail(file, name, f"must be one of {', '.join(_MODES)}, got {value!r}")
            values[key] = value
        elif key == "style":
            if value not in _STYLES:
                raise _fail(file, name, f"must be one of {', '.join(_STYLES)}, got {value!r}")
            values[key] = value
        elif key == "profile":
            if value not in PROFILES and value not in PROFILE_ALIASES:
                raise _fail(
                    file, name, f"must be one of {', '.join(sorted(PROFILES))}, got {value!r}"
                )
            values[key] = check_profile(value)
        elif key == "rate_limit":
            if value is None or value == "off":
                values[key] = None
                continue
            try:
                values[key] = RateLimit.parse(value)
            except ValueError as exc:
                raise _fail(file, name, str(exc)) from None
        elif key == "semantic":
            values[key] = _semantic(value, file, name)
        elif key == "min_confidence":
            values[key] = None if value is None else _typed(value, "float", file, name)
            if values[key] is not None and values[key] > 1:
                raise _fail(file, name, f"must be between 0 and 1, got {value!r}")
        else:  # meta_tool_name
            values[key] = _typed(value, "str", file, name)
    try:
        return ToolSearchConfig(**values)
    except ConfigError as exc:
        raise _fail(file, f"tool_search.{exc.key}", str(exc).split(": ", 1)[-1]) from None


def _semantic(value: Any, file: str | None, key: str) -> bool | Literal["auto"]:
    """``tool_search.semantic``: true, false, ``"auto"``, ``"on"`` or ``"off"``."""
    if value in ("on", "off"):
        return value == "on"
    if isinstance(value, bool) or value == "auto":
        return value  # type: ignore[no-any-return]
    raise _fail(file, key, f'must be true, false or "auto", got {value!r}')


def load_config(path: StrPath) -> ToolSearchConfig:
    """The ``tool_search`` settings of a ``.toml`` or ``.json`` file (defaults if it has none).

    Raises:
        ConfigError: the file cannot be read, is not TOML/JSON, or its block is invalid.
    """
    file, doc = _read(path)
    _check_top(doc, file)
    return parse_tool_search(doc.get("tool_search", {}), path=file)


def _check_top(doc: Mapping[str, Any], file: str) -> None:
    for key in doc:
        if key not in ("tool_search", "mcpServers"):
            raise _fail(file, key, "is not a known key (known: mcpServers, tool_search)")


def _server(name: str, entry: Any, file: str) -> ServerConfig:
    key = f"mcpServers.{name}"
    if not isinstance(entry, Mapping):
        raise _fail(file, key, "must be an object with a command or a url")
    allowed = {"command", "args", "env", "cwd", "url", "headers", "transport", "type"}
    for k in entry:
        if k not in allowed:
            raise _fail(
                file, f"{key}.{k}", f"is not a known key (known: {', '.join(sorted(allowed))})"
            )
    command, url = entry.get("command"), entry.get("url")
    if (command is None) == (url is None):
        raise _fail(file, key, "must have either a command (stdio) or a url (HTTP)")
    transport = entry.get("transport", entry.get("type"))
    if command is not None:
        _typed(command, "str", file, f"{key}.command")
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise _fail(file, f"{key}.args", f"must be a list of strings, got {args!r}")
        env = entry.get("env", {})
        _check_str_map(env, file, f"{key}.env")
        cwd = entry.get("cwd")
        if cwd is not None:
            _typed(cwd, "str", file, f"{key}.cwd")
        if transport not in (None, "stdio"):
            raise _fail(
                file, f"{key}.transport", f"must be stdio with a command, got {transport!r}"
            )
        return ServerConfig(name, command=command, args=tuple(args), env=dict(env), cwd=cwd)
    _typed(url, "str", file, f"{key}.url")
    headers = entry.get("headers", {})
    _check_str_map(headers, file, f"{key}.headers")
    if transport in (None, "http", "streamable-http", "streamable_http"):
        transport = "http"
    elif transport != "sse":
        raise _fail(file, f"{key}.transport", f"must be http or sse, got {transport!r}")
    return ServerConfig(name, url=url, headers=dict(headers), transport=transport)


def _check_str_map(value: Any, file: str, key: str) -> None:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise _fail(file, key, f"must be an object of strings, got {value!r}")


def load_gateway_config(path: StrPath) -> GatewayConfig:
    """The downstream servers (``mcpServers``) and ``tool_search`` settings of a config file.

    Raises:
        ConfigError: as :func:`load_config`, or ``mcpServers`` is missing, empty or has an
            entry without exactly one of ``command`` and ``url``.
    """
    file, doc = _read(path)
    _check_top(doc, file)
    servers = doc.get("mcpServers")
    if not isinstance(servers, Mapping) or not servers:
        raise _fail(file, "mcpServers", "must be a non-empty object of servers")
    parsed = tuple(_server(str(name), entry, file) for name, entry in servers.items())
    tool_search = parse_tool_search(doc.get("tool_search", {}), path=file)
    return GatewayConfig(parsed, tool_search, file)


# --- writing -----------------------------------------------------------------------------------


def save_config(config: ToolSearchConfig, path: StrPath) -> None:
    """Write ``config`` as the ``tool_search`` block of ``path``, atomically.

    Other keys of an existing file (``mcpServers``) are kept. The new text goes to a temporary
    file in the same directory, flushed to disk, then replaces ``path`` with ``os.replace``; the
    previous file is kept as ``path + ".bak"``. A reader never sees a half-written file.

    Raises:
        ConfigError: the existing file cannot be read or parsed.
        OSError: the directory cannot be written.

    Example:
        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "toolsift.toml"
        >>> save_config(ToolSearchConfig(max_results=4), path)
        >>> load_config(path).max_results
        4
    """
    file = os.fspath(path)
    doc: dict[str, Any] = {}
    if os.path.exists(file):
        _, doc = _read(file)
    doc["tool_search"] = config.to_dict()
    text = dumps_toml(doc) if file.endswith(".toml") else json.dumps(doc, indent=2) + "\n"
    directory = os.path.dirname(os.path.abspath(file))
    fd, tmp = tempfile.mkstemp(prefix=".toolsift-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if os.path.exists(file):
            shutil.copy2(file, file + ".bak")
        os.replace(tmp, file)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def with_overrides(config: ToolSearchConfig, **changes: Any) -> ToolSearchConfig:
    """``config`` with some fields replaced (``None`` values are ignored)."""
    return replace(config, **{k: v for k, v in changes.items() if v is not None})
