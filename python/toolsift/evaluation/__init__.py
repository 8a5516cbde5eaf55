"""Retrieval-quality evaluation: labelled datasets, metrics, the peer rankers (``peers``), the
BM25+ variants (``variants``) and the dense/hybrid rankers (``hybrid_rankers``).

Imported only by ``toolsift eval`` and the :mod:`toolsift.evaluate` façade, never by the search
runtime."""
