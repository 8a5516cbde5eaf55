"""The architecture's rules (ARCHITECTURE.md) hold: the import-linter contracts of pyproject.toml
are kept (layers that point one way, so no import cycle; the pure-Python twin behind the engine
selection; the evaluation code out of the runtime), and every module is placed in a layer.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

import pytest
import toolsift

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli before Python 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
#: Not layered: the compiled extension, ``python -m toolsift``, and the package data folder.
UNLAYERED = {"_core", "__main__", "data"}


def _contracts() -> list[dict]:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def test_import_contracts_are_kept(capsys):
    from importlinter.cli import lint_imports

    status = lint_imports(config_filename=str(PYPROJECT), no_cache=True)
    report = capsys.readouterr().out
    assert status == 0, report
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in report


def _layered(container: str) -> list[str]:
    """The modules named in the layers contract of ``container`` (each once)."""
    (layers,) = [
        c["layers"]
        for c in _contracts()
        if c["type"] == "layers" and c.get("containers") == [container]
    ]
    placed = [name.strip() for layer in layers for name in layer.split("|")]
    assert len(placed) == len(set(placed)), f"a module is in two layers of {container}"
    return placed


def _children(package: object) -> set[str]:
    return {m.name for m in pkgutil.iter_modules(package.__path__)}  # type: ignore[attr-defined]


def test_every_module_is_in_one_layer():
    modules = _children(toolsift) - UNLAYERED
    assert set(_layered("toolsift")) == modules, "place new modules in [tool.importlinter] layers"


SUBPACKAGES = sorted(
    m.name for m in pkgutil.iter_modules(toolsift.__path__) if m.ispkg and m.name not in UNLAYERED
)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_module_of_a_subpackage_is_in_one_layer(name):
    package = importlib.import_module(f"toolsift.{name}")
    modules = _children(package)
    if len(modules) > 1:  # one module cannot form a cycle inside its package
        assert set(_layered(f"toolsift.{name}")) == modules, (
            f"place them in toolsift.{name}'s layers"
        )


@pytest.mark.parametrize("protected", ["toolsift._pyengine", "toolsift.evaluation"])
def test_protected_packages_have_a_contract(protected):
    assert any(
        c["type"] == "protected" and c["protected_modules"] == [protected] for c in _contracts()
    )
