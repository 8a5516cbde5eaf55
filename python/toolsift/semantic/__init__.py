"""Semantic search: a static embedding model, tool vectors, and a query-aware fusion of BM25+
with dense similarity, with a calibrated confidence that lets a search abstain.

Turned on with ``ToolIndex(tools, semantic=True)`` (``"auto"``, the default, is on when the
``toolsift[semantic]`` extra is installed, unless ``$TOOLSIFT_SEMANTIC`` says ``off``).

* :mod:`toolsift.semantic.model`: the encoder and :func:`~toolsift.semantic.model.resolve`.
* :mod:`toolsift.semantic.vectors`: tool vectors, the dense kernels, their snapshot entry.
* :mod:`toolsift.semantic.ranker`: :class:`~toolsift.semantic.ranker.SemanticRanker`, the
  ranking: a router (names and keywords keep the word order), a query-aware fusion of words
  and meaning, whole tasks split into steps, and the calibrated confidence
  (``route``, ``fusion``, ``tasks``, ``confidence``; weights fitted by
  ``scripts/fit_semantic.py``).

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="read_file", description="Read a file")], semantic=False)
    >>> index.semantic, 0.0 < DEFAULT_MIN_CONFIDENCE < 1.0
    (False, True)
"""

from __future__ import annotations

from .confidence import DEFAULT_MIN_CONFIDENCE
from .model import ENV_VAR, MODEL_ID, Semantic, StaticEncoder, resolve

__all__ = [
    "DEFAULT_MIN_CONFIDENCE",
    "ENV_VAR",
    "MODEL_ID",
    "Semantic",
    "StaticEncoder",
    "resolve",
]
