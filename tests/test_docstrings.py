"""The examples in the docstrings of every toolsift module run and pass.

Modules are discovered, not listed, so a new module's examples are checked from the start.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest
import toolsift

# No docstring examples: the compiled extension, the CLI entry point, generated tables, the
# engine Protocol, and the package data folder.
WITHOUT_EXAMPLES = {"_core", "__main__", "cli", "_unicode_data", "_engine", "data"}
MODULES = sorted(
    m.name for m in pkgutil.iter_modules(toolsift.__path__) if m.name not in WITHOUT_EXAMPLES
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"toolsift.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"toolsift.{name} has no docstring example"
    assert result.failed == 0
