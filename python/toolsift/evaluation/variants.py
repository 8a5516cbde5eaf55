"""Ranking variants for the evaluation: composed documents and tokens, scored in numpy.

This is a measuring instrument, not the engine. It rebuilds toolsift's weighted-field documents
(:func:`toolsift._text.documents.document`), optionally transforms the text (CJK bigrams, Snowball
stemming, query stop words, extra low-weight fields) and scores with either

* ``"bm25+"``: exactly the engine's formula (OMP ``search_tool_bm25``'s: weighted term frequency,
  one document length, Lv & Zhai's δ over matched terms only), so the plain variant ranks as
  ``ToolIndex``; or
* ``"bm25f"``: BM25F (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework", §3.5):
  each field's term frequency is length-normalised by that field's own average length before the
  weighted sum, ``tf~ = Σ_f w_f·tf_f / (1 - b + b·len_f/avg_f)``, then saturated once,
  ``idf·((k1+1)·tf~/(k1+tf~) + δ)``.

The point is to measure which engine changes are worth making before the lead implements them
identically in ``rust/`` and ``toolsift._pyengine``.

Example:
    >>> from toolsift import Tool
    >>> from toolsift.evaluation.variants import Variant, VariantIndex
    >>> tools = [Tool(name="read_file", description="Read a file"),
    ...          Tool(name="send_mail", description="Send an email")]
    >>> [tools[i].name for i in VariantIndex(tools, Variant(stem=True)).search("reading files", 2)]
    ['read_file']
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

import numpy as np

from .._text.analysis import STOPWORDS_EN, is_marked, split_cjk, stem_copy
from .._text.documents import FieldWeights, document, word_pairs
from .._text.documents import parameter_descriptions as property_descriptions
from ..tools import Tool

__all__ = [
    "Variant",
    "VariantIndex",
    "Analyzer",
    "cjk_split",
    "property_descriptions",
    "STOPWORDS_EN",
    "parse_variant",
    "word_pairs",
]

# Field ids of toolsift._text.documents.document, by name (the order of FieldWeights).
_FIELD_NAMES = [f.name for f in dataclasses.fields(FieldWeights)]
# Short option names of two fields (``desc=0.25``), and the long ones of earlier variant specs.
_SHORT_FIELDS = {"description": "desc", "parameter_descriptions": "propdesc"}
_FIELD_ALIASES = {
    "desc": "description",
    "propdesc": "parameter_descriptions",
    "property_descriptions": "parameter_descriptions",
}


def cjk_split(text: str, tokenize: Callable[[str], list[str]]) -> list[str]:
    """Tokens of ``text`` with the engine's CJK split (``toolsift._text.analysis``): each token is
    split at Han / Kana / Hangul / other boundaries and CJK runs become character bigrams (a
    one-character run stays a unigram).

    Example:
        >>> cjk_split("获取天气 weather", str.split)
        ['获取', '取天', '天气', 'weather']
    """
    return split_cjk(tokenize(text))


def _default_tokenize() -> Callable[[str], list[str]]:
    import toolsift

    return toolsift.tokenize


def _stemmer() -> Callable[[list[str]], list[str]]:
    """English Snowball (Porter2) over a token list: snowballstemmer 2.2, the engine's stemmer
    (``toolsift._text.analysis``; PyStemmer 3 implements Snowball 3's changed English)."""
    from snowballstemmer.english_stemmer import EnglishStemmer  # not PyStemmer: see _text.analysis

    return EnglishStemmer().stemWords


def _stem_copies(tokens: list[str]) -> list[str]:
    """The engine's stemmed copies (``toolsift._text.analysis.stem_copy``) of ``tokens``."""
    return [stem_copy(t) for t in tokens]


@dataclass(frozen=True)
class Variant:
    """One way to build documents and score them.

    Attributes:
        scoring: ``"bm25+"`` (the engine's formula) or ``"bm25f"`` (per-field normalisation).
        k1, b, delta: BM25 parameters.
        weights: field weights (toolsift's :class:`~toolsift.index.FieldWeights`, OMP's by
            default); the full description (``desc=``) and the schema's property descriptions
            (``propdesc=``) are the engine's ``description`` and ``parameter_descriptions``
            fields, off at weight 0.
        cjk: split CJK runs into character bigrams.
        stem: English Snowball stemming of document and query tokens.
        stopwords: drop :data:`STOPWORDS_EN` from queries (kept when nothing else is left).
        stem_expansion: instead of replacing tokens by their stems, also index a stemmed copy
            of every field at this fraction of its weight (0 = off), and query both forms, so
            an exact form outscores a merely related one.
        distinct_query_terms: count a repeated query term once (bm25s, tantivy), not ``qtf`` times.
        stem_query_weight: the query-term frequency of a stemmed copy (``stemq=``), after
            ``distinct_query_terms`` (the engine's english profile: 2).
        idf: ``"lucene"`` ``ln(1 + (N - df + 0.5)/(df + 0.5))`` (the engine's) or ``"plus"``
            ``ln((N + 1)/df)`` (rank_bm25's and bm25s' BM25+).
        word_pairs: index the summary's :func:`word_pairs` as one more field at this weight
            (counted in the length, analysed like every field), and add the query's pairs to
            its terms (``pairs=``; 0 = off).

    Example:
        >>> Variant(stem=True).label
        'stem'
    """

    scoring: Literal["bm25+", "bm25f"] = "bm25+"
    k1: float = 1.2
    b: float = 0.75
    delta: float = 1.0
    weights: FieldWeights = field(default_factory=FieldWeights)
    cjk: bool = False
    stem: bool = False
    stopwords: bool = False
    distinct_query_terms: bool = False
    stem_expansion: float = 0.0
    stem_query_weight: float = 1.0
    idf: Literal["lucene", "plus"] = "lucene"
    word_pairs: float = 0.0

    @property
    def label(self) -> str:
        """A short name: the options that differ from the engine's defaults, joined by ``+``."""
        parts: list[str] = []
        base = Variant()
        if self.scoring != base.scoring:
            parts.append(self.scoring)
        short = {"stopwords": "stop", "distinct_query_terms": "qdistinct"}
        for opt in ("cjk", "stem", "stopwords", "distinct_query_terms"):
            if getattr(self, opt):
                parts.append(short.get(opt, opt))
        if self.idf != base.idf:
            parts.append(f"idf={self.idf}")
        if self.stem_expansion:
            parts.append(f"stemx={self.stem_expansion:g}")
        if self.stem_query_weight != base.stem_query_weight:
            parts.append(f"stemq={self.stem_query_weight:g}")
        if self.word_pairs:
            parts.append(f"pairs={self.word_pairs:g}")
        for opt in ("k1", "b", "delta"):
            if getattr(self, opt) != getattr(base, opt):
                parts.append(f"{opt}={getattr(self, opt):g}")
        for f in dataclasses.fields(FieldWeights):
            w = getattr(self.weights, f.name)
            if w != getattr(base.weights, f.name):
                parts.append(f"{_SHORT_FIELDS.get(f.name, f.name)}={w:g}")
        return "+".join(parts) or "base"


def parse_variant(spec: str) -> Variant:
    """A :class:`Variant` from ``"stem+stop+cjk+desc=1+bm25f+k1=1.5+summary=3"``.

    Example:
        >>> parse_variant("stem+desc=0.5").weights.description
        0.5
    """
    kwargs: dict[str, Any] = {}
    weights: dict[str, float] = {}
    flags = {
        "stem": "stem",
        "stop": "stopwords",
        "stopwords": "stopwords",
        "cjk": "cjk",
        "qdistinct": "distinct_query_terms",
    }
    for part in filter(None, spec.split("+")):
        key, _, value = part.partition("=")
        if key in ("base", ""):
            continue
        if key in flags:
            kwargs[flags[key]] = True
        elif key in ("bm25f", "bm25+"):
            kwargs["scoring"] = key
        elif key in _FIELD_ALIASES:
            weights[_FIELD_ALIASES[key]] = float(value or 1)
        elif key == "stemx":
            kwargs["stem_expansion"] = float(value or 0.5)
        elif key == "stemq":
            kwargs["stem_query_weight"] = float(value or 2)
        elif key == "idf":
            kwargs["idf"] = value
        elif key == "pairs":
            kwargs["word_pairs"] = float(value or 0.1)
        elif key in ("k1", "b", "delta"):
            kwargs[key] = float(value)
        elif key in _FIELD_NAMES:
            weights[key] = float(value)
        else:
            raise ValueError(f"unknown variant option {part!r} in {spec!r}")
    if weights:
        kwargs["weights"] = dataclasses.replace(FieldWeights(), **weights)
    return Variant(**kwargs)


class Analyzer:
    """Text to tokens for one variant: the engine's tokenizer, then CJK bigrams and stemming.

    Example:
        >>> Analyzer(Variant(stem=True), str.split)("running tests")
        ['run', 'test']
    """

    def __init__(self, variant: Variant, tokenize: Callable[[str], list[str]] | None = None):
        base = tokenize or _default_tokenize()
        self._split = (lambda text: cjk_split(text, base)) if variant.cjk else base
        self._stem = _stemmer() if variant.stem else None

    def __call__(self, text: str) -> list[str]:
        tokens = self._split(text)
        if self._stem is not None and tokens:
            tokens = self._stem(tokens)
        return tokens


def _fields(tool: Tool, variant: Variant) -> list[tuple[int, str]]:
    """The engine's ``(field id, text)`` pairs under the variant's weights, weight-0 fields left
    out (``document`` keeps the description for the engine's presence postings)."""
    weights = variant.weights.as_list()
    return [(f, text) for f, text in document(tool, weights) if weights[f]]


class VariantIndex:
    """Tools scored by one :class:`Variant`; ``search`` returns tool positions, best first.

    Ties break by tool name ascending, as both engines do.

    Example:
        >>> idx = VariantIndex([Tool(name="a", description="x y"), Tool(name="b", description="y")])
        >>> idx.search("y", 2)
        [1, 0]
    """

    def __init__(
        self,
        tools: Sequence[Tool],
        variant: Variant | None = None,
        *,
        tokenize: Callable[[str], list[str]] | None = None,
    ) -> None:
        self.variant = v = variant or Variant()
        self.tools = list(tools)
        self.analyze = Analyzer(v, tokenize)
        base_tokenize = tokenize or _default_tokenize()
        self._query_split = (lambda t: cjk_split(t, base_tokenize)) if v.cjk else base_tokenize
        weights = v.weights.as_list()
        # The word pairs' field, after the engine's fields (and before the stemmed copies').
        pairs_field = len(weights) if v.word_pairs else None
        if pairs_field is not None:
            weights.append(v.word_pairs)
        self._pairs_tokenize = base_tokenize
        n_plain = len(weights)
        self._expand = _stem_copies if v.stem_expansion else None
        if self._expand is not None:
            weights += [w * v.stem_expansion for w in weights]
        n = len(self.tools)
        # per document: field id -> token list
        per_doc: list[dict[int, list[str]]] = []
        for tool in self.tools:
            fields: dict[int, list[str]] = {}
            for fid, text in _fields(tool, v):
                fields.setdefault(fid, []).extend(self.analyze(text))
            if pairs_field is not None:
                pairs = self.analyze(" ".join(word_pairs(tool.display_summary, base_tokenize)))
                if pairs:
                    fields[pairs_field] = pairs
            if self._expand is not None:
                for fid, toks in list(fields.items()):
                    fields[fid + n_plain] = self._expand(toks)
            per_doc.append(fields)
        n_fields = len(weights)
        norm: np.ndarray | None = None  # BM25F's per-field length norms, (docs, fields)
        if v.scoring == "bm25f":
            flen = np.zeros((n, n_fields))
            for d, fields in enumerate(per_doc):
                for fid, toks in fields.items():
                    flen[d, fid] = len(toks)
            avg = flen.mean(axis=0) if n else np.ones(n_fields)
            avg[avg == 0] = 1.0
            norm = 1.0 - v.b + v.b * flen / avg
        postings: dict[str, tuple[list[int], list[float]]] = {}
        lengths = np.zeros(n)
        for d, fields in enumerate(per_doc):
            tf: dict[str, float] = {}
            length = 0.0
            for fid, toks in fields.items():
                w = weights[fid]
                if norm is not None:
                    w = w / norm[d, fid]
                for tok in toks:
                    tf[tok] = tf.get(tok, 0.0) + w
                length += weights[fid] * len(toks)
            lengths[d] = length
            for tok, f in tf.items():
                entry = postings.setdefault(tok, ([], []))
                entry[0].append(d)
                entry[1].append(f)
        avg_len = lengths.mean() if n and lengths.sum() > 0 else 1.0
        if v.scoring == "bm25f":
            self._norm = np.full(n, v.k1)
        else:
            self._norm = v.k1 * (1.0 - v.b + v.b * lengths / avg_len)
        self._postings = {
            tok: (
                np.asarray(docs, dtype=np.int64),
                # float32 term frequencies, as both engines store them
                np.asarray(tfs, dtype=np.float32).astype(np.float64),
                _idf(v.idf, n, len(docs)),
            )
            for tok, (docs, tfs) in postings.items()
        }
        names = [t.name for t in self.tools]
        order = sorted(range(n), key=names.__getitem__)
        self._name_rank = np.empty(n, dtype=np.int64)
        self._name_rank[order] = np.arange(n)

    def query_tokens(self, query: str) -> list[str]:
        """The query's tokens: split, stop words dropped (if on, unless all are), stemmed."""
        tokens = self._query_split(query)
        if self.variant.word_pairs:
            tokens += self._query_split(" ".join(word_pairs(query, self._pairs_tokenize)))
        if self.variant.stopwords:
            kept = [t for t in tokens if t not in STOPWORDS_EN]
            tokens = kept or tokens
        if self.analyze._stem is not None and tokens:
            tokens = self.analyze._stem(tokens)
        if self._expand is not None:
            # Each word followed by its stemmed copy: the engine's query order (the scores sum
            # terms in it; a repeated copy counts where it first appears).
            tokens = [t for pair in zip(tokens, self._expand(tokens)) for t in pair]
        return tokens

    def scores(self, tokens: Iterable[str]) -> np.ndarray:
        """Every document's score for the query tokens (repeats count, as in the engine)."""
        counts: dict[str, float] = {}
        for tok in tokens:
            counts[tok] = counts.get(tok, 0.0) + 1.0
        v = self.variant
        if v.distinct_query_terms:
            counts = dict.fromkeys(counts, 1.0)
        if v.stem_query_weight != 1.0:
            counts = {
                tok: qtf * v.stem_query_weight if is_marked(tok) else qtf
                for tok, qtf in counts.items()
            }
        k1p1 = v.k1 + 1.0
        acc = np.zeros(len(self.tools))
        for tok, qtf in counts.items():
            entry = self._postings.get(tok)
            if entry is None:
                continue
            docs, tfs, idf = entry
            acc[docs] += qtf * idf * ((tfs * k1p1) / (tfs + self._norm[docs]) + v.delta)
        return acc

    def search(self, query: str, limit: int = 10) -> list[int]:
        """Positions of the best ``limit`` tools (score > 0), score descending then name."""
        return top_k(self.scores(self.query_tokens(query)), limit, self._name_rank)


def _idf(kind: str, n: int, df: int) -> float:
    if kind == "plus":
        return math.log((n + 1) / df)
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def top_k(scores: np.ndarray, limit: int, name_rank: np.ndarray) -> list[int]:
    """Indices of the ``limit`` highest positive scores; ties by ``name_rank`` ascending."""
    hits = np.flatnonzero(scores > 0)
    if hits.size > limit * 4:
        # keep everything at least as good as the limit-th best, so ties are not cut arbitrarily
        cut = np.partition(scores[hits], hits.size - limit)[hits.size - limit]
        hits = hits[scores[hits] >= cut]
    order = np.lexsort((name_rank[hits], -scores[hits]))
    return hits[order][:limit].tolist()
