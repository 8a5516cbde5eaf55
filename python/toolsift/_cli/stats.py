"""``toolsift stats``: the context a catalogue's schemas take, and what discovery saves (the
meta-tool plus the tools a search activates, in place of every schema).

Example:
    >>> import argparse
    >>> args = argparse.Namespace(
    ...     limit=None, tokenizer="heuristic", catalog=[], server=None, config=None,
    ...     engine="auto", profile="english", word_pairs=None, query=[], format="text",
    ... )
    >>> _stats(args)  # doctest: +ELLIPSIS
    catalogue       built-in catalogue: 221 tools on ... servers
    ...
    0
"""

from __future__ import annotations

import argparse
from typing import Any

from .._options import check_limit
from ..contract import dumps
from ..metatool import meta_tool
from ..tokens import CHARS_PER_TOKEN, counter, tool_json
from ..tools import Tool
from .failure import _Failure
from .load import _session
from .progress import _build_index

__all__ = ["_stats"]


def _stats(args: argparse.Namespace) -> int:
    if args.limit is not None:
        check_limit(args.limit)  # as search does: a LimitError for --limit 0 or -5
    try:
        count = counter(args.tokenizer)
    except ImportError as exc:
        raise _Failure(str(exc)) from None
    session, source = _session(args)
    if args.query:
        _build_index(session)
    tools = session.tools
    sizes = {t.name: count(tool_json(t)) for t in tools}
    every = sum(sizes.values())
    meta = count(tool_json(meta_tool(session)))
    if args.query:
        for query in args.query:
            session.search(query, args.limit)
        activated: list[Tool] = [t for t in tools if t.name in set(session.selected)]
        active_tokens = sum(sizes[t.name] for t in activated)
        queries = len(args.query)
        active_note = f"{len(activated)} tools from {queries} quer{'y' if queries == 1 else 'ies'}"
        active_count = len(activated)
    else:
        asked = session.default_limit if args.limit is None else args.limit
        limit = min(asked, session.max_limit)  # a search activates at most that
        active_count = min(limit, len(tools))
        active_tokens = round(every / len(tools) * active_count) if tools else 0
        active_note = f"assumed: one search activating {active_count} tools of average size"
    with_discovery = meta + active_tokens
    saved = every - with_discovery
    servers = len({t.server for t in tools if t.server is not None})
    report: dict[str, Any] = {
        "catalog": source,
        "tools": len(tools),
        "servers": servers,
        "tokenizer": args.tokenizer,
        "all_tools_tokens": every,
        "meta_tool_tokens": meta,
        "activated_tools": active_count,
        "activated_tokens": active_tokens,
        "with_discovery_tokens": with_discovery,
        "saved_tokens": saved,
        "saved_ratio": round(saved / every, 4) if every else 0.0,
    }
    if args.format == "json":
        print(dumps(report))
        return 0
    tokenizer = (
        f"heuristic (ceil(characters / {CHARS_PER_TOKEN}) of compact JSON; within 10% of "
        "o200k_base)"
        if args.tokenizer == "heuristic"
        else "o200k_base (exact)"
    )
    rows = [
        ("catalogue", f"{source}: {len(tools)} tools on {servers} servers"),
        ("tokenizer", tokenizer),
        ("every schema", f"{every:,} tokens"),
        ("meta-tool", f"{meta:,} tokens ({session.meta_tool_name})"),
        ("activated", f"{active_tokens:,} tokens ({active_note})"),
        ("with discovery", f"{with_discovery:,} tokens"),
        ("saved", f"{saved:,} tokens ({100 * report['saved_ratio']:.1f}%)"),
    ]
    for label, value in rows:
        print(f"{label:<15} {value}")
    return 0
