"""The public build, load + index, before and after ``ToolIndex.from_records``, beside tantivy.

    python benches/bench_build.py            # mcp_mixed (11.6k tools) and 100k synthetic tools
    python benches/bench_build.py --quick    # 2k synthetic tools only (a smoke run)

Rows, each the median of a few runs in this process:

* ``load_tools + ToolIndex`` / ``load_catalog + ToolIndex``: the path before, from the parsed
  dicts and from the JSONL file;
* ``ToolIndex(tools), tools loaded``: the index alone, of ``Tool`` objects already loaded (the
  engine reads them itself);
* ``from_records(dicts)`` / ``from_records(path)``: the Rust path;
* ``tantivy``: tantivy-py indexing the same text in memory, one ``Document`` per tool with one
  text field holding the tool's indexed fields (``toolsift._documents.document``), the
  ``default`` tokenizer, two threads, commit and reload.

Each row gives the wall clock and the CPU time (every thread of the process). Memory is the
RSS growth of a fresh process that builds one index (after ``gc.collect`` and
dropping the source), so the interpreter and the input data are not counted. The english
profile (the default) throughout. mcp_mixed needs the shared catalogues
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

from _synthetic import synthetic_tools  # noqa: E402
from toolsift import ToolIndex  # noqa: E402
from toolsift._text.documents import document  # noqa: E402
from toolsift.loaders import load_catalog, load_tools  # noqa: E402


def _rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _median(fn: Callable[[], Any], rounds: int) -> tuple[float, float]:
    """The median wall-clock and CPU seconds (every thread of the process: the engine's pool
    and tantivy's writer threads included) of ``rounds`` calls. On a machine shared with other
    jobs the wall clock mostly measures the load; the CPU time is the work done."""
    walls, cpus = [], []
    for _ in range(rounds):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        gc.collect()
    return statistics.median(walls), statistics.median(cpus)


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
    import ctypes

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:  # not glibc: RSS keeps the free pages
        pass
    return _rss_mib()


def _memory(kind: str, path: str, texts: str) -> float:
    """RSS growth (MiB) of building one index of ``path`` in a fresh process, the input (dicts,
    tool list, texts) dropped; the index holds what it needs to return tools."""
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
        "print(b._trimmed_rss_mib() - before)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, kind, path, str(Path(__file__).parent), texts],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2k synthetic tools only")
    parser.add_argument("--memory-only", action="store_true", help="only the memory table")
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
        rounds = 1 if len(dicts) > 50_000 else 3
        fast = ToolIndex.from_records(path)
        slow = ToolIndex(load_catalog(path))
        assert [(m.name, m.score) for m in fast.search("read a file")] == [
            (m.name, m.score) for m in slow.search("read a file")
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
            }
            del tools
            texts = _texts(path)
            times["tantivy (same text)"] = _median(lambda t=texts: _tantivy_build(t), rounds)
        tantivy_wall, tantivy_cpu = times.get("tantivy (same text)", (1.0, 1.0))
        print(f"\n{label}: seconds (median of {rounds}), ratio to tantivy; wall clock, then CPU")
        for kind, (wall, cpu) in times.items():
            print(
                f"  {kind:34s} {wall:8.3f} s  {wall / tantivy_wall:6.2f}x"
                f"  cpu {cpu:8.3f} s  {cpu / tantivy_cpu:6.2f}x"
            )
        if times:
            dicts_x = times["load_tools + ToolIndex (dicts)"][0] / times["from_records(dicts)"][0]
            file_x = times["load_catalog + ToolIndex (file)"][0] / times["from_records(path)"][0]
            print(f"  speed-up (wall), dicts: {dicts_x:.1f}x; file: {file_x:.1f}x")
        if len(dicts) >= 50_000 or args.quick:
            print(f"{label}: RSS growth of one index (MiB), ratio to tantivy")
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
            for kind, mib in mem.items():
                print(f"  {kind:34s} {mib:8.1f} MiB  {mib / max(mem['tantivy'], 0.1):6.2f}x")


if __name__ == "__main__":
    main()
