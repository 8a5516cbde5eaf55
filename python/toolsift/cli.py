"""The ``toolsift`` command line.

Example:
    $ toolsift search "open a pull request" --limit 3
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__
from .catalog import default_tools
from .errors import ToolsiftError
from .index import ToolIndex
from .loaders import load_catalogs


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolsift", description="Search tool catalogues with BM25+ (deferred-tool discovery)."
    )
    parser.add_argument("--version", action="version", version=f"toolsift {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    search = sub.add_parser("search", help="rank the tools of a catalogue for a query")
    search.add_argument("query", help="natural-language or keyword query")
    search.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="FILE",
        help="MCP, OpenAI, Anthropic or toolsift JSON/JSONL catalogue (repeatable); "
        "default: the built-in catalogue",
    )
    search.add_argument("--limit", type=int, default=8, help="how many matches (default 8)")
    search.add_argument(
        "--engine", choices=["auto", "rust", "python"], default="auto", help="ranking engine"
    )
    return parser


def _search(args: argparse.Namespace) -> int:
    tools = load_catalogs(args.catalog) if args.catalog else default_tools()
    index = ToolIndex(tools, engine=args.engine)
    matches = index.search(args.query, args.limit)
    source = ", ".join(args.catalog) if args.catalog else "built-in catalogue"
    print(f"{len(matches)} of {len(index)} tools ({source}) for {args.query.strip()!r}:")
    width = max((len(m.tool.name) for m in matches), default=0)
    for rank, m in enumerate(matches, 1):
        summary = " ".join(m.tool.display_summary.split())
        if len(summary) > 80:
            summary = summary[:79] + "…"
        print(f"{rank:>3}. {m.tool.name:<{width}}  {m.score:7.3f}  {summary}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "search":
            return _search(args)
    except ToolsiftError as exc:
        print(f"toolsift: error: {exc}", file=sys.stderr)
        return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
