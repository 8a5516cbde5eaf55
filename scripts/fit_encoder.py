"""Fit the static encoder's adaptation (``python/toolsift/semantic/data/adapter.npz``) on the
TRAIN splits only: a linear map ``W`` (256 x 256) applied to the mean-pooled token vectors of
queries and tools alike, regularised toward the plain model (``W = I``); with
``--token-weights`` also a weight per vocabulary row (SIF-like: how much a token counts in a
text's mean; off by default, the shipped file's weights are all 1).

    python scripts/fit_encoder.py                    # fit on every train query, write the file
    python scripts/fit_encoder.py --holdout          # fit on 80 % of train, score the other 20 %
    python scripts/fit_encoder.py --dry-run          # fit and print, write nothing
    python scripts/fit_encoder.py --holdout --out /tmp/adapter-80.npz   # for fit_semantic.py

The loss: for every train (query, relevant tools) pair of mcp_mixed (strict), metatool,
gorilla_hf and the authored in-scope sets, the softmax over the cosines (times a temperature)
of the query with every tool of its catalogue, the relevant tools' probability maximised; each
set weighted equally (metatool sub-sampled). Full-batch Adam from the identity, a fixed number
of steps, one BLAS thread: deterministic. The hold-out (``--holdout``) is a fixed 20 % of train
chosen by hash (:func:`in_holdout`), never the test split: ``scripts/fit_semantic.py --adapter``
fits the fusion and the confidence on it with an adapter fitted on the other 80 %, so that the
fusion learns how far to trust cosines of queries the adapter never saw. The data folder is
``$TOOLSIFT_SHARED_DIR/data`` or ``../shared/data``. After a change of ``adapter.npz``, re-run
``scripts/fit_semantic.py --adapter`` with a hold-out adapter.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from toolsift.embed import tool_text  # noqa: E402
from toolsift.evaluation import authored  # noqa: E402
from toolsift.evaluation.datasets import find_data_dir, load_dataset  # noqa: E402
from toolsift.evaluation.splits import split_of  # noqa: E402
from toolsift.semantic.model import ADAPTER_FILE, MODEL_ID, StaticEncoder, adapt_rows  # noqa: E402

SETS = ("mcp_mixed", "metatool", "gorilla_hf")
OUT = ROOT / "python" / "toolsift" / "semantic" / "data" / ADAPTER_FILE


@dataclass
class Texts:
    """Token ids of many texts, flattened: ``flat`` ids, ``seg`` the text of each id."""

    flat: np.ndarray
    seg: np.ndarray
    n: int
    starts: np.ndarray  # where each non-empty text's ids begin
    has: np.ndarray  # the non-empty texts

    @classmethod
    def of(cls, ids: list[list[int]]) -> Texts:
        lengths = np.array([len(i) for i in ids], dtype=np.intp)
        flat = np.fromiter((t for row in ids for t in row), dtype=np.intp, count=int(lengths.sum()))
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.intp)
        has = np.flatnonzero(lengths > 0)
        seg = np.repeat(np.arange(len(ids)), lengths)
        return cls(flat, seg, len(ids), starts[has], has)


@dataclass
class Set:
    name: str
    tools: Texts
    queries: Texts
    relevant: np.ndarray  # (n_queries, n_tools) bool


def adapted_encoder(path: str | os.PathLike[str]) -> StaticEncoder:
    """The encoder with the adapter of ``path`` (a file this script wrote) in place of the
    shipped one, under the shipped model's identity."""
    plain = StaticEncoder.load(adapted=False)
    with np.load(path, allow_pickle=False) as data:
        weights = np.asarray(data["token_weights"], dtype=np.float32)
        projection = np.asarray(data["projection"], dtype=np.float32)
    return StaticEncoder(adapt_rows(plain._rows, weights, projection), plain._tokenizer, MODEL_ID)


def in_holdout(name: str, text: str) -> bool:
    """A fixed fifth of the train queries, kept out of the fit by ``--holdout``."""
    h = hashlib.sha256(f"holdout\x00{name}\x00{text}".encode()).hexdigest()
    return int(h[:8], 16) % 5 == 0


def load_sets(enc: StaticEncoder, data_dir: Path, metatool_n: int) -> tuple[list[Set], list[Set]]:
    """The train sets, each split into its fit part and its hold-out part."""
    memo = enc._tokenizer
    groups: list[tuple[str, Any, list[Any]]] = []
    for name in SETS:
        ds = load_dataset(name, data_dir)
        qs = [q for q in ds.queries if split_of(name, q.text) == "train"]
        groups.append((name, ds.tools, qs))
    for cat in ("popular_mcp_servers", "default_tools"):
        tools = authored.load_catalogue(cat, data_dir)
        ds = authored.load_inscope(cat, tools, data_dir)
        qs = [q for q in ds.queries if split_of(ds.name, q.text) == "train"]
        groups.append((ds.name, tools, qs))
    fit, held = [], []
    for name, tools, qs in groups:
        tool_ids = Texts.of(memo.batch_ids([tool_text(t) for t in tools]))
        for part, keep in ((fit, False), (held, True)):
            sub = [q for q in qs if in_holdout(name, q.text) == keep and q.relevant]
            if name == "metatool" and not keep and len(sub) > metatool_n:
                sub = sub[:: math.ceil(len(sub) / metatool_n)]
            rel = np.zeros((len(sub), len(tools)), dtype=bool)
            for i, q in enumerate(sub):
                rel[i, list(q.relevant)] = True
            part.append(Set(name, tool_ids, Texts.of(memo.batch_ids([q.text for q in sub])), rel))
    return fit, held


class Model:
    """``z(text) = normalise((sum_t s_t E_t) W)``; parameters ``W``, and ``a`` (``s = exp(a)``)."""

    def __init__(self, rows: np.ndarray, rank_tokens: np.ndarray) -> None:
        # float32 (fast), or float64 rows for an exact gradient check
        self.E = rows if rows.dtype == np.float64 else rows.astype(np.float32)
        d = rows.shape[1]
        self.W = np.eye(d, dtype=self.E.dtype)
        self.a = np.zeros(rows.shape[0], dtype=np.float64)
        self.learn = rank_tokens  # the rows whose weight is learnt (seen in the fit texts)
        self._cache: dict[int, np.ndarray] = {}

    def pooled(self, t: Texts) -> np.ndarray:
        """The texts' token rows summed, each scaled by its weight (cached while the weights
        are not learnt)."""
        key = id(t)
        if not len(self.learn) and key in self._cache:
            return self._cache[key]
        s = np.exp(self.a).astype(self.E.dtype)
        v = np.zeros((t.n, self.E.shape[1]), dtype=self.E.dtype)
        for lo in range(0, len(t.has), 512):  # in chunks: the gathered rows stay small
            texts = t.has[lo : lo + 512]
            a = t.starts[lo]
            b = t.starts[lo + 512] if lo + 512 < len(t.has) else len(t.flat)
            f = t.flat[a:b]
            v[texts] = np.add.reduceat(self.E[f] * s[f, None], t.starts[lo : lo + 512] - a, axis=0)
        if not len(self.learn):
            self._cache[key] = v
        return v

    def forward(self, t: Texts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        v = self.pooled(t)
        u = v @ self.W
        norm = np.linalg.norm(u, axis=1, keepdims=True)
        norm[norm == 0] = 1.0
        return v, u / norm, norm

    def backward(
        self, t: Texts, v: np.ndarray, z: np.ndarray, norm: np.ndarray, dz: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        du = (dz - z * np.sum(z * dz, axis=1, keepdims=True)) / norm
        dW = v.T @ du
        da = np.zeros_like(self.a)
        if not len(self.learn):
            return dW, da
        dv = (du @ self.W.T).astype(self.E.dtype)
        s = np.exp(self.a).astype(self.E.dtype)
        for lo in range(0, len(t.flat), 100_000):
            f, g = t.flat[lo : lo + 100_000], t.seg[lo : lo + 100_000]
            contrib = np.einsum("ij,ij->i", dv[g], self.E[f]) * s[f]
            da += np.bincount(f, weights=contrib, minlength=len(self.a))
        return dW, da


def loss_grad(
    model: Model, sets: list[Set], tau: float, grad: bool = True
) -> tuple[float, np.ndarray, np.ndarray]:
    total = 0.0
    dW = np.zeros_like(model.W)
    da = np.zeros_like(model.a)
    for st in sets:
        if not len(st.relevant):
            continue
        vq, zq, nq = model.forward(st.queries)
        vd, zd, nd = model.forward(st.tools)
        s = tau * zq @ zd.T
        s -= s.max(axis=1, keepdims=True)
        e = np.exp(s)
        z = e.sum(axis=1)
        zr = (e * st.relevant).sum(axis=1)
        w = 1.0 / (len(st.relevant) * len(sets))
        total += float(-(np.log(zr / z)).sum() * w)
        if not grad:
            continue
        ds = (e / z[:, None] - e * st.relevant / zr[:, None]) * (w * tau)
        gW, ga = model.backward(st.queries, vq, zq, nq, ds @ zd)
        dW += gW
        da += ga
        gW, ga = model.backward(st.tools, vd, zd, nd, ds.T @ zq)
        dW += gW
        da += ga
    return total, dW, da


def ndcg10(model: Model, st: Set) -> float:
    _, zq, _ = model.forward(st.queries)
    _, zd, _ = model.forward(st.tools)
    top = np.argsort(-(zq @ zd.T), axis=1, kind="stable")[:, :10]
    out = []
    for i in range(len(top)):
        rel = st.relevant[i]
        dcg = sum(1 / math.log2(r + 2) for r, d in enumerate(top[i]) if rel[d])
        ideal = sum(1 / math.log2(r + 2) for r in range(min(int(rel.sum()), 10)))
        out.append(dcg / ideal)
    return float(np.mean(out)) if out else float("nan")


def fit(
    model: Model,
    sets: list[Set],
    steps: int,
    lr: float,
    l2_w: float,
    l2_a: float,
    tau: float,
    quiet: bool = False,
) -> None:
    """Full-batch Adam from the model's parameters, ``steps`` steps; ``W`` pulled toward the
    identity (``l2_w``), the log token weights toward 0 (``l2_a``)."""
    mW = np.zeros_like(model.W)
    vW = np.zeros_like(model.W)
    ma = np.zeros_like(model.a)
    va = np.zeros_like(model.a)
    eye = np.eye(model.W.shape[0])
    mask = np.zeros_like(model.a)
    mask[model.learn] = 1.0
    for t in range(1, steps + 1):
        loss, dW, da = loss_grad(model, sets, tau)
        dW += l2_w * (model.W - eye)
        da = (da + l2_a * model.a) * mask
        for p, g, m, v in ((model.W, dW, mW, vW), (model.a, da, ma, va)):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        if not quiet and (t % 25 == 0 or t == 1):
            print(f"  step {t}: loss {loss:.4f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--holdout", action="store_true", help="fit on 80 %% of train, score the rest")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--l2-w", type=float, default=0.1)
    ap.add_argument("--l2-a", type=float, default=0.01)
    ap.add_argument("--tau", type=float, default=20.0)
    ap.add_argument(
        "--token-weights", action="store_true", help="learn the token weights too (slow)"
    )
    ap.add_argument("--metatool-queries", type=int, default=3000)
    args = ap.parse_args()
    data_dir = find_data_dir(args.data)
    if data_dir is None:
        print("no labelled data: set TOOLSIFT_SHARED_DIR or --data", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    enc = StaticEncoder.load(adapted=False)
    fit_sets, held = load_sets(enc, data_dir, args.metatool_queries)
    if not args.holdout:  # every train query is fitted
        fit_sets = [
            Set(
                f.name,
                f.tools,
                Texts.of(_ids(f.queries) + _ids(h.queries)),
                np.concatenate([f.relevant, h.relevant]),
            )
            for f, h in zip(fit_sets, held)
        ]
    seen = np.unique(
        np.concatenate([np.concatenate([s.queries.flat, s.tools.flat]) for s in fit_sets])
    )
    learn = seen if args.token_weights else np.array([], dtype=np.intp)
    model = Model(np.asarray(enc._rows, dtype=np.float32), learn)
    print(
        f"{sum(len(s.relevant) for s in fit_sets)} fit queries over {len(fit_sets)} sets, "
        f"{len(learn)} token weights learnt; {time.perf_counter() - t0:.0f}s",
        flush=True,
    )
    scored = held if args.holdout else fit_sets
    before = {s.name: ndcg10(model, s) for s in scored}
    fit(model, fit_sets, args.steps, args.lr, args.l2_w, args.l2_a, args.tau)
    after = {s.name: ndcg10(model, s) for s in scored}
    print(f"dense nDCG@10 on {'the hold-out' if args.holdout else 'the fit queries'}:")
    for name in before:
        b, a = before[name], after[name]
        print(f"  {name:<28} {b:.4f} -> {a:.4f} ({a - b:+.4f})")
    b, a = np.nanmean(list(before.values())), np.nanmean(list(after.values()))
    print(f"  mean {b:.4f} -> {a:.4f}")
    s = np.exp(model.a)
    print(
        f"|W - I|_F {np.linalg.norm(model.W - np.eye(len(model.W))):.3f}; token weights "
        f"min {s.min():.3f} max {s.max():.3f}; {time.perf_counter() - t0:.0f}s"
    )
    if not args.dry_run and (args.out != str(OUT) or not args.holdout):
        tmp = Path(args.out).with_suffix(".tmp.npz")
        np.savez_compressed(
            tmp, projection=model.W.astype(np.float16), token_weights=s.astype(np.float16)
        )
        os.replace(tmp, args.out)
        print(f"wrote {args.out} ({Path(args.out).stat().st_size} bytes)")
    return 0


def _ids(t: Texts) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(t.n)]
    for f, g in zip(t.flat.tolist(), t.seg.tolist()):
        out[g].append(f)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
