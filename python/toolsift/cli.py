"""The ``toolsift`` command line: ``search`` a catalogue, or print the context ``stats``.

Catalogues are MCP, OpenAI, Anthropic or toolsift JSON/JSONL files (``--catalog``, repeatable);
without one, the built-in catalogue is used. Errors go to stderr as ``toolsift: error: ...``
with exit code 2.

Example:
    $ toolsift search "open a pull request" --limit 3
    $ toolsift search "open a pull request" --limit 1 --explain
    $ toolsift search "send a slack message" --format json --catalog tools.jsonl
    $ toolsift search "open a pull request" --embed minilm --format json
    $ toolsift stats --query "create a calendar event"
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, Callable, NoReturn, TypeVar

from . import __version__
from . import evaluate as _evaluate
from ._options import check_limit
from ._text.analysis import DEFAULT_PROFILE, PROFILES
from ._text.documents import FieldWeights
from .catalog import default_server_summaries, default_tools
from .config import load_config
from .contract import (
    anthropic_tool_result,
    dumps,
    search_tool_bm25_details,
    tool_search_response,
)
from .errors import DuplicateToolError, ToolsiftError
from .explain import Explanation
from .index import DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, ToolIndex
from .loaders import load_catalog
from .metatool import meta_tool
from .render import print_details
from .session import DiscoveryResult, DiscoverySession
from .tokens import CHARS_PER_TOKEN, counter, tool_json
from .tools import Tool

#: Show a progress bar (on a terminal) when the catalogues add up to this many bytes.
PROGRESS_BYTES = 4 * 1024 * 1024
#: Show a spinner (on a terminal) while the index of this many tools or more is built.
PROGRESS_TOOLS = 50_000

_T = TypeVar("_T")


class _Failure(Exception):
    """A user error the CLI reports as ``toolsift: error: <message>``."""


class _Parser(argparse.ArgumentParser):
    """Usage errors read ``toolsift: error: ...`` in subcommands too (exit code 2)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"toolsift: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="toolsift",
        description="Search tool catalogues with BM25+ (deferred-tool discovery): rank the "
        "tools of MCP, OpenAI or Anthropic catalogues for a query, or measure the context that "
        "discovery saves.",
        epilog="Run 'toolsift COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"toolsift {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    catalog = _Parser(add_help=False)
    catalog.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="FILE",
        help="MCP, OpenAI, Anthropic or toolsift JSON/JSONL catalogue (repeatable); "
        "default: the built-in catalogue",
    )
    catalog.add_argument(
        "--server",
        default=None,
        metavar="NAME",
        help="the MCP server of a raw tools/list catalogue (its tools become mcp__NAME__tool)",
    )
    catalog.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="a toolsift.toml (or mcpServers JSON) file whose tool_search settings to use",
    )
    catalog.add_argument(
        "--limit",
        type=int,
        default=None,
        help=f"how many tools a search returns; in stats, how many it activates (default "
        f"{DEFAULT_LIMIT}, or the config's max_results; at most {DEFAULT_MAX_LIMIT}, or the "
        "config's max_limit)",
    )
    catalog.add_argument(
        "--engine",
        choices=["auto", "rust", "python"],
        default="auto",
        help="ranking engine: rust (compiled), python (the pure-Python engine: same rankings "
        "and scores) or auto (rust when it is installed; the default)",
    )
    catalog.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default=DEFAULT_PROFILE,
        help="analysis profile: english (default: CJK bigrams, stemming, query stop words) or "
        "seed (the plain tokens, weights and BM25+ scores of OMP search_tool_bm25)",
    )
    catalog.add_argument(
        "--word-pairs",
        type=float,
        default=0.0,
        metavar="WEIGHT",
        help="also index each summary's word pairs at this field weight and ask for the query's "
        "(0.1 lifts quality on the labeled sets at about 2x the build and memory; default off)",
    )

    search = sub.add_parser(
        "search",
        parents=[catalog],
        help="rank the tools of a catalogue for a query",
        description="Rank the tools of a catalogue (default: the built-in one) for a query and "
        "print the best matches. The query may be natural language, 'select:NAME,NAME' (fetch "
        "tools by name) or hold '+word' (a word every match must contain).",
    )
    search.add_argument(
        "query", help="natural-language or keyword query (with --ranker regex: a pattern)"
    )
    search.add_argument(
        "--ranker",
        choices=["bm25", "keyword", "regex"],
        default="bm25",
        help="bm25 (BM25+, the default), keyword (Claude Code ToolSearch's name-part scorer) or "
        "regex (the query is a Python re-style pattern, at most 200 characters, searched "
        "case-insensitively in names, descriptions and parameters, as Anthropic's "
        "tool_search_tool_regex)",
    )
    search.add_argument(
        "--format",
        choices=["text", "json", "details", "toolsearch", "anthropic"],
        default="text",
        help="text (a readable list), json (the ranking: name, server, score, reason), details "
        "(the OMP search_tool_bm25 details JSON), toolsearch (the Claude Code ToolSearch "
        "response) or anthropic (a tool_result of tool_reference blocks); with --embed: text "
        "or json",
    )
    search.add_argument(
        "--explain",
        action="store_true",
        help="show why each tool ranked: every matching query term's BM25+ contribution and "
        "the fields it was found in (with --format json: an 'explain' entry per match)",
    )
    search.add_argument(
        "--tool-use-id",
        default="toolu_toolsift",
        help="the tool_use_id of --format anthropic's tool_result",
    )
    search.add_argument(
        "--embed",
        choices=["minilm", "wordllama"],
        default=None,
        help="hybrid search: fuse BM25+ with dense retrieval by this embedder (minilm: pip "
        "install 'toolsift[embed]'; wordllama: pip install wordllama); tool vectors are cached "
        "on disk ($TOOLSIFT_CACHE_DIR, else ~/.cache/toolsift)",
    )
    search.add_argument(
        "--dense-weight",
        type=float,
        default=None,
        metavar="W",
        help="with --embed: the dense list's weight in the fusion, 0 to 1 (default 0.35)",
    )
    search.add_argument(
        "--fusion",
        choices=["minmax", "rrf"],
        default=None,
        help="with --embed: minmax (min-max normalised weighted sum, the default) or rrf "
        "(weighted reciprocal rank fusion)",
    )

    stats = sub.add_parser(
        "stats",
        parents=[catalog],
        help="print the context that discovery saves: every tool schema against the "
        "meta-tool plus the activated tools",
        description="Count the tokens of every tool schema in a catalogue against what an agent "
        "with discovery sends instead: the search meta-tool plus the tools its searches "
        "activate.",
    )
    stats.add_argument(
        "--query",
        action="append",
        default=[],
        metavar="QUERY",
        help="a search to run; its activated tools are counted (repeatable). Without one, "
        "one search activating --limit tools of average size is assumed",
    )
    stats.add_argument(
        "--tokenizer",
        choices=["heuristic", "o200k"],
        default="heuristic",
        help=f"heuristic: ceil(characters / {CHARS_PER_TOKEN}) of each definition's compact "
        "JSON, within 10%% of o200k_base; o200k: exact, needs bpe-openai "
        "(pip install 'toolsift[tokens]')",
    )
    stats.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text (a table; the default) or json (the same figures as one object)",
    )

    evaluate = sub.add_parser(
        "eval",
        help="measure retrieval quality (Recall@k, MRR, nDCG@10) on labeled query sets, "
        "beside rank_bm25 and bm25s",
        description="Measure retrieval quality (Recall@1/5/10, MRR, nDCG@10) on labeled query "
        "sets, toolsift's rankers beside rank_bm25, bm25s and ratel-ai. The sets are not "
        "shipped with toolsift: point --data (or $TOOLSIFT_SHARED_DIR) at them.",
    )
    _evaluate.add_arguments(evaluate)
    from .dashboard.command import add_parsers as add_dashboard  # `serve --dashboard`
    from .gateway.commands import add_parsers  # `serve` and `catalog` (MCP)

    add_parsers(sub)
    add_dashboard(sub)
    return parser


def _progress_paths(paths: list[str]) -> Iterator[str]:
    """Yield ``paths``, drawing a progress bar on a terminal when they are large.

    :func:`toolsift.loaders.load_catalogs` takes each path when it starts that file, so the
    bar advances by a file's size as the next one is asked for.
    """
    sizes = []
    for path in paths:
        try:
            sizes.append(os.path.getsize(path))
        except OSError:
            sizes.append(0)  # load_catalogs reports the missing file itself
    stream = sys.stderr
    if sum(sizes) < PROGRESS_BYTES or not (hasattr(stream, "isatty") and stream.isatty()):
        yield from paths
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    with Progress(
        TextColumn("loading {task.fields[file]}"),
        BarColumn(),
        DownloadColumn(),
        console=Console(file=stream),
        transient=True,
    ) as progress:
        task = progress.add_task("load", total=sum(sizes), file="")
        for path, size in zip(paths, sizes):
            progress.update(task, file=os.path.basename(path))
            yield path
            progress.advance(task, size)


class _ProgressEmbedder:
    """``embed``, drawing a progress bar on a terminal while it embeds many texts at once.

    ``HybridIndex`` embeds the catalogue only when its vectors are not in the on-disk cache, and
    that can take minutes (11,578 tools: about 2 minutes with MiniLM on 2 cores): the bar says
    what is happening. The texts are then embedded :attr:`CHUNK` at a time; a query (one text),
    or any call off a terminal, goes straight to ``embed``.
    """

    CHUNK = 256

    def __init__(self, embed: Any, name: str, stream: Any = None) -> None:
        self._embed = embed
        self._name = name
        self._stream = stream
        self.model_id = getattr(embed, "model_id", None)  # the cache key's model

    def __call__(self, texts: list[str]) -> Any:
        stream = self._stream if self._stream is not None else sys.stderr
        if len(texts) <= self.CHUNK or not (hasattr(stream, "isatty") and stream.isatty()):
            return self._embed(texts)
        import numpy as np
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        parts = []
        label = f"embedding the tools with {self._name} (once: the vectors are cached)"
        with Progress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            console=Console(file=stream),
            transient=True,
        ) as progress:
            task = progress.add_task("embed", total=len(texts))
            for start in range(0, len(texts), self.CHUNK):
                chunk = texts[start : start + self.CHUNK]
                parts.append(np.asarray(self._embed(chunk), dtype=np.float32))
                progress.advance(task, len(chunk))
        return np.concatenate(parts)


def _load(args: argparse.Namespace) -> list[Tool]:
    """The tools of the ``--catalog`` files (``--server`` names the server of raw ``tools/list``
    files); a file without tools (empty, or ``[]``) is an error naming it."""
    tools: list[Tool] = []
    seen: dict[str, str] = {}
    for path in _progress_paths(args.catalog):
        loaded = load_catalog(path, server=args.server)
        if not loaded:
            raise _Failure(f"{path}: the catalogue holds no tools (an empty file or list)")
        for tool in loaded:
            if tool.name in seen:
                raise DuplicateToolError(
                    f"Duplicate tool name {tool.name!r} in {seen[tool.name]} and {path}.",
                    tool=tool.name,
                    field="name",
                )
            seen[tool.name] = path
        tools += loaded
    return tools


def _session(args: argparse.Namespace) -> tuple[DiscoverySession, str]:
    """Every tool of the catalogues hidden, nothing always available: a fresh search session
    (or as ``--config`` sets it up)."""
    if args.server is not None and not args.catalog:
        raise _Failure("--server names the server of a --catalog file; give one")
    if args.catalog:
        try:
            tools = _load(args)
        except OSError as exc:
            where = exc.filename if exc.filename is not None else "catalogue"
            raise _Failure(f"cannot read {where}: {exc.strerror or exc}") from None
        except ToolsiftError as exc:
            if getattr(exc, "field", None) == "server" and args.server is None:
                raise _Failure(f"{exc} (a raw tools/list file needs --server NAME)") from None
            raise
        summaries: dict[str, str] = {}
        source = ", ".join(args.catalog)
    else:
        tools = default_tools()
        summaries = default_server_summaries()
        source = "built-in catalogue"
    options: dict[str, Any] = {"mode": "all", "always_available": ()}
    if args.config is not None:
        options = {"config": load_config(args.config)}
    session = DiscoverySession(
        tools,
        summaries=summaries,
        engine=args.engine,
        profile=args.profile,
        field_weights=_field_weights(args),
        **options,
    )
    if args.limit is None:
        args.limit = session.default_limit
    return session, source


def _field_weights(args: argparse.Namespace) -> FieldWeights | None:
    """The profile's field weights with ``--word-pairs`` on, or ``None`` (the profile's own)."""
    if not args.word_pairs:
        return None
    if not (0 < args.word_pairs <= 1e30 and math.isfinite(args.word_pairs)):
        raise _Failure(f"--word-pairs must be a positive number up to 1e30, got {args.word_pairs}")
    weights = FieldWeights.for_profile(args.profile)
    return dataclasses.replace(weights, word_pairs=args.word_pairs)


def _search(args: argparse.Namespace) -> int:
    if args.embed is not None:
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


def _build_index(session: DiscoverySession) -> None:
    """Build the session's index now, with a spinner on a terminal when it is large."""
    _indexing(len(session.hidden_tools), session.prepare)


def _indexing(count: int, build: Callable[[], _T]) -> _T:
    """``build()``, with an "indexing N tools" spinner on a terminal when ``count`` is large.

    A catalogue of 100,000 tools takes about half a second to index, a million several seconds:
    the spinner says what is happening between the loading bar and the result.
    """
    stream = sys.stderr
    if count < PROGRESS_TOOLS or not (hasattr(stream, "isatty") and stream.isatty()):
        return build()
    from rich.console import Console

    with Console(file=stream).status(f"indexing {count:,} tools"):
        return build()


Explainer = Callable[[str], Explanation]


def _explainer(args: argparse.Namespace, tools: Sequence[Tool]) -> Explainer:
    """``name -> Explanation`` of the query's BM25+ score, over the index a search ranks with.

    The CLI's session hides every tool, so its index holds exactly ``tools``: the explanation
    index is built the same way (engine, profile, field weights) and gives the same scores.
    """
    weights = _field_weights(args)
    index = _indexing(
        len(tools),
        lambda: ToolIndex(tools, engine=args.engine, profile=args.profile, field_weights=weights),
    )
    return lambda name: index.explain(args.query, name)


def _explanation_json(why: Explanation) -> dict[str, Any]:
    return {
        "score": why.score,
        "terms": [
            {
                "term": t.display,
                "matched": t.matched.lstrip("\u00a7"),
                "prefix": t.prefix,
                "idf": t.idf,
                "tf": t.tf,
                "contribution": t.contribution,
                "fields": dict(t.fields),
            }
            for t in why.terms
        ],
    }


def _search_report(result: DiscoveryResult, explain: Explainer | None) -> dict[str, Any]:
    """``search --format json``: the ranking, and with ``--explain`` each match's explanation."""
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
        report["missing"] = list(result.missing)
    return report


def _print_explanations(
    matches: Sequence[Any], explain: Explainer, *, hybrid: bool = False
) -> None:
    """``search --explain``'s text: per match, each term's contribution and its fields.

    ``matches`` are :class:`~toolsift.Match` objects, or with ``hybrid`` the hybrid matches,
    whose lexical score is explained (the dense part is a cosine, which has no terms).
    """
    print()
    if hybrid:
        print("Why: the BM25+ part of each score, term by term (the cosine is not split)")
    else:
        print("Why: each score, term by term (contribution, idf, weighted tf, fields)")
    for rank, m in enumerate(matches, 1):
        reason = _REASONS.get(m.reason, m.reason)
        if hybrid:
            lexical = "-" if m.lexical is None else f"{m.lexical:.3f}"
            print(f"{rank}. {m.tool.name}  BM25+ {lexical}  ({reason})")
        else:
            print(f"{rank}. {m.tool.name}  score {m.score:.3f}  ({reason})")
        why = explain(m.tool.name)
        if not why.terms:
            print("   no query term matches this tool")
            continue
        width = max(len(t.display) for t in why.terms)
        for t in why.terms:
            fields = ", ".join(f"{field} {tf:g}" for field, tf in t.fields.items())
            matched = f" (as {t.matched})" if t.prefix else ""
            print(
                f"   {t.display:<{width}}  +{t.contribution:.3f}  idf {t.idf:.2f}  "
                f"tf {t.tf:g}{matched}  in {fields or '-'}"
            )


#: What each ``Match.reason`` means, for ``--explain``.
_REASONS = {
    "bm25": "ranked by BM25+",
    "exact_name": "the query names it; listed first",
    "select": "fetched by select:",
    "keyword": "ranked by name parts",
    "hybrid": "in the BM25+ and the dense list",
    "dense": "in the dense list only",
}


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
        from .embed import get_embedder
        from .hybrid import DEFAULT_DENSE_WEIGHT, Fusion, HybridIndex
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, or 2 on an error)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "search":
            return _search(args)
        if args.command == "eval":
            return _evaluate.main(args)
        if hasattr(args, "handler"):  # the MCP commands (toolsift.gateway.commands)
            return int(args.handler(args))
        return _stats(args)
    except (ToolsiftError, _Failure) as exc:
        print(f"toolsift: error: {exc}", file=sys.stderr)
        return 2
    except RecursionError:  # a schema the loader parsed but that is too deep to convert
        where = ", ".join(getattr(args, "catalog", None) or []) or "a catalogue"
        print(
            f"toolsift: error: {where}: a tool definition is nested too deeply to process.",
            file=sys.stderr,
        )
        return 2
    except BrokenPipeError:  # `toolsift search ... | head`: the reader left, which is fine
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout
        return 0


if __name__ == "__main__":
    sys.exit(main())
