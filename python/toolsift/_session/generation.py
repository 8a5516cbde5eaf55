"""The generations of a shared catalogue (:class:`toolsift.Catalog`): immutable snapshots of its
tools, servers and index, and the one writer that publishes the next one.

A generation is never changed once published. An update (a server connects, disconnects or
sends a new tool list; tools are added or removed) is checked whole first, then builds ONE new
generation from the previous one (the index by a copy-on-write ``ToolIndex.with_tools`` update,
or a rebuild when much changed) and publishes it with one reference assignment: a reader sees the
previous generation or the next one, never a part of an update, and a search keeps the generation
it started with. A refused update (a malformed or duplicate tool) leaves the current generation
as it was.

An update holds the GIL only for work proportional to the change: a generation's maps (tools,
servers, name forms) are :class:`~toolsift._overlay.OverlayMap` s that share the previous
generation's base, the index's update runs in the engine with the GIL released, and the
memoised sets that sessions read (the non-MCP tools, the provider-name forms) are carried over
and patched rather than rebuilt.

Example:
    >>> from toolsift import Tool
    >>> core = CatalogCore([Tool(name="deploy")], {}, {}, "auto", "english", None)
    >>> core.connect_server("notes", [Tool(name="mcp__notes__add", server="notes")], None)
    >>> core.current.number, sorted(core.current.entries)
    (1, ['deploy', 'mcp__notes__add'])
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._index.build import collector_paused
from .._overlay import OverlayMap
from ..errors import DuplicateToolError
from ..index import EngineName, ToolIndex
from ..tools import Tool, alias_rank, provider_name
from .checks import _as_tools, _check_tools
from .state import ToolSource, _Entry

__all__ = ["CatalogCore", "Generation"]

#: Changes up to this many tools (or a quarter of the catalogue) update the previous index;
#: more are rebuilt, which is then as quick.
_UPDATE_AT_MOST = 64


@dataclass(frozen=True, eq=False)
class Generation:
    """One published state of a shared catalogue. Never mutated (the caches only memoise).

    Attributes:
        number: 0 for the first generation, then +1 per published update.
        entries: every tool by canonical name, in the order they joined (``always`` is
            ``False``: what is always available is a session's option, see
            :meth:`always_names`).
        servers: the canonical names of each MCP server's tools.
        summaries: the one-line summaries of servers.
        index: the index over every tool of the generation, shared by all sessions.
    """

    number: int
    entries: OverlayMap[str, _Entry]
    servers: OverlayMap[str, tuple[str, ...]]
    summaries: OverlayMap[str, str]
    index: ToolIndex
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    @property
    def tokens(self) -> int:
        """The schema tokens of every tool: counted on first use (auto mode reads it only for
        a catalogue within its tool threshold), then carried over by each update."""
        tokens = self._cache.get("tokens")
        if tokens is None:  # benign race: two threads store the same sum
            tokens = self._cache["tokens"] = sum(e.tokens for e in self.entries.values())
        return tokens  # type: ignore[no-any-return]

    def always_names(self, always: frozenset[str]) -> frozenset[str]:
        """The tools ``always`` (tool names, name forms or server names) keeps visible;
        memoised per distinct ``always`` (sessions mostly share one). A name form is looked up
        in the index's name table (every form of every tool, normalised), then kept only where
        the tool has it exactly as one of its :meth:`~toolsift.Tool.aliases`."""
        cached = self._cache.get(always)
        if cached is None:
            names: set[str] = set()
            tools = self.index._tools  # noqa: SLF001 - by id, as the name table gives them
            table = self.index.names
            for name in always:
                for i in table.lookup(name):
                    tool = tools[i]
                    if name in tool.aliases():
                        names.add(tool.name)
                names.update(self.servers.get(name, ()))
            cached = frozenset(names)
            if len(self._cache) < 64:  # benign race: two threads store equal values
                self._cache[always] = cached
        return cached  # type: ignore[no-any-return]

    def always_tokens(self, always: frozenset[str]) -> int:
        """The schema tokens of :meth:`always_names`."""
        return sum(self.entries[n].tokens for n in self.always_names(always))

    def provider_names(self) -> Mapping[str, str]:
        """The canonical name each other form of a name answers to (the OpenAI/Anthropic alias
        of :func:`toolsift.tools.provider_name`, then :meth:`Tool.aliases`), the first tool
        first: what :meth:`toolsift.DiscoverySession.resolve` reads. Built on first use, then
        carried over by each update (patched with the change)."""
        forms = self._cache.get("forms")
        if forms is None:
            every: dict[str, tuple[str, ...]] = {}
            for name, entry in self.entries.items():
                for form in _forms(entry.tool):
                    every[form] = (*every.get(form, ()), name)
            forms = self._cache["forms"] = OverlayMap(every)
        return _FirstName(forms, self.entries)

    def non_mcp_names(self) -> frozenset[str]:
        """The tools that no MCP server provides (visible in ``"mcp-only"`` mode)."""
        cached = self._cache.get("non-mcp")
        if cached is None:
            cached = frozenset(n for n, e in self.entries.items() if e.source != "mcp")
            self._cache["non-mcp"] = cached
        return cached  # type: ignore[no-any-return]

    def carried(self, removed: list[_Entry], new: list[_Entry]) -> dict[Any, Any]:
        """The memoised parts of the next generation (``removed`` entries gone, ``new`` ones
        joined), patched from this one's: work proportional to the change."""
        out: dict[Any, Any] = {}
        forms = self._cache.get("forms")
        if forms is not None:
            out["forms"] = _patched(forms, [e.tool for e in removed], [e.tool for e in new], _forms)
        tokens = self._cache.get("tokens")
        if tokens is not None:
            out["tokens"] = tokens - sum(e.tokens for e in removed) + sum(e.tokens for e in new)
        non_mcp = self._cache.get("non-mcp")
        if non_mcp is not None:
            gone = {e.tool.name for e in removed if e.source != "mcp"}
            joined = {e.tool.name for e in new if e.source != "mcp"}
            out["non-mcp"] = (non_mcp - gone) | joined if gone or joined else non_mcp
        return out


class _FirstName(Mapping[str, str]):
    """Name form -> the first tool that answers to it (a view of the forms' tool tuples)."""

    __slots__ = ("_forms", "_entries")

    def __init__(self, forms: Mapping[str, tuple[str, ...]], entries: Mapping[str, Any]) -> None:
        self._forms = forms
        self._entries = entries

    def __getitem__(self, form: str) -> str:
        names = self._forms[form]
        return names[0] if len(names) == 1 else self._best(form, names)

    def get(self, form: str, default: Any = None) -> Any:  # type: ignore[override]
        names = self._forms.get(form)
        if names is None:
            return default
        return names[0] if len(names) == 1 else self._best(form, names)

    def _best(self, form: str, names: tuple[str, ...]) -> str:
        """The tool ``form`` names most strongly (:func:`~toolsift.tools.alias_rank`), the
        first of equals: a qualified ``server.tool`` is never captured by another server's
        raw tool name."""
        entries = self._entries
        return min(names, key=lambda n: alias_rank(entries[n].tool, form))

    def __contains__(self, form: object) -> bool:
        return form in self._forms

    def __iter__(self) -> Iterator[str]:
        return iter(self._forms)

    def __len__(self) -> int:
        return len(self._forms)


class CatalogCore:
    """The current generation of a shared catalogue and the one writer of the next.

    Arguments are :class:`toolsift.Catalog`'s, already checked: ``servers`` maps a server name
    to its tools (Tool objects or a raw ``tools/list`` result).
    """

    def __init__(
        self,
        tools: Iterable[Tool],
        servers: Mapping[str, Any],
        summaries: Mapping[str, str],
        engine: EngineName,
        profile: Any,
        field_weights: Any,
        semantic: Any = "auto",
    ) -> None:
        self._write = threading.Lock()  # one update at a time; readers never wait
        # Generation 0 wraps every tool in an entry: the collector paused meanwhile, so the
        # new objects set off no collection walking every tool and schema alive.
        with collector_paused():
            builtins = _check_tools(tools, "tools")
            by_server: dict[str, list[Tool]] = {}
            for tool in builtins:
                if tool.server is not None:
                    by_server.setdefault(tool.server, []).append(tool)
            builtins = [t for t in builtins if t.server is None]
            for name, server_tools in servers.items():
                by_server.setdefault(name, []).extend(_as_tools(server_tools, name))
            entries: dict[str, _Entry] = {}
            _add(entries, [_entry(t, "builtin") for t in builtins])
            for server_tools in by_server.values():
                _add(entries, [_entry(t, "mcp") for t in server_tools])
            every = [e.tool for e in entries.values()]
            index = ToolIndex(
                every, engine=engine, profile=profile, field_weights=field_weights,
                semantic=semantic,
            )  # fmt: skip
            self.current = Generation(
                number=0,
                entries=OverlayMap(entries),
                servers=OverlayMap({s: tuple(t.name for t in ts) for s, ts in by_server.items()}),
                summaries=OverlayMap(summaries),
                index=index,
            )

    # --- updates: each checks everything, then publishes one generation -------------------------

    def connect_server(self, name: str, tools: Any, summary: str | None) -> None:
        """Add server ``name`` or replace its tools (``tools`` as ``Catalog.connect_server``)."""
        server_tools = _as_tools(tools, name)
        new = [_entry(t, "mcp") for t in server_tools]
        with self._write:
            gen = self.current
            servers = gen.servers.updated(assign=[(name, tuple(t.name for t in server_tools))])
            summaries = gen.summaries
            if summary is not None:
                summaries = summaries.updated(assign=[(name, summary)])
            self._publish(gen, gen.servers.get(name, ()), new, servers, summaries)

    def disconnect_server(self, name: str) -> bool:
        """Remove server ``name`` and its tools; ``False`` if it is not connected."""
        with self._write:
            gen = self.current
            if name not in gen.servers:
                return False
            servers = gen.servers.updated(remove=[name])
            self._publish(gen, gen.servers[name], [], servers, gen.summaries)
            return True

    def add_tools(self, tools: list[Tool], source: ToolSource) -> None:
        """Add non-MCP tools (checked by the caller)."""
        new = [_entry(t, source) for t in tools]
        with self._write:
            gen = self.current
            self._publish(gen, (), new, gen.servers, gen.summaries)

    def remove_tools(self, names: list[str]) -> bool:
        """Remove non-MCP tools by canonical name (unknown names ignored); ``False`` if none."""
        with self._write:
            gen = self.current
            gone = [n for n in dict.fromkeys(names) if n in gen.entries]
            gone = [n for n in gone if gen.entries[n].source != "mcp"]
            if not gone:
                return False
            self._publish(gen, gone, [], gen.servers, gen.summaries)
            return True

    def _publish(
        self,
        gen: Generation,
        removed_names: Iterable[str],
        new: list[_Entry],
        servers: OverlayMap[str, tuple[str, ...]],
        summaries: OverlayMap[str, str],
    ) -> None:
        """Build the next generation from ``gen`` and publish it (with ``_write`` held). Every
        check runs before the assignment at the end: a refused update publishes nothing. The
        work is proportional to the change (the maps are overlays over ``gen``'s), except a
        large change, which rebuilds the index."""
        removed = [gen.entries[n] for n in removed_names]
        _check_new(gen.entries, {e.tool.name for e in removed}, new)
        entries = gen.entries.updated(
            remove=[e.tool.name for e in removed], assign=[(e.tool.name, e) for e in new]
        )
        added = [e.tool for e in new]
        gone = [e.tool for e in removed]
        kept = len(entries) - len(added)
        if len(removed) + len(added) > max(_UPDATE_AT_MOST, kept // 4):
            # A rebuild with the same options; tool vectors are carried, not re-embedded.
            index = gen.index._rebuilt([e.tool for e in entries.values()])
        else:
            index = gen.index.with_tools(add=added, remove=[t.name for t in gone])
        self.current = Generation(
            number=gen.number + 1,
            entries=entries,
            servers=servers,
            summaries=summaries,
            index=index,
            _cache=gen.carried(removed, new),
        )


def _entry(tool: Tool, source: ToolSource) -> _Entry:
    return _Entry(tool, source, False)


def _add(entries: dict[str, _Entry], new: list[_Entry]) -> None:
    """Add ``new`` to ``entries``; a name already there (or twice in ``new``) is refused before
    ``entries`` changes."""
    _check_new(entries, set(), new)
    for entry in new:
        entries[entry.tool.name] = entry


def _check_new(entries: Mapping[str, _Entry], leaving: set[str], new: list[_Entry]) -> None:
    """``DuplicateToolError`` if a name of ``new`` is twice in it, or in ``entries`` and not
    ``leaving``."""
    seen: set[str] = set()
    for entry in new:
        name = entry.tool.name
        if name in seen or (name in entries and name not in leaving):
            raise DuplicateToolError(
                f"Duplicate tool name {name!r}: a catalogue holds each canonical name once.",
                tool=name,
                field="name",
            )
        seen.add(name)


def _forms(tool: Tool) -> Iterable[str]:
    """The name forms :meth:`Generation.provider_names` maps to ``tool``."""
    return dict.fromkeys((provider_name(tool.name), *tool.aliases()))


def _patched(
    forms: OverlayMap[str, tuple[str, ...]],
    removed: Iterable[Tool],
    added: Iterable[Tool],
    forms_of: Callable[[Tool], Iterable[str]],
) -> OverlayMap[str, tuple[str, ...]]:
    """``forms`` (a name form -> the canonical names answering to it, in the order they
    joined) without the ``removed`` tools and with the ``added`` ones last: only the forms of
    those tools are read."""
    touched: dict[str, tuple[str, ...]] = {}
    for tool in removed:
        for form in forms_of(tool):
            names = touched[form] if form in touched else forms.get(form, ())
            touched[form] = tuple(n for n in names if n != tool.name)
    for tool in added:
        for form in forms_of(tool):
            names = touched[form] if form in touched else forms.get(form, ())
            touched[form] = (*names, tool.name)
    return forms.updated(
        remove=[f for f, names in touched.items() if not names and f in forms],
        assign=[(f, names) for f, names in touched.items() if names],
    )
