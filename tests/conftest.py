"""Hypothesis profiles and the seed's reference port, shared by the test modules."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings

# `fast` locally, `slow` in CI (HYPOTHESIS_PROFILE=slow), as pydantic-core does. No deadline:
# the first non-ASCII input loads tables, and the reference builds its regexes on first use.
settings.register_profile("fast", max_examples=200, deadline=None)
settings.register_profile("slow", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

# The repository lives at <somewhere>/main with shared/ beside it.
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "seed000_reference.py"


@pytest.fixture(scope="session")
def reference() -> ModuleType:
    """The seed's reference port (an oracle for tests only), or skip where it is absent."""
    if not REFERENCE.is_file():
        pytest.skip(f"the seed's reference port is not at {REFERENCE} (no ../shared here)")
    spec = importlib.util.spec_from_file_location("seed000_reference", REFERENCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
