"""Package data of the semantic ranking: ``weights.json``, fitted by ``scripts/fit_semantic.py``."""
