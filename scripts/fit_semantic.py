"""Fit the semantic ranking's weights (``python/toolsift/semantic/data/weights.json``) on the
TRAIN splits only, and print what was fitted with the train metrics.

    python scripts/fit_semantic.py                 # fit and write the shipped weights
    python scripts/fit_semantic.py --dry-run       # fit and print, write nothing
    python scripts/fit_semantic.py --report test   # score the shipped weights on the test split
    python scripts/fit_semantic.py --adapter /tmp/adapter-80.npz   # the shipped way (below)

Deterministic (fixed sub-sample, full-batch optimisation from a fixed start). The data folder
is ``$TOOLSIFT_SHARED_DIR/data`` or ``../shared/data``; the authored no-tool, in-scope and
whole-task sets are read from ``toolsift/evaluation/data``. Every query goes through
``ToolIndex(tools, semantic=True)``: the fit sees the lexical lists and cosines the shipped
search hands the ranker, and the metrics are the public search's (exact-name tier included).
After a change of model (``toolsift.semantic.model``), re-run this one command.

What it fits, written to the weights file:
  fusion      a linear model with non-negative weights over ``fusion.N_FEATURES`` features of
              each candidate (its place in the lexical and dense lists times the query's
              features), listwise softmax loss, each labelled set weighted equally (metatool
              sub-sampled).
  tasks       the coverage merge's part and covered weights (grid, on whole-task requests and on
              every other train query routed as a task).
  confidence  a logistic model over ``confidence.SIGNALS`` (label: a relevant tool is in the
              top 5; no-tool requests are negatives), on the catalogues that have no-tool
              requests, and ``min_confidence``: the lowest threshold at which at most 10 % of
              the no-tool train requests are answered.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# One BLAS thread: the same sums in the same order on every machine (a deterministic fit), and
# no spinning threads on a busy one.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "scripts"))

from toolsift.evaluation import authored  # noqa: E402
from toolsift.evaluation.datasets import DEPTH, find_data_dir, load_dataset  # noqa: E402
from toolsift.evaluation.splits import split_of  # noqa: E402
from toolsift.hybrid import _NO_QUERY_CAP  # noqa: E402
from toolsift.index import ToolIndex  # noqa: E402
from toolsift.semantic import confidence as conf_mod  # noqa: E402
from toolsift.semantic.fusion import (  # noqa: E402
    CANDIDATE_FEATURES,
    N_FEATURES,
    QUERY_FEATURES,
    Candidates,
    features,
)
from toolsift.semantic.model import MODEL_ID  # noqa: E402
from toolsift.semantic.ranker import WEIGHTS_FILE, Ranked, SemanticRanker  # noqa: E402
from toolsift.semantic.route import route  # noqa: E402
from toolsift.semantic.tasks import split_intents  # noqa: E402

SETS = ("mcp_mixed", "metatool", "gorilla_hf")
OUT = ROOT / "python" / "toolsift" / "semantic" / "data" / WEIGHTS_FILE
AUTHORED = ROOT / "python" / "toolsift" / "evaluation" / "data"
NO_TOOL_TARGET = 0.10


# --- the callbacks of the real index ----------------------------------------------------------
class _Capture:
    """Stands in for the index's ranker once per query: keeps the text and the callbacks."""

    def __init__(self) -> None:
        self.last: tuple[str, Any, Any] | None = None

    def rank(
        self, query: str, limit: int, lexical: Any, dense: Any, dense_many: Any = None
    ) -> Ranked:
        self.last = (query, lexical, dense)
        return Ranked([], [], 0.0)


@dataclass
class Catalogue:
    """A catalogue's ``ToolIndex(semantic=True)`` and, per text, the lexical top 100 and the
    cosines its search hands the ranker (the fit sees exactly what the shipped search sees)."""

    name: str
    tools: tuple[Any, ...]
    index: ToolIndex
    stored: dict[str, tuple[list[tuple[int, float]], np.ndarray]] = field(default_factory=dict)

    def capture(self, text: str) -> None:
        if text in self.stored:
            return
        searcher = self.index._semantic
        assert searcher is not None
        real, capture = searcher._ranker, _Capture()
        searcher._ranker = capture
        try:
            self.index.search(text, 10, exact_names=False, max_query_length=_NO_QUERY_CAP)
        except Exception:  # a query with no word ranks nothing
            capture.last = None
        finally:
            searcher._ranker = real
        if capture.last is None:
            self.stored[text] = ([], np.zeros(len(self.tools), dtype=np.float32))
            return
        _, lexical, dense = capture.last
        self.stored[text] = (list(lexical(text, DEPTH)), np.array(dense(text), dtype=np.float32))
        for intent in split_intents(text):
            if intent not in self.stored:
                self.stored[intent] = (
                    list(lexical(intent, DEPTH)),
                    np.array(dense(intent), dtype=np.float32),
                )

    @property
    def positions(self) -> dict[str, int]:
        if not hasattr(self, "_pos"):
            self._pos = {t.name: i for i, t in enumerate(self.tools)}
        return self._pos

    def lexical(self, text: str, k: int) -> list[tuple[int, float]]:
        self.capture(text)
        return self.stored[text][0][:k]

    def dense(self, text: str) -> np.ndarray:
        self.capture(text)
        return self.stored[text][1]


@dataclass
class Labelled:
    set: str  # the labelled set (metrics are per set)
    catalogue: Catalogue
    text: str
    relevant: frozenset[int]  # empty: a no-tool request
    needs: tuple[frozenset[int], ...] = ()  # each need met by any of its tools (default: each)

    def __post_init__(self) -> None:
        if not self.needs:
            self.needs = tuple(frozenset({r}) for r in sorted(self.relevant))


def catalogue(name: str, tools: Any) -> Catalogue:
    tools = tuple(tools)
    index = ToolIndex(tools, semantic=True)
    if not index.semantic:
        raise SystemExit("the semantic model did not load: pip install 'toolsift[semantic]'")
    return Catalogue(name, tools, index)


def load_split(
    data_dir: Path, split: str, metatool_n: int, sets: tuple[str, ...] = SETS
) -> list[Labelled]:
    """The labelled sets' queries of ``split`` and the authored no-tool, in-scope and
    whole-task requests of the same split."""
    out: list[Labelled] = []
    cats: dict[str, Catalogue] = {}
    for name in sets:
        ds = load_dataset(name, data_dir)
        cats[name] = catalogue(name, ds.tools)
        qs = [q for q in ds.queries if split_of(name, q.text) == split]
        if name == "metatool" and len(qs) > metatool_n:
            step = math.ceil(len(qs) / metatool_n)
            qs = qs[::step]
        out += [Labelled(name, cats[name], q.text, q.relevant) for q in qs]
    for cat_name in authored.CATALOGUES:
        if cat_name not in cats:
            cats[cat_name] = catalogue(cat_name, authored.load_catalogue(cat_name, data_dir))
        cat = cats[cat_name]
        for text in authored.notool_requests(cat_name, split):  # type: ignore[arg-type]
            out.append(Labelled(f"notool-{cat_name}", cat, text, frozenset()))
        if cat_name != "mcp_mixed":
            ds = authored.load_inscope(cat_name, cat.tools, data_dir)
            for q in ds.queries:
                if split_of(ds.name, q.text) == split:
                    out.append(Labelled(ds.name, cat, q.text, q.relevant))
    if "mcp_mixed" in cats:
        cat = cats["mcp_mixed"]
        for task in authored.load_tasks(cat.tools, split):  # type: ignore[arg-type]
            rel = frozenset().union(*task.needs)
            out.append(Labelled("tasks-mcp_mixed", cat, task.text, rel, task.needs))
    return out


# --- fitting -------------------------------------------------------------------------------------
def matrices(items: list[Labelled], cand_k: tuple[int, int]) -> list[Any]:
    """Per in-scope query: its set, feature matrix and relevance mask (queries whose candidates
    hold no relevant tool are left out)."""
    rows = []
    for it in items:
        if not it.relevant:
            continue
        cat = it.catalogue
        cos = cat.dense(it.text)
        cand = Candidates.of(cat.lexical(it.text, cand_k[0]), cos, cand_k[1])
        rel = np.isin(cand.positions, list(it.relevant))
        if rel.any():
            rows.append((it.set, features(route(it.text), cand).astype(np.float32), rel))
    return rows


def fit_fusion(rows: list[Any], l2: float = 1e-3, steps: int = 400) -> np.ndarray:
    """Listwise softmax regression, each set's queries weighted to the same total."""
    x = np.concatenate([r[1] for r in rows])
    rel = np.concatenate([r[2] for r in rows]).astype(np.float64)
    sizes = np.array([r[1].shape[0] for r in rows])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    group = np.repeat(np.arange(len(rows)), sizes)
    per_set: dict[str, int] = {}
    for r in rows:
        per_set[r[0]] = per_set.get(r[0], 0) + 1
    qw = np.array([1.0 / (per_set[r[0]] * len(per_set)) for r in rows])
    w = np.full(x.shape[1], 0.1)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    lr = 0.05
    for t in range(1, steps + 1):
        s = x @ w
        smax = np.maximum.reduceat(s, starts)
        e = np.exp(s - smax[group])
        z = np.add.reduceat(e, starts)
        zr = np.add.reduceat(e * rel, starts)
        p = e / z[group]
        target = e * rel / zr[group]
        g = x.T @ ((p - target) * qw[group]) + l2 * w
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        np.maximum(w, 0.0, out=w)  # non-negative: the score is monotone in every feature
    loss = float(-(qw * np.log(np.maximum(zr / z, 1e-300))).sum())
    print(f"  fusion: {len(rows)} queries, {x.shape[0]} candidates, train loss {loss:.4f}")
    return w


def ndcg(ranked: list[int], rel: frozenset[int], k: int = 10) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in rel)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(rel), k)))
    return dcg / ideal


def search(ranker: SemanticRanker, it: Labelled) -> tuple[list[int], float]:
    """The public search's top 10 positions and confidence with ``ranker`` in the index."""
    cat = it.catalogue
    searcher = cat.index._semantic
    assert searcher is not None
    real, searcher._ranker = searcher._ranker, ranker
    try:
        result = cat.index.search(it.text, 10, max_query_length=_NO_QUERY_CAP)
    except Exception:  # a query with no word ranks nothing
        return [], 0.0
    finally:
        searcher._ranker = real
    pos = cat.positions
    return [pos[m.tool.name] for m in result.matches], float(result.confidence or 0.0)


def evaluate(ranker: SemanticRanker, items: list[Labelled]) -> dict[str, Any]:
    """Per set, through the public search: nDCG@10, R@5, R@10 (of the needs), all@10, MRR@10;
    and every query's confidence with its hit@5."""
    sums: dict[str, dict[str, float]] = {}
    confs: list[tuple[str, float, bool, bool]] = []  # set, confidence, in scope, hit@5
    for it in items:
        ranked, confidence = search(ranker, it)
        hit5 = any(need.intersection(ranked[:5]) for need in it.needs)
        confs.append((it.set, confidence, bool(it.relevant), hit5))
        if not it.relevant:
            continue
        keys = ("n", "nDCG@10", "R@5", "R@10", "all@10", "MRR")
        s = sums.setdefault(it.set, dict.fromkeys(keys, 0.0))
        s["n"] += 1
        s["nDCG@10"] += ndcg(ranked, it.relevant)
        met5 = sum(bool(need.intersection(ranked[:5])) for need in it.needs)
        met10 = sum(bool(need.intersection(ranked[:10])) for need in it.needs)
        s["R@5"] += met5 / len(it.needs)
        s["R@10"] += met10 / len(it.needs)
        s["all@10"] += float(met10 == len(it.needs))
        s["MRR"] += next((1 / (i + 1) for i, d in enumerate(ranked) if d in it.relevant), 0.0)
    table = {k: {m: (v / s["n"] if m != "n" else v) for m, v in s.items()} for k, s in sums.items()}
    return {"sets": table, "confidences": confs}


def lexical_baseline(items: list[Labelled]) -> dict[str, float]:
    """nDCG@10 of the BM25+ list the ranker is handed, per set."""
    out: dict[str, list[float]] = {}
    for it in items:
        if it.relevant:
            ranked = [p for p, _ in it.catalogue.lexical(it.text, 10)]
            out.setdefault(it.set, []).append(ndcg(ranked, it.relevant))
    return {k: float(np.mean(v)) for k, v in out.items()}


def signals(ranker: SemanticRanker, items: list[Labelled]) -> tuple[np.ndarray, np.ndarray]:
    """The confidence signals of every query and the label (a relevant tool in the top 5)."""
    xs, ys = [], []
    for it in items:
        cat = it.catalogue
        whole = ranker.score(it.text, route(it.text), cat.lexical, cat.dense, 10)
        xs.append(ranker.signals(whole))
        ranked = ranker.rank(it.text, 10, cat.lexical, cat.dense).positions
        ys.append(1.0 if any(need.intersection(ranked[:5]) for need in it.needs) else 0.0)
    return np.array(xs), np.array(ys)


def fit_logistic(x: np.ndarray, y: np.ndarray, weight: np.ndarray, l2: float = 1e-2) -> np.ndarray:
    """Weighted logistic regression by Newton's method; returns [bias, weights...]."""
    a = np.hstack([np.ones((x.shape[0], 1)), x])
    w = np.zeros(a.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(a @ w)))
        g = a.T @ (weight * (p - y)) + l2 * np.r_[0, w[1:]]
        h = (a * (weight * p * (1 - p))[:, None]).T @ a + l2 * np.eye(a.shape[1])
        step = np.linalg.solve(h, g)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", default=None, help="the shared data folder")
    ap.add_argument("--metatool-queries", type=int, default=2000)
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--sets", default=",".join(SETS), help="the labelled sets (comma-separated)")
    ap.add_argument(
        "--adapter",
        default=None,
        help="an encoder adapter of scripts/fit_encoder.py --holdout: fit on the in-scope\n"
        "queries of its hold-out (the adapter never saw them), every no-tool request and task",
    )
    ap.add_argument(
        "--report",
        choices=("train", "test"),
        default=None,
        help="score the weights file (--out) on a split; fit nothing",
    )
    args = ap.parse_args()
    data_dir = find_data_dir(args.data)
    if data_dir is None:
        print("no labelled data: set TOOLSIFT_SHARED_DIR or --data", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    split = args.report or "train"
    sets = tuple(s for s in args.sets.split(",") if s)
    if args.adapter:
        from fit_encoder import adapted_encoder, in_holdout
        from toolsift.semantic import model as model_mod

        model_mod._LOADED[MODEL_ID] = adapted_encoder(args.adapter)
    items = load_split(data_dir, split, args.metatool_queries, sets)
    if args.adapter:
        items = [
            it
            for it in items
            if not it.relevant or it.set.startswith("tasks-") or in_holdout(it.set, it.text)
        ]
    for it in items:
        it.catalogue.capture(it.text)
    print(f"model {MODEL_ID}; {len(items)} {split} queries; {time.perf_counter() - t0:.0f}s")
    if args.report:
        from toolsift.semantic.ranker import load_weights

        weights = load_weights(args.out)
        report(SemanticRanker(weights), items)
        return 0

    weights = initial_weights(MODEL_ID)
    cand_k = (weights["candidates"]["lexical_k"], weights["candidates"]["dense_k"])
    rows = matrices(items, cand_k)
    w = fit_fusion(rows)
    weights["fusion"]["weights"] = [round(float(v), 6) for v in w]
    print("  fusion weights (candidate feature x query feature):")
    grid = w.reshape(len(QUERY_FEATURES), len(CANDIDATE_FEATURES))
    print("    " + " ".join(f"{c:>10}" for c in CANDIDATE_FEATURES))
    for qn, row in zip(QUERY_FEATURES, grid):
        print(f"    {qn:>12} " + " ".join(f"{v:10.3f}" for v in row))

    fit_tasks(weights, items)
    fit_confidence(weights, items)
    result = evaluate(SemanticRanker(weights), items)
    weights["train"] = {
        k: {m: round(v, 4) for m, v in s.items()} for k, s in result["sets"].items()
    }
    report(SemanticRanker(weights), items, result)
    print(f"fitted in {time.perf_counter() - t0:.0f}s")
    if not args.dry_run:
        tmp = Path(args.out).with_suffix(".tmp")
        tmp.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, args.out)
        print(f"wrote {args.out}")
    return 0


def initial_weights(model_id: str) -> dict[str, Any]:
    return {
        "version": 1,
        "model": model_id,
        "candidates": {"lexical_k": 50, "dense_k": 50},
        "fusion": {
            "candidate_features": list(CANDIDATE_FEATURES),
            "query_features": list(QUERY_FEATURES),
            "weights": [0.0] * N_FEATURES,
        },
        "tasks": {"enabled": True, "intent_k": 10, "part_weight": 0.5, "covered_weight": 0.2},
        "confidence": {
            "signals": list(conf_mod.SIGNALS),
            "weights": [0.0] * len(conf_mod.SIGNALS),
            "bias": 0.0,
            "min_confidence": 0.0,
        },
        "train": {},
    }


def fit_tasks(weights: dict[str, Any], items: list[Labelled]) -> None:
    """Grid over the coverage merge on the queries routed as tasks (every set)."""
    task_items = [it for it in items if it.relevant and route(it.text).kind == "task"]
    if not task_items:
        print("  tasks: no train query is routed as a task; merge left off")
        weights["tasks"]["enabled"] = False
        return
    best: tuple[float, dict[str, Any]] | None = None
    for enabled in (False, True):
        for pw in (0.25, 0.5, 1.0, 2.0) if enabled else (0.0,):
            for cw in (0.0, 0.3) if enabled else (0.0,):
                trial = dict(weights["tasks"], enabled=enabled, part_weight=pw, covered_weight=cw)
                ranker = SemanticRanker(dict(weights, tasks=trial))
                res = evaluate(ranker, task_items)["sets"]
                # each set weighted equally: nDCG@10 and all@10
                score = float(np.mean([s["nDCG@10"] + s["all@10"] for s in res.values()]))
                print(
                    f"  tasks enabled={enabled} part={pw} covered={cw}: {score:.4f} "
                    + " ".join(f"{k}={v['nDCG@10']:.3f}/{v['all@10']:.3f}" for k, v in res.items())
                )
                if best is None or score > best[0] + 1e-9:
                    best = (score, trial)
    assert best is not None
    weights["tasks"] = best[1]
    print(f"  tasks: {len(task_items)} train queries routed as tasks; chose {best[1]}")


def fit_confidence(weights: dict[str, Any], items: list[Labelled]) -> None:
    """The logistic calibration, on the catalogues that have no-tool requests (their in-scope
    requests, whole tasks and no-tool requests), and the threshold."""
    with_notool = {it.catalogue.name for it in items if not it.relevant}
    items = [it for it in items if it.catalogue.name in with_notool]
    ranker = SemanticRanker(weights)
    x, y = signals(ranker, items)
    sets = [it.set for it in items]
    in_scope = np.array([bool(it.relevant) for it in items])
    names = sorted(set(sets))
    count = {s: sets.count(s) for s in names}
    # in-scope and no-tool requests weighted to the same total; each set equally within them
    n_in = len({s for s, i in zip(sets, in_scope) if i})
    n_out = max(len({s for s, i in zip(sets, in_scope) if not i}), 1)
    weight = np.array([1.0 / (count[s] * (n_in if i else n_out)) for s, i in zip(sets, in_scope)])
    weight *= len(items) / weight.sum()
    # the evidence signals get non-negative weights, so that a clearer best match never lowers
    # the confidence: a signal fitted below zero is dropped and the rest refitted
    evidence = [i for i, name in enumerate(conf_mod.SIGNALS) if name not in conf_mod.KINDS]
    kept = list(range(x.shape[1]))
    while True:
        sub = fit_logistic(x[:, kept], y, weight)
        negative = [kept[j] for j, v in enumerate(sub[1:]) if kept[j] in evidence and v < 0]
        if not negative:
            break
        kept.remove(min(negative, key=lambda i: sub[1 + kept.index(i)]))
    coef = np.zeros(x.shape[1] + 1)
    coef[0] = sub[0]
    coef[1 + np.array(kept)] = sub[1:]
    weights["confidence"]["bias"] = round(float(coef[0]), 6)
    weights["confidence"]["weights"] = [round(float(v), 6) for v in coef[1:]]
    conf = 1 / (1 + np.exp(-(coef[0] + x @ coef[1:])))
    threshold = 0.0
    if (~in_scope).any():
        notool = np.sort(conf[~in_scope])
        # the lowest threshold that answers at most 10 % of the no-tool requests
        cut = int(math.floor(NO_TOOL_TARGET * notool.size))
        threshold = float(notool[notool.size - cut - 1]) + 1e-6 if cut < notool.size else 0.0
    weights["confidence"]["min_confidence"] = round(threshold, 6)
    print(
        "  confidence: "
        + ", ".join(f"{s}={v:.3f}" for s, v in zip(conf_mod.SIGNALS, coef[1:]))
        + f", bias={coef[0]:.3f}; min_confidence={threshold:.4f}"
    )


def report(
    ranker: SemanticRanker, items: list[Labelled], result: dict[str, Any] | None = None
) -> None:
    result = result or evaluate(ranker, items)
    lex = lexical_baseline(items)
    print(f"{'set':<28}{'n':>6}{'nDCG@10':>9}{'lexical':>9}{'R@5':>7}{'R@10':>7}{'all@10':>8}")
    for name, s in sorted(result["sets"].items()):
        print(
            f"{name:<28}{int(s['n']):>6}{s['nDCG@10']:>9.4f}{lex.get(name, 0):>9.4f}"
            f"{s['R@5']:>7.3f}{s['R@10']:>7.3f}{s['all@10']:>8.3f}"
        )
    t = ranker.min_confidence
    confs = result["confidences"]
    notool = [c for _, c, i, _ in confs if not i]
    if notool:
        answered = sum(c >= t for c in notool) / len(notool)
        print(
            f"no-tool requests: {len(notool)}, answered at min_confidence {t:.4f}: {answered:.1%}"
        )
    by_set: dict[str, list[tuple[float, bool]]] = {}
    for s, c, i, h in confs:
        if i:
            by_set.setdefault(s, []).append((c, h))
    for s, rows in sorted(by_set.items()):
        h5 = np.mean([h for _, h in rows])
        h5a = np.mean([h and c >= t for c, h in rows])
        print(f"  in-scope hit@5 {s}: {h5:.4f} -> {h5a:.4f} with abstention ({h5a - h5:+.4f})")


if __name__ == "__main__":
    raise SystemExit(main())
