"""Fixtures for the benchmarks: real catalogues from ../shared/data (skipped where absent)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]

# The benchmark tests time and check the lexical path: semantic="auto" means off here, as in the
# test suite (benches/semantic_latency.py and benches/semantic_model.py measure semantic search).
os.environ.setdefault("TOOLSIFT_SEMANTIC", "off")


def shared_data_dir() -> Path | None:
    env = os.environ.get("TOOLSIFT_SHARED_DIR")
    for base in ([Path(env)] if env else []) + [ROOT.parent / "shared"]:
        if (base / "data").is_dir():
            return base / "data"
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if path is None:
        pytest.skip("../shared/data not found beside the checkout (set TOOLSIFT_SHARED_DIR)")
    return path


@pytest.fixture(scope="session")
def mcp_mixed_tools(shared_data):
    from toolsift import load_catalog

    return load_catalog(shared_data / "mcp_mixed.tools.jsonl")


@pytest.fixture(scope="session")
def mcp_mixed_queries(shared_data) -> list[str]:
    with (shared_data / "mcp_mixed.queries.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line)["query"] for line in fh][:200]
