"""The version is written once, in Cargo.toml: the package metadata, the compiled engine and
``toolsift.__version__`` all say it."""

from __future__ import annotations

import re
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import toolsift

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _cargo_version() -> str:
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))
    return str(cargo["package"]["version"])


def test_pyproject_takes_the_version_from_cargo() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]


def test_the_package_says_the_installed_version() -> None:
    assert toolsift.__version__ == version("toolsift")
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", toolsift.__version__)


def test_the_compiled_engine_is_of_cargo_version() -> None:
    core = pytest.importorskip("toolsift._core", reason="the compiled engine is not built")
    assert core.__version__ == _cargo_version()


def test_the_cli_prints_cargo_version(capsys: pytest.CaptureFixture[str]) -> None:
    from toolsift.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"toolsift {_cargo_version()}"


def test_the_release_smoke_test_reads_cargo_version() -> None:
    """scripts/smoke_test.py (run by the release workflow on every built wheel and the sdist)
    compares ``toolsift --version`` with what it reads from Cargo.toml."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("smoke_test", ROOT / "scripts" / "smoke_test.py")
    assert spec is not None and spec.loader is not None
    smoke = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(smoke)
    assert smoke.cargo_version(ROOT / "Cargo.toml") == _cargo_version()
