"""What a tool contributes to the index: its fields, and how much each field weighs.

:class:`FieldWeights` and the query side (:func:`scored_text`, :func:`word_pairs`) serve both
engines. :func:`document` (with :func:`parameter_descriptions` and :func:`word_pairs`) is the
pure-Python twin of the Rust field extraction (``rust/build/records.rs``, ``ToolFields``; the
Rust engine reads each :class:`~toolsift.Tool` itself, ``rust/bindings/tools.rs``): the Python
engine builds its documents with it, and ``tests/test_tool_documents.py`` proves with Hypothesis
that both give the same documents and bit-identical indexes for arbitrary tools.

Example:
    >>> from toolsift import Tool
    >>> [f for f, _ in document(Tool(name="a", description="x"), FieldWeights().as_list())]
    [0, 1, 4, 7]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable

from .._options import check_field_weight
from .analysis import STOPWORDS_EN, check_profile
from .tokenize import tokenize as _py_tokenize

try:  # the Rust tokenizer splits identically (a Hypothesis test holds it), ~3x faster
    from .._core import tokenize as _tokenize
except ImportError:
    _tokenize = _py_tokenize
from ..tools import Tool

__all__ = [
    "FieldWeights",
    "document",
    "parameter_descriptions",
    "default_delta",
    "word_pairs",
]


@dataclass(frozen=True)
class FieldWeights:
    """How much one token of each field adds to a tool's term frequency.

    ``FieldWeights()`` is OMP ``search_tool_bm25``'s weighting. A weight of 0 leaves the field
    out of the index. ``search_hint`` (Claude Code's curated phrase), ``description`` (whose
    first 200 characters are already the summary), ``title`` and ``parameter_descriptions`` (the
    ``description`` texts of the input schema's properties, nested ones included) are toolsift's
    own. ``word_pairs`` (off at
    0) indexes the summary's :func:`word_pairs`, and a search then also asks for the query's
    pairs, so that a tool whose summary has the query's words side by side ("word cloud") ranks
    above one that merely holds both: it lifts nDCG@10 on the labeled sets by +0.028 (mcp_mixed)
    and +0.009 (gorilla_hf) at 0.1, and costs about 2.6× the build, 1.9× the search and 2× the
    memory, so it is off by default (BENCHMARKS.md, "Word pairs"). An index built without
    explicit weights uses its profile's: :meth:`for_profile`.

    Example:
        >>> FieldWeights(summary=3.0).summary
        3.0
    """

    name: float = 6.0
    label: float = 4.0
    server: float = 2.0
    mcp_tool_name: float = 4.0
    summary: float = 2.0
    schema_key: float = 1.0
    search_hint: float = 4.0
    description: float = 0.0
    title: float = 0.0
    parameter_descriptions: float = 0.0
    word_pairs: float = 0.0

    def __post_init__(self) -> None:
        # Checked when made, naming the field: each engine would only name the field's id.
        for f in dataclasses.fields(self):
            check_field_weight(getattr(self, f.name), f"FieldWeights.{f.name}")

    def as_list(self) -> list[float]:
        """The weights in field-id order (the order of the attributes above)."""
        return [float(getattr(self, f.name)) for f in dataclasses.fields(self)]

    @classmethod
    def for_profile(cls, profile: str) -> FieldWeights:
        """The default weights of an analysis profile.

        ``"omp"``: OMP ``search_tool_bm25``'s (``FieldWeights()``). ``"english"``: the summary at
        1 instead of 2, plus the full description and the parameters' descriptions at 0.25 each,
        which helped on every labeled set (BENCHMARKS.md, "Retrieval quality").

        Raises:
            ProfileError: ``profile`` names no profile.

        Example:
            >>> FieldWeights.for_profile("english").description
            0.25
        """
        return _PROFILE_DEFAULTS[check_profile(profile)][0]


def default_delta(profile: str) -> float:
    """BM25+'s δ for an index built without an explicit ``delta``: 1.0 for ``"omp"`` (as OMP),
    0.5 for ``"english"``.

    Example:
        >>> default_delta("english"), default_delta("omp")
        (0.5, 1.0)
    """
    return _PROFILE_DEFAULTS[check_profile(profile)][1]


#: Per analysis profile: the field weights and δ an index gets when the caller gives none.
_PROFILE_DEFAULTS: dict[str, tuple[FieldWeights, float]] = {
    "omp": (FieldWeights(), 1.0),
    "english": (FieldWeights(summary=1.0, description=0.25, parameter_descriptions=0.25), 0.5),
}


def parameter_descriptions(schema: Mapping[str, Any]) -> list[str]:
    """The ``description`` texts of a JSON schema's properties, nested ones (objects, array items)
    included, in schema order; at most 8 levels deep.

    Example:
        >>> parameter_descriptions({"properties": {"city": {"description": "City name"}}})
        ['City name']
    """
    out: list[str] = []
    _collect_descriptions(schema, 0, out)
    return out


_PLAIN_MAPPINGS = (dict, MappingProxyType)


def _is_mapping(value: object) -> bool:
    # Tool schemas are (frozen) dicts: check those exactly first; the ABC check costs ~10x more
    return type(value) in _PLAIN_MAPPINGS or isinstance(value, Mapping)


def _collect_descriptions(schema: Any, depth: int, out: list[str]) -> None:
    """Appends the descriptions of ``schema``'s properties to ``out`` (see
    :func:`parameter_descriptions`; the twin of ``collect_descriptions`` in
    ``rust/build/schema.rs``). A plain ``dict`` is recognised before any call to
    :func:`_is_mapping`, and the descriptions go straight into ``out``: no list per level."""
    if depth > 8 or not (type(schema) in _PLAIN_MAPPINGS or isinstance(schema, Mapping)):
        return
    props = schema.get("properties")
    if props and (type(props) is dict or _is_mapping(props)):
        for sub in props.values():
            if type(sub) is dict or _is_mapping(sub):
                desc = sub.get("description")
                if desc and isinstance(desc, str):
                    out.append(desc)
                if "properties" in sub or "items" in sub:
                    _collect_descriptions(sub, depth + 1, out)
    items = schema.get("items")
    if items and (type(items) is dict or _is_mapping(items)):
        _collect_descriptions(items, depth + 1, out)


# Field ids: positions in FieldWeights, in the order ``search_tool_bm25`` builds its document.
_NAME, _LABEL, _SERVER, _MCP, _SUMMARY, _KEY, _HINT, _DESCRIPTION, _TITLE, _PARAMS, _PAIRS = range(
    11
)


def word_pairs(text: str, tokenize: Callable[[str], list[str]] = _tokenize) -> list[str]:
    """The word pairs of ``text`` (:attr:`FieldWeights.word_pairs`): its tokens with the english
    query stop words dropped, each ASCII token joined to the next and to the one after it (a
    window of two, so that one word in between still pairs: "read the config file" gives
    ``readconfig``, ``configfile`` and ``readfile``), as one token. The tokenizer keeps a joined
    pair of lowercase ASCII tokens whole, so the pairs are index terms as they are, and a pair
    also meets the same words written as one name ("wordcloud").

    Example:
        >>> word_pairs("Generate a word cloud chart")
        ['generateword', 'wordcloud', 'cloudchart', 'generatecloud', 'wordchart']
    """
    tokens = [t for t in tokenize(text) if t not in STOPWORDS_EN]
    out: list[str] = []
    if text.isascii():  # every token is [a-z0-9]+: each may pair (the common case, ~10x faster)
        for gap in (1, 2):
            out += [a + b for a, b in zip(tokens, tokens[gap:]) if a != b]
        return out
    pairable = [t.isascii() and t.isalnum() for t in tokens]
    for gap in (1, 2):
        out += [
            a + b
            for a, b, pa, pb in zip(tokens, tokens[gap:], pairable, pairable[gap:])
            if pa and pb and a != b
        ]
    return out


def check_field_weights(weights: object) -> FieldWeights | None:
    """``weights`` if it is ``None`` or a :class:`FieldWeights`; else a ``TypeError`` that says
    what to pass (a dict of weights would otherwise fail later, as an ``AttributeError``).

    Example:
        >>> check_field_weights(None) is None
        True
    """
    if weights is None or isinstance(weights, FieldWeights):
        return weights
    raise TypeError(
        f"field_weights must be a toolsift.FieldWeights (e.g. FieldWeights(summary=3.0)), "
        f"got {type(weights).__name__}"
    )


def scored_text(text: str, weights: FieldWeights) -> str:
    """The text a search under ``weights`` scores: ``text``, followed by its :func:`word_pairs`
    when the index has them (``weights.word_pairs``).

    Example:
        >>> scored_text("word cloud", FieldWeights(word_pairs=0.1))
        'word cloud wordcloud'
    """
    if not weights.word_pairs:
        return text
    pairs = word_pairs(text)
    return f"{text} {' '.join(pairs)}" if pairs else text


def document(tool: Tool, weights: list[float]) -> list[tuple[int, str]]:
    """A tool's indexed fields as ``(field id, text)`` pairs; empty ones are left out.

    Example:
        >>> document(Tool(name="get_weather", description="Weather"), FieldWeights().as_list())
        [(0, 'get_weather'), (1, 'get_weather'), (4, 'Weather'), (7, 'Weather')]
    """
    fields: list[tuple[int, str]] = [(_NAME, tool.name), (_LABEL, tool.display_label)]
    if tool.server:
        fields.append((_SERVER, tool.server))
    if tool.server and tool.mcp_tool_name:
        fields.append((_MCP, tool.mcp_tool_name))
    fields.append((_SUMMARY, tool.display_summary))
    fields.extend((_KEY, key) for key in tool.schema_keys)
    if tool.search_hint:
        fields.append((_HINT, tool.search_hint))
    # The full description always goes in: at weight 0 it is not scored, but the engine keeps its
    # words as presence postings so that a required ``+term`` finds them.
    fields.append((_DESCRIPTION, tool.description))
    if tool.title and weights[_TITLE]:
        fields.append((_TITLE, tool.title))
    if len(weights) > _PARAMS and weights[_PARAMS]:
        fields.extend((_PARAMS, text) for text in parameter_descriptions(tool.input_schema))
    if len(weights) > _PAIRS and weights[_PAIRS]:
        fields.append((_PAIRS, " ".join(word_pairs(tool.display_summary))))
    return [(f, text) for f, text in fields if text]
