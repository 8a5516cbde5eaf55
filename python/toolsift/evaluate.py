"""Retrieval quality on labeled tool sets: Recall@1/5/10, MRR and nDCG@10, toolsift beside peers.

The labeled sets live in ``../shared/data`` (not shipped; see its README): ``mcp_mixed`` (11,578
MCP tools, 1,243 queries, scored strictly on server + name), ``metatool`` (199 tools, 21,041
queries) and ``gorilla_hf`` (907 tools, 911 queries). Every ranker sees the same tools and the
same tokens: the peers (``rank_bm25``, ``bm25s``) index toolsift's weighted-field documents with
each field's tokens repeated by its weight.

Metrics, per query, averaged over queries (``R`` = the relevant tools, binary gain):

* Recall@k = ``|R ∩ top k| / |R|``;
* MRR = ``1 / rank`` of the first relevant tool in the top 100 (0 when none);
* nDCG@10 = ``Σ_{relevant i ≤ 10} 1/log2(i+1)`` over the ideal ``Σ_{i ≤ min(|R|,10)} 1/log2(i+1)``.

Wiring ``toolsift eval`` into the CLI (``cli.py``)::

    evaluate.add_arguments(sub.add_parser("eval", help="retrieval quality on labeled sets"))
    ...
    if args.command == "eval":
        return evaluate.main(args)

The full table is ``python benches/eval_quality.py --rankers toolsift,peers,variants`` (or
``toolsift eval`` with the same options); it needs ``pip install 'toolsift[eval]'``.

Example:
    >>> from toolsift.evaluate import Query, ndcg_at, recall_at
    >>> q = Query("read a file", frozenset({3}))
    >>> recall_at([5, 3], q.relevant, 1), round(ndcg_at([5, 3], q.relevant, 10), 3)
    (0.0, 0.631)
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ._loaders.files import utf8_text
from ._text.analysis import DEFAULT_PROFILE, check_profile
from ._text.documents import FieldWeights
from .errors import CatalogError, ToolsiftError
from .evaluation.peers import Ranker, _bm25s_ranker, _rank_bm25_ranker, _ratel_ranker
from .index import ToolIndex
from .loaders import load_catalog
from .tools import Tool, _kind

__all__ = [
    "Dataset",
    "Query",
    "DATASETS",
    "load_dataset",
    "find_data_dir",
    "make_ranker",
    "evaluate",
    "recall_at",
    "reciprocal_rank",
    "ndcg_at",
    "add_arguments",
    "main",
]

#: The labeled sets, in table order.
DATASETS = ("mcp_mixed", "metatool", "gorilla_hf")
#: How deep each ranker's list goes (MRR and fusion look this far).
DEPTH = 100
#: toolsift's default ranker and the peers run over the same tokens.
DEFAULT_RANKERS = (
    "toolsift",
    "toolsift-plain",
    "toolsift@seed",
    "toolsift-plain@seed",
    "rank_bm25-okapi",
    "rank_bm25-plus",
    "bm25s",
    "bm25s-bm25+",
)
#: The variants measured for issue 5 (see ``toolsift.evaluation.variants.parse_variant``).
VARIANT_RANKERS = (
    # one change at a time from the engine's ranking
    "v:base",
    "v:qdistinct",
    "v:stop",
    "v:stem",
    "v:stemx=0.5",
    "v:cjk",
    "v:bm25f",
    "v:idf=plus",
    "v:desc=0.25",
    "v:desc=1",
    "v:propdesc=0.25",
    "v:propdesc=1",
    # combinations, ending with the recommended default (RECOMMENDED_VARIANT)
    "v:qdistinct+stop",
    "v:qdistinct+stop+stem",
    "v:qdistinct+stop+stemx=0.5",
    "v:qdistinct+stop+stemx=0.5+cjk+bm25f",
    "v:qdistinct+stop+stemx=0.5+cjk+desc=0.25",
    "v:qdistinct+stop+stemx=0.5+cjk+propdesc=0.25",
    "v:qdistinct+stop+stemx=0.5+cjk+k1=2+delta=0.5",
    "v:qdistinct+stop+stemx=0.5+cjk",
    "v:qdistinct+stop+stemx=0.5+cjk+summary=1",
    "v:qdistinct+stop+stemx=0.5+cjk+summary=1+desc=0.25",
    "v:qdistinct+stop+stemx=0.5+cjk+summary=1+desc=0.25+propdesc=0.25",
    "v:qdistinct+stop+stemx=0.5+cjk+summary=1+desc=0.25+propdesc=0.25+delta=0.5",
    "v:qdistinct+stop+stemx=0.5+cjk+summary=1+desc=0.25+propdesc=0.25+delta=0.5+stemq=2",
)
#: The variant the english profile's defaults reproduce (``ToolIndex(tools)`` ranks and scores
#: as this variant; see BENCHMARKS.md).
RECOMMENDED_VARIANT = (
    "qdistinct+stop+stemx=0.5+cjk+summary=1+desc=0.25+propdesc=0.25+delta=0.5+stemq=2"
)


@dataclass(frozen=True)
class Query:
    """One labeled query: its text and the positions of its relevant tools."""

    text: str
    relevant: frozenset[int]


@dataclass(frozen=True)
class Dataset:
    """Tools and labeled queries of one set.

    Attributes:
        name: the set's file stem, e.g. ``"metatool"``.
        tools: the catalogue, in file order.
        queries: the labeled queries (those with at least one relevant tool in ``tools``).
        note: how it was labeled or sampled.
    """

    name: str
    tools: tuple[Tool, ...]
    queries: tuple[Query, ...]
    note: str = ""


def find_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """``explicit``, else ``$TOOLSIFT_SHARED_DIR/data``, else ``../shared/data`` from the cwd.

    Returns ``None`` when no candidate holds a labeled set. A folder given explicitly is the only
    candidate: a wrong ``--data`` is reported, never silently replaced by another folder.
    """
    candidates: list[Path] = []
    if explicit:
        path = Path(explicit)
        has_set = any((path / f"{name}.queries.jsonl").is_file() for name in DATASETS)
        return path if has_set else None
    env = os.environ.get("TOOLSIFT_SHARED_DIR")
    if env:
        candidates += [Path(env) / "data", Path(env)]
    here = Path.cwd()
    candidates += [here / "shared" / "data", here.parent / "shared" / "data"]
    for path in candidates:
        if any((path / f"{name}.queries.jsonl").is_file() for name in DATASETS):
            return path
    return None


def _query_error(file: str, line: int, message: str, field: str | None = None) -> CatalogError:
    return CatalogError(f"{file}:{line}: {message}", path=file, line=line, field=field)


def _check_query_row(file: str, line: int, row: Any, strict: bool) -> None:
    """A labeled query is ``{"query": str, "relevant": [str, ...]}``; with ``strict``, a row with
    ``"relevant_tools": [{"server", "name"}, ...]`` is scored by those instead of ``relevant``."""
    if not isinstance(row, dict):
        raise _query_error(file, line, f"a labeled query must be a JSON object, got {_kind(row)}.")
    if "query" not in row:
        raise _query_error(file, line, "field 'query' (the query text) is missing.", "query")
    if not isinstance(row["query"], str):
        got = _kind(row["query"])
        raise _query_error(file, line, f"field 'query' must be a string, got {got}.", "query")
    if strict and "relevant_tools" in row:
        pairs = row["relevant_tools"]
        if not isinstance(pairs, list) or not all(
            isinstance(p, dict)
            and isinstance(p.get("name"), str)
            and (p.get("server") is None or isinstance(p["server"], str))
            for p in pairs
        ):
            raise _query_error(
                file,
                line,
                'field \'relevant_tools\' must be a list of {"server": ..., "name": ...} '
                "objects with string names.",
                "relevant_tools",
            )
        return
    if "relevant" not in row:
        raise _query_error(
            file,
            line,
            "field 'relevant' (the names of the relevant tools) is missing.",
            "relevant",
        )
    relevant = row["relevant"]
    if not isinstance(relevant, list) or not all(isinstance(name, str) for name in relevant):
        raise _query_error(
            file,
            line,
            f"field 'relevant' must be a list of tool names (strings), got {_kind(relevant)}.",
            "relevant",
        )


def _read_queries(path: Path, strict: bool) -> list[tuple[int, dict[str, Any]]]:
    """The labeled queries of a ``<name>.queries.jsonl`` file with their line numbers; a row that
    is not JSON or not a labeled query is a :class:`~toolsift.CatalogError` naming ``file:line``."""
    file = os.fspath(path)
    text = utf8_text(path.read_bytes(), file)
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        if not line or line.isspace():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise _query_error(
                file, number, f"invalid JSON: {error.msg} (column {error.colno})."
            ) from None
        except RecursionError:
            raise _query_error(
                file, number, "invalid JSON: the nesting of arrays and objects is too deep to read."
            ) from None
        _check_query_row(file, number, row, strict)
        rows.append((number, row))
    return rows


def _check_limit(limit: int | None) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"limit must be an int or None, got {type(limit).__name__}")
    if limit < 1:
        raise ValueError(f"limit must be a positive number of queries, got {limit}")
    return limit


def load_dataset(
    name: str, data_dir: str | os.PathLike[str], *, strict: bool = True, limit: int | None = None
) -> Dataset:
    """Load one labeled set.

    Arguments:
        name: ``"mcp_mixed"``, ``"metatool"`` or ``"gorilla_hf"`` (any ``<name>.tools.jsonl``
            with ``<name>.queries.jsonl`` works).
        data_dir: the folder holding the files.
        strict: for sets with ``relevant_tools`` (mcp_mixed), a hit must match server and name;
            when ``False`` any tool with a relevant raw name counts.
        limit: keep a deterministic sample of at most this many queries: every ``n``-th query of
            the file, ``n = ceil(total / limit)``.

    Raises:
        ValueError: ``limit`` is below 1 (``TypeError`` when it is not an int).
        CatalogError: a file is malformed: the message names the file, the line and, for a
            labeled query, the missing or wrong field (``query``, ``relevant``).
        OSError: a file cannot be read.
    """
    _check_limit(limit)
    data = Path(data_dir)
    tools = tuple(load_catalog(data / f"{name}.tools.jsonl"))
    by_pair = {(t.server, t.mcp_tool_name or t.name): i for i, t in enumerate(tools)}
    by_raw: dict[str, list[int]] = {}
    for i, t in enumerate(tools):
        by_raw.setdefault(t.mcp_tool_name or t.name, []).append(i)
    rows = _read_queries(data / f"{name}.queries.jsonl", strict)
    note = f"all {len(rows)} queries"
    if limit is not None and len(rows) > limit:
        step = math.ceil(len(rows) / limit)
        note = f"every {step}th of {len(rows)} queries"
        rows = rows[::step]
    queries = []
    pairs = False
    for _, row in rows:
        if strict and "relevant_tools" in row:
            pairs = True
            rel = {by_pair.get((p["server"], p["name"])) for p in row["relevant_tools"]}
        else:
            rel = {i for raw in row["relevant"] for i in by_raw.get(raw, ())}
        rel.discard(None)
        if rel:
            queries.append(Query(row["query"], frozenset(rel)))  # type: ignore[arg-type]
    strictness = "strict (server + name)" if pairs else "by name"
    return Dataset(name, tools, tuple(queries), f"{note}; {strictness}")


# --- metrics --------------------------------------------------------------------------------


def recall_at(ranked: Sequence[int], relevant: frozenset[int], k: int) -> float:
    """Share of the relevant tools found in the first ``k``."""
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def reciprocal_rank(ranked: Sequence[int], relevant: frozenset[int]) -> float:
    """``1 / rank`` of the first relevant tool, 0 when there is none."""
    for i, doc in enumerate(ranked, 1):
        if doc in relevant:
            return 1.0 / i
    return 0.0


def ndcg_at(ranked: Sequence[int], relevant: frozenset[int], k: int) -> float:
    """Binary-gain nDCG@k."""
    dcg = sum(1.0 / math.log2(i + 1) for i, doc in enumerate(ranked[:k], 1) if doc in relevant)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(relevant), k) + 1))
    return dcg / ideal


# --- rankers --------------------------------------------------------------------------------


#: ``ToolIndex.search`` options of the named toolsift rankers (dropped where unsupported).
TOOLSIFT_RANKERS: dict[str, dict[str, Any]] = {
    "toolsift": {},  # the defaults: BM25+, exact-name tier, prefix matching
    "toolsift-plain": {"exact_names": False, "prefix_fraction": 0.0},  # seed 000's BM25+
    "toolsift-coverage": {"coverage": True},
    "toolsift-keyword": {"ranker": "keyword"},  # seed 001's name-part scorer
}


def _toolsift_ranker(
    tools: Sequence[Tool],
    engine: str,
    options: dict[str, Any],
    profile: str = DEFAULT_PROFILE,
    word_pairs: float = 0.0,
) -> Ranker:
    weights = FieldWeights.for_profile(profile)
    if word_pairs:
        weights = dataclasses.replace(weights, word_pairs=word_pairs)
    index = ToolIndex(tools, engine=engine, profile=profile, field_weights=weights)  # type: ignore[arg-type]
    pos = {t.name: i for i, t in enumerate(tools)}

    from .hybrid import lexical_search

    def rank(query: str, k: int) -> list[int]:
        try:  # the whole query and 100 results, as the peers get (no agent-facing caps)
            return [pos[m.tool.name] for m in lexical_search(index, query, k, **options)]
        except ToolsiftError:  # a query with no letter or digit ranks nothing
            return []

    return rank


def make_ranker(spec: str, tools: Sequence[Tool], **options: Any) -> Ranker:
    """A ``(query, k) -> [tool positions]`` function for one ranker name.

    Names: ``toolsift`` (``ToolIndex.search`` as it ships), ``toolsift-plain`` (BM25+ alone, no
    exact-name tier or prefix matching), ``toolsift-coverage``, ``toolsift-keyword`` (see
    :data:`TOOLSIFT_RANKERS`), ``toolsift-python`` (the pure-Python twin), each with an optional
    ``@PROFILE`` suffix for another analysis profile (``toolsift@seed``: seed 000's ranking),
    ``toolsift+pairs[=w]`` (``toolsift`` with :attr:`~toolsift.FieldWeights.word_pairs` at ``w``,
    0.1 by default),
    ``rank_bm25-okapi``, ``rank_bm25-plus``, ``bm25s`` (Lucene), ``bm25s-bm25+``, ``ratel``
    (ratel-ai's own analysis and BM25, an end-to-end peer), ``v:<variant>``
    (:func:`toolsift.evaluation.variants.parse_variant`), and with an ``embedder`` option ``dense``,
    ``hybrid-minmax[=w]`` and ``hybrid-rrf``.
    """
    base, _, profile = spec.partition("@")
    if spec.startswith("toolsift") and profile:
        check_profile(profile)
    profile = profile or DEFAULT_PROFILE
    if base in TOOLSIFT_RANKERS:
        return _toolsift_ranker(tools, "auto", TOOLSIFT_RANKERS[base], profile)
    if base == "toolsift+pairs" or base.startswith("toolsift+pairs="):
        try:
            weight = float(base.partition("=")[2] or 0.1)
        except ValueError:
            raise ValueError(
                f"ranker {spec!r}: the word-pairs weight must be a number (toolsift+pairs=0.1)"
            ) from None
        return _toolsift_ranker(tools, "auto", {}, profile, word_pairs=weight)
    if base == "toolsift-python":
        return _toolsift_ranker(tools, "python", {}, profile)
    if spec.startswith("rank_bm25-"):
        return _rank_bm25_ranker(tools, spec.split("-", 1)[1])
    if spec in ("bm25s", "bm25s-bm25+"):
        return _bm25s_ranker(tools, "bm25+" if spec.endswith("+") else "lucene")
    if spec == "ratel":
        return _ratel_ranker(tools)
    if spec.startswith("v:"):
        from .evaluation.variants import VariantIndex, parse_variant

        return VariantIndex(tools, parse_variant(spec[2:])).search
    if spec == "dense" or spec.startswith("hybrid"):
        from .evaluation.hybrid_rankers import make_eval_ranker

        return make_eval_ranker(spec, tools, **options)
    raise ValueError(f"unknown ranker {spec!r}")


# --- the run --------------------------------------------------------------------------------


def evaluate(dataset: Dataset, ranker: Ranker) -> dict[str, float]:
    """Mean Recall@1/5/10, MRR, nDCG@10 and milliseconds per query of ``ranker`` on ``dataset``."""
    sums = dict.fromkeys(("R@1", "R@5", "R@10", "MRR", "nDCG@10"), 0.0)
    start = time.perf_counter()
    rankings = [ranker(q.text, DEPTH) for q in dataset.queries]
    elapsed = time.perf_counter() - start
    for q, ranked in zip(dataset.queries, rankings):
        rel = q.relevant
        sums["R@1"] += recall_at(ranked, rel, 1)
        sums["R@5"] += recall_at(ranked, rel, 5)
        sums["R@10"] += recall_at(ranked, rel, 10)
        sums["MRR"] += reciprocal_rank(ranked, rel)
        sums["nDCG@10"] += ndcg_at(ranked, rel, 10)
    n = max(len(dataset.queries), 1)
    out = {key: value / n for key, value in sums.items()}
    out["ms/query"] = 1000.0 * elapsed / n
    return out


def _positive_int(text: str) -> int:
    """An argparse ``type``: an int >= 1 (a usage error, exit code 2, otherwise)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``toolsift eval``'s options to ``parser``."""
    parser.add_argument(
        "--data", metavar="DIR", help="folder with the labeled sets (default: ../shared/data)"
    )
    parser.add_argument(
        "--datasets",
        default=",".join(DATASETS),
        help=f"comma-separated sets (default: {','.join(DATASETS)})",
    )
    parser.add_argument(
        "--rankers",
        default=",".join(DEFAULT_RANKERS),
        help="comma-separated rankers; 'variants' adds the issue-5 variants, 'peers' the peers; "
        "a toolsift ranker takes an analysis profile as a suffix (toolsift@seed) "
        f"(default: {','.join(DEFAULT_RANKERS)})",
    )
    parser.add_argument(
        "--limit-queries",
        type=_positive_int,
        metavar="N",
        help="evaluate a deterministic sample of at most N queries per set (every n-th)",
    )
    parser.add_argument(
        "--lenient", action="store_true", help="mcp_mixed: score by tool name, not server + name"
    )
    parser.add_argument(
        "--embed",
        choices=["minilm", "wordllama"],
        help="embedder for the dense and hybrid rankers (pip install 'toolsift[embed]')",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _expand(rankers: str) -> list[str]:
    out: list[str] = []
    for name in filter(None, (r.strip() for r in rankers.split(","))):
        if name == "variants":
            out.extend(VARIANT_RANKERS)
        elif name == "peers":
            out.extend(r for r in DEFAULT_RANKERS if not r.startswith("toolsift"))
            if importlib.util.find_spec("ratel_ai") is not None:
                out.append("ratel")
        else:
            out.append(name)
    return list(dict.fromkeys(out))


def format_table(results: dict[str, Any]) -> str:
    """One Markdown table: a row per set and ranker."""
    head = "| set | ranker | R@1 | R@5 | R@10 | MRR | nDCG@10 | ms/query |"
    lines = [head, "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, res in results["datasets"].items():
        for ranker, m in res["rankers"].items():
            if "error" in m:
                lines.append(f"| {name} | {ranker} | {m['error']} | | | | | |")
                continue
            lines.append(
                f"| {name} | {ranker} | {m['R@1']:.3f} | {m['R@5']:.3f} | {m['R@10']:.3f} | "
                f"{m['MRR']:.3f} | {m['nDCG@10']:.3f} | {m['ms/query']:.2f} |"
            )
    return "\n".join(lines)


class _MemoEmbedder:
    """An embedder that remembers query vectors, so several hybrid rankers embed each query once.

    The per-query embedding cost is measured separately (``embed ms/query``), unbatched.
    """

    def __init__(self, embed: Callable[[list[str]], Any]) -> None:
        self._embed = embed
        self.model_id = getattr(embed, "model_id", None)
        self._memo: dict[str, Any] = {}

    def prime(self, texts: Sequence[str]) -> float:
        """Embed ``texts`` in batches; return the unbatched milliseconds per text (first 100)."""
        sample = list(dict.fromkeys(texts))[:100]
        start = time.perf_counter()
        for text in sample:
            self._embed([text])
        per_query = 1000.0 * (time.perf_counter() - start) / max(len(sample), 1)
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        for t, v in zip(todo, self._embed(todo)):
            self._memo[t] = v
        return per_query

    def __call__(self, texts: list[str]) -> Any:
        import numpy as np

        if len(texts) == 1 and texts[0] in self._memo:
            return np.asarray([self._memo[texts[0]]])
        return self._embed(texts)


def format_summary(results: dict[str, Any], metric: str = "nDCG@10") -> str:
    """One Markdown table: a row per ranker, a column per set, each cell ``metric`` (Δ vs the
    first ranker)."""
    names = list(results["datasets"])
    rankers: list[str] = []
    for res in results["datasets"].values():
        rankers += [r for r in res["rankers"] if r not in rankers]
    lines = [f"| {metric} | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for ranker in rankers:
        cells = []
        for name in names:
            ranked = results["datasets"][name]["rankers"]
            m, first = ranked.get(ranker, {}), next(iter(ranked.values()))
            if metric not in m:
                cells.append("–")
            elif ranker == next(iter(ranked)):
                cells.append(f"{m[metric]:.3f}")
            else:
                cells.append(f"{m[metric]:.3f} ({m[metric] - first[metric]:+.3f})")
        lines.append(f"| {ranker} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    """Evaluate every requested ranker on every requested set; the JSON-ready results."""
    options: dict[str, Any] = {}
    memo: _MemoEmbedder | None = None
    if getattr(args, "embed", None):
        from .embed import get_embedder

        memo = _MemoEmbedder(get_embedder(args.embed))
        options["embedder"] = memo
    results: dict[str, Any] = {"datasets": {}}
    for name in filter(None, (d.strip() for d in args.datasets.split(","))):
        ds = load_dataset(name, data_dir, strict=not args.lenient, limit=args.limit_queries)
        res: dict[str, Any] = {"tools": len(ds.tools), "queries": len(ds.queries), "note": ds.note}
        if memo is not None:
            res["embed ms/query"] = memo.prime([q.text for q in ds.queries])
        res["rankers"] = {}
        for spec in _expand(args.rankers):
            try:
                ranker = make_ranker(spec, ds.tools, dataset=name, **options)
            except ImportError as exc:
                res["rankers"][spec] = {"error": f"unavailable: {exc}"}
                continue
            res["rankers"][spec] = evaluate(ds, ranker)
            if not getattr(args, "json", False):
                m = res["rankers"][spec]
                print(f"  {name:<10} {spec:<40} nDCG@10 {m['nDCG@10']:.3f}", file=sys.stderr)
        results["datasets"][name] = res
    return results


def main(args: argparse.Namespace) -> int:
    """``toolsift eval``: print the quality table (or JSON); 2 when the data is missing or wrong.

    Errors are printed as ``toolsift: error: ...``, except a :class:`~toolsift.ToolsiftError` (a
    malformed labeled set: :class:`~toolsift.CatalogError`), which is raised for the caller to
    report (``toolsift`` prints it the same way, with exit code 2).
    """
    data_dir = find_data_dir(getattr(args, "data", None))
    if data_dir is None:
        print(
            "toolsift: error: the labeled sets were not found. Pass --data DIR, set "
            "TOOLSIFT_SHARED_DIR, or run beside ../shared/data (they are not shipped with "
            "toolsift).",
            file=sys.stderr,
        )
        return 2
    try:
        results = run(args, data_dir)
    except ToolsiftError:
        raise
    except OSError as exc:
        where = exc.filename if exc.filename is not None else "the labeled sets"
        print(f"toolsift: error: cannot read {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (ValueError, ImportError) as exc:
        print(f"toolsift: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, res in results["datasets"].items():
            line = f"{name}: {res['tools']} tools, {res['queries']} queries ({res['note']})"
            if "embed ms/query" in res:
                line += f"; query embedding {res['embed ms/query']:.1f} ms (not in ms/query)"
            print(line)
        print(format_table(results))
        print()
        print(format_summary(results))
    return 0
