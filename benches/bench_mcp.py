"""MCP benches: FastMCP's search transforms and ``toolsift serve``.

1. A ``search_tools`` call through FastMCP's in-memory ``Client`` on a FastMCP server whose tool
   list is replaced by ``ToolsiftSearchTransform`` or by FastMCP's own ``BM25SearchTransform`` or
   ``RegexSearchTransform``, at 2,000 tools (the first 2,000 of mcp_mixed, else generated) and
   11,578 tools (mcp_mixed), the same queries in the same run.
2. nDCG@10 of both transforms' rankings on the labeled sets (``toolsift.evaluate``'s queries and
   metric), each ranking the FastMCP tools as the transform sees them.
3. A ``search_tools`` call through a FastMCP **proxy** (``fastmcp.server.create_proxy``) of a
   FastMCP server holding the 11,578 tools (in process, over FastMCP's in-memory transport):
   ``ToolsiftSearchTransform`` vs ``BM25SearchTransform``, each added to a proxy of the same
   remote server, the same queries; the remote's ``tools/list`` requests are counted.
4. A search round-trip through ``toolsift serve`` over stdio (the official MCP client SDK) in front
   of mcp-server-time, mcp-server-git and mcp-server-fetch: p50 and p90.

Run from the repository root with the MCP extra installed::

    python benches/bench_mcp.py                 # everything (about 4 minutes on 2 idle cores)
    python benches/bench_mcp.py --skip-quality  # latency only
    python benches/bench_mcp.py --parts proxy   # the proxy case alone

The labeled sets live in ../shared/data (or $TOOLSIFT_SHARED_DIR/data); where they are absent
the 11.6k bench and the quality table are skipped with the reason printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fastmcp import Client, FastMCP
from fastmcp.server import create_proxy
from fastmcp.server.middleware import Middleware
from fastmcp.server.transforms.search import BM25SearchTransform, RegexSearchTransform
from fastmcp.tools import Tool as FastMCPTool
from fastmcp.tools.base import ToolResult
from toolsift import Tool, evaluate
from toolsift.integrations.fastmcp import ToolsiftSearchTransform

DATASETS = ("mcp_mixed", "metatool", "gorilla_hf")
# The labeled sets' raw names (`facebook/bart-base`) are not valid MCP names: FastMCP registers
# them anyway, with a warning per tool that would bury the report.
logging.getLogger("mcp.shared.tool_name_validation").setLevel(logging.ERROR)
QUERY_SAMPLE = {"mcp_mixed": 300, "metatool": 400, "gorilla_hf": 400}


class _Echo(FastMCPTool):
    async def run(self, arguments: dict[str, Any]) -> ToolResult:  # type: ignore[override]
        return ToolResult(content=self.name)


def fastmcp_tools(tools: list[Tool]) -> list[FastMCPTool]:
    return [
        _Echo(name=t.name, description=t.description, parameters=dict(t.to_mcp()["inputSchema"]))
        for t in tools
    ]


def generated(n: int) -> list[Tool]:
    verbs = ["create", "delete", "list", "update", "get", "archive", "export", "sync"]
    nouns = ["invoice", "ticket", "user", "channel", "bucket", "report", "calendar", "branch"]
    out = []
    for i in range(n):
        verb, noun = verbs[i % 8], nouns[(i // 8) % 8]
        out.append(Tool(name=f"svc{i // 64}_{verb}_{noun}", description=f"{verb} a {noun}"))
    return out


def server(tools: list[FastMCPTool], transform: Any) -> FastMCP:
    mcp = FastMCP("bench")
    for tool in tools:
        mcp.add_tool(tool)
    mcp.add_transform(transform)
    return mcp


async def time_search_tools(
    mcp: FastMCP, queries: list[str], rounds: int, argument: str = "query"
) -> dict[str, float]:
    async with Client(mcp) as client:
        start = time.perf_counter()
        await client.call_tool_mcp("search_tools", {argument: queries[0]})
        first = time.perf_counter() - start
        samples = []
        for _ in range(rounds):
            for query in queries:
                start = time.perf_counter()
                result = await client.call_tool_mcp("search_tools", {argument: query})
                samples.append(time.perf_counter() - start)
                assert not result.is_error
    return {
        "first_ms": first * 1e3,
        "p50_ms": statistics.median(samples) * 1e3,
        "mean_ms": statistics.fmean(samples) * 1e3,
    }


async def time_rank_only(transform: Any, tools: list[FastMCPTool], queries: list[str]) -> float:
    """The transform's own ``_search`` on the catalogue, without FastMCP's call path (ms)."""
    await transform._search(tools, queries[0])
    samples = []
    for query in queries:
        start = time.perf_counter()
        await transform._search(tools, query)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def _regex_queries(queries: list[str]) -> list[str]:
    """A regex per query for ``RegexSearchTransform`` (its ``pattern`` argument): the query's
    longest word, as an agent would grep for it."""
    return [re.escape(max(q.split(), key=len)) if q.split() else "." for q in queries]


def latency(tools: list[Tool], queries: list[str], label: str, rounds: int) -> dict[str, Any]:
    fm_tools = fastmcp_tools(tools)
    out: dict[str, Any] = {"tools": len(tools)}
    for name, make in (
        ("toolsift", lambda: ToolsiftSearchTransform()),
        ("bm25", lambda: BM25SearchTransform()),
        ("regex", lambda: RegexSearchTransform()),
    ):
        transform = make()
        mcp = server(fm_tools, transform)
        asked = _regex_queries(queries) if name == "regex" else queries
        argument = "pattern" if name == "regex" else "query"
        out[name] = asyncio.run(time_search_tools(mcp, asked, rounds, argument))
        out[name]["rank_only_ms"] = asyncio.run(time_rank_only(make(), fm_tools, asked))
        if name == "toolsift":
            out[name]["listings"] = transform.listings
    toolsift = out["toolsift"]
    for name in ("bm25", "regex"):
        out[f"ratio_p50_{name}"] = out[name]["p50_ms"] / toolsift["p50_ms"]
        out[f"ratio_rank_only_{name}"] = out[name]["rank_only_ms"] / toolsift["rank_only_ms"]
    print(
        f"{label}: search_tools p50, toolsift vs BM25 {out['ratio_p50_bm25']:.0f}x, vs regex "
        f"{out['ratio_p50_regex']:.0f}x (toolsift {toolsift['p50_ms']:.2f} ms, "
        f"BM25 {out['bm25']['p50_ms']:.1f} ms, regex {out['regex']['p50_ms']:.1f} ms; the "
        f"catalogue listed {toolsift['listings']} time(s)); ranking alone "
        f"{toolsift['rank_only_ms']:.3f} / {out['bm25']['rank_only_ms']:.3f} / "
        f"{out['regex']['rank_only_ms']:.3f} ms",
        file=sys.stderr,
    )
    return out


class _CountListings(Middleware):
    """Counts a server's ``tools/list`` requests."""

    def __init__(self) -> None:
        self.count = 0

    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        self.count += 1
        return await call_next(context)


def proxy_latency(tools: list[Tool], queries: list[str], label: str) -> dict[str, Any]:
    """``search_tools`` through a proxy of a server holding ``tools``: toolsift vs BM25."""
    remote = FastMCP("remote")
    for tool in fastmcp_tools(tools):
        remote.add_tool(tool)
    counter = _CountListings()
    remote.add_middleware(counter)
    out: dict[str, Any] = {"tools": len(tools), "queries": len(queries)}
    for name, make in (
        ("toolsift", lambda: ToolsiftSearchTransform()),
        ("bm25", lambda: BM25SearchTransform()),
    ):
        proxy = create_proxy(remote)
        transform = make()
        proxy.add_transform(transform)
        before = counter.count
        out[name] = asyncio.run(time_search_tools(proxy, queries, rounds=1))
        out[name]["remote_listings"] = counter.count - before
    out["ratio_p50_bm25"] = out["bm25"]["p50_ms"] / out["toolsift"]["p50_ms"]
    print(
        f"{label} behind a proxy: search_tools p50, toolsift vs BM25 "
        f"{out['ratio_p50_bm25']:.0f}x (toolsift {out['toolsift']['p50_ms']:.2f} ms, first call "
        f"{out['toolsift']['first_ms']:.0f} ms; BM25 {out['bm25']['p50_ms']:.0f} ms; the remote "
        f"listed {out['toolsift']['remote_listings']} / {out['bm25']['remote_listings']} times "
        f"for {len(queries) + 1} calls)",
        file=sys.stderr,
    )
    return out


def _rankers(fm_tools: list[FastMCPTool], tools: Any, loop: Any) -> dict[str, Any]:
    """``evaluate``'s rankers over what each transform returns (its top 10)."""
    pos = {t.name: i for i, t in enumerate(tools)}
    ours = ToolsiftSearchTransform(max_results=10, max_limit=10)
    theirs = BM25SearchTransform(max_results=10)

    def rank_ours(query: str, k: int) -> list[int]:
        try:
            return [pos[t.name] for t in ours._rank(fm_tools, query, 10)]
        except ValueError:  # a query with no letter or digit
            return []

    def rank_theirs(query: str, k: int) -> list[int]:
        found = loop.run_until_complete(theirs._search(fm_tools, query))
        return [pos[t.name] for t in found]

    return {"toolsift": rank_ours, "bm25": rank_theirs}


def quality(data_dir: Path) -> dict[str, Any]:
    """nDCG@10 (and R@5) of both transforms' rankings on each labeled set."""
    loop = asyncio.new_event_loop()
    results: dict[str, Any] = {}
    for name in DATASETS:
        if not (data_dir / f"{name}.queries.jsonl").is_file():
            continue
        ds = evaluate.load_dataset(name, data_dir, limit=QUERY_SAMPLE[name])
        rankers = _rankers(fastmcp_tools(list(ds.tools)), ds.tools, loop)
        row = {}
        for label, ranker in rankers.items():
            metrics = evaluate.evaluate(ds, ranker)
            row[label] = {k: round(metrics[k], 4) for k in ("nDCG@10", "R@5", "ms/query")}
        row["queries"] = len(ds.queries)
        row["tools"] = len(ds.tools)
        results[name] = row
        print(
            f"{name}: nDCG@10 toolsift {row['toolsift']['nDCG@10']:.3f}, "
            f"bm25 {row['bm25']['nDCG@10']:.3f} ({row['queries']} queries)",
            file=sys.stderr,
        )
    loop.close()
    return results


def gateway_round_trip(n: int = 200) -> dict[str, Any]:
    """p50/p90 of a ``search_tool_bm25`` call through ``toolsift serve`` over stdio."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        config = Path(tmp) / "mcp.json"
        config.write_text(
            json.dumps(
                {
                    "mcpServers": {
                        "time": {"command": py, "args": ["-m", "mcp_server_time"]},
                        "git": {
                            "command": py,
                            "args": ["-m", "mcp_server_git", "--repository", str(repo)],
                        },
                        "fetch": {"command": py, "args": ["-m", "mcp_server_fetch"]},
                    },
                    "tool_search": {"max_results": 3},
                }
            )
        )
        queries = ["current time", "git log", "fetch a url", "convert timezone", "diff staged"]

        async def run() -> list[float]:
            params = StdioServerParameters(
                command=py, args=["-m", "toolsift", "serve", str(config)]
            )
            with open(os.devnull, "w") as errlog:
                async with stdio_client(params, errlog=errlog) as streams:
                    async with ClientSession(streams[0], streams[1]) as session:
                        await session.initialize()
                        await session.list_tools()
                        samples = []
                        for i in range(n):
                            start = time.perf_counter()
                            await session.call_tool(
                                "search_tool_bm25", {"query": queries[i % len(queries)]}
                            )
                            samples.append(time.perf_counter() - start)
                        return samples

        samples = sorted(asyncio.run(run()))
    out = {
        "calls": n,
        "p50_ms": samples[len(samples) // 2] * 1e3,
        "p90_ms": samples[int(len(samples) * 0.9)] * 1e3,
    }
    print(f"toolsift serve (stdio) search round-trip: p50 {out['p50_ms']:.2f} ms", file=sys.stderr)
    return out


def machine() -> str:
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    name = fields.get("Model name", "?").strip()
    cpus = fields.get("CPU(s)", "?").strip()
    return f"{name}, {cpus} CPUs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument(
        "--parts",
        default="latency,proxy,quality,gateway",
        help="which parts to run, comma-separated (default: all four)",
    )
    parser.add_argument(
        "--proxy-queries",
        type=int,
        default=10,
        help="queries for the proxy case (BM25 lists the remote on each: seconds a call)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    report: dict[str, Any] = {"machine": machine()}
    print(f"machine: {report['machine']}", file=sys.stderr)
    parts = set(args.parts.split(","))
    data_dir = evaluate.find_data_dir()
    mixed = data_dir / "mcp_mixed.tools.jsonl" if data_dir else None
    if "latency" not in parts:
        pass
    elif mixed is not None and mixed.is_file():
        ds = evaluate.load_dataset("mcp_mixed", data_dir, limit=50)
        tools = list(ds.tools)
        queries = [q.text for q in ds.queries]
        report["latency_2k"] = latency(tools[:2000], queries, "2,000 tools", rounds=3)
        report["latency_11k"] = latency(tools, queries, f"{len(tools):,} tools", rounds=1)
    else:
        reason = "mcp_mixed.tools.jsonl not found (set TOOLSIFT_SHARED_DIR)"
        print(f"skipped the 11.6k bench: {reason}", file=sys.stderr)
        queries = ["create an invoice", "archive ticket", "sync the calendar", "list users"]
        report["latency_2k"] = latency(generated(2000), queries, "2,000 generated tools", 3)
        report["latency_11k"] = {"skipped": reason}
    if "proxy" not in parts:
        pass
    elif mixed is not None and mixed.is_file():
        ds = evaluate.load_dataset("mcp_mixed", data_dir, limit=args.proxy_queries)
        queries = [q.text for q in ds.queries]
        report["proxy_11k"] = proxy_latency(list(ds.tools), queries, f"{len(ds.tools):,} tools")
    else:
        queries = ["create an invoice", "archive ticket", "sync the calendar", "list users"]
        report["proxy_11k"] = proxy_latency(generated(11578), queries, "11,578 generated tools")
    if "quality" not in parts:
        pass
    elif args.skip_quality or data_dir is None:
        report["quality"] = {"skipped": "--skip-quality" if args.skip_quality else "no data"}
    else:
        report["quality"] = quality(data_dir)
    if "gateway" in parts:
        report["gateway_stdio"] = gateway_round_trip()
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
