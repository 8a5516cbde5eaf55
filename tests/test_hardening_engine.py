"""Hardening of the engines: stemming linear in its input, BM25+ parameters and field weights
bounded (finite scores, parity), no panic when the thread pool cannot start. Each hostile input
ends at once, in both engines, with a typed error (or a correct result)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import toolsift
from toolsift import (
    FieldWeights,
    Tool,
    ToolIndex,
)
from toolsift._text.analysis import MAX_STEM_LENGTH, stem_copy

from ._hardening import TOOLS
from ._hardening import hardening_index as _index

# 1. Stemming is linear: a word past MAX_STEM_LENGTH is copied unchanged, in both engines.


def test_a_long_word_is_not_stemmed_so_the_build_is_linear(engine) -> None:
    long = "ay" * 400_000  # 800 KB: took ~26 s when every ASCII word was stemmed
    index = ToolIndex([Tool(name="a", description=long)], engine=engine)  # type: ignore[arg-type]
    assert [m.name for m in index.search(long, max_query_length=len(long))] == ["a"]
    assert stem_copy(long) == "§" + long
    at_cap = "x" * (MAX_STEM_LENGTH - 7) + "walking"  # stemmed: 64 characters
    assert stem_copy(at_cap) == "§" + at_cap[:-3]
    assert stem_copy(at_cap + "s") == "§" + at_cap + "s"  # 65: copied unchanged


def test_the_engines_agree_on_words_around_the_stem_length(engine) -> None:
    words = ["running" * k for k in range(8, 12)]  # 56..77 characters: both sides of 64
    tools = [Tool(name=f"t{i}", description=w) for i, w in enumerate(words)]
    rust = ToolIndex(tools, engine="rust" if engine == "rust" else "python")
    python = ToolIndex(tools, engine="python")
    for w in words:
        a, b = rust.search(w), python.search(w)
        assert [m.name for m in a] == [m.name for m in b]
        assert all(abs(x.score - y.score) < 1e-9 for x, y in zip(a, b))


# 6. A pool that cannot start its threads falls back to the calling thread: no panic.


#: Each pool thread asks for this stack (``RUST_MIN_STACK``, read by Rust's ``std::thread``):
#: far more than the address space left to the process below, so ``pthread_create`` fails.
THREAD_STACK = 2**40  # 1 TiB
#: Address space left for everything else (small allocations of the build and the searches):
#: ample, so the allocator is never starved whatever the memory layout.
HEADROOM = 2**30  # 1 GiB


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and /proc behave so on Linux")
def test_no_panic_when_the_thread_pool_cannot_start() -> None:
    """The operating system refuses the pool's threads (each asks for a 1 TiB stack, the
    address-space limit leaves 1 GiB) while ordinary allocations still succeed: the pool does
    not start, and every parallel call runs on the calling thread (it raised PanicException
    before). The 1 GiB of headroom keeps the allocator fed (an 8 MiB margin once ended in an
    allocation-failure abort, depending on the memory layout)."""
    pytest.importorskip("toolsift._core")
    script = (
        "import resource, toolsift\n"
        "tools = [toolsift.Tool(name='a', description='alpha beta')] + "
        "[toolsift.Tool(name=f't{i}', description='gamma') for i in range(3000)]\n"
        "size = int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize()\n"
        f"resource.setrlimit(resource.RLIMIT_AS, (size + {HEADROOM}, resource.RLIM_INFINITY))\n"
        "index = toolsift.ToolIndex(tools, engine='rust')\n"
        "hits = index.search_many(['alpha', 'gamma'])\n"
        "big = [bytearray(2**20) for _ in range(64)]\n"  # 64 MiB: the allocator is not starved
        "threads = [l.split()[1] for l in open('/proc/self/status') if l.startswith('Threads')]\n"
        "print(hits[0][0].name, index.search('alpha')[0].name, threads[0], len(big))\n"
    )
    env = dict(os.environ, RAYON_NUM_THREADS="8", RUST_MIN_STACK=str(THREAD_STACK))
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert "PanicException" not in run.stderr and "panicked" not in run.stderr, run.stderr
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["a", "a", "1", "64"]  # one thread: the pool never started


def test_the_pool_starts_with_the_same_limits_but_ordinary_stacks() -> None:
    """The control of the test above: with the same address-space limit and Rust's default
    thread stacks, the pool starts (so above it is the stack request that fails)."""
    pytest.importorskip("toolsift._core")
    if sys.platform != "linux":
        pytest.skip("RLIMIT_AS and /proc behave so on Linux")
    script = (
        "import resource, toolsift\n"
        "tools = [toolsift.Tool(name=f't{i}', description='gamma') for i in range(3000)]\n"
        "size = int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize()\n"
        f"resource.setrlimit(resource.RLIMIT_AS, (size + {HEADROOM}, resource.RLIM_INFINITY))\n"
        "index = toolsift.ToolIndex(tools, engine='rust')\n"
        "index.search_many(['gamma'] * 64)\n"
        "threads = [l.split()[1] for l in open('/proc/self/status') if l.startswith('Threads')]\n"
        "print(threads[0])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "RUST_MIN_STACK"}
    env["RAYON_NUM_THREADS"] = "2"
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert int(run.stdout.split()[0]) == 3  # the calling thread and the pool's two


# 8. BM25+ parameters are bounded so that scores stay finite.


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k1": 1e308}, "Invalid k1: must be between 0 and 1000"),
        ({"delta": 1e308}, "Invalid delta: must be between 0 and 1000"),
        ({"k1": 10**400}, "k1 must be a finite number, got an int too large"),
        ({"delta": 10**400}, "delta must be a finite number, got an int too large"),
    ],
)
def test_huge_bm25_parameters_are_refused_naming_the_parameter(engine, kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        _index(engine, **kwargs)


def test_the_largest_parameters_score_finitely(engine) -> None:
    index = _index(engine, k1=1000.0, delta=1000.0)
    result = index.search("read file", normalize=True)
    assert all(m.score < float("inf") and m.normalized_score == m.normalized_score for m in result)


# 10. Field weights are bounded so that the engines agree.


def test_a_tiny_field_weight_is_refused() -> None:
    with pytest.raises(ValueError, match="between 1e-6 and 1e30"):
        FieldWeights(name=5e-324)
    weights = FieldWeights(name=1e-6)
    a = ToolIndex(TOOLS, engine="python", field_weights=weights).search("read file")
    if "rust" in toolsift.available_engines():
        b = ToolIndex(TOOLS, engine="rust", field_weights=weights).search("read file")
        assert [(m.name, round(m.score, 9)) for m in a] == [(m.name, round(m.score, 9)) for m in b]
