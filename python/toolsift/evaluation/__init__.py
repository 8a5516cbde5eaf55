"""Retrieval-quality evaluation: the labelled sets (``datasets``), the metrics (``metrics``), the
rankers compared (``rankers``: toolsift's own, the peers of ``peers``, the BM25+ variants of
``variants``, the dense/hybrid ones of ``hybrid_rankers``).

Imported only by ``toolsift eval`` and the :mod:`toolsift.evaluate` façade, never by the search
runtime."""
