"""The search snapshots of a :class:`~toolsift.DiscoverySession`: the immutable indexes its
searches read, how a new one is derived from the previous one, and what a search ranked before
the session decides what it activates.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="a"), Tool(name="b")])
    >>> [t.name for t in _derive(index, [Tool(name="a")], "auto", ("english", None, False))]
    ['a']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from .._text.analysis import ProfileName
from .._text.documents import FieldWeights
from ..index import EngineName, ToolIndex
from ..result import Match, SearchResult
from ..tools import Tool
from .state import _Entry

__all__ = ["_Ranked", "_Snapshot", "_derive", "_moved_out", "_redefined", "_current"]


@dataclass(frozen=True)
class _Ranked:
    """What one search ranked, before the session decides what it activates."""

    result: SearchResult  # the search for fresh tools (its query, kind and missing names)
    fresh: list[Match]  # candidates to activate, best first (active ones excluded)
    ranked: list[Match]  # the top of the same search with nothing excluded
    fixed: SearchResult | None  # the same search over the always-visible tools, if separate
    total: int  # how many hidden tools were searched


@dataclass(frozen=True)
class _Snapshot:
    """What searches read: immutable, replaced whole when its corpus changes."""

    key: int  # the generation it was built for (see DiscoverySession._corpus_key)
    discoverable: ToolIndex  # the hidden tools (and the active ones, without rebuilds)
    fixed: ToolIndex  # the visible tools that `discoverable` leaves out
    catalog: int  # the catalogue generation it was built for
    selected: int  # how many activations it took into account (`_selected` only grows)


def _derive(
    previous: ToolIndex | None,
    tools: list[Tool],
    engine: EngineName,
    analysis: tuple[ProfileName, FieldWeights | None, bool | Literal["auto"]],
) -> ToolIndex:
    """An index over ``tools``: the previous snapshot's index updated in place of a rebuild when
    few tools changed (an activation moves one or a few tools out of the hidden corpus).

    ``ToolIndex.with_tools`` ranks exactly like a rebuild over the same tools (IDF and average
    length included), so scores stay OMP's; only the order of ``.tools`` may differ, and
    names are unique, so no ranking depends on it. ``analysis``: the profile, field weights and
    ``semantic`` switch of a new index.
    """
    if previous is None or previous.engine != _resolved(engine, previous):
        return _new_index(tools, engine, analysis)
    old = {t.name: t for t in previous.tools}
    new = {t.name for t in tools}
    remove = [name for name in old if name not in new]
    add = [t for t in tools if old.get(t.name) is not t]
    if len(remove) + len(add) > max(_UPDATE_AT_MOST, len(tools) // 4):
        return _new_index(tools, engine, analysis)
    if not remove and not add:
        return previous
    return previous.with_tools(add=add, remove=remove)


def _new_index(
    tools: list[Tool],
    engine: EngineName,
    analysis: tuple[ProfileName, FieldWeights | None, bool | Literal["auto"]],
) -> ToolIndex:
    profile, weights, semantic = analysis
    return ToolIndex(
        tools, engine=engine, profile=profile, field_weights=weights, semantic=semantic
    )


def _moved_out(index: ToolIndex, moved: list[Tool]) -> ToolIndex:
    """``index`` without the tools of ``moved`` (all indexed in it)."""
    return index.with_tools(remove=[t.name for t in moved]) if moved else index


#: Changes up to this many tools (or a quarter of the corpus) update the previous index.
_UPDATE_AT_MOST = 64


def _resolved(engine: EngineName, previous: ToolIndex) -> str:
    """The engine ``engine`` stands for (``"auto"`` means whatever the previous index runs on)."""
    return previous.engine if engine == "auto" else engine


def _redefined(match: Match, entries: Mapping[str, _Entry]) -> bool:
    """Whether the tool of ``match`` (a present name) was replaced by a changed definition."""
    tool = entries[match.tool.name].tool
    return tool is not match.tool and tool != match.tool


def _current(match: Match, entries: Mapping[str, _Entry]) -> Match:
    """``match`` with the tool of that name as the session holds it now."""
    if _redefined(match, entries):
        return replace(match, tool=entries[match.tool.name].tool)
    return match
