"""Retrieval quality of the semantic ranking beside every peer, in one run, on the TEST splits.

Run from the repository root (the labelled sets are not shipped; see ../shared/data/README.md):

    python benches/eval_semantic.py                       # every engine, every table (~5 min)
    python benches/eval_semantic.py --json results.json   # and the raw numbers
    python benches/eval_semantic.py --engines toolsift-lexical,toolsift-semantic --quick

Engines, each fed the same tools: FastMCP's ``BM25SearchTransform`` ranking (``fastmcp-bm25``),
tantivy (``tantivy``, BM25 with English stemming), ratel-ai (``ratel``), toolsift's BM25+
(``ToolIndex(tools, semantic=False)``) and toolsift's semantic ranking
(``ToolIndex(tools, semantic=True)``), both through the public ``ToolIndex.search``. Where the
semantic ranking is not available in this checkout the last column is toolsift's
``HybridIndex`` with MiniLM instead, and the report says so.

Tables (test splits of :func:`toolsift.evaluation.splits.split_of`):

1. nDCG@10 and recall@5 on mcp_mixed (strict: server + name), metatool (an evenly spaced sample
   of its test split, ``--metatool-queries``), gorilla_hf;
2. no-tool requests: the share answered with the engine's default abstention
   (``search(..., abstain=True)``; a peer without abstention answers whenever it ranks a tool),
   and in-scope hit@5 with and without abstention;
3. whole tasks over mcp_mixed: recall@10 of every needed tool, and all@10;
4. keyword and name queries derived from each catalogue: MRR (first relevant tool in the top 100);
5. speed at 11,578 tools: search p50 / p99 through ``ToolIndex.search`` (query embedding
   included), build time, and the memory of the tool vectors (also at 100k with ``--scale``).
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import toolsift
from toolsift import Tool, ToolIndex
from toolsift.errors import ToolsiftError
from toolsift.evaluation import authored, derived, metrics
from toolsift.evaluation.datasets import DEPTH, find_data_dir, load_dataset
from toolsift.evaluation.splits import sample_queries, split_dataset

Ranker = Callable[[str, int], list[int]]

ENGINES = ("fastmcp-bm25", "tantivy", "ratel", "toolsift-lexical", "toolsift-semantic")
QUALITY_SETS = ("mcp_mixed", "metatool", "gorilla_hf")
#: The targets of the semantic round (met / not met in the report).
TARGETS = {"mcp_mixed": 0.72, "metatool": 0.70, "gorilla_hf": 0.40}
#: How each engine is named in the report (the fallback column says so itself).
LABELS = {
    "fastmcp-bm25": "FastMCP BM25SearchTransform",
    "tantivy": "tantivy (BM25, en_stem)",
    "ratel": "ratel-ai",
    "toolsift-lexical": "toolsift lexical (BM25+)",
    "toolsift-semantic": "toolsift semantic",
}
NOTOOL_TARGET = 0.10
INSCOPE_GAP = 0.02
P50_MS, P99_MS = 1.0, 3.0


@dataclass
class Engine:
    """One ranking over one catalogue: ``rank`` without abstention, ``answer`` with the engine's
    default abstention (``None``: the engine has none)."""

    name: str
    rank: Ranker
    answer: Ranker | None
    build_s: float
    label: str
    index: Any = None


# --- engines ---------------------------------------------------------------------------------


def _search_options(index: Any) -> set[str]:
    return set(inspect.signature(index.search).parameters)


def _toolsift(tools: Sequence[Tool], semantic: bool) -> Engine:
    pos = {t.name: i for i, t in enumerate(tools)}
    start = time.perf_counter()
    try:
        index = ToolIndex(tools, semantic=semantic)  # type: ignore[call-arg]
    except TypeError:
        if semantic:
            raise
        index = ToolIndex(tools)  # a checkout before the semantic keyword: lexical anyway
    build = time.perf_counter() - start
    if semantic and not getattr(index, "semantic", False):
        raise RuntimeError("ToolIndex(semantic=True) did not turn the semantic ranking on")
    options = _search_options(index)
    # the whole query, as the peers get it (the agent-facing cut is 500 characters)
    uncapped = {"max_query_length": 100_000} if "max_query_length" in options else {}

    def search(query: str, k: int, **extra: Any) -> list[int]:
        try:
            found = index.search(query, limit=k, max_limit=max(k, 25), **uncapped, **extra)
        except ToolsiftError:  # a query with no letter or digit ranks nothing
            return []
        if getattr(found, "abstained", False):
            return []
        return [pos[m.tool.name] for m in found]

    def rank(query: str, k: int) -> list[int]:
        return search(query, k)

    answer = None
    if "abstain" in options:

        def answer(query: str, k: int) -> list[int]:
            return search(query, k, abstain=True)

    name = "toolsift-semantic" if semantic else "toolsift-lexical"
    label = LABELS[name]
    return Engine(name, rank, answer, build, label, index)


def _hybrid_fallback(tools: Sequence[Tool]) -> Engine:
    from toolsift.embed import get_embedder
    from toolsift.evaluation.hybrid_rankers import make_eval_ranker

    start = time.perf_counter()
    rank = make_eval_ranker("hybrid-minmax", tools, embedder=get_embedder("minilm"))
    build = time.perf_counter() - start
    label = "toolsift HybridIndex MiniLM (FALLBACK: no semantic ToolIndex here)"
    return Engine("toolsift-semantic", rank, None, build, label)


def build_engine(name: str, tools: Sequence[Tool]) -> Engine:
    """``name`` of :data:`ENGINES` over ``tools``."""
    from toolsift.evaluation import peers

    if name == "toolsift-lexical":
        return _toolsift(tools, semantic=False)
    if name == "toolsift-semantic":
        try:
            return _toolsift(tools, semantic=True)
        except (TypeError, RuntimeError, ImportError) as error:
            print(
                f"  semantic ToolIndex unavailable ({error}); HybridIndex fallback", file=sys.stderr
            )
            return _hybrid_fallback(tools)
    makers = {
        "fastmcp-bm25": peers._fastmcp_bm25_ranker,
        "tantivy": peers._tantivy_ranker,
        "ratel": peers._ratel_ranker,
    }
    start = time.perf_counter()
    rank = makers[name](tools)
    return Engine(name, rank, None, time.perf_counter() - start, LABELS[name])


class Engines:
    """Each engine built once per catalogue, on first use."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self._built: dict[tuple[str, str], Engine] = {}
        self.labels: dict[str, str] = {n: LABELS[n] for n in names}

    def get(self, catalogue: str, tools: Sequence[Tool], name: str) -> Engine:
        key = (catalogue, name)
        if key not in self._built:
            engine = build_engine(name, tools)
            self._built[key] = engine
            self.labels[name] = engine.label
            print(f"  built {name} over {catalogue} in {engine.build_s:.1f} s", file=sys.stderr)
        return self._built[key]

    def drop(self, catalogue: str) -> None:
        for key in [k for k in self._built if k[0] == catalogue]:
            del self._built[key]
        gc.collect()


# --- sections --------------------------------------------------------------------------------


def quality(data: Path, engines: Engines, metatool_queries: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in QUALITY_SETS:
        ds = split_dataset(load_dataset(name, data), "test")
        if name == "metatool":
            ds = sample_queries(ds, metatool_queries)
        row: dict[str, Any] = {"queries": len(ds.queries), "tools": len(ds.tools), "note": ds.note}
        for engine in engines.names:
            got = metrics.evaluate(ds, engines.get(name, ds.tools, engine).rank)
            row[engine] = {k: got[k] for k in ("nDCG@10", "R@5", "MRR", "ms/query")}
        out[name] = row
        print(f"  quality {name}: done", file=sys.stderr)
        if name != "mcp_mixed":
            engines.drop(name)
    return out


def _catalogue_tools(catalogue: str, data: Path) -> tuple[Tool, ...]:
    return authored.load_catalogue(catalogue, data)


def abstention(data: Path, engines: Engines) -> dict[str, Any]:
    """No-tool answered rate (with abstention) and in-scope hit@5 with and without it."""
    out: dict[str, Any] = {}
    for catalogue in authored.CATALOGUES:
        tools = _catalogue_tools(catalogue, data)
        notool = authored.notool_requests(catalogue, "test")
        inscope = split_dataset(authored.load_inscope(catalogue, tools, data), "test")
        row: dict[str, Any] = {"notool": len(notool), "inscope": len(inscope.queries)}
        for name in engines.names:
            engine = engines.get(catalogue, tools, name)
            answer = engine.answer or engine.rank
            answered = [answer(q, 5) for q in notool]
            plain = [engine.rank(q.text, 5) for q in inscope.queries]
            held = [answer(q.text, 5) for q in inscope.queries] if engine.answer else plain
            n = max(len(inscope.queries), 1)
            row[name] = {
                "abstains": engine.answer is not None,
                "answered": metrics.answered_rate(answered),
                "hit@5": sum(
                    metrics.hit_at(r, q.relevant, 5) for r, q in zip(plain, inscope.queries)
                )
                / n,
                "hit@5 abstain": sum(
                    metrics.hit_at(r, q.relevant, 5) for r, q in zip(held, inscope.queries)
                )
                / n,
            }
        out[catalogue] = row
        print(f"  abstention {catalogue}: done", file=sys.stderr)
        if catalogue != "mcp_mixed":
            engines.drop(catalogue)
    return out


def tasks(data: Path, engines: Engines) -> dict[str, Any]:
    tools = _catalogue_tools("mcp_mixed", data)
    out: dict[str, Any] = {}
    for split in ("test", None):
        chosen = authored.load_tasks(tools, split)  # type: ignore[arg-type]
        row: dict[str, Any] = {"tasks": len(chosen)}
        for name in engines.names:
            rank = engines.get("mcp_mixed", tools, name).rank
            ranked = [rank(t.text, 10) for t in chosen]
            row[name] = {
                "recall@10": statistics.fmean(
                    metrics.needs_met_at(r, t.needs, 10) for r, t in zip(ranked, chosen)
                ),
                "all@10": statistics.fmean(
                    metrics.all_met_at(r, t.needs, 10) for r, t in zip(ranked, chosen)
                ),
            }
        out[split or "all"] = row
    return out


def keywords(data: Path, engines: Engines, per_kind: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in QUALITY_SETS:
        base = load_dataset(name, data, limit=1)
        for ds in derived.derive_all(base, "test", per_kind):
            row: dict[str, Any] = {"queries": len(ds.queries)}
            for engine in engines.names:
                rank = engines.get(name, base.tools, engine).rank
                row[engine] = statistics.fmean(
                    metrics.reciprocal_rank(rank(q.text, DEPTH), q.relevant) for q in ds.queries
                )
            out[ds.name] = row
        print(f"  keywords {name}: done", file=sys.stderr)
        if name != "mcp_mixed":
            engines.drop(name)
    return out


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p50 = ordered[len(ordered) // 2]
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return p50, p99


def _vector_bytes(index: Any, n: int) -> int:
    """Bytes of the ``(n, d)`` arrays reachable from ``index`` within three attribute hops."""
    import numpy as np

    seen: set[int] = set()
    total = 0
    frontier = [index]
    for _ in range(3):
        nxt = []
        for obj in frontier:
            attrs = getattr(obj, "__dict__", None)
            values = list(attrs.values()) if isinstance(attrs, dict) else []
            for slot in getattr(type(obj), "__slots__", ()):
                values.append(getattr(obj, slot, None))
            for value in values:
                if id(value) in seen:
                    continue
                seen.add(id(value))
                if isinstance(value, np.ndarray):
                    if value.ndim == 2 and value.shape[0] == n:
                        total += value.nbytes
                elif hasattr(value, "__dict__") or hasattr(type(value), "__slots__"):
                    nxt.append(value)
        frontier = nxt
    return total


def probe(spec: str, data: Path | None) -> dict[str, Any]:
    """Build time and memory of the lexical and the semantic index over one catalogue (mcp_mixed,
    or ``N`` synthetic tools), measured in this process: run in a child of its own."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _measure import trimmed_rss

    if spec.isdigit():
        from _synthetic import synthetic_tools

        tools: Sequence[Tool] = synthetic_tools(int(spec))
    else:
        if data is None:
            raise SystemExit("the probe needs --data")
        tools = _catalogue_tools(spec, data)
    out: dict[str, Any] = {"tools": len(tools)}
    kinds: tuple[bool, ...] = (False,)
    try:  # the model loads once per process: its cost apart from the vectors'
        start = time.perf_counter()
        warm = ToolIndex([Tool(name="warm_up")], semantic=True)  # type: ignore[call-arg]
        out["model_load_s"] = time.perf_counter() - start
        if getattr(warm, "semantic", False):
            kinds = (False, True)
        else:
            out["note"] = "the semantic model did not load"
    except (TypeError, ImportError) as error:
        out["note"] = f"no semantic ToolIndex in this checkout ({type(error).__name__})"
    for semantic in kinds:
        before = trimmed_rss()
        start = time.perf_counter()
        if semantic:
            index = ToolIndex(tools, semantic=True)  # type: ignore[call-arg]
        else:
            index = _toolsift(tools, semantic=False).index
        build = time.perf_counter() - start
        # the first search makes what is made on first use (the dense kernel): count it
        start = time.perf_counter()
        index.search("read a file", limit=10)
        first = time.perf_counter() - start
        out["semantic" if semantic else "lexical"] = {
            "build_s": build,
            "first_search_ms": 1000 * first,
            "rss_bytes": trimmed_rss() - before,
            "vector_bytes": _vector_bytes(index, len(tools)) if semantic else 0,
        }
        del index
        gc.collect()
    return out


def run_probe(spec: str, data: Path) -> dict[str, Any]:
    """:func:`probe` in a child process (a fresh heap and a fresh model load)."""
    cmd = [sys.executable, __file__, "--data", str(data), "--probe", spec]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode:
        return {"tools": spec, "note": f"probe failed: {done.stderr.strip()[-300:]}"}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


#: The lexical latency child: only APIs every checkout has (the baseline may predate this file).
#: Its warm-up and timing loop is a deliberate twin of :func:`speed`'s: it runs as source text
#: under another checkout's ``toolsift``, so it can import nothing from this file; keep the two
#: loops alike (20 warm-up searches, then ``rounds`` timed passes at ``limit=10``).
_LATENCY_CHILD = r"""
import json, sys, time
import toolsift
from toolsift import ToolIndex, load_catalog
catalogue, queries_file, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
queries = json.load(open(queries_file, encoding="utf-8"))
tools = load_catalog(catalogue)
try:
    index = ToolIndex(tools, semantic=False)
except TypeError:
    index = ToolIndex(tools)
for q in queries[:20]:
    index.search(q, limit=10)
samples = []
for _ in range(rounds):
    for q in queries:
        start = time.perf_counter_ns()
        index.search(q, limit=10)
        samples.append((time.perf_counter_ns() - start) / 1e6)
samples.sort()
print(json.dumps({"p50_ms": samples[len(samples) // 2],
                  "p99_ms": samples[int(round(0.99 * (len(samples) - 1)))],
                  "source": toolsift.__file__}))
"""


def lexical_against(ref: str, data: Path, queries: list[str], rounds: int) -> dict[str, Any]:
    """The lexical ``ToolIndex.search`` p50 / p99 of this checkout and of git ``ref`` (its Python
    code with this checkout's compiled engine), in alternating child processes: the median of
    each one's runs, measured in the same minutes."""
    import shutil
    import tempfile

    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="toolsift-baseline-") as tmp:
        archive = subprocess.run(
            ["git", "-C", str(root), "archive", ref, "python/toolsift"],
            capture_output=True,
            check=False,
        )
        if archive.returncode:
            return {"ref": ref, "note": archive.stderr.decode(errors="replace").strip()}
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        for core in (root / "python" / "toolsift").glob("_core*.so"):
            shutil.copy2(core, Path(tmp) / "python" / "toolsift" / core.name)
        qfile = Path(tmp) / "queries.json"
        qfile.write_text(json.dumps(queries), encoding="utf-8")
        runs: dict[str, list[dict[str, Any]]] = {"current": [], "baseline": []}
        for _ in range(3):
            for key, src in (("current", root / "python"), ("baseline", Path(tmp) / "python")):
                env = {**os.environ, "PYTHONPATH": str(src), "TOOLSIFT_SEMANTIC": "off"}
                cmd = [sys.executable, "-c", _LATENCY_CHILD]
                cmd += [str(data / "mcp_mixed.tools.jsonl"), str(qfile), str(rounds)]
                done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
                if done.returncode:
                    return {"ref": ref, "note": done.stderr.strip()[-300:]}
                runs[key].append(json.loads(done.stdout.strip().splitlines()[-1]))
    out: dict[str, Any] = {"ref": ref}
    for key, got in runs.items():
        out[key] = {m: statistics.median(r[m] for r in got) for m in ("p50_ms", "p99_ms")}
    return out


def speed(data: Path, engines: Engines, rounds: int, baseline: str | None) -> dict[str, Any]:
    """p50 / p99 of ``ToolIndex.search`` (limit 10) at 11,578 tools; build time and memory
    measured in a child process (:func:`probe`)."""
    tools = _catalogue_tools("mcp_mixed", data)
    queries = [q.text for q in split_dataset(load_dataset("mcp_mixed", data), "test").queries]
    out: dict[str, Any] = {"tools": len(tools), "queries": len(queries) * rounds}
    for name in ("toolsift-lexical", "toolsift-semantic"):
        if name not in engines.names:
            continue
        engine = build_engine(name, tools)
        engines.labels[name] = engine.label
        if engine.index is None:
            out[name] = {"label": engine.label}
            continue
        index = engine.index
        for q in queries[:20]:
            index.search(q, limit=10)
        samples = []
        for _ in range(rounds):
            for q in queries:
                start = time.perf_counter_ns()
                index.search(q, limit=10)
                samples.append((time.perf_counter_ns() - start) / 1e6)
        p50, p99 = _percentiles(samples)
        out[name] = {
            "label": engine.label,
            "p50_ms": p50,
            "p99_ms": p99,
            "mean_ms": statistics.fmean(samples),
        }
        del engine, index
        gc.collect()
    out["build"] = run_probe("mcp_mixed", data)
    if baseline:
        out["baseline"] = lexical_against(baseline, data, queries, rounds)
    return out


# --- report ----------------------------------------------------------------------------------


def machine() -> str:
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return platform.processor() or "unknown"
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    return f"{fields.get('Model name', '?').strip()}, {fields.get('CPU(s)', '?').strip()} CPUs"


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _row(*cells: object) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def targets(report: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """The round's targets met or not by the semantic column: ``(target, value, met)``."""
    sem, lex = "toolsift-semantic", "toolsift-lexical"
    out: list[tuple[str, str, bool]] = []
    q = report.get("quality") or {}
    for ds, goal in TARGETS.items():
        if sem in q.get(ds, {}):
            v = q[ds][sem]["nDCG@10"]
            out.append((f"nDCG@10 {ds} >= {goal:.2f}", f"{v:.3f}", v >= goal))
    a = report.get("abstention") or {}
    if (
        a
        and all(row[sem]["abstains"] for row in a.values() if sem in row)
        and any(sem in row for row in a.values())
    ):
        total = sum(row["notool"] for row in a.values())
        answered = sum(row[sem]["answered"] * row["notool"] for row in a.values()) / max(total, 1)
        target = f"no-tool answered <= {NOTOOL_TARGET:.0%} ({total} requests)"
        out.append((target, f"{answered:.1%}", answered <= NOTOOL_TARGET))
        for cat, row in a.items():
            before, after = row[sem]["hit@5"], row[sem]["hit@5 abstain"]
            target = f"in-scope hit@5 lost to abstention <= 2 pts, {cat}"
            out.append((target, f"{before:.3f} -> {after:.3f}", before - after <= INSCOPE_GAP))
    k = report.get("keywords") or {}
    if k and all(sem in row and lex in row for row in k.values()):
        worse = [name for name, row in k.items() if row[sem] + 1e-9 < row[lex]]
        value = f"{len(k) - len(worse)}/{len(k)} sets" + (
            f" (below: {', '.join(worse)})" if worse else ""
        )
        out.append(("keyword/name MRR semantic >= lexical, every set", value, not worse))
    sp = (report.get("speed") or {}).get(sem) or {}
    if "p50_ms" in sp:
        n = report["speed"]["tools"]
        out.append(
            (
                f"search p50 <= {P50_MS:g} ms at {n:,} tools",
                f"{sp['p50_ms']:.3f} ms",
                sp["p50_ms"] <= P50_MS,
            )
        )
        out.append(
            (f"search p99 <= {P99_MS:g} ms", f"{sp['p99_ms']:.3f} ms", sp["p99_ms"] <= P99_MS)
        )
    return out


def render(report: dict[str, Any]) -> str:
    names = report["engines"]
    labels = report["labels"]
    lines: list[str] = []
    add = lines.append
    sem = "toolsift-semantic"
    add(f"Command: `{report['command']}`  ")
    add(f"Machine: {report['machine']}; Python {report['python']}; toolsift {report['version']}; ")
    add(
        f"run time {report['seconds']:.0f} s. Engines: "
        + "; ".join(f"`{n}` = {labels.get(n, n)}" for n in names)
        + "."
    )
    add("")
    q = report.get("quality")
    goals = targets(report)
    if goals:
        add("**Targets** (test splits)")
        add("")
        add(_row("target", "value", ""))
        add("|---|---|---|")
        for target, value, ok in goals:
            add(_row(target, value, _met(ok)))
        add("")
    if q:
        add(
            "**Ranking quality** (test splits): semantic's nDCG@10 over the best other engine's; "
            "nDCG@10 / recall@5"
        )
        add("")
        add("| set (test queries, tools) | semantic / best other | " + " | ".join(names) + " |")
        add("|---|" + "---|" * (len(names) + 1))
        for ds, row in q.items():
            cells = [f"{row[n]['nDCG@10']:.3f} / {row[n]['R@5']:.3f}" for n in names]
            peers = [row[n]["nDCG@10"] for n in names if n != sem]
            ratio = (
                f"{row[sem]['nDCG@10'] / max(peers):.2f}x"
                if sem in row and peers and max(peers)
                else "-"
            )
            add(
                f"| {ds} ({row['queries']}, {row['tools']:,}) | {ratio} | "
                + " | ".join(cells)
                + " |"
            )
        add("")
    a = report.get("abstention")
    if a:
        add(
            "**No tool fits** (test splits): no-tool requests answered (lower is better); "
            "in-scope hit@5 without / with abstention"
        )
        add("")
        add("| catalogue (no-tool, in-scope) | " + " | ".join(names) + " |")
        add("|---|" + "---|" * len(names))
        for cat, row in a.items():
            cells = []
            for n in names:
                r = row[n]
                mark = "" if r["abstains"] else "*"
                cells.append(
                    f"{r['answered']:.0%}{mark}; {r['hit@5']:.2f} / {r['hit@5 abstain']:.2f}"
                )
            add(f"| {cat} ({row['notool']}, {row['inscope']}) | " + " | ".join(cells) + " |")
        add("")
        add("\\* no abstention: the engine answers whenever a word matches.")
        add("")
    t = report.get("tasks")
    if t:
        add("**Whole tasks** over mcp_mixed: recall@10 of every needed tool / all@10")
        add("")
        add("| tasks | " + " | ".join(names) + " |")
        add("|---|" + "---|" * len(names))
        for split, row in t.items():
            cells = [f"{row[n]['recall@10']:.3f} / {row[n]['all@10']:.3f}" for n in names]
            add(f"| {split} ({row['tasks']}) | " + " | ".join(cells) + " |")
        add("")
    k = report.get("keywords")
    if k:
        add("**Keyword and name queries** (derived from the catalogues' names; test split): MRR")
        add("")
        add("| set (queries) | " + " | ".join(names) + " |")
        add("|---|" + "---|" * len(names))
        for ds, row in k.items():
            add(f"| {ds} ({row['queries']}) | " + " | ".join(f"{row[n]:.3f}" for n in names) + " |")
        add("")
    s = report.get("speed")
    if s:
        add(
            f"**Speed** at {s['tools']:,} tools: `ToolIndex.search(query, limit=10)`, "
            f"{s['queries']} searches of mcp_mixed's test queries, query embedding included"
        )
        add("")
        lexical = s.get("toolsift-lexical") or {}
        add("| engine | p50 / lexical p50 | p50 ms | p99 ms | mean ms |")
        add("|---|---|---|---|---|")
        for n in ("toolsift-lexical", "toolsift-semantic"):
            r = s.get(n)
            if r and "p50_ms" in r:
                times = lexical.get("p50_ms")
                ratio = f"{r['p50_ms'] / times:.1f}x" if times else "-"
                p50, p99, mean = (f"{r[k]:.3f}" for k in ("p50_ms", "p99_ms", "mean_ms"))
                add(_row(r["label"], ratio, p50, p99, mean))
            elif r:
                add(f"| {r['label']} | - | - | - | - |")
        add("")
    base = (s or {}).get("baseline")
    if base and "current" in base:
        cur, ref = base["current"], base["baseline"]
        add(
            f"Lexical path against `{base['ref']}` (its Python code, the same compiled engine; "
            "alternating child processes, median of 3 each): p50 "
            f"{cur['p50_ms']:.3f} ms vs {ref['p50_ms']:.3f} ms "
            f"({cur['p50_ms'] / ref['p50_ms']:.2f}x), p99 {cur['p99_ms']:.3f} ms vs "
            f"{ref['p99_ms']:.3f} ms ({cur['p99_ms'] / ref['p99_ms']:.2f}x)."
        )
        add("")
    elif base:
        add(f"Lexical path against `{base['ref']}`: not measured ({base.get('note', '')}).")
        add("")
    builds = [b for b in ((s or {}).get("build"), report.get("scale")) if b]
    if builds:
        add(
            "**Build and memory**, each in a fresh process (RSS growth over the build and one "
            "search, after a collection and malloc_trim; vectors: the (tools, dim) arrays)"
        )
        add("")
        add(
            _row("tools", "lexical build s", "lexical MB", "semantic build s", "semantic MB")[:-1]
            + _row("vectors MB", "model load s")
        )
        add("|---|---|---|---|---|---|---|")
        for b in builds:
            lx, se = b.get("lexical"), b.get("semantic")
            if not lx:
                add(f"| {b['tools']} | {b.get('note', '-')} | | | | | |")
                continue
            row = f"| {b['tools']:,} | {lx['build_s']:.2f} | {lx['rss_bytes'] / 1e6:.0f} | "
            if se:
                row += (
                    f"{se['build_s']:.2f} | {se['rss_bytes'] / 1e6:.0f} | "
                    f"{se['vector_bytes'] / 1e6:.1f} | {b['model_load_s']:.2f} |"
                )
            else:
                row += f"- | - | - | - ({b.get('note', '')}) |"
            add(row)
        add("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", help="the shared data folder (default: $TOOLSIFT_SHARED_DIR/data)"
    )
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--metatool-queries", type=int, default=1200)
    parser.add_argument("--keyword-queries", type=int, default=150, help="per kind and set")
    parser.add_argument("--rounds", type=int, default=3, help="latency rounds over the queries")
    parser.add_argument("--scale", type=int, default=0, help="also build at N synthetic tools")
    parser.add_argument(
        "--baseline",
        default="main",
        help="git ref whose lexical search latency is measured beside this checkout's ('' skips)",
    )
    parser.add_argument("--sections", default="quality,abstention,tasks,keywords,speed")
    parser.add_argument("--quick", action="store_true", help="small samples (a smoke run)")
    parser.add_argument("--json", help="write the raw numbers here")
    parser.add_argument("--probe", help=argparse.SUPPRESS)  # the child of run_probe
    args = parser.parse_args(argv)
    data = find_data_dir(args.data)
    if args.probe:
        print(json.dumps(probe(args.probe, data)))
        return 0
    if data is None:
        print("labelled sets not found: pass --data or set TOOLSIFT_SHARED_DIR", file=sys.stderr)
        return 2
    names = [n for n in args.engines.split(",") if n]
    unknown = set(names) - set(ENGINES)
    if unknown:
        parser.error(f"unknown engines: {', '.join(sorted(unknown))}")
    if args.quick:
        args.metatool_queries, args.keyword_queries, args.rounds = 150, 30, 1
    sections = set(args.sections.split(","))
    engines = Engines(names)
    start = time.perf_counter()
    report: dict[str, Any] = {
        "command": "python benches/eval_semantic.py "
        + " ".join(map(shlex.quote, argv or sys.argv[1:])),
        "machine": machine(),
        "python": platform.python_version(),
        "version": toolsift.__version__,
        "engines": names,
    }
    if "quality" in sections:
        report["quality"] = quality(data, engines, args.metatool_queries)
    if "abstention" in sections:
        report["abstention"] = abstention(data, engines)
    if "tasks" in sections:
        report["tasks"] = tasks(data, engines)
    if "keywords" in sections:
        report["keywords"] = keywords(data, engines, args.keyword_queries)
    engines.drop("mcp_mixed")
    if "speed" in sections:
        report["speed"] = speed(data, engines, args.rounds, args.baseline or None)
    if args.scale:
        report["scale"] = run_probe(str(args.scale), data)
    report["labels"] = engines.labels
    report["seconds"] = time.perf_counter() - start
    print(render(report))
    if args.json:
        tmp = Path(f"{args.json}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(report, indent=1), encoding="utf-8")
        os.replace(tmp, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
