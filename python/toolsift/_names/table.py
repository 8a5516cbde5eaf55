"""Tool names → tool ids, built once per index: ``select:`` lookups and the exact-name tier.

Every name form of a tool (:meth:`toolsift.Tool.aliases`: canonical ``mcp__server__tool``, raw MCP
name, ``server.tool``, ``server/tool``, the callable name) is stored under its normalised form
(:func:`toolsift.query.name_key`: lowercase, separators removed), so ``getCurrentTime``,
``get_current_time`` and ``GET-CURRENT-TIME`` find the same tool. To keep memory low at a million
tools, the ``server.tool`` / ``server/tool`` / canonical forms share one entry: ``mcp`` + the
qualified key is looked up in the qualified table with the ``mcp`` cut off. With the compiled
extension, the two maps are ``NameMap`` objects (the keys packed in one buffer, the ids as 32-bit
integers: about a third of the dicts' memory), built in one call over the tools' names; without
it, dicts built tool by tool (:func:`built_in_python`, the specification).

Per call, the work is proportional to the query: one map lookup per candidate span.

Example:
    >>> from toolsift import Tool
    >>> table = NameTable([Tool(name="mcp__fs__read_file", server="fs", mcp_tool_name="read_file")])
    >>> table.lookup("readFile"), table.lookup("fs/read_file"), table.lookup("mcp__fs__read_file")
    ((0,), (0,), (0,))
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union, cast

from .._snapshot.name_columns import ListColumns
from .._snapshot.tools_section import NameViews
from ..query import name_key
from ..tools import _SAFE_NAME, Tool, tool_aliases
from .find import MIN_KEY_LENGTH, NameFinder
from .suggest import CloseKeys, suggest

if TYPE_CHECKING:
    from .._core import NameKeys

try:  # the compiled proof that a query names no tool (NameFinder.names_none), and the build
    from .._core import NameKeys as _NameKeys
    from .._core import NameMap, _build_name_table, _composed_ids
except ImportError:  # a pure-Python install: the Python proof runs, the table is built here
    _NameKeys = None  # type: ignore[assignment,misc]
    _build_name_table = None  # type: ignore[assignment]
    _composed_ids = None  # type: ignore[assignment]
else:  # the compiled maps are read-only dicts (get, in, iteration, keys())
    Mapping.register(NameMap)

__all__ = ["NameTable", "NameParts", "MIN_KEY_LENGTH"]

_Ids = Union[int, list[int]]
#: A map of the table: a dict (built in Python; an overlay) or the compiled ``NameMap``.
_Map = Mapping[str, _Ids]
#: A table's parts as the compiled build makes them, ``(plain, qualified, keys)``: what
#: ``toolsift._core._build_name_table`` returns, and ``_build_tools`` beside its index.
NameParts = tuple[Any, Any, Any]

# An updated table (``NameTable.remapped``) is rebuilt once its removed tools are more than this
# fraction of the ids in its dicts, and at least this many.
_STALE_FRACTION = 0.25
_STALE_AT_LEAST = 64
# An updated table's added keys (its overlay dicts) are merged, by a rebuild, once they are more
# than this fraction of its base keys, and at least this many.
_OVERLAY_FRACTION = 0.125
_OVERLAY_AT_LEAST = 1024


def _add(table: dict[str, _Ids], key: str, tool_id: int) -> None:
    """Adds ``tool_id`` under ``key`` (ids come in ascending order)."""
    got = table.get(key)
    if got is None:
        table[key] = tool_id
    elif isinstance(got, int):
        if got != tool_id:
            table[key] = [got, tool_id]
    elif got[-1] != tool_id:
        got.append(tool_id)


def _ids(value: _Ids | None) -> tuple[int, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, int) else tuple(value)


def _index_tool(
    i: int,
    tool: Tool,
    plain: dict[str, _Ids],
    qualified: dict[str, _Ids],
    server_keys: dict[str, str],
) -> None:
    """Store every name form of ``tool`` (id ``i``) in ``plain`` / ``qualified``: the
    specification of the compiled build (``rust/search/name_forms.rs``, its twin)."""
    server = tool.server
    if server is None:
        for alias in (tool.name, tool.mcp_tool_name):
            key = name_key(alias) if alias is not None else ""
            if key:
                _add(plain, key, i)
        return
    raw = tool.mcp_tool_name if tool.mcp_tool_name is not None else tool.name
    raw_key = name_key(raw)
    server_key = server_keys.get(server)
    if server_key is None:
        server_key = server_keys[server] = name_key(server)
    qual_key = server_key + raw_key
    if qual_key:
        _add(qualified, qual_key, i)
    if raw_key:
        _add(plain, raw_key, i)
    if name_key(tool.name) != "mcp" + qual_key:
        # Sanitising changed the canonical name (non-ASCII server or tool name), or the
        # name is not canonical: index every alias the slow way.
        for alias in tool.aliases():
            key = name_key(alias)
            if key and key != qual_key and key != "mcp" + qual_key and key != raw_key:
                _add(plain, key, i)


#: Up to this many tools holding one normalised name, :meth:`NameTable.lookup_names` reads their
#: cached aliases per asked name; above it, one pass per name form that builds no alias (a name
#: held by thousands of servers would churn the alias cache and cost holders x names).
_FEW_HOLDERS = 64


class NameTable:
    """Normalised name forms → tool ids (ids in index order).

    Arguments:
        tools: the indexed tools; a tool's id is its position (objects with ``name``,
            ``server``, ``mcp_tool_name`` and ``aliases()``: the tools, or a loaded index's
            ``NameView`` objects).
        parts: the table's parts, made already by the compiled build of the same tools
            (:data:`NameParts`); ``None``: made here.

    The table is built by the compiled extension in one call over the tools' names, where it
    loads (``toolsift._core._build_name_table``, a twin of :func:`_index_tool` proven equal
    with Hypothesis), else tool by tool in Python: maps of the same items either way. An index
    from :meth:`~toolsift.ToolIndex.from_records` has its table made on the engine's pool
    during its build (beside the last step of the index), and so has one of ``ToolIndex(tools)``
    on the Rust engine (its ``parts``), so their first search finds it made.

    An updated index (``ToolIndex.with_tools``) gets its table from :meth:`remapped` in time
    proportional to the change, not to the catalogue: the dicts of the table it came from are
    shared, not copied, and keep the ids they were built with (*base ids*); the added tools'
    name forms go to two small *overlay* dicts of their own (base ids after the others), and
    the compiled :attr:`keys` are layered the same way (``NameKeys.with_tools``). A
    translation list maps each base id to the tool's id in the updated index, or -1 once it is
    removed. Every id read from the dicts goes through :meth:`lookup_key`, which translates;
    the keys of removed tools stay in the dicts (and in :attr:`keys`) until the table is
    rebuilt, and name nothing: the fast proof only ever treats a key as "may name a tool", so a
    stale key can only send a query down the exact path. The table is rebuilt once the removed
    tools or the overlay grow past a fraction of it. The names written in a text are found by
    the :attr:`finder` it holds.
    """

    __slots__ = (
        "_added",
        "_close",
        "_finder",
        "_keys",
        "_live",
        "_n_keys",
        "_plain",
        "_qualified",
        "_tools",
    )

    def __init__(self, tools: Sequence[Tool], parts: NameParts | None = None) -> None:
        self._tools = tools
        # Plain names (canonical name of a non-MCP tool, raw and callable MCP names) and
        # qualified ones (``server`` + ``tool``, which also serves ``mcp__server__tool``).
        plain, qualified, keys = _built(tools) if parts is None else parts
        self._plain = plain
        self._qualified = qualified
        self._keys = keys
        # The overlay dicts of the tools an update added (plain, qualified); None when empty.
        self._added: tuple[dict[str, _Ids], dict[str, _Ids]] | None = None
        self._n_keys = len(plain) + len(qualified)
        self._close = CloseKeys((plain,), (qualified,))  # built on the first suggestion
        # Base id -> id in `tools` (-1: removed); None while they are the same.
        self._live: array[int] | None = None
        self._finder = self._new_finder()

    def _new_finder(self) -> NameFinder:
        added = self._added
        plain: tuple[_Map, ...] = (self._plain,)
        qualified: tuple[_Map, ...] = (self._qualified,)
        if added is not None:
            plain, qualified = (*plain, added[0]), (*qualified, added[1])
        return NameFinder(plain, qualified, self._keys, self._tools, self.lookup_key)

    def remapped(self, tools: Sequence[Tool], new_ids: Sequence[int], added_from: int) -> NameTable:
        """The table of an updated index (``ToolIndex.with_tools``) without re-reading kept tools.

        Arguments:
            tools: the updated index's tools.
            new_ids: for each old id, its id in ``tools``, or -1 when the tool was removed.
            added_from: ``tools[added_from:]`` are the added tools (kept tools come first, in
                their old order, so every id list stays ascending).

        Removals only translate ids; added tools are indexed into copies of the (small)
        overlay dicts, and their keys layered on the compiled ones: no dict of the base table
        is copied. Once more than :data:`_STALE_FRACTION` of the base ids are removed ones, or
        the overlay holds more than :data:`_OVERLAY_FRACTION` as many keys as the base, the
        table is rebuilt from ``tools`` instead, so stale keys never outnumber live ones and
        the overlay stays small (each key is rebuilt O(1) times on average).
        """
        # Compose the translations: base id -> old id -> new id (-1 indexes the -1 at the end).
        # An array, not a list: the collector does not visit its items (a list of a catalogue's
        # ids would cost every young-generation pass after an update a read per id).
        live = array("q", new_ids)
        if self._live is not None:
            live = _composed(live, self._live)
        added = range(added_from, len(tools))
        n_base = len(live) + len(added)
        if n_base - (len(tools)) > max(_STALE_AT_LEAST, n_base * _STALE_FRACTION):
            return NameTable(tools)
        table = NameTable.__new__(NameTable)
        table._tools = tools
        table._plain, table._qualified = self._plain, self._qualified
        if not added:
            table._added, table._n_keys = self._added, self._n_keys
            table._keys = self._keys
            table._close = self._close  # the same keys: the same (lazily built) structures
        else:
            base = (self._plain, self._qualified)
            old = self._added or ({}, {})
            overlay = (dict(old[0]), dict(old[1]))
            fresh: tuple[dict[str, _Ids], dict[str, _Ids]] = ({}, {})
            server_keys: dict[str, str] = {}
            first = len(live)
            for j, i in enumerate(added):
                _index_tool(first + j, tools[i], fresh[0], fresh[1], server_keys)
            n_keys = self._n_keys
            for part in (0, 1):
                into, known = overlay[part], base[part]
                for key, ids in fresh[part].items():
                    got = into.get(key)
                    if got is None:
                        into[key] = ids
                        n_keys += key not in known
                    else:
                        into[key] = [*_ids(got), *_ids(ids)]
            if len(overlay[0]) + len(overlay[1]) > max(
                _OVERLAY_AT_LEAST, _OVERLAY_FRACTION * (len(base[0]) + len(base[1]))
            ):
                return NameTable(tools)
            live.extend(added)
            table._added, table._n_keys = overlay, n_keys
            keys = self._keys
            table._keys = None if keys is None else keys.with_tools([tools[i] for i in added])
            table._close = CloseKeys((base[0], overlay[0]), (base[1], overlay[1]))
        table._live = live
        # A new finder: its memo depends on the live tools, so it is never shared.
        table._finder = table._new_finder()
        return table

    def _translated(self, value: _Ids | None) -> tuple[int, ...]:
        """The live ids of a dict value (base ids), ascending."""
        live = self._live
        if value is None:
            return ()
        if live is None:
            return (value,) if isinstance(value, int) else tuple(value)
        if isinstance(value, int):
            i = live[value]
            return (i,) if i >= 0 else ()
        return tuple(i for i in map(live.__getitem__, value) if i >= 0)

    def lookup_key(self, key: str) -> tuple[int, ...]:
        """Tool ids whose normalised name form is ``key``, ascending."""
        if not key:
            return ()
        plain = self._plain.get(key)
        qualified = self._qualified.get(key)
        canonical = self._qualified.get(key[3:]) if key.startswith("mcp") else None
        added = self._added
        if added is not None:
            more = (
                added[0].get(key),
                added[1].get(key),
                added[1].get(key[3:]) if key.startswith("mcp") else None,
            )
            if more != (None, None, None):
                found = self._translated(plain) + self._translated(qualified)
                found += self._translated(canonical)
                found += tuple(i for value in more for i in self._translated(value))
                return tuple(sorted(set(found))) if len(found) > 1 else found
        if qualified is None and canonical is None:  # the common case: one dict hit or none
            return self._translated(plain)
        found = self._translated(plain) + self._translated(qualified)
        found += self._translated(canonical)
        if len(found) > 1:
            found = tuple(sorted(set(found)))
        return found

    @property
    def sources(self) -> Sequence[Any]:
        """What the table reads each tool's names from, by tool id (the tools, or a loaded
        index's ``NameView`` objects): ``sources[i].name`` without decoding a tool."""
        return self._tools

    @property
    def finder(self) -> NameFinder:
        """The search for the names a text holds (the exact-name tier), over this table."""
        return self._finder

    @property
    def keys(self) -> NameKeys | None:
        """The compiled key sets of the fast proof (``None`` without the extension)."""
        return self._keys

    def lookup(self, name: str) -> tuple[int, ...]:
        """Tool ids answering to ``name`` in any form; the exact alias wins over the normalised.

        If some tools have ``name`` exactly as one of their aliases (case and separators as
        typed), only those are returned; else every tool whose normalised form matches.
        """
        return self.lookup_names((name,))[0]

    def lookup_names(self, names: Iterable[str]) -> list[tuple[int, ...]]:
        """:meth:`lookup` of each of ``names``, in order.

        Names with the same normalised form share one pass over the tools holding it, and a
        tool's aliases are compared without being built where a cheap test decides: a
        ``select:`` of a hundred spellings of ``read_file``, held by thousands of servers, reads
        each of those tools once, in time linear in their number. Names that answer to the
        whole normalised form get the same tuple object.
        """
        names = list(names)
        groups: dict[str, dict[str, None]] = {}
        for name in names:
            groups.setdefault(name_key(name), {})[name] = None
        answers: dict[str, tuple[int, ...]] = {}
        tools = self._tools
        for key, group in groups.items():
            found = self.lookup_key(key)
            if len(found) > _FEW_HOLDERS:
                answers.update(self._exact_holders(found, group))
            elif len(found) > 1:
                # A few holders (the common case: a raw name on a handful of servers): their
                # cached aliases, ~3x faster than the pass below at this size.
                for name in group:
                    exact = tuple(i for i in found if tools[i].name == name)
                    if not exact:
                        exact = tuple(i for i in found if name in tools[i].aliases())
                    answers[name] = exact or found
            else:
                answers.update(dict.fromkeys(group, found))
        return [answers[name] for name in names]

    def _exact_holders(
        self, found: tuple[int, ...], names: Iterable[str]
    ) -> dict[str, tuple[int, ...]]:
        """For each of ``names`` (of one normalised form, which the tools ``found`` hold): the
        tools named exactly so, else the tools with it exactly as an alias, else ``found``."""
        tools = self._tools
        wanted = set(names)
        exact: dict[str, list[int]] = {}
        holders = [tools[i] for i in found]
        if not wanted.isdisjoint([tool.name for tool in holders]):
            for i, tool in zip(found, holders):
                if tool.name in wanted:
                    exact.setdefault(tool.name, []).append(i)
        rest = wanted.difference(exact)
        if rest:
            # No tool is named as a name of ``rest``: its other forms (Tool.aliases) are the raw
            # name (``mcp_tool_name`` without a server), ``server.tool``, ``server/tool`` and
            # the sanitised tool part of the name, which is the raw name unless sanitising
            # changes that (an unsafe character) or the name is not canonical.
            lengths = {len(w) for w in rest}
            dotted = any("." in w or "/" in w for w in rest)
            raws: dict[str, tuple[bool, bool]] = {}  # raw name -> (wanted, safe); they repeat
            for i, tool in zip(found, holders):
                name, server, mcp = tool.name, tool.server, tool.mcp_tool_name
                if server is None:
                    if mcp is not None and mcp in rest:
                        exact.setdefault(mcp, []).append(i)
                    continue
                raw = mcp if mcp is not None else name
                known = raws.get(raw)
                if known is None:
                    known = raws[raw] = (raw in rest, _SAFE_NAME.fullmatch(raw) is not None)
                every = not known[1]
                if not every:
                    for n in lengths:
                        end = name[-n:]
                        if end != raw and end in rest:
                            every = True
                            break
                if every:
                    # The sanitised tool part may be another wanted name: every form, built
                    # uncached (a name held by many tools must not churn the shared cache).
                    for alias in _uncached_aliases(name, server, mcp):
                        if alias in rest:
                            exact.setdefault(alias, []).append(i)
                    continue
                if known[0]:
                    exact.setdefault(raw, []).append(i)
                if dotted and len(server) + len(raw) + 1 in lengths:
                    for alias in (f"{server}.{raw}", f"{server}/{raw}"):
                        if alias in rest:
                            exact.setdefault(alias, []).append(i)
        return {name: tuple(exact[name]) if name in exact else found for name in wanted}

    def suggest(self, name: str, candidates: Iterable[int], n: int = 3) -> tuple[str, ...]:
        """Up to ``n`` names close to ``name``: a "did you mean" list, deterministic.

        Each candidate tool is represented by its alias closest to ``name`` (difflib ratio on the
        normalised forms); aliases are ranked by ratio descending, then by name. On indexes with
        fewer than 20,000 name forms, the forms closest to ``name`` are also considered: the
        ``n`` best by ratio among :meth:`CloseKeys.candidates` (every form whose length allows
        a close match when there are few, else those sharing the most trigrams with ``name``),
        each with the first 32 tools holding it.

        The answer is as if every ratio were computed, but a ratio is computed only when its
        upper bounds (``real_quick_ratio``, ``quick_ratio``) say it may enter the answer, so a
        call costs about a millisecond on a 20,000-form table.
        """
        return suggest(
            name, candidates, n, self._tools, self._n_keys, self._close, self.lookup_key,
        )  # fmt: skip


_uncached_aliases = tool_aliases.__wrapped__


def _built(
    tools: Sequence[Any],
) -> tuple[_Map, _Map, NameKeys | None]:
    """A table's maps and compiled key sets: by the extension in one call where it loads (two
    compact ``NameMap`` objects), else by :func:`built_in_python` (the specification: dicts of
    the same items)."""
    if _build_name_table is not None:
        # A lazy index's packed name columns are read in Rust directly, no view per tool.
        columns = tools.columns if isinstance(tools, NameViews) else None
        if columns is None or isinstance(columns, ListColumns):
            plain, qualified, keys = _build_name_table(tools)
        else:
            plain, qualified, keys = _build_name_table(columns)
        return cast(_Map, plain), cast(_Map, qualified), keys  # registered as Mappings
    return built_in_python(tools)


def built_in_python(
    tools: Sequence[Any],
) -> tuple[_Map, _Map, NameKeys | None]:
    """:func:`_built` tool by tool (:func:`_index_tool`), the compiled key sets made from the
    dicts (``None`` without the extension)."""
    plain: dict[str, _Ids] = {}
    qualified: dict[str, _Ids] = {}
    server_keys: dict[str, str] = {}
    for i, tool in enumerate(tools):
        _index_tool(i, tool, plain, qualified, server_keys)
    keys = None if _NameKeys is None else _NameKeys(plain, qualified, tools)
    return plain, qualified, keys


def _composed(through: array[int], ids: array[int]) -> array[int]:
    """For each id of ``ids``, ``through[id]`` (-1 stays -1): one pass in the engine
    (``_core._composed_ids``), else here, an id at a time."""
    if _composed_ids is not None:
        out = array("q")
        out.frombytes(_composed_ids(through.tobytes(), ids.tobytes()))
        return out
    ext = array("q", through)
    ext.append(-1)  # -1 indexes it
    return array("q", map(ext.__getitem__, ids))
