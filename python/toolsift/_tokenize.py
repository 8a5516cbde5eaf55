"""TEMPORARY ASCII tokenizer; replaced by the real twin on merge."""

import re

_A = re.compile(r"([A-Z]+)([A-Z][a-z])")
_C = re.compile(r"([a-z0-9])([A-Z])")
_N = re.compile(r"[^A-Za-z0-9]+")


def tokenize(value: str) -> list[str]:
    value = _A.sub(r"\1 \2", value)
    value = _C.sub(r"\1 \2", value)
    return _N.sub(" ", value).lower().split()
