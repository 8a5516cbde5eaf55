"""Both engines rank every shared catalogue exactly as the independent oracle port of seed 000.

The oracle (``../shared/reference/seed000_reference.py``) breaks score ties with an approximation
of JavaScript's ``localeCompare``; toolsift breaks them by code point (documented in the README).
So names are compared as sets within each group of tied scores, and scores to 1e-9.
"""

from __future__ import annotations

import json
import math
import random

import pytest
from toolsift import ToolIndex, load_catalog

CATALOGUES = [
    "codebase_memory_mcp",
    "popular_mcp_servers",
    "metatool",
    "gorilla_hf",
    "mcp_mixed",
]
LIMIT = 10
# Seed 000's plain BM25+: no query length cap, no exact-name tier, no prefix matching (toolsift's
# own additions are tested in their own files).
PLAIN_BM25 = {"max_query_length": 10**6, "exact_names": False, "prefix_fraction": 0.0}


def oracle_records(tools):
    return [
        {
            "name": t.name,
            "description": t.description,
            "input_schema": dict(t.input_schema),
            "server": t.server,
            "mcp_tool_name": t.mcp_tool_name,
            "label": t.display_label,
            "summary": t.display_summary,
        }
        for t in tools
    ]


def sample_queries(shared_data, name, tools, n=60):
    rng = random.Random(f"toolsift-{name}")
    queries = []
    qpath = shared_data / f"{name}.queries.jsonl"
    if qpath.exists():
        with qpath.open(encoding="utf-8") as fh:
            lines = [json.loads(line)["query"] for line in fh]
        queries += rng.sample(lines, min(n, len(lines)))
    # Tool names, raw and as words, plus words of descriptions: exercise ties and rare terms.
    picked = rng.sample(list(tools), min(n // 2, len(tools)))
    queries += [t.mcp_tool_name or t.name for t in picked]
    queries += [" ".join(t.description.split()[:4]) or t.name for t in picked]
    return queries


def assert_same_ranking(got, want_full, limit):
    want = want_full[:limit]
    assert len(got) == len(want)
    for (_, a), (_, b) in zip(got, want):
        assert math.isclose(a, b, rel_tol=0, abs_tol=1e-9), (a, b)
    # Names agree within each tie group; the group at the cut may be any subset of the full group.
    i = 0
    while i < len(got):
        score = got[i][1]
        j = i
        while j < len(got) and got[j][1] == score:
            j += 1
        ours = {n for n, _ in got[i:j]}
        theirs = {n for n, s in want_full if abs(s - score) <= 1e-9}
        if j < len(got):
            assert ours == {n for n, s in want if abs(s - score) <= 1e-9}
        else:
            assert ours <= theirs
        i = j


@pytest.mark.parametrize("name", CATALOGUES)
def test_engines_rank_like_the_seed_oracle(name, engine, shared_data, reference):
    tools = load_catalog(shared_data / f"{name}.tools.jsonl")
    oracle = reference.InvertedReferenceIndex(oracle_records(tools))
    index = ToolIndex(tools, engine=engine, profile="omp")  # the oracle is seed 000's
    for query in sample_queries(shared_data, name, tools):
        if not reference.tokenize(query):
            continue
        got = [(m.tool.name, m.score) for m in index.search(query, LIMIT, **PLAIN_BM25)]
        want = oracle.search(query, LIMIT + 200)
        assert_same_ranking(got, want, LIMIT)
