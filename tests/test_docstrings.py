"""The examples in the docstrings of every toolsift module run and pass.

Modules are discovered, not listed, so a new module's examples are checked from the start.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest
import toolsift

# No docstring examples: the compiled extension, the CLI entry point, generated tables and the
# engine Protocol. Packages are walked into: their modules are checked, not their re-exports.
WITHOUT_EXAMPLES = {"_core", "__main__", "cli", "_text.unicode_data", "_engine.protocol"}
MODULES = sorted(
    m.name.removeprefix("toolsift.")
    for m in pkgutil.walk_packages(toolsift.__path__, "toolsift.")
    if not m.ispkg and m.name.removeprefix("toolsift.") not in WITHOUT_EXAMPLES
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"toolsift.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"toolsift.{name} has no docstring example"
    assert result.failed == 0
