"""The public build, load + index + first search, the ways toolsift offers, beside tantivy.

    python benches/bench_build.py            # mcp_mixed (11.6k tools) and 100k synthetic tools
    python benches/bench_build.py --quick    # 2k synthetic tools only (a smoke run)
    python benches/bench_build.py --only "from_records(path)" --rounds 9   # one row, more runs

What a user pays before the first answer: each row builds an index and runs its first search
(``FIRST_QUERY``; toolsift's first search also builds the name table of ``select:`` and the
exact-name tier). Rows, each the median of a few runs in this process:

* ``load_tools + ToolIndex`` / ``load_catalog + ToolIndex``: the path before, from the parsed
  dicts and from the JSONL file;
* ``ToolIndex(tools), tools loaded``: the index alone, of ``Tool`` objects already loaded (the
  engine reads them itself);
* ``from_records(dicts)`` / ``from_records(path)``: the Rust path;
* ``tantivy``: tantivy-py indexing the same text in memory, one ``Document`` per tool with one
  text field holding the tool's indexed fields (``toolsift._documents.document``), the
  ``default`` tokenizer, two threads, commit and reload; its first search parses the query
  and collects the top 10.

Each row gives the wall clock and the CPU time (every thread of the process) of the build,
of the first search, and of both; and the CPU time of both on the calling thread and on the
other threads, with the wall clock they imply on an idle machine (the calling thread's time
plus the others' spread over the cores), which a shared machine's load does not move much.
Memory is the RSS growth of a fresh process that builds one index and runs its first search
(after ``gc.collect`` and dropping the source), so the interpreter and the input data are not
counted. The english profile (the default) throughout. mcp_mixed needs the shared catalogues
(``TOOLSIFT_SHARED_DIR``); it is skipped without them.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).parent))

from _measure import trimmed_rss  # noqa: E402
from _synthetic import synthetic_tools  # noqa: E402
from toolsift import ToolIndex  # noqa: E402
from toolsift._text.documents import document  # noqa: E402
from toolsift.loaders import load_catalog, load_tools  # noqa: E402

#: A row's medians: wall and CPU seconds of the build, of the first search, and of both; and
#: under ``"threads"``, the CPU seconds of both on the calling thread and on the others.
Timing = dict[str, tuple[float, float]]


def _median(fn: Callable[[], Any], rounds: int) -> Timing:
    """The median wall-clock and CPU seconds (every thread of the process: the engine's pool
    and tantivy's writer threads included) of ``rounds`` builds by ``fn``, of the first search
    of each, and of both. On a machine shared with other jobs the wall clock mostly measures
    the load; the CPU time is the work done, split between the calling thread and the others
    (what the pool can spread over the cores)."""
    runs: dict[str, list[tuple[float, float]]] = {
        "build": [], "search": [], "total": [], "threads": [],
    }  # fmt: skip
    for _ in range(rounds):
        own = time.thread_time()
        start, cpu = time.perf_counter(), time.process_time()
        index = fn()
        built, built_cpu = time.perf_counter(), time.process_time()
        _first_search(index)
        end, end_cpu = time.perf_counter(), time.process_time()
        runs["build"].append((built - start, built_cpu - cpu))
        runs["search"].append((end - built, end_cpu - built_cpu))
        runs["total"].append((end - start, end_cpu - cpu))
        own = time.thread_time() - own
        runs["threads"].append((own, end_cpu - cpu - own))
        del index
        gc.collect()
    return {
        part: (statistics.median(w for w, _ in xs), statistics.median(c for _, c in xs))
        for part, xs in runs.items()
    }


#: The first query of every row.
FIRST_QUERY = "read a file"


def _tantivy_build(texts: list[str]) -> Any:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False)
    index = tantivy.Index(builder.build())
    writer = index.writer(heap_size=200_000_000, num_threads=2)
    for text in texts:
        writer.add_document(tantivy.Document(body=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def _tantivy_search(index: Any) -> list[Any]:
    """tantivy's first search: parse the query, collect the top 10."""
    return index.searcher().search(index.parse_query(FIRST_QUERY, ["body"]), 10).hits


def _first_search(index: Any) -> Any:
    """The first search of an index (toolsift or tantivy)."""
    if type(index).__module__.startswith("tantivy"):
        return _tantivy_search(index)
    return index.search(FIRST_QUERY)


def _texts(path: str) -> list[str]:
    """The text tantivy indexes: each tool's indexed fields, joined."""
    tools = load_catalog(path)
    weights = ToolIndex([tools[0]]).field_weights.as_list()
    return [" ".join(text for _, text in document(t, weights)) for t in tools]


def _catalogue(name: str, n: int, workdir: str) -> str:
    """A JSONL catalogue file: the shared one, or ``n`` synthetic tools."""
    if name == "mcp_mixed":
        base = os.environ.get("TOOLSIFT_SHARED_DIR", str(Path(__file__).parents[2] / "shared"))
        return str(Path(base) / "data" / "mcp_mixed.tools.jsonl")
    path = os.path.join(workdir, f"synthetic_{n}.tools.jsonl")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as fh:
            for tool in synthetic_tools(n):
                fh.write(json.dumps(tool.to_dict(), ensure_ascii=False) + "\n")
    return path


BUILDS: dict[str, Callable[[str, list[Any]], Any]] = {
    "load_tools + ToolIndex (dicts)": lambda path, dicts: ToolIndex(load_tools(dicts)),
    "ToolIndex(tools), tools loaded": lambda path, tools: ToolIndex(tools),
    "from_records(dicts)": lambda path, dicts: ToolIndex.from_records(dicts),
    "load_catalog + ToolIndex (file)": lambda path, dicts: ToolIndex(load_catalog(path)),
    "from_records(path)": lambda path, dicts: ToolIndex.from_records(path),
}


def _trimmed_rss_mib() -> float:
    """RSS after a full collection, with the allocator's free pages given back (glibc)."""
    return trimmed_rss() / 2**20


def _memory(kind: str, path: str, texts: str) -> tuple[float, float]:
    """RSS growth (MiB) of building one index of ``path`` and running its first search in a
    fresh process, the input (dicts, tool list, texts) dropped; the index holds what it needs
    to return tools: after the build, and after the first search too."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[3]); import bench_build as b\n"
        "kind, path = sys.argv[1], sys.argv[2]\n"
        "dicts = texts = None\n"
        "if kind == 'tantivy':\n"
        "    texts = open(sys.argv[4], encoding='utf-8').read().split('\\n')\n"
        "elif 'dicts' in kind:\n"
        "    dicts = [json.loads(l) for l in open(path, encoding='utf-8') if l.strip()]\n"
        "before = b._trimmed_rss_mib()\n"
        "index = b._tantivy_build(texts) if kind == 'tantivy' else b.BUILDS[kind](path, dicts)\n"
        "del dicts  # (tantivy's texts stay: its index holds none of them)\n"
        "built = b._trimmed_rss_mib()\n"
        "b._first_search(index)\n"
        "print(built - before, b._trimmed_rss_mib() - before)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, kind, path, str(Path(__file__).parent), texts],
        check=True,
        capture_output=True,
        text=True,
    )
    built, total = out.stdout.split()[-2:]
    return float(built), float(total)


def _print_times(label: str, rounds: int, times: dict[str, Timing]) -> None:
    """The table of one catalogue: CPU ratios to tantivy first, then the seconds."""
    tantivy = times["tantivy (same text)"]
    print(f"\n{label}: build + first search, median of {rounds}; CPU time ÷ tantivy's")
    print(f"  {'':34s} {'build':>7s} {'search':>7s} {'total':>7s}")
    for kind, t in times.items():
        ratios = [t[p][1] / max(tantivy[p][1], 1e-9) for p in ("build", "search", "total")]
        print(f"  {kind:34s} " + " ".join(f"{r:6.2f}x" for r in ratios))
    print(f"{label}: seconds (CPU / wall): build, first search, total")
    for kind, t in times.items():
        cells = [f"{t[p][1]:7.3f} / {t[p][0]:7.3f}" for p in ("build", "search", "total")]
        print(f"  {kind:34s} " + "   ".join(cells))
    # What the wall clock would read on an idle machine with `cores` cores, if the calling
    # thread waits while the other threads work (toolsift's build does; tantivy's writers
    # also overlap the calling thread, so its figure is an upper bound): robust to the load.
    cores = os.cpu_count() or 1
    print(f"{label}: CPU (ms) of build + first search on the calling thread / the other")
    print(f"  threads, and the idle-machine wall they imply (calling + others ÷ {cores} cores)")
    for kind, t in times.items():
        own, others = t["threads"]
        cell = f"{own * 1e3:7.1f} / {others * 1e3:7.1f}   ~{(own + others / cores) * 1e3:7.1f}"
        print(f"  {kind:34s} {cell}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2k synthetic tools only")
    parser.add_argument("--memory-only", action="store_true", help="only the memory table")
    parser.add_argument("--rounds", type=int, help="runs a row (default 3; 1 past 50k tools)")
    parser.add_argument("--only", help="only the rows whose name holds this (and tantivy)")
    args = parser.parse_args()
    sizes = [("synthetic", 2_000)] if args.quick else [("mcp_mixed", 0), ("synthetic", 100_000)]
    workdir = tempfile.mkdtemp(prefix="toolsift-bench-build-")
    for name, n in sizes:
        path = _catalogue(name, n, workdir)
        if not os.path.exists(path):
            print(f"{name}: skipped ({path} not found)")
            continue
        dicts = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
        label = f"{name} ({len(dicts):,} tools)"
        rounds = args.rounds or (1 if len(dicts) > 50_000 else 3)
        fast = ToolIndex.from_records(path)
        slow = ToolIndex(load_catalog(path))
        assert [(m.name, m.score) for m in fast.search(FIRST_QUERY)] == [
            (m.name, m.score) for m in slow.search(FIRST_QUERY)
        ]
        del fast, slow
        if args.memory_only:
            times = {}
        else:
            tools = load_tools(dicts)
            times = {
                kind: _median(
                    lambda b=build, p=path, d=(tools if "loaded" in kind else dicts): b(p, d),
                    rounds,
                )
                for kind, build in BUILDS.items()
                if args.only is None or args.only in kind
            }
            del tools
            texts = _texts(path)
            times["tantivy (same text)"] = _median(lambda t=texts: _tantivy_build(t), rounds)
        if times:
            _print_times(label, rounds, times)
        if len(dicts) >= 50_000 or args.quick:
            print(f"{label}: RSS growth of one index and its first search (MiB), ÷ tantivy")
            kinds = [
                "load_catalog + ToolIndex (file)",
                "load_tools + ToolIndex (dicts)",
                "from_records(path)",
                "from_records(dicts)",
            ]
            texts_path = os.path.join(workdir, f"{name}.texts")
            with open(texts_path, "w", encoding="utf-8") as fh:
                fh.write("\n".join(t.replace("\n", " ") for t in _texts(path)))
            mem = {kind: _memory(kind, path, texts_path) for kind in [*kinds, "tantivy"]}
            tantivy = max(mem["tantivy"][1], 0.1)
            print(f"  {'':34s} {'total':>8s} {'÷ tantivy':>10s} {'build':>8s} {'search':>8s}")
            for kind, (built, total) in mem.items():
                print(
                    f"  {kind:34s} {total:8.1f} {total / tantivy:9.2f}x"
                    f" {built:8.1f} {total - built:8.1f}"
                )


if __name__ == "__main__":
    main()
