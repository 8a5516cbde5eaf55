"""The fields of a :class:`~toolsift.Tool` that the loaders fill lazily: ``input_schema`` and
``schema_keys``.

The compiled loader (``toolsift._core._new_tools``) stores a tool's input schema as one
immutable ``bytes`` object, the schema's JSON text (nothing shared with the caller's dicts),
leaves ``schema_keys`` unset (``None``), and takes the tool off Python's cyclic collector (it
holds only strings and bytes: it can be in no reference cycle). The
first read of either field makes the value :class:`~toolsift.Tool` would have made eagerly: a
read-only ``MappingProxyType`` over a plain ``dict`` decoded from the JSON text, and the sorted
property names; the value is then kept. The index build reads the JSON text itself, so a
tool that nobody asks for its schema never makes one. The JSON text holds only values
``json.loads`` gives back exactly (``dict`` with ``str`` keys, ``list``, ``str``, ``int``,
finite ``float``, ``bool``, ``None``); a schema with any other value (a ``tuple``, a ``NaN``)
is stored eagerly.

Example:
    >>> from toolsift.loaders import load_tools
    >>> tool = load_tools([{"name": "a", "input_schema": {"properties": {"q": {}}}}])[0]
    >>> dict(tool.input_schema), tool.schema_keys
    ({'properties': {'q': {}}}, ('q',))
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

__all__ = ["install_lazy_fields", "schema_of_json"]

try:
    from .._core import _tracked
except ImportError:  # no compiled extension: no tool is ever frozen
    _tracked = None  # type: ignore[assignment]


def schema_of_json(text: bytes) -> MappingProxyType[str, Any]:
    """The read-only schema of a frozen schema's JSON text."""
    return MappingProxyType(json.loads(text))


class _DictStorage:
    """A field's storage in the instance ``__dict__`` (Python 3.9: the dataclass has no slots),
    read and written as a slot's member descriptor is."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, tool: Any, owner: Any = None) -> Any:
        try:
            return tool.__dict__[self.name]
        except KeyError:
            raise AttributeError(self.name) from None

    def __set__(self, tool: Any, value: Any) -> None:
        tool.__dict__[self.name] = value


class _LazySchema:
    """``Tool.input_schema``: a data descriptor over the field's own storage (its slot); a
    frozen schema's JSON text (``bytes``) is decoded on first read, then kept."""

    __slots__ = ("storage",)

    def __init__(self, storage: Any) -> None:
        self.storage = storage

    def __get__(self, tool: Any, owner: Any = None) -> Any:
        if tool is None:
            return self
        value = self.storage.__get__(tool, owner)
        if type(value) is bytes:
            value = schema_of_json(value)
            self.storage.__set__(tool, value)
            # A frozen tool is not tracked by the cyclic collector (it could be in no cycle);
            # its decoded schema's nested dicts and lists could now be made to reach it.
            if _tracked is not None:
                _tracked(tool)
        return value

    def __set__(self, tool: Any, value: Any) -> None:
        self.storage.__set__(tool, value)


class _LazyKeys(_LazySchema):
    """``Tool.schema_keys``: unset (``None``) keys are computed from the schema on first read."""

    __slots__ = ()

    def __get__(self, tool: Any, owner: Any = None) -> Any:
        if tool is None:
            return self
        value = self.storage.__get__(tool, owner)
        if value is None:
            properties = tool.input_schema.get("properties")
            value = () if properties is None else tuple(sorted(properties))
            self.storage.__set__(tool, value)
        return value


def install_lazy_fields(cls: type) -> None:
    """Makes ``cls.input_schema`` and ``cls.schema_keys`` (a :class:`~toolsift.Tool`) fill
    themselves on first read when the compiled loader left them pending."""
    slots = getattr(cls, "__slots__", ())
    for name, lazy in (("input_schema", _LazySchema), ("schema_keys", _LazyKeys)):
        storage = cls.__dict__[name] if name in slots else _DictStorage(name)
        setattr(cls, name, lazy(storage))
