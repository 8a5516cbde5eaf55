"""``toolsift search``: rank a catalogue for a query, printed as text or one of the JSON
contracts; with ``--embed``, BM25+ fused with dense retrieval (hybrid search).

Example:
    >>> from toolsift import DiscoverySession
    >>> session = DiscoverySession.from_default_catalog()
    >>> report = _search_report(session.search("create a calendar event", limit=1), None)
    >>> [m["name"] for m in report["matches"]]
    ['mcp__calendar__create_event']
"""

from __future__ import annotations

import argparse
from typing import Any

from .._options import check_limit
from ..contract import (
    anthropic_tool_result,
    dumps,
    search_notes,
    search_tool_bm25_details,
    tool_search_response,
)
from ..index import ToolIndex
from ..render import print_details
from ..session import DiscoveryResult
from .explain import Explainer, _explainer, _explanation_json, _print_explanations
from .failure import _Failure
from .load import _field_weights, _session
from .progress import _build_index, _indexing, _ProgressEmbedder

__all__ = ["_search"]


def _search(args: argparse.Namespace) -> int:
    if args.min_confidence is not None and not 0 <= args.min_confidence <= 1:
        raise _Failure(f"--min-confidence must be between 0 and 1, got {args.min_confidence:g}")
    if args.embed is not None:
        if args.semantic or args.min_confidence is not None:
            option = "--semantic" if args.semantic else "--min-confidence"
            raise _Failure(
                f"{option} cannot be combined with --embed (the hybrid search of an embedder "
                "of your choice): use one or the other"
            )
        if args.ranker != "bm25":
            raise _Failure(
                f"--ranker {args.ranker} cannot be combined with --embed (hybrid search)"
            )
        return _hybrid_search(args)
    if args.dense_weight is not None or args.fusion is not None:
        option = "--dense-weight" if args.dense_weight is not None else "--fusion"
        raise _Failure(f"{option} needs --embed minilm|wordllama (hybrid search)")
    if args.explain and args.format not in ("text", "json"):
        raise _Failure(
            f"--explain prints a readable explanation or JSON: use it with --format text or "
            f"json, not {args.format}"
        )
    if args.limit is not None:  # (None: the config's max_results) before the catalogue loads
        check_limit(args.limit)
    session, _ = _session(args)
    _build_index(session)
    # clamped to the session's max_limit
    result = session.search(args.query, args.limit, ranker=args.ranker)
    explain = _explainer(args, session.tools) if args.explain else None
    if args.format == "json":
        print(dumps(_search_report(result, explain)))
    elif args.format == "text":
        print_details(search_tool_bm25_details(result), expanded=True, names=True, found=True)
        if explain is not None:
            _print_explanations(result.matches, explain)
    elif args.format == "details":
        print(dumps(search_tool_bm25_details(result)))
    elif args.format == "toolsearch":
        print(dumps(tool_search_response(result)))
    else:
        print(dumps(anthropic_tool_result(result, args.tool_use_id)))
    return 0


def _search_report(result: DiscoveryResult, explain: Explainer | None) -> dict[str, Any]:
    """``search --format json``: the ranking, and with ``--explain`` each match's explanation;
    a ``select:`` query's ``missing`` names with their ``suggestions``, and ``notices``
    (:func:`toolsift.contract.search_notes`)."""
    matches = []
    for m in result.matches:
        entry: dict[str, Any] = {
            "name": m.tool.name,
            "server": m.tool.server,
            "score": m.score,
            "reason": m.reason,
        }
        if explain is not None:
            entry["explain"] = _explanation_json(explain(m.tool.name))
        matches.append(entry)
    report: dict[str, Any] = {
        "query": result.query,
        "query_kind": result.query_kind,
        "total_tools": result.total_tools,
        "matches": matches,
    }
    if result.query_kind == "select":
        report["missing"] = list(result.missing)  # on every select:, empty when all were found
    # What the gateway and the agent adapters tell the model (one function): "did you mean"
    # suggestions for each missing name, and the caps applied (notices).
    report.update(search_notes(result))
    if result.confidence is not None:
        report["confidence"] = result.confidence
    if result.abstained:  # nothing fits
        report["no_match"] = True
        report["message"] = result.message
    return report


def _hybrid_search(args: argparse.Namespace) -> int:
    """``search --embed``: BM25+ over the session's catalogue fused with dense retrieval.

    The lexical index is the one the keyword search would build (same tools, engine, profile
    and field weights); :class:`~toolsift.hybrid.HybridIndex` embeds the tools through the on-disk
    vector cache and fuses the two lists.
    """
    if args.format not in ("text", "json"):
        raise _Failure(
            f"--format {args.format} is a keyword-search contract; with --embed use --format "
            "text or json"
        )
    if args.limit is not None:
        if args.limit is not None:  # before the embedding, as the keyword search checks it first
            check_limit(args.limit)
    session, _ = _session(args)
    tools = session.hidden_tools
    try:
        from ..embed import get_embedder
        from ..hybrid import DEFAULT_DENSE_WEIGHT, Fusion, HybridIndex
    except ImportError as exc:  # numpy, which toolsift itself does not need
        raise _Failure(
            f"--embed needs the optional dependencies: pip install 'toolsift[embed]' ({exc})"
        ) from None
    try:
        embedder = get_embedder(args.embed)
    except ImportError as exc:  # its message carries the install hint
        raise _Failure(str(exc)) from None
    weights = _field_weights(args)
    index = _indexing(
        len(tools),
        lambda: ToolIndex(tools, engine=args.engine, profile=args.profile, field_weights=weights),
    )
    fusion: Fusion = "rrf" if args.fusion == "rrf" else "minmax"
    weight = DEFAULT_DENSE_WEIGHT if args.dense_weight is None else args.dense_weight
    try:
        embed = _ProgressEmbedder(embedder, args.embed)
        hybrid = HybridIndex(index, embed=embed, fusion=fusion, dense_weight=weight)
    except ValueError as exc:
        message = str(exc)
        if message.startswith("dense_weight "):
            message = "--dense-weight " + message[len("dense_weight ") :]
        raise _Failure(message) from None
    # As the keyword search: clamped to the session's max_limit (25 unless configured).
    result = hybrid.search(args.query, args.limit, max_limit=session.max_limit)
    explain: Explainer | None = None
    if args.explain:
        explain = lambda name: index.explain(args.query, name)  # noqa: E731
    if args.format == "json":
        report = {
            "mode": result.mode,
            "note": result.note,
            "notices": list(result.notices),
            "matches": [
                {
                    "name": m.name,
                    "server": m.tool.server,
                    "score": m.score,
                    "reason": m.reason,
                    "lexical": m.lexical,
                    "dense": m.dense,
                    **({"explain": _explanation_json(explain(m.name))} if explain else {}),
                }
                for m in result.matches
            ],
        }
        print(dumps(report))
        return 0
    settings = f"{args.embed}, {fusion} fusion, dense weight {weight:g}"
    print(f'Hybrid search of {len(tools)} tools for "{args.query}" ({settings})')
    if not tools:
        print("No discoverable tools are currently loaded.")
    elif not result.matches:
        print("No matching tools found.")
    else:
        width = max(len("tool"), *(len(m.name) for m in result.matches))
        print(f"{'rank':>4}  {'tool':<{width}}  {'score':>5}  {'reason':<10}  lexical  cosine")
        for rank, m in enumerate(result.matches, 1):
            lexical = "-" if m.lexical is None else f"{m.lexical:.3f}"
            cosine = "-" if m.dense is None else f"{m.dense:.3f}"
            print(
                f"{rank:>4}  {m.name:<{width}}  {m.score:5.3f}  {m.reason:<10}  "
                f"{lexical:>7}  {cosine:>6}"
            )
    if explain is not None and result.matches:
        _print_explanations(result.matches, explain, hybrid=True)
    if result.note:
        print(f"note: {result.note}")
    for notice in result.notices:
        print(f"notice: {notice}")
    return 0
