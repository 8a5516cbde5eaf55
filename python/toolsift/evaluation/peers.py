"""The peer rankers of ``toolsift eval`` (:mod:`toolsift.evaluate`): ``rank_bm25``, ``bm25s`` and
ratel-ai, each fed the same tools (the BM25 peers the same tokens: toolsift's weighted-field
documents with each field's tokens repeated by its weight). Their packages are the ``eval`` extra
(``pip install 'toolsift[eval]'``) and are imported only when a peer runs.

Example:
    >>> from toolsift import Tool
    >>> tokens = _weighted_tokens([Tool(name="get", description="Now")])[0]
    >>> tokens.count("get"), tokens.count("now")  # name 6 + label 4, summary 2
    (10, 2)
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from typing import Any, Callable

from .._text.documents import FieldWeights, document
from ..tools import Tool

#: A ranker: ``(query, k) -> [tool positions]``, best first.
Ranker = Callable[[str, int], list[int]]


def _weighted_tokens(tools: Sequence[Tool]) -> list[list[str]]:
    """Each tool's document as one token list, each field's tokens repeated by its weight."""
    from .. import tokenize

    weights = FieldWeights().as_list()
    docs = []
    for tool in tools:
        toks: list[str] = []
        for fid, text in document(tool, weights):
            reps = int(weights[fid])
            if reps != weights[fid]:
                raise ValueError("peers need integer field weights")
            for tok in tokenize(text):
                toks.extend([tok] * reps)
        docs.append(toks)
    return docs


def _rank_bm25_ranker(tools: Sequence[Tool], kind: str) -> Ranker:
    """rank_bm25's own objects and formulas; only the per-term ``doc.get(q)`` scan is vectorised."""
    import numpy as np
    import rank_bm25

    from .. import tokenize
    from .variants import top_k

    corpus = _weighted_tokens(tools)
    model = (
        rank_bm25.BM25Okapi(corpus)
        if kind == "okapi"
        # pyright infers delta: int from rank_bm25's unannotated default (delta=1); it is a float.
        else rank_bm25.BM25Plus(corpus, k1=1.2, b=0.75, delta=1.0)  # pyright: ignore[reportArgumentType]
    )
    n = model.corpus_size
    postings: dict[str, tuple[Any, Any]] = {}
    for d, freqs in enumerate(model.doc_freqs):
        for tok, f in freqs.items():
            entry = postings.setdefault(tok, ([], []))
            entry[0].append(d)
            entry[1].append(f)
    post = {t: (np.asarray(d), np.asarray(f, dtype=float)) for t, (d, f) in postings.items()}
    doc_len = np.asarray(model.doc_len, dtype=float)
    norm = model.k1 * (1 - model.b + model.b * doc_len / model.avgdl)
    name_rank = _name_rank(tools)
    delta = getattr(model, "delta", 0.0)

    def scores(query: list[str]) -> Any:
        score = np.zeros(n)
        for q in query:  # rank_bm25 visits every query token, repeats included
            q_freq = np.zeros(n)
            if q in post:
                q_freq[post[q][0]] = post[q][1]
            score += (model.idf.get(q) or 0) * (delta + (q_freq * (model.k1 + 1)) / (norm + q_freq))
        return score

    def rank(query: str, k: int) -> list[int]:
        toks = tokenize(query)
        if not toks:
            return []
        s = scores(toks)
        # BM25Plus adds idf·δ to every document, matched or not: take it off so that only
        # documents matching a query term have a positive score (ranks are unchanged)
        s -= delta * sum(model.idf.get(q) or 0 for q in toks)
        return top_k(s, k, name_rank)

    rank.scores = scores  # type: ignore[attr-defined]  # for the equivalence test
    return rank


def _bm25s_ranker(tools: Sequence[Tool], method: str) -> Ranker:
    import bm25s

    from .. import tokenize

    corpus = _weighted_tokens(tools)
    if method == "bm25+":
        model = bm25s.BM25(method="bm25+", k1=1.2, b=0.75, delta=1.0)
    else:
        model = bm25s.BM25()  # Lucene BM25, k1 1.5, b 0.75
    model.index(corpus, show_progress=False)
    vocab = model.vocab_dict
    n = len(tools)

    def rank(query: str, k: int) -> list[int]:
        toks = [t for t in tokenize(query) if t in vocab]
        if not toks:
            return []
        docs, scores = model.retrieve([toks], k=min(k, n), show_progress=False, n_threads=1)
        return [int(d) for d, s in zip(docs[0], scores[0]) if s > 0]

    return rank


def _ratel_ranker(tools: Sequence[Tool]) -> Ranker:
    """ratel-ai's own BM25 (``ratel_ai.ToolRegistry``, Rust; ``pip install ratel-ai``): an
    end-to-end peer with its own analysis (identifier splitting, English stemming and stop words,
    the full description, the schema's property names, descriptions and enums), fed each tool's
    name, description and input schema."""
    import ratel_ai  # pyright: ignore[reportMissingImports]  # the eval extra, not in CI

    registry = ratel_ai.ToolRegistry()
    pending = registry.register(
        [
            ratel_ai.Tool(
                id=str(i),
                name=tool.name,
                description=tool.description,
                input_schema=dict(tool.input_schema),
            )
            for i, tool in enumerate(tools)
        ]
    )
    # BM25 indexes synchronously; the awaitable (a coroutine) only drives embeddings: closed
    # unrun, it never warns "never awaited".
    if inspect.iscoroutine(pending):
        pending.close()

    def rank(query: str, k: int) -> list[int]:
        return [int(hit.tool_id) for hit in registry.search(query, k)]

    return rank


def _name_rank(tools: Sequence[Tool]) -> Any:
    import numpy as np

    order = sorted(range(len(tools)), key=lambda i: tools[i].name)
    rank = np.empty(len(tools), dtype=np.int64)
    rank[order] = np.arange(len(tools))
    return rank


def _fastmcp_bm25_ranker(tools: Sequence[Tool]) -> Ranker:
    """FastMCP's ``BM25SearchTransform`` ranking: its own index (``_BM25Index``: its tokens, Okapi
    k1 1.5, b 0.75) over its own document of each tool (``_extract_searchable_text``: the name,
    description and each parameter's name and description), fed the tools as a FastMCP server
    lists them. Scored over postings instead of its loop over every document (the same scores and
    the same order: best first, ties by position); ``pip install fastmcp``."""
    import logging

    import numpy as np
    from fastmcp.server.transforms.search.base import _extract_searchable_text
    from fastmcp.server.transforms.search.bm25 import _BM25Index, _tokenize
    from fastmcp.tools.base import Tool as FastMCPTool

    # the labelled sets' raw names (``facebook/bart-base``) are not valid MCP names: FastMCP
    # accepts them with one warning each, which would bury the report
    validation = logging.getLogger("mcp.shared.tool_name_validation")
    level = validation.level
    validation.setLevel(logging.ERROR)
    try:
        docs = [
            _extract_searchable_text(
                FastMCPTool(
                    name=t.name,
                    description=t.description,
                    parameters=dict(t.to_mcp()["inputSchema"]),
                )
            )
            for t in tools
        ]
    finally:
        validation.setLevel(level)
    index = _BM25Index()
    index.build(docs)
    lists: dict[str, tuple[list[int], list[int]]] = {}
    for d, tf in enumerate(index._tf):
        for token, count in tf.items():
            entry = lists.setdefault(token, ([], []))
            entry[0].append(d)
            entry[1].append(count)
    n, k1, b, avg = index._n, index.k1, index.b, index._avg_dl
    lengths = np.asarray(index._doc_lengths, dtype=np.float64)
    postings = {}
    for token, (ds, tfs) in lists.items():
        d_arr = np.asarray(ds, dtype=np.int64)
        tf_arr = np.asarray(tfs, dtype=np.float64)
        # the same float operations, in the same order, as _BM25Index.query
        denominator = tf_arr + k1 * (1 - b + b * lengths[d_arr] / avg)
        postings[token] = (d_arr, tf_arr * (k1 + 1), denominator)

    def rank(query: str, k: int) -> list[int]:
        scores = np.zeros(n)
        for token in _tokenize(query):  # repeats count, as in _BM25Index.query
            if token not in index._df:
                continue
            df = index._df[token]
            idf = math.log((n - df + 0.5) / (df + 0.5) + 1.0)
            d_arr, numerator, denominator = postings[token]
            scores[d_arr] += idf * numerator / denominator
        matched = np.flatnonzero(scores > 0)
        order = matched[np.lexsort((matched, -scores[matched]))]
        return [int(d) for d in order[:k]]

    rank.index = index  # type: ignore[attr-defined]  # for the equivalence test
    return rank


def _tantivy_ranker(tools: Sequence[Tool]) -> Ranker:
    """tantivy (``pip install tantivy``) out of the box: BM25 over three fields (the name, also in
    words; the description; the schema's property names and descriptions) with its English
    stemming analyser (``en_stem``), the query's words OR-ed over the three fields (no boosts)."""
    import re

    import tantivy

    from .derived import name_words

    builder = tantivy.SchemaBuilder()
    for field in ("name", "description", "params"):
        builder.add_text_field(field, stored=False, tokenizer_name="en_stem")
    builder.add_integer_field("pos", stored=True, indexed=False)
    index = tantivy.Index(builder.build())
    writer = index.writer(heap_size=64_000_000, num_threads=1)
    for i, tool in enumerate(tools):
        raw = tool.mcp_tool_name or tool.name
        props = tool.input_schema.get("properties")
        params = []
        if isinstance(props, dict):
            for key, value in props.items():
                params.append(str(key))
                if isinstance(value, dict) and isinstance(value.get("description"), str):
                    params.append(value["description"])
        writer.add_document(
            tantivy.Document(
                name=f"{raw} {' '.join(name_words(raw))}",
                description=tool.description or "",
                params=" ".join(params),
                pos=i,
            )
        )
    writer.commit()
    index.reload()
    searcher = index.searcher()
    words = re.compile(r"\w+")
    fields = ["name", "description", "params"]

    def rank(query: str, k: int) -> list[int]:
        terms = [w.lower() for w in words.findall(query)]
        if not terms:
            return []
        # quoted terms: no word of a request is read as query syntax (AND, field:, ...)
        parsed = index.parse_query(" ".join(f'"{t}"' for t in terms), fields)
        hits = searcher.search(parsed, k).hits
        return [int(searcher.doc(address)["pos"][0]) for _, address in hits]

    return rank
