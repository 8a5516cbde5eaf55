"""The pure-Python twin of the Rust engine (``toolsift._core``), and nothing else: the same API,
ranked lists and scores (to 1e-9, proven by Hypothesis in ``tests/test_parity.py``).

``index`` builds the BM25+ index and its live updates, ``search`` scores it, ``store`` turns it
into snapshot columns, ``keyword`` is ``ToolSearch``'s keyword scorer. Only
``toolsift._engine`` imports this package; the runtime reaches it through
``toolsift._engine.select``."""
