"""The examples in the docstrings of the session, contract, meta-tool, render and token modules."""

from __future__ import annotations

import doctest

import pytest
import toolsift.catalog
import toolsift.contract
import toolsift.metatool
import toolsift.render
import toolsift.session
import toolsift.tokens

MODULES = [
    toolsift.catalog,
    toolsift.contract,
    toolsift.metatool,
    toolsift.render,
    toolsift.session,
    toolsift.tokens,
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
