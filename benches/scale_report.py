"""Scale report: toolsift's Rust engine beside tantivy on the same tokens, at 10k to 1M tools.

    python benches/scale_report.py                      # 10k and 100k tools
    python benches/scale_report.py 100000 1000000       # any sizes

Each (engine, size) runs in a fresh subprocess, so that one engine's freed memory cannot hide the
other's RSS growth. The catalogue is ``_synthetic.synthetic_documents`` (MCP-shaped: names,
labels, servers, 10-60 word summaries cut to 200 characters, 1-8 schema keys; ToolIndex's field
weights). tantivy (PyPI ``tantivy``, in-RAM index, whitespace tokenizer, ``freq`` postings) gets
*our* tokens, each repeated by its field weight, joined by spaces, in one field: the same term
frequencies and document lengths, so both rank by BM25 over identical postings. toolsift's build
time includes tokenizing; tantivy's includes only its whitespace split. ``--profiles`` picks the
toolsift rows: ``omp`` (the raw engine's default, tantivy's tokens) and ``english`` (ToolIndex's
default: a half-weight stemmed copy of every term, query stop words, distinct query terms, and the
profile's ranking defaults: the full description scored at 0.25, summary 1, δ 0.5).

Prints a Markdown table (the ``## Scale`` section of BENCHMARKS.md) and writes the raw numbers as
JSON to ``--json`` if given.
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _measure import rss, trimmed_rss  # noqa: E402

QUERIES = 400


def median_us(fn, queries, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        for q in queries:
            t = time.perf_counter()
            fn(q)
            times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e6


def measure_toolsift(n: int, profile: str = "omp") -> dict:
    from _synthetic import profile_setup, synthetic_documents, synthetic_queries
    from toolsift._core import Index

    weights, delta, with_description = profile_setup(profile)
    names, docs = synthetic_documents(n, description=with_description)
    queries = synthetic_queries(QUERIES)
    gc.collect()
    before = trimmed_rss()
    t = time.perf_counter()
    index = Index(names, docs, weights, delta=delta, profile=profile)
    build = time.perf_counter() - t
    gc.collect()
    growth = rss() - before
    trimmed = trimmed_rss() - before
    label = "toolsift" if profile == "omp" else f"toolsift ({profile})"
    out = {"engine": label, "n": n, "build_s": build, "rss_bytes": growth}
    out["rss_trimmed_bytes"] = trimmed
    out["memory_bytes"] = index.memory_bytes
    assert index.search(queries[0], 8)
    out["search_us"] = median_us(lambda q: index.search(q, 8), queries)
    # Batch: one search_many call against a loop of single calls, same queries.
    batch = queries * max(1, 20_000 // len(queries)) if n <= 100_000 else queries * 5
    t = time.perf_counter()
    many = index.search_many(batch, 8)
    out["batch_qps"] = len(batch) / (time.perf_counter() - t)
    t = time.perf_counter()
    loop = [index.search(q, 8) for q in batch]
    out["loop_qps"] = len(batch) / (time.perf_counter() - t)
    assert many == loop
    # Snapshot: save, then load in this process (a worker would do the same).
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "index.tsift")
        t = time.perf_counter()
        index.save(path)
        out["save_s"] = time.perf_counter() - t
        out["snapshot_bytes"] = os.path.getsize(path)
        t = time.perf_counter()
        loaded = Index.load(path)
        out["load_s"] = time.perf_counter() - t
        assert loaded.search_many(queries[:50], 8) == many[:50]
        del loaded
    # Live update: one 13-tool server replaced (remove 13, add 13) against a full rebuild.
    if n <= 100_000:
        new_names, new_docs = synthetic_documents(13, seed=99, description=with_description)
        new_names = [f"new_{x}" for x in new_names]
        remove = list(range(0, n, max(1, n // 13)))[:13]
        t = time.perf_counter()
        updated = index.updated(new_names, new_docs, remove=remove)
        out["update_s"] = time.perf_counter() - t
        gone = set(remove)
        kept_names = [x for i, x in enumerate(names) if i not in gone] + new_names
        kept_docs = [x for i, x in enumerate(docs) if i not in gone] + new_docs
        t = time.perf_counter()
        rebuilt = Index(kept_names, kept_docs, weights, delta=delta, profile=profile)
        out["rebuild_s"] = time.perf_counter() - t
        assert updated.search_many(queries[:50], 8) == rebuilt.search_many(queries[:50], 8)
    return out


def measure_tantivy(n: int) -> dict:
    import tantivy
    from _synthetic import FIELD_WEIGHTS, synthetic_documents, synthetic_queries
    from toolsift import tokenize

    names, docs = synthetic_documents(n)
    texts = []
    for fields in docs:
        parts = []
        for field, text in fields:
            w = int(FIELD_WEIGHTS[field])
            for tok in tokenize(text):
                parts.extend([tok] * w)
        texts.append(" ".join(parts))
    del docs
    queries = [" ".join(tokenize(q)) for q in synthetic_queries(QUERIES)]
    gc.collect()
    before = trimmed_rss()
    t = time.perf_counter()
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", tokenizer_name="ws", index_option="freq")
    schema = builder.build()
    index = tantivy.Index(schema)
    index.register_tokenizer(
        "ws", tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
    )
    writer = index.writer(heap_size=200_000_000, num_threads=2)
    for text in texts:
        writer.add_document(tantivy.Document(body=text))
    writer.commit()
    writer.wait_merging_threads()
    del writer
    index.reload()
    searcher = index.searcher()
    build = time.perf_counter() - t
    gc.collect()
    growth = rss() - before
    trimmed = trimmed_rss() - before
    out = {"engine": "tantivy", "n": n, "build_s": build, "rss_bytes": growth}
    out["rss_trimmed_bytes"] = trimmed

    def search(q):
        return searcher.search(index.parse_query(q, ["body"]), 8).hits

    assert search(queries[0])
    out["search_us"] = median_us(search, queries)
    return out


def run_child(engine: str, n: int) -> dict:
    cmd = [sys.executable, __file__, "--child", engine, str(n)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{engine} at {n} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fmt_n(n: int) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 else f"{n // 1000}k"


def report(results: list[dict]) -> str:
    rows = [
        "| tools | engine | build | search (median, 1 query) | RSS growth | per tool |"
        " RSS growth after malloc_trim |"
        " batch vs loop (queries/s) | snapshot: size, save, load | update vs rebuild |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        per_tool = r["rss_bytes"] / r["n"]
        batch = snap = update = "–"
        if "batch_qps" in r:
            ratio = r["batch_qps"] / r["loop_qps"]
            batch = f"{r['batch_qps']:,.0f} vs {r['loop_qps']:,.0f} ({ratio:.2f}×)"
            snap = (
                f"{r['snapshot_bytes'] / 1e6:.1f} MB, {r['save_s'] * 1e3:.0f} ms, "
                f"{r['load_s'] * 1e3:.0f} ms"
            )
        if "update_s" in r:
            update = f"{r['update_s'] * 1e3:.1f} ms vs {r['rebuild_s'] * 1e3:.0f} ms"
        rows.append(
            f"| {fmt_n(r['n'])} | {r['engine']} | {r['build_s']:.2f} s | {r['search_us']:.0f} µs "
            f"| {r['rss_bytes'] / 1e6:.0f} MB | {per_tool:.0f} B "
            f"| {r['rss_trimmed_bytes'] / 1e6:.0f} MB | {batch} | {snap} | {update} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "N"))
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--profiles",
        default="omp,english",
        help="toolsift analysis profiles to run (comma-separated); 'omp' uses the same tokens "
        "as tantivy, 'english' is ToolIndex's default (stemmed copies, query stop words)",
    )
    args = parser.parse_args()
    if args.child:
        engine, n = args.child[0], int(args.child[1])
        if engine == "tantivy":
            print(json.dumps(measure_tantivy(n)))
        else:
            print(json.dumps(measure_toolsift(n, engine.partition(":")[2] or "omp")))
        return
    results = []
    engines = [f"toolsift:{p}" for p in args.profiles.split(",") if p] + ["tantivy"]
    for n in args.sizes:
        for engine in engines:
            results.append(run_child(engine, n))
            print(json.dumps(results[-1]), file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    print(report(results))


if __name__ == "__main__":
    main()
