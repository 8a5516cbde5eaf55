"""Tool names → tool ids, built once per index: ``select:`` lookups and the exact-name tier.

Every name form of a tool (:meth:`toolsift.Tool.aliases`: canonical ``mcp__server__tool``, raw MCP
name, ``server.tool``, ``server/tool``, the callable name) is stored under its normalised form
(:func:`toolsift.query.name_key`: lowercase, separators removed), so ``getCurrentTime``,
``get_current_time`` and ``GET-CURRENT-TIME`` find the same tool. To keep memory low at a million
tools, the ``server.tool`` / ``server/tool`` / canonical forms share one entry: ``mcp`` + the
qualified key is looked up in the qualified table with the ``mcp`` cut off.

Per call, the work is proportional to the query: one dict lookup per candidate span.

Example:
    >>> from toolsift import Tool
    >>> table = NameTable([Tool(name="mcp__fs__read_file", server="fs", mcp_tool_name="read_file")])
    >>> table.lookup("readFile"), table.lookup("fs/read_file"), table.lookup("mcp__fs__read_file")
    ((0,), (0,), (0,))
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Union

from .query import name_key
from .tools import Tool

__all__ = ["NameTable", "MAX_SPAN_WORDS", "MIN_KEY_LENGTH"]

#: The longest run of query words tried as one name (``get code snippet`` → ``get_code_snippet``).
MAX_SPAN_WORDS = 8
#: Normalised names shorter than this never match a span of a keyword query (``a``, ``go``, ``ls``):
#: as words they are too often ordinary words. ``select:`` still finds them.
MIN_KEY_LENGTH = 3
# Above this many keys, suggestions do not scan every key with difflib (per-call work would be
# proportional to the corpus); they use only the candidates the engine ranks.
_SCAN_KEYS_BELOW = 20_000

_Ids = Union[int, list[int]]


def _add(table: dict[str, _Ids], key: str, tool_id: int) -> None:
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


class NameTable:
    """Normalised name forms → tool ids (ids in index order).

    Arguments:
        tools: the indexed tools; a tool's id is its position.
    """

    __slots__ = ("_plain", "_qualified", "_tools")

    def __init__(self, tools: Sequence[Tool]) -> None:
        self._tools = tools
        # Plain names (canonical name of a non-MCP tool, raw and callable MCP names) and
        # qualified ones (``server`` + ``tool``, which also serves ``mcp__server__tool``).
        plain: dict[str, _Ids] = {}
        qualified: dict[str, _Ids] = {}
        for i, tool in enumerate(tools):
            if tool.server is None:
                for alias in tool.aliases():
                    key = name_key(alias)
                    if key:
                        _add(plain, key, i)
                continue
            raw = tool.mcp_tool_name if tool.mcp_tool_name is not None else tool.name
            raw_key = name_key(raw)
            qual_key = name_key(tool.server) + raw_key
            if qual_key:
                _add(qualified, qual_key, i)
            for alias in tool.aliases():
                key = name_key(alias)
                if not key or key == qual_key or key == "mcp" + qual_key:
                    continue
                _add(plain, key, i)
        self._plain = plain
        self._qualified = qualified

    def lookup_key(self, key: str) -> tuple[int, ...]:
        """Tool ids whose normalised name form is ``key``, ascending."""
        if not key:
            return ()
        found = _ids(self._plain.get(key)) + _ids(self._qualified.get(key))
        if key.startswith("mcp"):
            found += _ids(self._qualified.get(key[3:]))
        if len(found) > 1:
            found = tuple(sorted(set(found)))
        return found

    def lookup(self, name: str) -> tuple[int, ...]:
        """Tool ids answering to ``name`` in any form; the exact alias wins over the normalised.

        If some tools have ``name`` exactly as one of their aliases (case and separators as
        typed), only those are returned; else every tool whose normalised form matches.
        """
        found = self.lookup_key(name_key(name))
        if len(found) > 1:
            exact = tuple(i for i in found if self._tools[i].name == name)
            if not exact:
                exact = tuple(i for i in found if name in self._tools[i].aliases())
            if exact:
                return exact
        return found

    def find_in_words(self, words: Sequence[str]) -> list[tuple[tuple[int, ...], int, int]]:
        """The tool names written in a query, as ``(tool ids, first word, end word)`` spans.

        Runs of up to :data:`MAX_SPAN_WORDS` consecutive words are tried, longest first at each
        position, left to right; a matched run is consumed (``get code snippet`` matches
        ``get_code_snippet`` and not also ``code_snippet``). Spans whose key is shorter than
        :data:`MIN_KEY_LENGTH` are skipped.
        """
        keys = [name_key(w) for w in words]
        out: list[tuple[tuple[int, ...], int, int]] = []
        i = 0
        n = len(keys)
        while i < n:
            if not keys[i]:
                i += 1
                continue
            hit = None
            for j in range(min(n, i + MAX_SPAN_WORDS), i, -1):
                key = "".join(keys[i:j])
                if len(key) < MIN_KEY_LENGTH:
                    continue
                ids = self.lookup_key(key)
                if ids:
                    hit = (ids, i, j)
                    break
            if hit is None:
                i += 1
            else:
                out.append(hit)
                i = hit[2]
        return out

    def suggest(self, name: str, candidates: Iterable[int], n: int = 3) -> tuple[str, ...]:
        """Up to ``n`` names close to ``name``: a "did you mean" list, deterministic.

        Each candidate tool is represented by its alias closest to ``name`` (difflib ratio on the
        normalised forms); aliases are ranked by ratio descending, then by name. On indexes with
        fewer than 20,000 name forms every form is also considered.
        """
        key = name_key(name)
        if not key:
            return ()
        scored: dict[str, float] = {}

        def consider(tool_id: int) -> None:
            # The tool's alias closest to ``name``; at equal ratios the shorter, then the smaller.
            best = min(
                (-difflib.SequenceMatcher(None, key, name_key(a)).ratio(), len(a), a)
                for a in self._tools[tool_id].aliases()
            )
            if -best[0] >= 0.6 and -best[0] > scored.get(best[2], -1.0):
                scored[best[2]] = -best[0]

        for tool_id in candidates:
            consider(tool_id)
        if len(self._plain) + len(self._qualified) < _SCAN_KEYS_BELOW:
            close = difflib.get_close_matches(key, [*self._plain, *self._qualified], n=n)
            for match in close:
                for tool_id in self.lookup_key(match):
                    consider(tool_id)
        ranked = sorted(scored.items(), key=lambda item: (-item[1], len(item[0]), item[0]))
        out = [alias for alias, _ in ranked[:n]]
        return tuple(out)
