"""The semantic ranking (``toolsift.semantic``): the query router, the query-aware fusion's
invariants (names and keyword queries keep the lexical order), whole-task splitting and the
coverage merge, the calibrated confidence and its threshold, and the shipped weights file's
shape against what ``scripts/fit_semantic.py`` writes.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from toolsift.semantic.confidence import SIGNALS, Calibration, signals_of
from toolsift.semantic.fusion import N_FEATURES, Candidates, features
from toolsift.semantic.ranker import WEIGHT_KEYS, SemanticRanker, check_weights, load_weights
from toolsift.semantic.route import is_identifier, route
from toolsift.semantic.tasks import MAX_INTENTS, cover, split_intents

ROOT = Path(__file__).resolve().parent.parent
N_TOOLS = 400


@pytest.fixture(scope="module")
def ranker() -> SemanticRanker:
    return SemanticRanker(load_weights())


def _callbacks(seed: int, n_lex: int = 20):
    """A lexical list of ``n_lex`` tools (scores descending) and random cosines."""
    rng = np.random.default_rng(seed)
    cos = rng.normal(0.15, 0.08, N_TOOLS).astype(np.float32)
    picked = rng.choice(N_TOOLS, n_lex, replace=False)
    scores = np.sort(rng.uniform(1.0, 25.0, n_lex))[::-1]
    lex = [(int(p), float(s)) for p, s in zip(picked, scores)]
    return lex, (lambda text, k: lex[:k]), (lambda text: cos)


# --- routing -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "query",
    [
        "read_file",
        "getWeather",
        "github.create_issue",
        "browser-navigate",
        "mcp__github__list_issues",
        "read_file, write_file and list_directory",
        "`search_code`",
        '"pull request"',
        "'slack'",
        "create_issue | list_issues",
    ],
)
def test_names_identifiers_and_quoted_words_route_to_the_names_path(query):
    assert route(query).kind == "names"


@pytest.mark.parametrize("query", ["weather forecast", "pdf merge", "kubernetes pods"])
def test_a_few_content_words_route_as_a_keyword_query(query):
    assert route(query).kind == "keyword"


@pytest.mark.parametrize(
    "query",
    [
        "How do I get tomorrow's forecast for Paris?",
        "show me the weather",  # a stop word makes it a request
        '"What is the overall sentiment about the EUR/USD pair this month, please?"',
        "List all Azure SQL servers in resource group <resource_group_name>",
    ],
)
def test_requests_route_as_natural(query):
    assert route(query).kind == "natural"


def test_identifier_detection():
    assert [is_identifier(p) for p in ("read_file", "weather", "HTTPServer", "(list_dir)")] == [
        True,
        False,
        False,
        True,
    ]
    assert route("please call read_file on notes").identifier_fraction == pytest.approx(0.2)


# --- whole tasks ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "intents"),
    [
        (
            "Find the latest sales report, then email it to my manager",
            ["Find the latest sales report", "email it to my manager"],
        ),
        (
            "Search arXiv for papers on MCP and summarize the top three; save as PDF",
            ["Search arXiv for papers on MCP", "summarize the top three", "save as PDF"],
        ),
        (
            "Get the stock price of Apple and export as a CSV file",
            ["Get the stock price of Apple", "export as a CSV file"],
        ),
        ("What is the weather in Paris?", ["What is the weather in Paris?"]),
        ("cats and dogs", ["cats and dogs"]),
    ],
)
def test_split_intents(query, intents):
    assert split_intents(query) == intents
    assert (route(query).kind == "task") == (len(intents) > 1)


def test_split_intents_is_bounded():
    query = "; ".join(f"fetch the report number {i} quickly" for i in range(9))
    parts = split_intents(query)
    assert len(parts) == MAX_INTENTS
    assert parts[-1].endswith("number 8 quickly")


def test_cover_gives_every_intent_a_tool_early():
    whole = {1: 1.0, 2: 0.95, 3: 0.9, 4: 0.1}
    parts = [{1: 1.0, 2: 0.9}, {4: 1.0}]
    merged = [d for d, _ in cover(whole, parts, 3, part_weight=1.0, covered_weight=0.0)]
    assert merged[:2] == [1, 4]  # the second intent's best tool comes before more of the first's
    assert [d for d, _ in cover(whole, parts, 3, part_weight=0.0, covered_weight=0.0)] == [1, 2, 3]


def test_a_task_ranks_each_intent_within_few_calls(ranker):
    calls = []
    lex, _, dense = _callbacks(3)

    def lexical(text, k):
        calls.append(text)
        return lex[:k]

    query = "Find the latest sales report, then email it to my manager and save it as a PDF"
    out = ranker.rank(query, 10, lexical, dense)
    assert len(out.positions) == 10 == len(set(out.positions))
    assert len(calls) <= 1 + MAX_INTENTS


# --- fusion invariants --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("query", ["read_file", "weather forecast", "list_issues, create_issue"])
def test_names_and_keyword_queries_keep_the_lexical_order(ranker, seed, query):
    lex, lexical, dense = _callbacks(seed)
    out = ranker.rank(query, 30, lexical, dense)
    assert out.positions[: len(lex)] == [p for p, _ in lex]
    assert len(out.positions) == 30  # the meaning fills the rest


@pytest.mark.parametrize("seed", range(4))
def test_without_meaning_a_request_keeps_the_lexical_order(ranker, seed):
    """Flat cosines carry no information: the fused order is the lexical order."""
    lex, lexical, _ = _callbacks(seed)
    flat = np.full(N_TOOLS, 0.2, dtype=np.float32)
    out = ranker.rank("how can I see the open pull requests", 10, lexical, lambda t: flat)
    assert out.positions == [p for p, _ in lex[:10]]


def test_with_nothing_lexical_a_request_follows_the_meaning(ranker):
    cos = np.linspace(0.0, 0.6, N_TOOLS).astype(np.float32)
    out = ranker.rank("how can I see the open pull requests", 5, lambda t, k: [], lambda t: cos)
    assert out.positions == [N_TOOLS - 1 - i for i in range(5)]


def test_features_shape_and_candidates():
    cos = np.array([0.1, 0.8, 0.3, 0.5], dtype=np.float32)
    cand = Candidates.of([(2, 3.0), (0, 1.0)], cos, 2)
    assert cand.positions.tolist() == [2, 0, 1, 3]
    assert cand.lex_ranks.tolist() == [0, 1, -1, -1]
    assert cand.dense_ranks.tolist() == [-1, -1, 0, 1]
    assert features(route("a request for things"), cand).shape == (4, N_FEATURES)


def test_scores_descend_and_limit_is_kept(ranker):
    _, lexical, dense = _callbacks(5)
    out = ranker.rank("which tool reads my calendar events", 7, lexical, dense)
    assert len(out.positions) == 7
    assert out.scores == sorted(out.scores, reverse=True)


# --- confidence ------------------------------------------------------------------------------
def test_confidence_rises_with_a_clearer_best_match(ranker):
    base = np.full(N_TOOLS, 0.1, dtype=np.float32)
    base[::7] = 0.12
    confidences = []
    for best in (0.15, 0.3, 0.5, 0.7, 0.9):
        cos = base.copy()
        cos[5] = best
        out = ranker.rank("find me a restaurant for dinner", 5, lambda t, k: [], lambda t, c=cos: c)
        confidences.append(out.confidence)
    assert confidences == sorted(confidences)
    assert confidences[-1] > confidences[0]
    assert all(0.0 <= c <= 1.0 for c in confidences)


def test_calibration_is_a_logistic_of_the_signals():
    signals = signals_of(
        p_top=0.5,
        margin=1.0,
        cos_top=0.5,
        cos_z=5.0,
        lex_strength=1.0,
        agreement=0.5,
        kind="natural",
    )
    assert len(signals) == len(SIGNALS)
    up = Calibration(weights=(1.0,) + (0.0,) * (len(SIGNALS) - 1), bias=0.0, threshold=0.5)
    assert up(signals) == pytest.approx(1 / (1 + np.exp(-0.5)))


def test_the_threshold_is_the_fitted_one(ranker):
    from toolsift.semantic import confidence

    fitted = load_weights()["confidence"]["min_confidence"]
    assert ranker.min_confidence == fitted
    assert 0.0 < fitted < 1.0
    assert confidence.DEFAULT_MIN_CONFIDENCE == fitted


# --- the weights file ------------------------------------------------------------------------
def _fit_script():
    spec = importlib.util.spec_from_file_location(
        "fit_semantic", ROOT / "scripts" / "fit_semantic.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("fit_semantic", module)
    spec.loader.exec_module(module)
    return module


def test_the_weights_file_has_the_shape_the_fitting_script_writes():
    shipped = load_weights()
    written = _fit_script().initial_weights("any-model")
    assert tuple(shipped) == WEIGHT_KEYS == tuple(written)
    for key in ("candidates", "fusion", "tasks", "confidence"):
        assert set(shipped[key]) == set(written[key]), key
    assert len(shipped["fusion"]["weights"]) == N_FEATURES
    assert len(shipped["confidence"]["weights"]) == len(SIGNALS)
    assert set(shipped["train"]) >= {"mcp_mixed", "metatool", "gorilla_hf"}


def test_weights_of_other_features_are_refused():
    weights = load_weights()
    bad = dict(weights, fusion=dict(weights["fusion"], weights=[0.0] * (N_FEATURES - 1)))
    with pytest.raises(ValueError, match="other fusion features"):
        check_weights(bad)
    with pytest.raises(ValueError, match="lack"):
        check_weights({k: v for k, v in weights.items() if k != "tasks"})
