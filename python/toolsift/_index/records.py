"""``ToolIndex.from_records``: an index straight from raw tool definitions, built in Rust.

The Rust engine parses the catalogue (a list of dicts, JSON / JSON Lines bytes, or a file),
reads every tool's fields by :class:`~toolsift.Tool`'s rules and tokenizes them on its thread
pool (``toolsift._core._build_records``, ``rust/build/catalog.rs``): no :class:`~toolsift.Tool`
is made. The tools stay in their source form in a :class:`SourceTools` and each one is
converted by the loaders' own converter the first time it is read (a search returns it), so a
match's tool is exactly what :func:`toolsift.loaders.load_tools` would have made.

Whatever the Rust reader does not handle exactly as the loaders do (other formats, a
catalogue of servers, invalid records, duplicate names, ``engine="python"``) is built the
Python way, ``ToolIndex(load_tools(...))``, with the same result and the same errors.

Example:
    >>> from toolsift import ToolIndex
    >>> index = ToolIndex.from_records([{"name": "read_file", "description": "Read a file"}])
    >>> index.search("read a file")[0].tool.description
    'Read a file'
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, Union

from .._engine.select import select_engine
from .._loaders.compiled import compiled_tools
from .._loaders.files import _describe_place, _line_number, _parse, utf8_text
from .._loaders.formats import _detect
from .._loaders.walk import _jsonl_entries, _Located, _walk
from .._options import check_bm25_params
from .._snapshot.name_columns import Columns
from .._snapshot.tools_section import LazyTools, _record, kept_columns
from .._text.analysis import DEFAULT_PROFILE, check_profile
from .._text.documents import FieldWeights, check_field_weights, default_delta
from ..errors import CatalogError, ToolsiftError
from ..loaders import _check_server_argument, _convert, _unique, load_catalog, load_tools
from ..tools import Tool
from .persist import Parts

if TYPE_CHECKING:
    from .._core import SourceItems
    from .._engine.select import EngineName
    from .._text.analysis import ProfileName
    from ..semantic.model import Semantic

__all__ = ["IndexOptions", "RecordSource", "SourceTools", "build_records", "load_records"]

#: What :meth:`toolsift.ToolIndex.from_records` reads: parsed definitions, a catalogue's bytes,
#: or the path of a catalogue file.
RecordSource = Union[Iterable[Any], bytes, str, "os.PathLike[str]"]


class IndexOptions(TypedDict, total=False):
    """The keyword options of ``ToolIndex(...)``, for ``ToolIndex.from_records``'s
    ``**options`` (their defaults and meaning: the constructor's signature and docstring, the
    one place they are written)."""

    engine: EngineName
    k1: float
    b: float
    delta: float | None
    field_weights: FieldWeights | None
    profile: ProfileName
    semantic: Semantic


#: The name that errors give bytes passed without a file.
_BYTES_NAME = "<bytes>"


class SourceTools(LazyTools):
    """The tools of an index from :func:`from_records`, each kept in its source form (a dict, or
    its JSON text, compressed in a ``toolsift._core.SourceItems``) until first read, then
    converted by the loaders' converter for its format, as :func:`toolsift.loaders.load_tools`
    converts it.

    Example:
        >>> from toolsift import ToolIndex
        >>> index = ToolIndex.from_records([{"name": "a", "server": "s"}])
        >>> type(index._tools).__name__, index._tools[0].name
        ('SourceTools', 'mcp__s__a')
    """

    __slots__ = ("_origin", "_source", "_context")

    def __init__(
        self,
        origin: Sequence[Any],
        columns: Columns,
        source: SourceItems | None = None,
        context: str | None = None,
    ) -> None:
        super().__init__(_Converted(len(columns)), columns)  # type: ignore[arg-type]
        #: Per tool: its dict, the number of its item in ``_source``, or ``None`` (a Tool).
        self._origin = origin
        self._source = source
        self._context = context

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        done = self._items.done  # type: ignore[attr-defined]
        tool = done.get(i)
        if tool is None:
            n = len(self._items)
            if not -n <= i < n:
                raise IndexError("tool index out of range")
            i %= n
            tool = done.get(i)
            if tool is None:
                tool = done[i] = self._convert(i)
        return tool

    def _convert(self, i: int) -> Tool:
        j = i % len(self._items)
        raw = self._origin[j]
        if type(raw) is int:
            assert self._source is not None
            raw = json.loads(self._source.item(raw))
        # As load_tools makes it: by the compiled loader, else (an item it leaves) in Python.
        made = compiled_tools([raw], [self._context])
        tool = made[0] if made else _detect(raw, self._context)(raw, self._context, False)
        name = self.columns.names[j]
        if tool is None or tool.name != name:
            raise ToolsiftError(
                f"The definition of tool {name!r} was changed after the index was built "
                "from it; build the index again (or pass copies of the definitions)."
            )
        return tool

    def records(self) -> Iterator[bytes]:
        """Every tool's JSON record (:meth:`toolsift.Tool.to_dict`), converting each tool."""
        for i in range(len(self._items)):
            yield _record(self[i])

    def subset(self, keep: Iterable[int], add: Sequence[Tool] = ()) -> SourceTools:
        """The tools at positions ``keep`` (in that order), then ``add``; nothing is converted."""
        keep = list(keep)
        out = SourceTools(
            [self._origin[i] for i in keep] + [None] * len(add),
            kept_columns(self.columns, keep, add),
            self._source,
            self._context,
        )
        done = self._items.done  # type: ignore[attr-defined]
        out_done = out._items.done  # type: ignore[attr-defined]
        for k, i in enumerate(keep):
            tool = done.get(i)
            if tool is not None:
                out_done[k] = tool
        out_done.update(enumerate(add, len(keep)))
        return out


class _Converted:
    """The tools of a :class:`SourceTools` converted so far, by position, read as the list of
    every position with ``None`` for a tool not converted yet (what the base class and the
    snapshot writer read): a ``[None] * n`` list cost 8 bytes a tool (0.8 MiB at 100,000),
    this costs only the tools read.

    Example:
        >>> c = _Converted(3)
        >>> c.done[1] = "tool"
        >>> len(c), list(c), c[1], c[-1]
        (3, [None, 'tool', None], 'tool', None)
    """

    __slots__ = ("n", "done")

    def __init__(self, n: int) -> None:
        self.n = n
        #: Position -> converted tool.
        self.done: dict[int, Any] = {}

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Any:
        if not -self.n <= i < self.n:
            raise IndexError("tool index out of range")
        return self.done.get(i % self.n)

    def __iter__(self) -> Iterator[Any]:
        done = self.done
        return (done.get(i) for i in range(self.n))


def _load_bytes(data: bytes, server: str | None) -> list[Tool]:
    """:func:`toolsift.loaders.load_catalog` of bytes that are not in a file (errors name
    ``<bytes>`` where they would name the file)."""
    text = utf8_text(data, _BYTES_NAME)
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text or text.isspace():
        return []
    is_jsonl, parsed = _parse(_BYTES_NAME, text)
    entries = _jsonl_entries(parsed, server) if is_jsonl else _walk(parsed, server)
    try:
        located = _convert(entries, False)
    except _Located as exc:
        message = str(exc.error)
        raise CatalogError(
            f"{_describe_place((_BYTES_NAME, exc.where))}: {message[:1].lower()}{message[1:]}",
            path=_BYTES_NAME,
            line=_line_number(exc.where),
            field=exc.error.field,
        ) from None
    return _unique((((_BYTES_NAME, w), t) for w, t in located), _describe_place)


def build_records(
    source: RecordSource, server: str | None, options: dict[str, Any]
) -> Parts | None:
    """:meth:`toolsift.ToolIndex.from_records`'s Rust path: the index's parts, or ``None`` when
    the Rust path does not take this input (then :func:`load_records` and ``ToolIndex(...)``
    give the same index, and the same errors). The constructor's checks come first, in its
    order, before anything is read."""
    if server is not None:
        _check_server_argument(server, "from_records")
    profile = check_profile(options.get("profile", DEFAULT_PROFILE))
    weights = check_field_weights(options.get("field_weights"))
    delta = options.get("delta")
    params = check_bm25_params(
        options.get("k1", 1.2),
        options.get("b", 0.75),
        default_delta(profile) if delta is None else delta,
    )
    field_weights = weights if weights is not None else FieldWeights.for_profile(profile)
    engine, _ = select_engine(options.get("engine", "auto"))

    payload: Any
    jsonl_first = False
    if isinstance(source, bytes):
        payload = source
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as handle:
            payload = handle.read()
        jsonl_first = path.lower().endswith((".jsonl", ".ndjson"))
    elif isinstance(source, (list, tuple)):
        payload = list(source)  # a copy: the caller's list may change after the build
    else:
        payload = None  # another document form: the loaders read it

    if engine != "rust" or payload is None:
        return None
    from .._core import _build_records

    built = _build_records(payload, server, jsonl_first, field_weights.as_list(), *params, profile)
    if built is None:
        return None
    index, columns, source_items, context = built
    origin = payload if source_items is None else range(len(columns))
    lazy = SourceTools(origin, columns, source_items, context)
    return Parts(lazy, "rust", index, field_weights, params, lazy.names)


def load_records(source: RecordSource, server: str | None) -> list[Tool]:
    """The tools of ``source`` as the loaders read them (the path ``build_records`` leaves)."""
    if isinstance(source, (str, os.PathLike)):
        return load_catalog(source, server=server)
    if isinstance(source, bytes):
        return _load_bytes(source, server)
    return load_tools(source, server=server)
