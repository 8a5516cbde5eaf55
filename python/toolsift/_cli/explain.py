"""``toolsift search --explain``: each match's BM25+ score, term by term, as text or JSON.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="send_email", description="Send an email message")])
    >>> why = _explanation_json(index.explain("email", "send_email"))
    >>> [t["term"] for t in why["terms"]]
    ['email', 'email (stem)']
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, Callable

from ..explain import Explanation
from ..index import ToolIndex
from ..tools import Tool
from .load import _field_weights
from .progress import _indexing

__all__ = ["Explainer", "_explainer", "_explanation_json", "_print_explanations"]

Explainer = Callable[[str], Explanation]


def _explainer(args: argparse.Namespace, tools: Sequence[Tool]) -> Explainer:
    """``name -> Explanation`` of the query's BM25+ score, over the index a search ranks with.

    The CLI's session hides every tool, so its index holds exactly ``tools``: the explanation
    index is built the same way (engine, profile, field weights) and gives the same scores.
    """
    weights = _field_weights(args)
    index = _indexing(
        len(tools),
        lambda: ToolIndex(tools, engine=args.engine, profile=args.profile, field_weights=weights),
    )
    return lambda name: index.explain(args.query, name)


def _explanation_json(why: Explanation) -> dict[str, Any]:
    return {
        "score": why.score,
        "terms": [
            {
                "term": t.display,
                "matched": t.matched.lstrip("\u00a7"),
                "prefix": t.prefix,
                "idf": t.idf,
                "tf": t.tf,
                "contribution": t.contribution,
                "fields": dict(t.fields),
            }
            for t in why.terms
        ],
    }


def _print_explanations(
    matches: Sequence[Any], explain: Explainer, *, hybrid: bool = False
) -> None:
    """``search --explain``'s text: per match, each term's contribution and its fields.

    ``matches`` are :class:`~toolsift.Match` objects, or with ``hybrid`` the hybrid matches,
    whose lexical score is explained (the dense part is a cosine, which has no terms).
    """
    print()
    if hybrid:
        print("Why: the BM25+ part of each score, term by term (the cosine is not split)")
    else:
        print("Why: each score, term by term (contribution, idf, weighted tf, fields)")
    for rank, m in enumerate(matches, 1):
        reason = _REASONS.get(m.reason, m.reason)
        if hybrid:
            lexical = "-" if m.lexical is None else f"{m.lexical:.3f}"
            print(f"{rank}. {m.tool.name}  BM25+ {lexical}  ({reason})")
        else:
            print(f"{rank}. {m.tool.name}  score {m.score:.3f}  ({reason})")
        why = explain(m.tool.name)
        if not why.terms:
            print("   no query term matches this tool")
            continue
        width = max(len(t.display) for t in why.terms)
        for t in why.terms:
            fields = ", ".join(f"{field} {tf:g}" for field, tf in t.fields.items())
            matched = f" (as {t.matched})" if t.prefix else ""
            print(
                f"   {t.display:<{width}}  +{t.contribution:.3f}  idf {t.idf:.2f}  "
                f"tf {t.tf:g}{matched}  in {fields or '-'}"
            )


#: What each ``Match.reason`` means, for ``--explain``.
_REASONS = {
    "bm25": "ranked by BM25+",
    "exact_name": "the query names it; listed first",
    "select": "fetched by select:",
    "keyword": "ranked by name parts",
    "hybrid": "in the BM25+ and the dense list",
    "dense": "in the dense list only",
}
