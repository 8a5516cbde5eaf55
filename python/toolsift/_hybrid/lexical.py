"""The lexical side of a hybrid search: ``ToolIndex.search`` without the agent-facing caps.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="send_email", description="Send an email message")])
    >>> [m.tool.name for m in lexical_search(index, "email", 50)]
    ['send_email']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..index import Match, ToolIndex

__all__ = ["lexical_search"]

#: ``max_query_length`` of the uncapped searches (fusion candidates, the evaluation).
_NO_QUERY_CAP = 1 << 20


def lexical_search(
    index: ToolIndex, query: str, limit: int, exclude: Iterable[str] = (), **options: Any
) -> Sequence[Match]:
    """``index.search(query, limit, exclude=...)`` without the agent-facing caps, on the
    lexical path (BM25+ alone, even for an index with semantic search on).

    Where ``ToolIndex.search`` caps ``limit`` (``max_limit``) and the query length
    (``max_query_length``) for agents, fusion and evaluation need the full candidate list and the
    whole query, so both caps are lifted when the installed ``ToolIndex`` has them. ``options``
    (e.g. ``exact_names=False``) are passed on when ``search`` accepts them, else dropped.
    """
    index = index._lexical() if getattr(index, "_semantic", None) is not None else index
    params = _search_parameters(index)
    kwargs = {k: v for k, v in options.items() if k in params}
    if "max_limit" in params and "max_query_length" in params:
        kwargs.update(max_limit=max(limit, 1), max_query_length=_NO_QUERY_CAP)
    return index.search(query, limit, exclude=exclude, **kwargs)


#: ``_search_parameters`` per class: ``inspect.signature`` took ~0.16 ms of every hybrid search.
_SEARCH_PARAMETERS: dict[type, frozenset[str]] = {}


def _search_parameters(index: ToolIndex) -> frozenset[str]:
    """The names of the parameters of ``index.search`` (looked up once per class, unless the
    instance has a ``search`` of its own)."""
    import inspect

    kind = type(index)
    own = "search" in getattr(index, "__dict__", {})
    params = None if own else _SEARCH_PARAMETERS.get(kind)
    if params is None:
        params = frozenset(inspect.signature(index.search).parameters)
        if not own:
            _SEARCH_PARAMETERS[kind] = params
    return params
