"""Whole-task requests: split a request of several steps into its intents, and merge the
rankings of the intents with the ranking of the whole request so that every step gets tools in
the first results (a coverage-diversified merge).

Example:
    >>> split_intents("Find the latest sales report, then email it to my manager")
    ['Find the latest sales report', 'email it to my manager']
    >>> split_intents("What is the weather in Paris?")
    ['What is the weather in Paris?']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["split_intents", "cover", "MAX_INTENTS"]

#: At most this many intents are ranked apart (the rest stay in the whole request's ranking).
MAX_INTENTS = 4

# Verbs that start a step of a task ("... and export it", "..., send ...").
_STEP_VERBS = (
    "add analyze analyse append archive book calculate check commit compare compile compute "
    "convert copy create delete deploy download draft draw email export extract fetch fill find "
    "forward generate get give list load look make map merge move notify open organize plot post "
    "print publish pull push put read record remind rename render reply report return run save "
    "schedule search send set share show sort start store submit summarise summarize sync take "
    "tell translate tweet update upload visualize write"
).split()
_VERBS = "|".join(_STEP_VERBS)
# Step boundaries: sentence ends, semicolons, "then", and "and"/commas before a step verb.
_BOUNDARY = re.compile(
    r"(?<=[.!?])\s+(?=(?:" + _VERBS + r")\b)"
    r"|\s*;\s*"
    r"|\s*,?\s*\b(?:and\s+then|and\s+afterwards|after\s+that|afterwards|then|finally|next)\b\s*,?\s*"
    r"|\s*,?\s+and\s+(?:also\s+)?(?=(?:" + _VERBS + r")\b)",
    re.IGNORECASE,
)
# A cheap first look: a text with none of these words or marks is one request.
_MAYBE = re.compile(r"[;.!?]\s|\b(?:and|then|after|afterwards|finally|next)\b", re.IGNORECASE)
_CONTENT = re.compile(r"[^\W\d_]{3,}")


def split_intents(query: str) -> list[str]:
    """The steps of ``query``: one string when it is a single request.

    A piece with fewer than two words of three letters or more joins the piece before it; at
    most :data:`MAX_INTENTS` pieces (the last one takes the rest).

    Example:
        >>> split_intents("Search arXiv for papers on MCP and summarize the top three; save as PDF")
        ['Search arXiv for papers on MCP', 'summarize the top three', 'save as PDF']
    """
    if _MAYBE.search(query) is None:
        return [query]
    pieces = [p.strip(" ,.") for p in _BOUNDARY.split(query.strip())]
    intents: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        if intents and len(_CONTENT.findall(piece)) < 2:
            intents[-1] = f"{intents[-1]} {piece}"
        else:
            intents.append(piece)
    if intents and len(_CONTENT.findall(intents[0])) < 2 and len(intents) > 1:
        intents[1] = f"{intents[0]} {intents[1]}"
        del intents[0]
    if len(intents) > MAX_INTENTS:
        intents[MAX_INTENTS - 1 :] = [" ".join(intents[MAX_INTENTS - 1 :])]
    return intents if len(intents) > 1 else [query]


def cover(
    whole: dict[int, float],
    parts: Sequence[dict[int, float]],
    limit: int,
    part_weight: float,
    covered_weight: float,
) -> list[tuple[int, float]]:
    """Greedy coverage merge: pick, one at a time, the tool with the best
    ``whole[d] + part_weight * Σ_i u_i * parts[i][d]``, where ``u_i`` is 1 for an intent that has
    no chosen tool among its own best yet and ``covered_weight`` after. Scores are each list's
    own, 0..1 (best = 1); a tool missing from a list scores 0 there.

    Example:
        >>> cover({1: 1.0, 2: 0.9, 3: 0.2}, [{1: 1.0}, {3: 1.0}], 2, 1.0, 0.0)
        [(1, 2.0), (3, 1.2)]
    """
    import numpy as np

    pool = set(whole)
    for part in parts:
        pool.update(part)
    if not pool or limit <= 0:
        return []
    ids = sorted(pool)  # ascending: the first best is the lowest position on a tie
    base = np.array([whole.get(d, 0.0) for d in ids])
    columns = [np.array([part.get(d, 0.0) for d in ids]) for part in parts]
    weights = [1.0] * len(parts)
    taken = np.zeros(len(ids), dtype=bool)
    chosen: list[tuple[int, float]] = []
    for _ in range(min(limit, len(ids))):
        scores = base.copy()
        for w, column in zip(weights, columns):
            scores += part_weight * w * column  # summed in order, as one tool at a time
        scores[taken] = -np.inf
        best = int(np.argmax(scores))
        chosen.append((ids[best], float(scores[best])))
        taken[best] = True
        for i, column in enumerate(columns):
            if column[best] >= 0.999:
                weights[i] = covered_weight
    return chosen
