"""Semantic search: a static embedding model, tool vectors, and a query-aware fusion of BM25+
with dense similarity, with a calibrated confidence that lets a search abstain.

Turned on with ``ToolIndex(tools, semantic=True)`` (``"auto"``, the default, is on when the
``toolsift[semantic]`` extra is installed, unless ``$TOOLSIFT_SEMANTIC`` says ``off``).

* :mod:`toolsift.semantic.model`: the encoder and :func:`~toolsift.semantic.model.resolve`.
* :mod:`toolsift.semantic.vectors`: tool vectors, the dense kernels, their snapshot entry.

Example:
    >>> from toolsift import Tool, ToolIndex
    >>> index = ToolIndex([Tool(name="read_file", description="Read a file")], semantic=False)
    >>> index.semantic, 0.0 < DEFAULT_MIN_CONFIDENCE < 1.0
    (False, True)
"""

from __future__ import annotations

from .model import ENV_VAR, MODEL_ID, Semantic, StaticEncoder, resolve

__all__ = [
    "DEFAULT_MIN_CONFIDENCE",
    "ENV_VAR",
    "MODEL_ID",
    "Semantic",
    "StaticEncoder",
    "resolve",
]

#: The confidence below which a search with ``abstain=True`` answers that no tool matches.
DEFAULT_MIN_CONFIDENCE = 0.5
