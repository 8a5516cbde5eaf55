"""Scale: build, search, batch search, snapshot load and live updates at 10k to 1M tools, with
tantivy beside toolsift on the same tokens (see ``scale_report.py`` for the one-run table and the
memory figures in BENCHMARKS.md).

    pytest benches/test_scale.py --benchmark-enable --benchmark-only \\
        --benchmark-columns=median,mean,ops,rounds
    TOOLSIFT_BENCH_LARGE=1 pytest benches/test_scale.py ...   # adds 100k and 1M tools

By default only 10k tools run (CI runs each bench once, in a few seconds); 100k and 1M are
gated behind ``TOOLSIFT_BENCH_LARGE=1`` because generating and indexing them takes minutes.
tantivy (``pip install tantivy``) is optional: its benches are skipped without it.
"""

from __future__ import annotations

import functools
import itertools
import os

import pytest

pytest.importorskip("pytest_benchmark")

from _synthetic import FIELD_WEIGHTS, synthetic_documents, synthetic_queries  # noqa: E402
from toolsift import available_engines, tokenize  # noqa: E402

LARGE = os.environ.get("TOOLSIFT_BENCH_LARGE") == "1"
SIZES = [10_000] + ([100_000, 1_000_000] if LARGE else [])
QUERIES = synthetic_queries(200)


def ids(n: int) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 else f"{n // 1000}k"


@pytest.fixture(autouse=True)
def need_rust():
    if "rust" not in available_engines():
        pytest.skip("toolsift._core is not built")


@functools.lru_cache(maxsize=1)
def corpus(n: int):
    return synthetic_documents(n)


@functools.lru_cache(maxsize=1)
def built(n: int):
    from toolsift._core import Index

    names, docs = corpus(n)
    return Index(names, docs, FIELD_WEIGHTS)


def tantivy_index(n: int):
    tantivy = pytest.importorskip("tantivy")
    _, docs = corpus(n)
    texts = []
    for fields in docs:
        parts = []
        for field, text in fields:
            parts.extend(tok for tok in tokenize(text) for _ in range(int(FIELD_WEIGHTS[field])))
        texts.append(" ".join(parts))

    def build():
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("body", tokenizer_name="ws", index_option="freq")
        index = tantivy.Index(builder.build())
        analyzer = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
        index.register_tokenizer("ws", analyzer)
        writer = index.writer(heap_size=200_000_000, num_threads=2)
        for text in texts:
            writer.add_document(tantivy.Document(body=text))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        return index

    return build


@pytest.mark.parametrize("n", SIZES, ids=ids)
@pytest.mark.parametrize("engine", ["toolsift", "tantivy"])
def test_scale_build(benchmark, engine, n):
    benchmark.group = f"scale-build-{ids(n)}"
    if engine == "tantivy":
        index = benchmark.pedantic(tantivy_index(n), rounds=1, iterations=1)
        assert index.searcher().num_docs == n
        return
    from toolsift._core import Index

    names, docs = corpus(n)
    index = benchmark.pedantic(
        Index, args=(names, docs, FIELD_WEIGHTS), rounds=3 if n <= 100_000 else 1, iterations=1
    )
    assert len(index) == n


@pytest.mark.parametrize("n", SIZES, ids=ids)
@pytest.mark.parametrize("engine", ["toolsift", "tantivy"])
def test_scale_search(benchmark, engine, n):
    benchmark.group = f"scale-search-{ids(n)}"
    it = itertools.cycle(QUERIES)
    if engine == "tantivy":
        index = tantivy_index(n)()
        searcher = index.searcher()
        tokenized = itertools.cycle([" ".join(tokenize(q)) for q in QUERIES])

        def run():
            return searcher.search(index.parse_query(next(tokenized), ["body"]), 8).hits

        assert run()
        benchmark(run)
        return
    index = built(n)
    assert index.search(QUERIES[0], 8)  # never time a wrong answer
    benchmark(lambda: index.search(next(it), 8))


@pytest.mark.parametrize("n", SIZES, ids=ids)
@pytest.mark.parametrize("mode", ["search_many", "loop"])
def test_scale_batch(benchmark, mode, n):
    """200 queries per round: one ``search_many`` call against a loop of single calls."""
    benchmark.group = f"scale-batch-200-queries-{ids(n)}"
    index = built(n)
    expected = [index.search(q, 8) for q in QUERIES]
    if mode == "loop":
        result = benchmark(lambda: [index.search(q, 8) for q in QUERIES])
    else:
        result = benchmark(index.search_many, QUERIES, 8)
    assert result == expected


@pytest.mark.parametrize("n", SIZES, ids=ids)
def test_scale_snapshot_load(benchmark, tmp_path, n):
    from toolsift._core import Index

    benchmark.group = f"scale-load-{ids(n)}"
    index = built(n)
    path = tmp_path / "index.tsift"
    index.save(path)
    loaded = benchmark.pedantic(Index.load, args=(path,), rounds=3, iterations=1)
    assert loaded.search_many(QUERIES[:20], 8) == index.search_many(QUERIES[:20], 8)


@pytest.mark.parametrize("n", [s for s in SIZES if s <= 100_000], ids=ids)
@pytest.mark.parametrize("mode", ["update", "rebuild"])
def test_scale_update(benchmark, mode, n):
    """An MCP server's 13 tools are replaced: ``updated`` against a full rebuild."""
    from toolsift._core import Index

    benchmark.group = f"scale-update-13-tools-{ids(n)}"
    names, docs = corpus(n)
    index = built(n)
    new_names, new_docs = synthetic_documents(13, seed=99)
    new_names = [f"new_{x}" for x in new_names]
    remove = list(range(0, n, n // 13))[:13]
    gone = set(remove)
    kept_names = [x for i, x in enumerate(names) if i not in gone] + new_names
    kept_docs = [x for i, x in enumerate(docs) if i not in gone] + new_docs
    if mode == "update":
        result = benchmark.pedantic(
            index.updated, args=(new_names, new_docs), kwargs={"remove": remove}, rounds=3
        )
    else:
        result = benchmark.pedantic(
            Index, args=(kept_names, kept_docs, FIELD_WEIGHTS), rounds=3, iterations=1
        )
    assert result.names == kept_names
    assert result.search_many(QUERIES[:20], 8) == Index(
        kept_names, kept_docs, FIELD_WEIGHTS
    ).search_many(QUERIES[:20], 8)
