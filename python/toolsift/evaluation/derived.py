"""Keyword and name queries derived from a catalogue (code, not text: nothing is stored).

For each tool whose raw name is unique in the catalogue, three queries, each labelled with the
tools it names:

* ``name``: the raw name exactly (``get_weather_by_city``): the tool itself;
* ``words``: the name in words (``get weather by city``): every tool whose name has these words
  in this order;
* ``keywords``: the 2 or 3 rarest words of the name (rarest among the catalogue's names, in the
  name's order; generic verbs and stop words left out) (``weather city``): every tool whose name
  holds all of them.

A kind's set is named ``<kind>-<dataset>`` (``keywords-mcp_mixed``) for
:func:`~toolsift.evaluation.splits.split_of`, and ``limit`` keeps an evenly spaced sample of a
split (deterministic).

Example:
    >>> name_words("getWeatherByCity"), name_words("microsoft/resnet-50")
    (['get', 'weather', 'by', 'city'], ['microsoft', 'resnet', '50'])
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter

from .._text.name_parts import keyword_name_parts
from ..tools import Tool
from .datasets import Dataset, Query
from .splits import Split, select

#: The kinds of derived query, in table order.
KINDS = ("name", "words", "keywords")

#: Words never chosen as keywords: verbs and stop words that name no capability on their own.
_GENERIC = frozenset(
    "a an and are as at be by for from get in into is it list of on or set the to tool tools "
    "via with mcp api create update delete fetch read write add remove new all send".split()
)
_SEPARATORS = re.compile(r"[-/\s:]+")


def name_words(name: str) -> list[str]:
    """A tool name's words, lowercased: split on ``_ - / . :``, spaces and camelCase."""
    return keyword_name_parts(_SEPARATORS.sub("_", name))


def _raw(tool: Tool) -> str:
    return tool.mcp_tool_name or tool.name


def _keywords(words: list[str], df: Counter[str], n_names: int) -> list[str]:
    """The 2 or 3 rarest non-generic words of a name, in the name's order (fewer if absent)."""
    candidates = [w for w in dict.fromkeys(words) if w not in _GENERIC and not w.isdigit()]
    if len(candidates) < 2:
        return []
    ranked = sorted(candidates, key=lambda w: (df[w], candidates.index(w)))
    keep = 3 if len(candidates) >= 4 else 2
    chosen = set(ranked[:keep])
    out = [w for w in candidates if w in chosen]
    return out if all(math.log(n_names / df[w]) > 0 for w in out) else []


def derive(
    dataset: Dataset, kind: str, split: Split | None = None, limit: int | None = None
) -> Dataset:
    """The ``kind`` queries of ``dataset``'s catalogue, as a set named ``<kind>-<dataset.name>``
    (its queries in catalogue order; of ``split`` only, sampled down to ``limit``).

    Example:
        >>> tools = (Tool(name="get_weather_by_city"), Tool(name="send_slack_message"),
        ...          Tool(name="get_weather_alerts"))
        >>> ds = derive(Dataset("demo", tools, ()), "keywords")
        >>> [(q.text, sorted(q.relevant)) for q in ds.queries]
        [('weather city', [0]), ('slack message', [1]), ('weather alerts', [2])]
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    tools = dataset.tools
    raw_counts = Counter(_raw(t) for t in tools)
    words = [name_words(_raw(t)) for t in tools]
    df: Counter[str] = Counter(w for ws in words for w in set(ws))
    postings: dict[str, set[int]] = {}
    for i, ws in enumerate(words):
        for w in ws:
            postings.setdefault(w, set()).add(i)
    seqs = [" ".join(ws) for ws in words]
    by_seq: dict[str, list[int]] = {}
    for i, seq in enumerate(seqs):
        by_seq.setdefault(seq, []).append(i)
    queries: list[Query] = []
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        if raw_counts[_raw(tool)] != 1 or not words[i]:
            continue
        if kind == "name":
            text, relevant = _raw(tool), frozenset({i})
        elif kind == "words":
            text, relevant = seqs[i], frozenset(by_seq[seqs[i]])
        else:
            keys = _keywords(words[i], df, len(tools))
            if not keys:
                continue
            text = " ".join(keys)
            relevant = frozenset(set.intersection(*(postings[w] for w in keys)))
        if text in seen:
            continue
        seen.add(text)
        queries.append(Query(text, relevant))
    name = f"{kind}-{dataset.name}"
    note = f"derived from {len(tools)} tool names"
    if split is not None:
        queries = select(name, queries, split, lambda q: q.text)
        note += f"; {split} split"
    if limit is not None and len(queries) > limit:
        step = math.ceil(len(queries) / limit)
        note += f"; every {step}th of {len(queries)}"
        queries = queries[::step]
    return dataclasses.replace(dataset, name=name, queries=tuple(queries), note=note)


def derive_all(
    dataset: Dataset, split: Split | None = None, limit: int | None = None
) -> list[Dataset]:
    """:func:`derive` for every kind of :data:`KINDS`."""
    return [derive(dataset, kind, split, limit) for kind in KINDS]
