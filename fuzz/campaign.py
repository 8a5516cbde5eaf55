"""The long fuzz campaign (outside CI): a million hostile inputs per target, counted.

Targets: ``analysis`` (the tokenizer and both profiles' analysis, Rust against the pure-Python
twin), ``query`` (the query parser and a search on both engines), ``loaders`` (catalogue bytes
to tools) and ``snapshot`` (snapshot bytes to an index, searched, on both engines). Inputs are
mutations of valid seeds (byte flips, splices, repeats, hostile tokens, truncation), drawn from a
seeded ``random.Random``, so a run is reproducible. (The gateway's JSON-RPC input has its own
campaign, ``fuzz/gateway_fuzz.py``; the gateway under load, ``fuzz/soak.py``.)

Every input runs on the Rust engine (what a gateway runs), and every ``--parity-every``-th one
on the pure-Python twin too, compared (the twin is ~20 times slower: on every input it would
take most of the campaign's time). For every input it records: a *crash* (an exception outside
the documented typed errors, a Rust panic, or the two engines disagreeing), a *hang* (one input
over ``--hang-seconds`` of CPU time, stopped by an alarm), and the longest time of one input.
Times are the process's CPU time (user + system, every thread), not wall time: the campaign runs
``nice``d beside other work, where a 1 ms input can wait seconds for a core. Counts go to stdout
and, as JSON, to ``--out``.

Usage::

    nice -n 10 python fuzz/campaign.py --inputs 1000000 --out fuzz/results.json
    python fuzz/campaign.py --targets query --inputs 10000     # a quick look

Exit status 1 if any crash or hang was seen.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import signal
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import toolsift
from toolsift import Tool, ToolIndex
from toolsift._core import analyze as rust_analyze
from toolsift._core import tokenize as rust_tokenize
from toolsift._snapshot import format as snapshot_format
from toolsift._text.analysis import analyze as py_analyze
from toolsift._text.tokenize import tokenize as py_tokenize
from toolsift.loaders import _load_bytes
from toolsift.query import parse_query

#: The documented errors (see tests/test_hardening_fuzz.py): anything else is a crash.
TYPED = (toolsift.ToolsiftError, TypeError, ValueError, KeyError, OSError)

HOSTILE = [
    "", " ", "\x00", "\ud800", "\udfff", "\u2028", "\ufeff", "select:", "select:,", "+", "++",
    "中文检索", "ﬁle", "İ", "ß", "\u0301" * 5, "ay" * 500, "9" * 5000, "[" * 2000, "{" * 300,
    '"', "\\", "\\u", "\\ud83d", "null", "true", "-0", "1e999", "NaN", "Infinity", "\t\r\n",
    "mcp__", "__", "a" * 2000, "\U0001f600", "ي", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
]  # fmt: skip


class Hang(Exception):
    """Raised by the alarm when one input runs past the bound."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang


# --- mutation ----------------------------------------------------------------------------------


def mutate_text(rng: random.Random, seed: str) -> str:
    text = seed
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        at = rng.randint(0, len(text))
        if op == 0:
            text = text[:at] + rng.choice(HOSTILE) + text[at:]
        elif op == 1 and text:
            text = text[:at] + text[at + rng.randint(1, 8) :]
        elif op == 2:
            text = text[:at] + chr(rng.choice([rng.randint(0, 0x7F), rng.randint(0, 0x10FFFF)]))
            text += seed[at:]
        elif op == 3:
            text = text[:at] * rng.randint(1, 4) + text[at:]
        elif op == 4:
            text = text[at:] + text[:at]
        elif op == 5:
            text = text.upper() if rng.random() < 0.5 else text.swapcase()
        else:
            text = text[:at]
    return text


def mutate_bytes(rng: random.Random, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        at = rng.randint(0, len(data))
        if op == 0 and data:
            i = min(at, len(data) - 1)
            data[i] ^= rng.randint(1, 255)
        elif op == 1:
            data[at:at] = rng.choice(HOSTILE).encode("utf-8", "surrogatepass")
        elif op == 2:
            del data[at : at + rng.randint(1, 16)]
        elif op == 3:
            data[at:at] = bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 8)))
        elif op == 4:
            data = data[:at]
        else:
            j = rng.randint(0, len(data))
            data[at:at] = data[min(at, j) : max(at, j)][:256]
    return bytes(data)


# --- targets -----------------------------------------------------------------------------------

QUERIES = [
    "read file", "send a slack message", "select:read_file,missing", "+file read", "get list",
    "create issue in github", "mcp__slack__send", "中文 file", "write_file", "search the web",
]  # fmt: skip
CATALOG = [
    {"name": "read_file", "description": "Read a file from disk",
     "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}},
    {"name": "write_file", "description": "Write a file", "search_hint": "save"},
    {"name": "send", "description": "Send a message", "server": "slack"},
    {"name": "create_issue", "description": "Create an issue in a repository", "title": "Issue"},
]  # fmt: skip
TOOLS = [Tool.from_dict(d) for d in CATALOG]


def analysis_target(rng: random.Random, parity: bool) -> None:
    text = mutate_text(rng, rng.choice(QUERIES + [d["description"] for d in CATALOG]))
    profile = rng.choice(["english", "omp"])
    query = rng.random() < 0.5
    _agree(parity, lambda: rust_tokenize(text), lambda: py_tokenize(text))
    _agree(
        parity,
        lambda: rust_analyze(text, profile=profile, query=query),
        lambda: py_analyze(text, profile=profile, query=query),
    )


_INDEXES: dict[str, ToolIndex] = {}


def _indexes() -> dict[str, ToolIndex]:
    if not _INDEXES:
        for engine in ("rust", "python"):
            _INDEXES[engine] = ToolIndex(TOOLS, engine=engine)  # type: ignore[arg-type]
    return _INDEXES


def _ranked(result: Any) -> list[tuple[str, float]]:
    return [(m.name, round(m.score, 9)) for m in result]


def query_target(rng: random.Random, parity: bool) -> None:
    query = mutate_text(rng, rng.choice(QUERIES))
    options: dict[str, Any] = {}
    if rng.random() < 0.3:
        name = rng.choice(["limit", "max_query_length", "prefix_min_len", "threshold"])
        options[name] = rng.choice([0, 1, 3, -1, 2**64, 1e308, math.nan, "5", None, True])
    try:
        parse_query(query, max_length=rng.choice([500, 10_000]))
    except TYPED:
        pass
    idx = _indexes()
    _agree(
        parity,
        lambda: _ranked(idx["rust"].search(query, **options)),
        lambda: _ranked(idx["python"].search(query, **options)),
    )


LOADER_SEEDS = [
    json.dumps(CATALOG).encode(),
    "\n".join(json.dumps(d) for d in CATALOG).encode(),
    json.dumps({"tools": CATALOG}).encode(),
    json.dumps({"mcpServers": {"fs": {"tools": CATALOG[:2]}}}).encode(),
    json.dumps([{"type": "function", "function": {"name": "f", "parameters": {}}}]).encode(),
]


def loaders_target(rng: random.Random, parity: bool) -> None:
    data = mutate_bytes(rng, rng.choice(LOADER_SEEDS))
    file = rng.choice(["catalogue.json", "catalogue.jsonl"])
    try:
        _load_bytes(data, file)
    except TYPED:
        pass


_SNAPSHOT: list[bytes] = []


def snapshot_target(rng: random.Random, parity: bool) -> None:
    if not _SNAPSHOT:
        _SNAPSHOT.append(_indexes()["python"].to_bytes())
    blob = _SNAPSHOT[0]
    if rng.random() < 0.5:
        blob = mutate_bytes(rng, blob)
    else:  # valid checksums, mutated tool section
        cols, meta = snapshot_format.loads(blob)
        blob = snapshot_format.dumps(cols, mutate_bytes(rng, meta))

    def load(engine: str) -> Any:
        index = ToolIndex.from_bytes(blob, engine=engine)  # type: ignore[arg-type]
        return _ranked(index.search("read file")), [t.name for t in index.tools]

    _agree(parity, lambda: load("rust"), lambda: load("python"))


class Disagreement(Exception):
    """The two engines gave different results or different errors."""


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", call()
    except TYPED as exc:
        return "error", type(exc).__name__


def _agree(parity: bool, rust: Callable[[], Any], python: Callable[[], Any]) -> None:
    """Runs ``rust``; with ``parity``, ``python`` too, and raises if they disagree."""
    a = _outcome(rust)
    if not parity:
        return
    b = _outcome(python)
    if a != b:
        raise Disagreement(f"rust {a!r:.300} != python {b!r:.300}")


TARGETS: dict[str, Callable[[random.Random, bool], None]] = {
    "analysis": analysis_target,
    "query": query_target,
    "loaders": loaders_target,
    "snapshot": snapshot_target,
}


def run(
    target: str, inputs: int, seed: int, hang_seconds: float, parity_every: int, log: Any
) -> dict[str, Any]:
    rng = random.Random(f"{target}:{seed}")
    fn = TARGETS[target]
    crashes = hangs = 0
    worst = 0.0
    total = 0.0
    examples: list[str] = []
    signal.signal(signal.SIGPROF, _alarm)
    start = time.perf_counter()
    for n in range(1, inputs + 1):
        t0 = time.process_time()
        signal.setitimer(signal.ITIMER_PROF, hang_seconds)
        try:
            fn(rng, n % parity_every == 0)
        except Hang:
            hangs += 1
            examples.append(f"hang at input {n}")
            print(f"{target}: hang at input {n}", file=log, flush=True)
        except BaseException as exc:  # noqa: BLE001 - a crash is any other exception, a panic too
            if isinstance(exc, KeyboardInterrupt):
                raise
            crashes += 1
            if len(examples) < 20:
                examples.append(f"input {n}: {''.join(traceback.format_exception_only(exc))[:500]}")
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        spent = time.process_time() - t0
        total += spent
        worst = max(worst, spent)
        if n % 100_000 == 0:
            print(f"{target}: {n:,} inputs, {crashes} crashes, {hangs} hangs, "
                  f"max {worst * 1000:.1f} ms CPU", file=log, flush=True)  # fmt: skip
    return {
        "target": target,
        "inputs": inputs,
        "parity_checked": inputs // parity_every,
        "crashes": crashes,
        "hangs": hangs,
        "max_cpu_ms_per_input": round(worst * 1000, 3),
        "mean_cpu_us_per_input": round(total / inputs * 1e6, 1),
        "wall_seconds": round(time.perf_counter() - start, 1),
        "examples": examples,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated targets")
    parser.add_argument("--inputs", type=int, default=1_000_000, help="inputs per target")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang-seconds", type=float, default=2.0, help="the per-input bound")
    parser.add_argument("--parity-every", type=int, default=8, help="compare engines every N")
    parser.add_argument("--out", help="write the counts as JSON here")
    args = parser.parse_args(argv)
    results = []
    for target in args.targets.split(","):
        result = run(
            target, args.inputs, args.seed, args.hang_seconds, args.parity_every, sys.stderr
        )
        print(json.dumps({k: v for k, v in result.items() if k != "examples"}), flush=True)
        results.append(result)
        if args.out:
            with open(args.out, "w", encoding="utf-8") as fh:
                json.dump(results, fh, indent=2)
    return 1 if any(r["crashes"] or r["hangs"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
