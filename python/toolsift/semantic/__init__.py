"""Semantic ranking: query-aware fusion of the lexical and dense rankings, whole-task requests
and a calibrated confidence (see :mod:`toolsift.semantic.ranker`)."""
