"""One configuration file for tool search: ``toolsift.toml``, or the ``tool_search`` block of an
``mcpServers`` JSON file (the Claude Desktop / Cursor format that ``toolsift serve`` reads).

Every entry point reads it through this module: :meth:`toolsift.DiscoverySession.from_config`,
the command line (``--config``) and the gateway (``toolsift serve``). A TOML file holds a
``[tool_search]`` table and, for the gateway, ``[mcpServers.NAME]`` tables; a JSON file holds
``"tool_search"`` and ``"mcpServers"`` objects. Unknown keys and values of the wrong type raise
:class:`~toolsift.errors.ConfigError` naming the file and the key. :func:`save_config` writes the
``tool_search`` keys that changed back atomically (a temporary file, then ``os.replace``),
keeping the previous file as ``FILE.bak`` and the rest of the file as it was (a TOML file's
comments and formatting too). In a server's ``args``, ``env``, ``url`` and ``headers``,
``${VAR}`` and ``${VAR:-default}`` are read from the environment (:mod:`toolsift._config_env`).

Example:
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "toolsift.toml"
    >>> _ = path.write_text('[tool_search]\\nmax_results = 3\\nrate_limit = "5/min"\\n')
    >>> config = load_config(path)
    >>> config.max_results, config.rate_limit.per_seconds
    (3, 60.0)
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, Union

from ._config_env import expand
from ._config_rate import MAX_RATE_COUNT as MAX_RATE_COUNT
from ._config_rate import MAX_RATE_PERIOD as MAX_RATE_PERIOD
from ._config_rate import RateLimit
from ._config_read import MAX_CONFIG_BYTES as MAX_CONFIG_BYTES
from ._config_read import parse_config_text as _parse
from ._config_read import read_config as _read
from ._config_read import read_config_text as _read_text
from ._config_storage import MEMORY, mask_url, storage_problem
from ._config_write import DELETE, update_text, write_atomic
from ._text.analysis import PROFILE_ALIASES, PROFILES, check_profile
from .errors import ConfigError
from .tools import mcp_name

__all__ = [
    "ToolSearchConfig",
    "ServerConfig",
    "GatewayConfig",
    "RateLimit",
    "load_config",
    "load_gateway_config",
    "parse_tool_search",
    "check_setting",
    "save_config",
    "MAX_CONFIG_LIMIT",
    "MAX_SERVER_NAME",
]

StrPath = Union[str, "os.PathLike[str]"]
SearchStyle = Literal["activate", "search-and-call"]

_MODES = ("off", "all", "mcp-only", "auto")
_STYLES = ("activate", "search-and-call")

#: The largest ``max_results`` and ``max_limit`` a config may set (a search returning more
#: tools than this is no longer a search).
MAX_CONFIG_LIMIT = 10_000
#: The longest server name of an ``mcpServers`` block.
MAX_SERVER_NAME = 128


@dataclass(frozen=True)
class ToolSearchConfig:
    """The ``tool_search`` settings, typed and frozen; every field has a default.

    Attributes:
        enabled: discovery on (``False`` is ``mode = "off"``: every tool is listed).
        always_available: tools (any of a tool's names) or whole servers never hidden.
        max_results: how many tools one search activates or returns by default.
        max_limit: the cap on a search's ``limit`` in every entry point (default 25; at most
            :data:`MAX_CONFIG_LIMIT`, as ``max_results``).
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
        rate_limit: searches allowed per client (a token bucket), or ``None``.
        call_timeout: seconds a downstream tool call may take before it fails.
        meta_tool_name: the name of the search tool the model sees.
        max_clients: how many client states the gateway keeps; past it the least recently
            used is dropped.
        client_ttl: seconds after its last request that an idle client's state is dropped.
        allowed_origins: browser origins (``https://app.example``) trusted by ``/mcp``
            besides its own.
        token: the bearer token every ``/mcp`` request must carry (HTTP); never shown by
            :meth:`to_dict` nor written back by :func:`save_config` (the file's own is kept).
        semantic: semantic ranking: ``True``, ``False`` or ``"auto"`` (on when the
            ``toolsift[semantic]`` extra is installed; ``TOOLSIFT_SEMANTIC`` decides otherwise).
        min_confidence: "nothing fits": a search whose best match is less confident than
            this (0..1) answers that no tool matches; ``None`` is the fitted default, 0 never
            abstains.
        storage: where the gateway keeps its clients' state: ``"memory://"`` (the process),
            or a ``redis://``, ``rediss://``, ``valkey://`` or ``valkeys://`` URL shared by
            every replica (:mod:`toolsift._config_storage`). Its password is never shown:
            :meth:`to_dict` masks it and :func:`save_config` keeps the file's own.

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
    max_clients: int = 1000
    client_ttl: float = 1800.0
    allowed_origins: tuple[str, ...] = ()
    token: str | None = field(default=None, repr=False)
    semantic: bool | Literal["auto"] = "auto"
    min_confidence: float | None = None
    storage: str = field(default=MEMORY, repr=False)

    def __post_init__(self) -> None:
        if self.profile in PROFILE_ALIASES:  # a former name: the profile's own is kept
            object.__setattr__(self, "profile", PROFILE_ALIASES[self.profile])
        for key in ("max_results", "max_limit"):
            value = getattr(self, key)
            if not isinstance(value, int) or not 1 <= value <= MAX_CONFIG_LIMIT:
                raise ConfigError(
                    f"tool_search.{key} must be an integer from 1 to {MAX_CONFIG_LIMIT:,}, "
                    f"got {value!r}.",
                    key=key,
                )
        problem = storage_problem(self.storage)
        if problem is not None:
            raise ConfigError(f"tool_search.storage {problem}", key="storage")
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
            if f.name in ("always_available", "allowed_origins"):
                value = list(value)
            elif f.name in ("rate_limit", "min_confidence"):
                if value is None:
                    continue
                value = str(value) if f.name == "rate_limit" else value
            elif f.name == "token":  # a secret: never shown, saved or sent
                continue
            elif f.name == "storage":  # its password is a secret
                value = mask_url(value)
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
        elif key in ("max_results", "max_limit", "max_clients"):
            values[key] = _typed(value, "int", file, name)
        elif key in ("threshold", "call_timeout", "client_ttl"):
            values[key] = _typed(value, "float", file, name)
            if key in ("call_timeout", "client_ttl") and values[key] == 0:
                raise _fail(file, name, "must be above 0")
        elif key in ("always_available", "allowed_origins"):
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                what = "tool or server names" if key == "always_available" else "origins"
                raise _fail(file, name, f"must be a list of {what}, got {value!r}")
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
        elif key == "storage":
            problem = storage_problem(value)
            if problem is not None:
                raise _fail(file, name, problem)
            values[key] = value
        elif key == "min_confidence":
            values[key] = None if value is None else _typed(value, "float", file, name)
            if values[key] is not None and values[key] > 1:
                raise _fail(file, name, f"must be between 0 and 1, got {value!r}")
        else:  # meta_tool_name, token
            values[key] = _typed(value, "str", file, name)
    try:
        return ToolSearchConfig(**values)
    except ConfigError as exc:
        key = f"tool_search.{exc.key}"
        problem = str(exc).split(": ", 1)[-1].removeprefix(f"{key} ")
        raise _fail(file, key, problem) from None


def check_setting(key: str, value: Any) -> Any:
    """One ``tool_search`` value checked and converted by the config file's own rule.

    Raises:
        ConfigError: ``key`` is unknown or ``value`` is not valid for it.

    Example:
        >>> check_setting("call_timeout", 5)
        5.0
    """
    return getattr(parse_tool_search({key: value}), key)


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


def _server(name: str, entry: Any, file: str, environ: Mapping[str, str]) -> ServerConfig:
    key = f"mcpServers.{name}"
    if not name.strip():
        raise _fail(file, f"mcpServers.{name!r}", "is not a valid server name (it is empty)")
    if len(name) > MAX_SERVER_NAME:
        raise _fail(
            file,
            f"mcpServers.{name[:40]}...",
            f"is a server name of {len(name):,} characters (at most {MAX_SERVER_NAME})",
        )
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
        args = [_expand(a, file, f"{key}.args", environ) for a in args]
        env = {k: _expand(v, file, f"{key}.env.{k}", environ) for k, v in env.items()}
        return ServerConfig(name, command=command, args=tuple(args), env=env, cwd=cwd)
    _typed(url, "str", file, f"{key}.url")
    url = _expand(str(url), file, f"{key}.url", environ)
    headers = entry.get("headers", {})
    _check_str_map(headers, file, f"{key}.headers")
    headers = {k: _expand(v, file, f"{key}.headers.{k}", environ) for k, v in headers.items()}
    if transport in (None, "http", "streamable-http", "streamable_http"):
        transport = "http"
    elif transport != "sse":
        raise _fail(file, f"{key}.transport", f"must be http or sse, got {transport!r}")
    return ServerConfig(name, url=url, headers=dict(headers), transport=transport)


def _expand(text: str, file: str, key: str, environ: Mapping[str, str]) -> str:
    try:
        return expand(text, key, environ)
    except ConfigError as exc:
        raise ConfigError(f"{file}: {exc}", path=file, key=key) from None


def _check_names(servers: tuple[ServerConfig, ...], file: str) -> None:
    """Two server names must not give the same canonical tool names."""
    seen: dict[str, str] = {}
    for server in servers:
        canonical = mcp_name(server.name, "tool")
        other = seen.setdefault(canonical, server.name)
        if other != server.name:
            raise _fail(
                file,
                f"mcpServers.{server.name}",
                f"collides with the server {other!r}: both give tool names like {canonical!r}; "
                "rename one of them",
            )


def _check_str_map(value: Any, file: str, key: str) -> None:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise _fail(file, key, f"must be an object of strings, got {value!r}")


def load_gateway_config(
    path: StrPath, *, environ: Mapping[str, str] | None = None
) -> GatewayConfig:
    """The downstream servers (``mcpServers``) and ``tool_search`` settings of a config file.

    ``${VAR}`` and ``${VAR:-default}`` in a server's ``args``, ``env``, ``url`` and
    ``headers`` are replaced from ``environ`` (default: the process's environment).

    Raises:
        ConfigError: as :func:`load_config`, or ``mcpServers`` is missing, empty or has an
            entry without exactly one of ``command`` and ``url``, a server name is empty,
            longer than :data:`MAX_SERVER_NAME` or gives the same tool names as another, or a
            ``${VAR}`` names an unset variable.
    """
    file, doc = _read(path)
    _check_top(doc, file)
    servers = doc.get("mcpServers")
    if not isinstance(servers, Mapping) or not servers:
        raise _fail(file, "mcpServers", "must be a non-empty object of servers")
    env = os.environ if environ is None else environ
    parsed = tuple(_server(str(name), entry, file, env) for name, entry in servers.items())
    _check_names(parsed, file)
    tool_search = parse_tool_search(doc.get("tool_search", {}), path=file)
    return GatewayConfig(parsed, tool_search, file)


# --- writing -----------------------------------------------------------------------------------


def save_config(config: ToolSearchConfig, path: StrPath) -> None:
    """Write ``config`` as the ``tool_search`` block of ``path``, atomically.

    Only the keys whose value differs from the file's are written (a default the file does not
    set stays unset); everything else is kept: other keys (``mcpServers``), a TOML file's
    comments and formatting, a JSON file's key order and indentation. The new text is parsed
    back and checked, written to a temporary file next to the file (the target of a symbolic
    link, which is kept) with the old file's permissions, flushed to disk, then replaces it with
    ``os.replace``; the previous file is kept as ``path + ".bak"``. A reader never sees a
    half-written file.

    Raises:
        ConfigError: the existing file cannot be read or parsed, or its ``tool_search`` block
            is invalid.
        OSError: the directory cannot be written.

    Example:
        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "toolsift.toml"
        >>> save_config(ToolSearchConfig(max_results=4), path)
        >>> load_config(path).max_results
        4
    """
    file = os.fspath(path)
    text, current = "", ToolSearchConfig()
    if os.path.exists(file):
        file, text = _read_text(file)
        block = _parse(file, text).get("tool_search", {})
        current = parse_tool_search(block, path=file)
        if block.get("profile") in PROFILE_ALIASES:  # a former name is written as the new one
            current = replace(current, profile="")
    old, new = current.to_dict(), config.to_dict()
    changes = {k: new.get(k, DELETE) for k in {**old, **new} if new.get(k) != old.get(k)}
    if "storage" in changes and changes["storage"] != config.storage:
        del changes["storage"]  # masked: the file's own URL (and password) is kept

    def check(written: str) -> None:
        try:
            again = parse_tool_search(_parse(file, written).get("tool_search", {}), path=file)
        except ConfigError as exc:
            raise ConfigError(f"{file}: the settings would not read back: {exc}") from None
        if _unsaved(again) != _unsaved(config):  # never written: the token, a URL's password
            raise ConfigError(f"{file}: the settings would not read back as written", path=file)

    if changes or not text:
        write_atomic(file, update_text(file, text, "tool_search", changes), check)


def _unsaved(config: ToolSearchConfig) -> ToolSearchConfig:
    """``config`` without what :func:`save_config` never writes: the token, and a storage
    URL's password (the file's own is kept)."""
    return replace(config, token=None, storage=mask_url(config.storage))


def with_overrides(config: ToolSearchConfig, **changes: Any) -> ToolSearchConfig:
    """``config`` with some fields replaced (``None`` values are ignored)."""
    return replace(config, **{k: v for k, v in changes.items() if v is not None})
