"""The tool model: one agent tool definition, whatever format it was written in.

A :class:`Tool` is what the index stores and what the renderers print. The loaders in
:mod:`toolsift.loaders` build tools from MCP ``tools/list`` results, OpenAI and Anthropic tool
definitions and toolsift's own JSONL records; the ``to_*`` methods write them back out.

Example:
    >>> from toolsift.tools import Tool, mcp_name
    >>> tool = Tool(
    ...     name=mcp_name("github", "create_issue"),
    ...     description="Create a new issue in a GitHub repository.",
    ...     input_schema={"type": "object", "properties": {"title": {"type": "string"}}},
    ...     server="github",
    ...     mcp_tool_name="create_issue",
    ... )
    >>> tool.name, tool.display_label, tool.schema_keys
    ('mcp__github__create_issue', 'github/create_issue', ('title',))
"""

# The dataclass fields keep ``Optional[str]`` rather than ``str | None``: dataclass annotations
# are read at run time by ``typing.get_type_hints`` (Hypothesis, pydantic, cattrs), and
# ``str | None`` cannot be evaluated on Python 3.9.
# ruff: noqa: UP007, UP045

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Optional

from ._tool.checks import _OPTIONAL_STRING_FIELDS, _check_fields, _invalid
from ._tool.checks import _kind as _kind
from ._tool.lazy import install_lazy_fields
from ._tool.values import _thaw, _utf16_prefix
from .errors import ToolDefinitionError

__all__ = ["Tool", "alias_rank", "mcp_name", "mcp_prefix", "provider_name"]

#: How many UTF-16 code units of the description make the fallback summary (as OMP).
SUMMARY_UTF16_UNITS = 200

# Characters allowed in each part of a canonical MCP name (Claude Code's convention).
_UNSAFE_NAME_CHAR = re.compile(r"[^A-Za-z0-9_-]")
_SAFE_NAME = re.compile(r"[A-Za-z0-9_-]*")


# ``slots=True`` needs Python 3.10; on 3.9 the class is frozen but keeps a ``__dict__``.
_SLOTS: dict[str, bool] = {"slots": True} if sys.version_info >= (3, 10) else {}


def _default_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


@lru_cache(maxsize=4096)  # server names repeat on every tool of the server
def _sanitize_part(part: str) -> str:
    if _SAFE_NAME.fullmatch(part):
        return part
    if part.isascii() or max(part) <= "\uffff":
        return _UNSAFE_NAME_CHAR.sub("_", part)
    # One ``_`` per UTF-16 code unit, as JavaScript's ``replace(/[^a-zA-Z0-9_-]/g, "_")`` does:
    # a character outside the BMP is two code units, so it becomes ``__``.
    return _UNSAFE_NAME_CHAR.sub(lambda m: "__" if m.group() > "\uffff" else "_", part)


# A part ending like a hashed part (``_`` and 10 lowercase hex digits) is hashed itself, so a
# raw name can never equal another name's hashed form.
_HASH_TAIL = re.compile(r"_[0-9a-f]{10}\Z")
_UNDERSCORES = re.compile(r"_+")
#: Hex digits of the hash suffix of a canonical name part that is not kept as it is.
_PART_HASH = 10


def _kept_part(part: str, server: bool) -> bool:
    """Whether :func:`mcp_name` writes ``part`` unchanged (the twin of ``kept_part`` in
    ``rust/build/records.rs``)."""
    if not part or not _SAFE_NAME.fullmatch(part) or _HASH_TAIL.search(part):
        return False
    return not server or ("__" not in part and not part.endswith("_"))


@lru_cache(maxsize=65536)
def _name_part(part: str, server: bool) -> str:
    if _kept_part(part, server):
        return part
    readable = _UNDERSCORES.sub("_", _UNSAFE_NAME_CHAR.sub("_", part)).rstrip("_")
    digest = hashlib.sha256(part.encode("utf-8", "surrogatepass")).hexdigest()[:_PART_HASH]
    return f"{readable}_{digest}"


def mcp_prefix(server: str) -> str:
    """``mcp__<server>__``: the start of the canonical name of every tool of ``server``."""
    return f"mcp__{_name_part(server, True)}__"


def mcp_name(server: str, tool: str) -> str:
    """The canonical name of an MCP tool: ``mcp__<server>__<tool>``.

    A part made only of ``[A-Za-z0-9_-]`` is kept as it is (Claude Code's convention, and a
    valid OpenAI or Anthropic function name), unless it could be read another way: a server
    part with ``__`` or a trailing ``_`` (server ``a__b`` with tool ``c`` against server ``a``
    with tool ``b__c``), or a part that ends like a hashed one. Any other part is written with
    its unsafe characters as ``_`` (runs of ``_`` made one), then ``_`` and 10 hex digits of
    the SHA-256 of the raw part. So two different server/tool pairs never get the same name
    (``get.time`` and ``get_time``, or two non-ASCII names, are told apart by their hashes).

    Arguments:
        server: The MCP server name, as configured (e.g. ``"github"``).
        tool: The raw MCP tool name (e.g. ``"read_file"``).

    Returns:
        The canonical name.

    Example:
        >>> mcp_name("github", "create_issue")
        'mcp__github__create_issue'
        >>> mcp_name("a", "b__c") != mcp_name("a__b", "c")
        True
        >>> mcp_name("time", "get.time")
        'mcp__time__get_time_1d1114c3f4'
    """
    return f"mcp__{_name_part(server, True)}__{_name_part(tool, False)}"


#: What OpenAI and Anthropic accept as a tool name.
PROVIDER_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: Hex digits of the hash in a provider alias.
_ALIAS_HASH = 10


@lru_cache(maxsize=65536)
def provider_name(name: str) -> str:
    """``name`` as OpenAI and Anthropic accept a tool name (``^[a-zA-Z0-9_-]{1,64}$``).

    A valid name is returned unchanged. Any other (longer than 64 characters, or with other
    characters) gets a stable alias: a readable prefix of the sanitised name, ``_``, and 10 hex
    digits of its SHA-256, 64 characters at most. The same name always gets the same alias;
    :meth:`toolsift.DiscoverySession.resolve` maps an alias back to the tool.

    Example:
        >>> provider_name("mcp__git__git_status")
        'mcp__git__git_status'
        >>> alias = provider_name("mcp__some-long-server-name__" + "x" * 60)
        >>> len(alias), alias[:27]
        (64, 'mcp__some-long-server-name_')
    """
    if PROVIDER_NAME.fullmatch(name):
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_ALIAS_HASH]
    readable = _UNSAFE_NAME_CHAR.sub("_", name)[: 64 - _ALIAS_HASH - 1]
    return f"{readable}_{digest}"


@lru_cache(maxsize=8192)
def tool_aliases(name: str, server: str | None, mcp_tool_name: str | None) -> tuple[str, ...]:
    """:meth:`Tool.aliases` from the three fields it depends on.

    Memoised (a pure function of three strings, returning a tuple): a ``select:`` of a name held
    by many servers (``read_file``) asks each of its tools for its aliases on every call, and
    building them cost ~2.5 µs a tool. At most 8,192 entries (~3 MB at worst).

    Example:
        >>> tool_aliases("mcp__fs__read_file", "fs", "read_file")
        ('mcp__fs__read_file', 'read_file', 'fs.read_file', 'fs/read_file')
    """
    forms = [name]
    if server is not None:
        tool = mcp_tool_name if mcp_tool_name is not None else name
        prefix = f"mcp__{_sanitize_part(server)}__"
        if name.startswith(prefix) and len(name) > len(prefix):
            plain = name[len(prefix) :]
        else:
            plain = _sanitize_part(tool)
        forms += [tool, f"{server}.{tool}", f"{server}/{tool}", plain]
    elif mcp_tool_name is not None:
        forms.append(mcp_tool_name)
    return tuple(dict.fromkeys(forms))


def alias_rank(tool: Tool, form: str) -> int:
    """How strongly ``form`` names ``tool``, when several tools answer to it (lowest wins):
    0 its canonical name or provider alias, 1 ``server.tool`` / ``server/tool`` of its own
    server, 2 its raw MCP name, 3 its sanitised plain name. So another server's raw tool name
    ``fs.write`` never captures ``fs.write``, the qualified name of server ``fs``'s ``write``.

    Example:
        >>> fs = Tool(mcp_name("fs", "write"), server="fs", mcp_tool_name="write")
        >>> other = Tool(mcp_name("x", "fs.write"), server="x", mcp_tool_name="fs.write")
        >>> alias_rank(fs, "fs.write"), alias_rank(other, "fs.write")
        (1, 2)
    """
    if form == tool.name or form == provider_name(tool.name):
        return 0
    server, raw = tool.server, tool.mcp_tool_name
    if server is not None:
        raw = raw if raw is not None else tool.name
        if len(form) == len(server) + len(raw) + 1 and form[len(server)] in "./":
            if form.startswith(server) and form.endswith(raw):
                return 1
    return 2 if form == raw else 3


@dataclass(frozen=True, **_SLOTS)
class Tool:
    """One tool definition, immutable, equal by value and hashed by ``name``.

    Attributes:
        name: The canonical name, unique within an index. For MCP tools it is
            ``mcp__<server>__<tool>`` (see :func:`mcp_name`); the loaders build it.
        description: The full description shown to the model.
        input_schema: The JSON Schema of the arguments, a JSON object. It is stored as a
            read-only ``MappingProxyType`` over a shallow copy; nested values may be shared with
            the caller and must not be mutated. The ``to_*`` methods return deep copies. The
            loaders store a schema of plain JSON values more compactly, as its JSON text, and
            decode it on first read (a deep copy: nothing is shared with the loaded dicts).
        server: The MCP server name exactly as given, or ``None`` for a non-MCP tool.
        mcp_tool_name: The raw MCP tool name exactly as the server lists it (``read_file``).
        label: An explicit label, or ``None`` to derive one; read :attr:`display_label`.
        title: The MCP display title (``title`` or ``annotations.title``), for renderers.
        summary: An explicit summary, or ``None`` to derive one; read :attr:`display_summary`.
        search_hint: A curated phrase that keyword ranking scores above the description.
        source: Optional provenance, e.g. the repository the tool came from.
        display_label: The resolved label: ``label`` if given, else
            ``f"{server}/{mcp_tool_name or name}"`` for an MCP tool, else ``name``.
        display_summary: The resolved summary: ``summary`` if given, else the first 200 UTF-16
            code units of ``description`` (JavaScript's ``slice(0, 200)``), cut before a
            surrogate pair rather than through it, so the result may be 199 units long.
        schema_keys: The top-level property names of ``input_schema["properties"]``, sorted
            by code point; empty when ``properties`` is absent.

    ``display_label``, ``display_summary`` and ``schema_keys`` are computed on construction and
    are not constructor arguments, so ``dataclasses.replace`` recomputes them.

    A lone surrogate (U+D800..U+DFFF, which UTF-8 cannot encode: half of an emoji from a broken
    ``"\\ud83d"`` JSON escape) in ``description``, ``label``, ``title``, ``summary``,
    ``search_hint`` or ``source`` is replaced with U+FFFD.

    Raises:
        ToolDefinitionError: A field has the wrong type, ``name`` is empty, ``server``,
            ``mcp_tool_name`` or ``label`` is an empty string, ``input_schema`` or its
            ``properties`` is not a JSON object, or ``name``, ``server``, ``mcp_tool_name`` or a
            property name holds a lone surrogate.
    """

    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=_default_schema, repr=False)
    server: Optional[str] = None
    mcp_tool_name: Optional[str] = None
    label: Optional[str] = None
    title: Optional[str] = None
    summary: Optional[str] = None
    search_hint: Optional[str] = None
    source: Optional[str] = None
    display_label: str = field(init=False, repr=False, compare=False)
    display_summary: str = field(init=False, repr=False, compare=False)
    schema_keys: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        name = self.name
        # The stored value itself: ``input_schema``'s descriptor would decode a ``bytes`` value
        # as the compiled loader's frozen schema, which a caller may not pass.
        schema = _SCHEMA_STORAGE.__get__(self, Tool)
        keys = _check_fields(self, schema)

        if self.label is not None:
            label = self.label
        elif self.server is not None:
            label = f"{self.server}/{self.mcp_tool_name or name}"
        else:
            label = name
        summary = self.summary
        if summary is None:
            summary = _utf16_prefix(self.description, SUMMARY_UTF16_UNITS)

        # The dataclass is frozen: assign through object.__setattr__, as dataclasses itself does.
        object.__setattr__(self, "input_schema", MappingProxyType(dict(schema)))
        object.__setattr__(self, "display_label", label)
        object.__setattr__(self, "display_summary", summary)
        object.__setattr__(self, "schema_keys", keys)

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self) -> tuple[Any, ...]:
        # MappingProxyType cannot be pickled; rebuild from the constructor arguments instead.
        return (
            Tool,
            (
                self.name,
                self.description,
                dict(self.input_schema),
                self.server,
                self.mcp_tool_name,
                self.label,
                self.title,
                self.summary,
                self.search_hint,
                self.source,
            ),
        )

    def aliases(self) -> tuple[str, ...]:
        """Every name form this tool answers to, canonical name first, without duplicates.

        For an MCP tool these are the canonical name, the raw MCP tool name,
        ``server.tool``, ``server/tool`` (raw server and raw tool name) and the plain name, which
        is the sanitised tool part of the canonical name. A non-MCP tool answers to its name and,
        if set, ``mcp_tool_name``. The forms are returned raw; matching is left to the caller.
        """
        return tool_aliases(self.name, self.server, self.mcp_tool_name)

    def to_mcp(self) -> dict[str, Any]:
        """The tool as an MCP ``tools/list`` entry, under its raw MCP name.

        Returns:
            ``{"name", "title"?, "description", "inputSchema"}``; ``name`` is ``mcp_tool_name``
            when set, else ``name``; ``title`` only when set.
        """
        data: dict[str, Any] = {
            "name": self.mcp_tool_name if self.mcp_tool_name is not None else self.name
        }
        if self.title is not None:
            data["title"] = self.title
        data["description"] = self.description
        data["inputSchema"] = _thaw(self.input_schema)
        return data

    def to_openai_chat(self) -> dict[str, Any]:
        """The tool as an OpenAI Chat Completions function tool, under its canonical name (or
        its :func:`provider_name` alias when the name is not a valid OpenAI name)."""
        return {
            "type": "function",
            "function": {
                "name": provider_name(self.name),
                "description": self.description,
                "parameters": _thaw(self.input_schema),
            },
        }

    def to_openai_responses(self) -> dict[str, Any]:
        """The tool as an OpenAI Responses API function tool, under its canonical name (or its
        :func:`provider_name` alias)."""
        return {
            "type": "function",
            "name": provider_name(self.name),
            "description": self.description,
            "parameters": _thaw(self.input_schema),
        }

    def to_anthropic(self) -> dict[str, Any]:
        """The tool as an Anthropic Messages API client tool, under its canonical name (or its
        :func:`provider_name` alias)."""
        return {
            "name": provider_name(self.name),
            "description": self.description,
            "input_schema": _thaw(self.input_schema),
        }

    def to_dict(self) -> dict[str, Any]:
        """toolsift's own JSONL record of this tool; :meth:`from_dict` reads it back unchanged.

        Returns:
            ``name``, ``description`` and ``input_schema`` always, then ``server``,
            ``mcp_tool_name``, ``label``, ``title``, ``summary``, ``search_hint`` and ``source``
            when they are not ``None``. Derived values (``display_*``) are not written.
        """
        data: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "input_schema": _thaw(self.input_schema),
        }
        for field_name in _OPTIONAL_STRING_FIELDS:
            value = getattr(self, field_name)
            if value is not None:
                data[field_name] = value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tool:
        """Rebuild a tool from :meth:`to_dict`'s record, taking every field verbatim.

        ``name`` is used as given (no MCP canonicalisation; :func:`toolsift.loaders.from_records`
        does that for hand-written records). Missing optional fields take their defaults and
        unknown keys are ignored, so records written by a newer version still load.

        Raises:
            ToolDefinitionError: ``data`` is not a JSON object, ``name`` is missing, or a field
                is invalid (see :class:`Tool`).
        """
        if not isinstance(data, Mapping):
            raise ToolDefinitionError(
                f"A tool record must be a JSON object, got {_kind(data)}.", tool=None, field=None
            )
        if "name" not in data:
            raise _invalid(None, "name", "is required")
        kwargs: dict[str, Any] = {"name": data["name"]}
        for field_name in ("description", "input_schema", *_OPTIONAL_STRING_FIELDS):
            if field_name in data:
                kwargs[field_name] = data[field_name]
        return cls(**kwargs)


# ``input_schema`` and ``schema_keys`` of the compiled loader's tools are filled on first read.
install_lazy_fields(Tool)
_SCHEMA_STORAGE: Any = Tool.__dict__["input_schema"].storage
