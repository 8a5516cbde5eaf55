"""Shared fixtures: the engine parametrisation, Hypothesis profiles and ../shared locations."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("fast", max_examples=200, deadline=None)
settings.register_profile(
    "slow", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

#: Examples of a costly property in the thorough profile. Such a property draws a whole corpus or
#: catalogue and builds indexes from it in every example: 27-60 ms of CPU an example, against a
#: median of 8 ms for the others. At 1,000 examples the eleven of them took 474 CPU-seconds, four
#: minutes of CI's two cores; they run 300 there (the fast profile's 200 locally).
COSTLY_EXAMPLES = 300


def costly(examples: int = COSTLY_EXAMPLES) -> int:
    """``max_examples`` for a costly property: the profile's count, at most ``examples``."""
    return min(settings().max_examples, examples)


ROOT = Path(__file__).resolve().parents[1]

# The legacy suite tests the lexical path: semantic="auto" (the default) means off here. The
# semantic tests pass semantic=True, or set the variable themselves (monkeypatch.setenv).
os.environ["TOOLSIFT_SEMANTIC"] = "off"


def shared_dir() -> Path | None:
    """``../shared`` beside the checkout, or ``$TOOLSIFT_SHARED_DIR``; None where it is absent."""
    env = os.environ.get("TOOLSIFT_SHARED_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(ROOT.parent / "shared")
    for path in candidates:
        if (path / "data").is_dir():
            return path
    return None


def require_shared(sub: str = "data") -> Path:
    base = shared_dir()
    if base is None or not (base / sub).exists():
        pytest.skip(
            f"../shared/{sub} not found beside the checkout (set TOOLSIFT_SHARED_DIR): "
            "it holds the third-party catalogues and the reference oracle, which are not shipped"
        )
    return base / sub


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return require_shared("data")


@pytest.fixture(scope="session")
def reference():
    """The independent oracle port of seed 000 (``../shared/reference/seed000_reference.py``)."""
    path = require_shared("reference")
    sys.path.insert(0, str(path))
    try:
        import seed000_reference
    finally:
        sys.path.remove(str(path))
    return seed000_reference


def _have_rust() -> bool:
    try:
        import toolsift._core  # noqa: F401
    except ImportError:
        return False
    return True


HAVE_RUST = _have_rust()


@pytest.fixture(params=["rust", "python"])
def engine(request) -> str:
    """Run a test against both engines (pydantic-core's ``py_and_json`` pattern)."""
    if request.param == "rust" and not HAVE_RUST:
        if os.environ.get("CI"):
            pytest.fail("the Rust extension must be built in CI")
        pytest.skip("toolsift._core is not built (pip install -e .)")
    return request.param


@pytest.fixture
def engine_index(engine):
    """The raw engine class for ``engine``."""
    if engine == "rust":
        from toolsift._core import Index
    else:
        from toolsift._pyengine.index import Index
    return Index


GOLDEN_DIR = ROOT / "tests" / "data" / "golden"
UPDATE_GOLDEN = os.environ.get("TOOLSIFT_UPDATE_GOLDEN") == "1"


@pytest.fixture
def golden():
    """``golden(name, text)``: ``text`` must equal ``tests/data/golden/<name>`` byte for byte.

    The files are written only when ``TOOLSIFT_UPDATE_GOLDEN=1`` is set, never silently.
    """

    def check(name: str, text: str) -> None:
        path = GOLDEN_DIR / name
        data = text if text.endswith("\n") else text + "\n"
        if UPDATE_GOLDEN:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data.encode("utf-8"))
            return
        if not path.exists():
            pytest.fail(f"{path} is missing: run the tests once with TOOLSIFT_UPDATE_GOLDEN=1")
        assert data == path.read_bytes().decode("utf-8"), f"{name} differs from its golden file"

    return check


@pytest.fixture(scope="session")
def redis_server():
    """A real ``redis-server`` on a free loopback port, once per test session (per xdist
    worker); skipped with the reason where ``redis-server`` is not on PATH."""
    from ._redis import RedisServer

    server = RedisServer()
    yield server
    server.stop()
