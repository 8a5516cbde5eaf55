"""The checks of a :class:`~toolsift.Tool`'s fields, and the one wording of their errors
(``Tool 'x': field 'f' <problem>.``): types, empty names, the caps of :mod:`toolsift.limits`,
lone surrogates, and the input schema's shape.

Example:
    >>> from toolsift import Tool
    >>> Tool(name="x", input_schema={"properties": {"b": {}, "a": {}}}).schema_keys
    ('a', 'b')
    >>> Tool(name="x", server="")
    Traceback (most recent call last):
    ...
    toolsift.errors.ToolDefinitionError: Tool 'x': field 'server' must not be empty (use None).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..errors import ToolDefinitionError
from ..limits import MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, schema_problem

__all__ = ["_OPTIONAL_STRING_FIELDS", "_check_fields", "_invalid", "_kind"]

_OPTIONAL_STRING_FIELDS = (
    "server",
    "mcp_tool_name",
    "label",
    "title",
    "summary",
    "search_hint",
    "source",
)
# Optional fields that are names: when given they must not be empty.
_NON_EMPTY_FIELDS = ("server", "mcp_tool_name", "label")
# Text fields, in which a lone surrogate becomes U+FFFD (see Tool); in the other string fields
# (names) it is an error.
_TEXT_FIELDS = ("description", "label", "title", "summary", "search_hint", "source")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (UTF-8 cannot encode one). O(1) for ASCII."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _kind(value: object) -> str:
    """The type name used in error messages."""
    return "None" if value is None else type(value).__name__


def _invalid(tool: object, field_name: str, problem: str) -> ToolDefinitionError:
    """The one place that words a field error: ``Tool 'x': field 'f' <problem>.``"""
    who = "Tool without a name" if tool is None else f"Tool {tool!r}"
    return ToolDefinitionError(
        f"{who}: field {field_name!r} {problem}.",
        tool=tool if isinstance(tool, str) else None,
        field=field_name,
    )


def _check_fields(tool: Any, schema: Any) -> tuple[str, ...]:
    """Check the fields of ``tool`` (a :class:`~toolsift.Tool` being built, ``schema`` its
    ``input_schema`` as given), replace each lone surrogate of its text fields with U+FFFD, and
    return its schema keys, sorted.

    Raises:
        ToolDefinitionError: as :class:`~toolsift.Tool` documents.
    """
    name = tool.name
    if not isinstance(name, str):
        raise _invalid(name, "name", f"must be a string, got {_kind(name)}")
    if not name or name.isspace():
        raise _invalid(name, "name", "must not be empty")
    if not isinstance(tool.description, str):
        raise _invalid(name, "description", f"must be a string, got {_kind(tool.description)}")
    for field_name in _OPTIONAL_STRING_FIELDS:
        value = getattr(tool, field_name)
        if value is not None and not isinstance(value, str):
            raise _invalid(name, field_name, f"must be a string or None, got {_kind(value)}")
    for field_name in _NON_EMPTY_FIELDS:
        if getattr(tool, field_name) == "":
            raise _invalid(name, field_name, "must not be empty (use None)")
    # The caps of toolsift.limits, checked before any work is done on the text.
    for field_name in ("name", "server", "mcp_tool_name"):
        value = getattr(tool, field_name)
        if value is not None and len(value) > MAX_NAME_LENGTH:
            raise _invalid(
                name if len(name) <= 80 else name[:80] + "...", field_name,
                f"is {len(value):,} characters, over the cap of {MAX_NAME_LENGTH:,}",
            )  # fmt: skip
    for field_name in _TEXT_FIELDS:
        value = getattr(tool, field_name)
        if value is not None and len(value) > MAX_DESCRIPTION_LENGTH:
            raise _invalid(
                name, field_name,
                f"is {len(value):,} characters, over the cap of {MAX_DESCRIPTION_LENGTH:,}",
            )  # fmt: skip
    # A lone surrogate (half of an emoji from a broken "\ud83d" JSON escape, or a description
    # cut between the two halves) cannot be written as UTF-8: in text it becomes U+FFFD, so
    # the tool stays searchable, savable and printable; in a name it is an error.
    for field_name in ("name", "server", "mcp_tool_name"):
        value = getattr(tool, field_name)
        if value is not None and _has_lone_surrogate(value):
            raise _invalid(
                name, field_name, "contains a lone surrogate (U+D800..U+DFFF), not valid text"
            )
    for field_name in _TEXT_FIELDS:
        value = getattr(tool, field_name)
        if value is not None and _has_lone_surrogate(value):
            object.__setattr__(tool, field_name, _LONE_SURROGATE.sub("\ufffd", value))

    if type(schema) is not dict and not isinstance(schema, Mapping):
        raise _invalid(name, "input_schema", f"must be a JSON object, got {_kind(schema)}")
    problem = schema_problem(schema)
    if problem is not None:
        raise _invalid(name, "input_schema", problem)
    properties = schema.get("properties")
    if properties is None:
        if "properties" in schema:
            raise _invalid(name, "input_schema.properties", "must be a JSON object, got None")
        keys: tuple[str, ...] = ()
    elif type(properties) is not dict and not isinstance(properties, Mapping):
        raise _invalid(
            name, "input_schema.properties", f"must be a JSON object, got {_kind(properties)}"
        )
    else:
        for key in properties:
            if not isinstance(key, str):
                raise _invalid(
                    name, "input_schema.properties", f"has a key that is not a string: {key!r}"
                )
            if _has_lone_surrogate(key):
                raise _invalid(
                    name, "input_schema.properties", f"has a key with a lone surrogate: {key!r}"
                )
        keys = tuple(sorted(properties))
    return keys
