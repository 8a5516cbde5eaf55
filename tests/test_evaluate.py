"""The quality harness: metrics, dataset loading, the variants layer, peers, CLI entry point."""

from __future__ import annotations

import argparse
import json
import math

import pytest
from toolsift import FieldWeights, ProfileError, Tool, ToolIndex, default_tools
from toolsift import evaluate as ev
from toolsift.evaluation import peers as peers

from ._corpora import WORD_CLOUD_TOOLS
from .conftest import require_shared

np = pytest.importorskip("numpy")

from toolsift.evaluation.variants import (  # noqa: E402
    Variant,
    VariantIndex,
    cjk_split,
    parse_variant,
    property_descriptions,
    word_pairs,
)
from toolsift.hybrid import lexical_search  # noqa: E402

QUERIES = [
    "open a pull request",
    "send a message to a slack channel",
    "read the contents of a file",
    "create a calendar event tomorrow",
    "search the web for news",
    "list my github issues",
    "take a screenshot of the page",
    "query the database",
]


# --- metrics ----------------------------------------------------------------------------------


def test_metrics_by_hand() -> None:
    rel = frozenset({2, 9})
    ranked = [5, 2, 7, 9]
    assert ev.recall_at(ranked, rel, 1) == 0.0
    assert ev.recall_at(ranked, rel, 2) == 0.5
    assert ev.recall_at(ranked, rel, 10) == 1.0
    assert ev.reciprocal_rank(ranked, rel) == 0.5
    ideal = 1 + 1 / math.log2(3)
    assert ev.ndcg_at(ranked, rel, 10) == pytest.approx(
        (1 / math.log2(3) + 1 / math.log2(5)) / ideal
    )
    assert ev.ndcg_at([2, 9], rel, 10) == pytest.approx(1.0)
    assert ev.ndcg_at([], rel, 10) == 0.0
    assert ev.reciprocal_rank([1, 3], rel) == 0.0


def test_evaluate_averages_over_queries() -> None:
    tools = tuple(Tool(name=n) for n in ("a", "b", "c"))
    ds = ev.Dataset("t", tools, (ev.Query("x", frozenset({0})), ev.Query("y", frozenset({1}))))
    got = ev.evaluate(ds, lambda q, k: [0, 1] if q == "x" else [0, 2])
    assert got["R@1"] == 0.5 and got["MRR"] == 0.5 and got["R@10"] == 0.5
    assert got["ms/query"] >= 0


# --- the variants layer -----------------------------------------------------------------------


PLAIN = ev.TOOLSIFT_RANKERS["toolsift-plain"]  # BM25+ alone: no exact-name tier, no prefixes


def test_base_variant_ranks_as_the_engine() -> None:
    """The measuring instrument reproduces ToolIndex exactly before it changes anything."""
    tools = default_tools()
    index = ToolIndex(tools, profile="omp")
    variant = VariantIndex(tools, Variant())
    pos = {t.name: i for i, t in enumerate(tools)}
    for q in QUERIES:
        expected = [pos[m.tool.name] for m in lexical_search(index, q, 10, **PLAIN)]
        assert variant.search(q, 10) == expected, q


def test_base_variant_scores_match_the_engine() -> None:
    tools = default_tools()
    index = ToolIndex(tools, profile="omp")
    variant = VariantIndex(tools, Variant())
    pos = {t.name: i for i, t in enumerate(tools)}
    for q in QUERIES:
        scores = variant.scores(variant.query_tokens(q))
        for m in lexical_search(index, q, 5, **PLAIN):
            assert scores[pos[m.tool.name]] == pytest.approx(m.score, rel=1e-9)


#: The variant the english profile implements in both engines.
ENGLISH = Variant(
    distinct_query_terms=True,
    stopwords=True,
    stem_expansion=0.5,
    cjk=True,
    weights=FieldWeights(summary=1.0, description=0.25, parameter_descriptions=0.25),
    delta=0.5,
    stem_query_weight=2.0,
)


def _same_as_english_variant(tools, queries, engine="auto") -> None:
    """The english profile's plain BM25+ ranks (and scores) as the ENGLISH variant."""
    index = ToolIndex(tools, engine=engine)
    assert index.profile == "english"
    variant = VariantIndex(tools, ENGLISH)
    pos = {t.name: i for i, t in enumerate(tools)}
    for q in queries:
        got = lexical_search(index, q, 10, **PLAIN)
        assert [pos[m.tool.name] for m in got] == variant.search(q, 10), q
        scores = variant.scores(variant.query_tokens(q))
        for m in got:
            assert scores[pos[m.tool.name]] == pytest.approx(m.score, rel=1e-9), q


@pytest.mark.parametrize("engine", ["rust", "python"])
def test_english_profile_ranks_as_the_recommended_variant(engine: str) -> None:
    if engine == "rust":
        pytest.importorskip("toolsift._core", reason="toolsift._core is not built")
    assert ENGLISH == parse_variant(ev.RECOMMENDED_VARIANT)
    tools = default_tools() + [
        Tool(name="weather_cn", description="获取天气预报 今日の天気 날씨 정보"),
        Tool(name="news_cn", description="新闻 ニュース 뉴스"),
    ]
    queries = QUERIES + ["天气预报", "今日の天気は", "날씨 정보 알려줘", "how can I get the news"]
    _same_as_english_variant(tools, queries, engine)


@pytest.mark.shared_data
@pytest.mark.parametrize("name", ev.DATASETS)
def test_english_profile_reproduces_the_variant_on_the_shared_sets(name: str) -> None:
    """The numbers the evaluation measured for the variant are the engine's: same rankings on a
    sample of every shared set's queries."""
    data = require_shared("data")
    ds = ev.load_dataset(name, data, limit=25)
    _same_as_english_variant(ds.tools, [q.text for q in ds.queries])


def test_cjk_split_makes_bigrams_at_script_boundaries() -> None:
    assert cjk_split("获取天气预报", str.split) == ["获取", "取天", "天气", "气预", "预报"]
    assert cjk_split("中 abc 日本語です", str.split) == ["中", "abc", "日本", "本語", "です"]
    assert cjk_split("날씨 조회", str.split) == ["날씨", "조회"]
    assert cjk_split("plain text", str.split) == ["plain", "text"]


def test_cjk_variant_finds_chinese_descriptions() -> None:
    tools = [
        Tool(name="weather", description="获取天气预报"),
        Tool(name="news", description="新闻"),
    ]
    assert VariantIndex(tools, Variant(cjk=True)).search("天气", 2) == [0]


def test_stem_and_stopwords() -> None:
    tools = [
        Tool(name="list_files", description="Lists the files of a folder"),
        Tool(name="can_opener", description="Opens cans"),
    ]
    idx = VariantIndex(tools, Variant(stem=True, stopwords=True))
    assert idx.query_tokens("can you list the files please") == ["list", "file"]
    assert idx.search("can you list the files please", 2) == [0]
    # a query of stop words only keeps them rather than matching nothing
    assert idx.query_tokens("can you") == ["can", "you"]


def test_bm25f_normalises_each_field_by_its_own_length() -> None:
    long_desc = "weather " + " ".join(f"word{i}" for i in range(60))
    tools = [
        Tool(name="forecast", description=long_desc),
        Tool(name="weather_now", description="Now."),
    ]
    assert VariantIndex(tools, Variant(scoring="bm25f")).search("weather", 2)[0] == 1


def test_property_descriptions_are_collected_recursively() -> None:
    schema = {
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "opts": {
                "type": "object",
                "properties": {"units": {"description": "metric or imperial"}},
            },
            "tags": {"type": "array", "items": {"properties": {"t": {"description": "A tag"}}}},
        }
    }
    assert property_descriptions(schema) == ["City name", "metric or imperial", "A tag"]


def test_extra_fields_change_the_ranking() -> None:
    tools = [
        Tool(name="a", description="x " * 120 + "zebra"),  # past the 200-character summary
        Tool(
            name="b",
            input_schema={"type": "object", "properties": {"q": {"description": "giraffe"}}},
        ),
    ]
    assert VariantIndex(tools, Variant()).search("zebra giraffe", 2) == []
    desc, params = FieldWeights(description=1.0), FieldWeights(parameter_descriptions=1.0)
    assert VariantIndex(tools, Variant(weights=desc)).search("zebra", 2) == [0]
    assert VariantIndex(tools, Variant(weights=params)).search("giraffe", 2) == [1]


def test_word_pairs_join_neighbours_and_the_word_after() -> None:
    tokens = str.split
    assert word_pairs("word cloud chart", tokens) == ["wordcloud", "cloudchart", "wordchart"]
    # Stop words go first, so the words around one pair up; repeats and non-ASCII never pair.
    assert word_pairs("read the config file", tokens) == ["readconfig", "configfile", "readfile"]
    assert word_pairs("go go 天气 now", tokens) == ["gonow"]


def test_word_pairs_variant_rewards_the_words_side_by_side() -> None:
    tools = WORD_CLOUD_TOOLS  # both words in each; side by side in tool 0's summary only
    assert VariantIndex(tools, Variant()).search("word cloud", 2) == [1, 0]
    # The pair "wordcloud" is in tool 0's summary only, and the query asks for it; the other
    # order asks for "cloudword", which tool 1 holds (a window of two: "cloud drive word").
    assert VariantIndex(tools, Variant(word_pairs=0.5)).search("word cloud", 2) == [0, 1]
    assert VariantIndex(tools, Variant(word_pairs=0.5)).search("cloud word", 2) == [1, 0]


def test_parse_variant_round_trips_its_label() -> None:
    specs = ("base", "stem+stop+cjk", "bm25f+desc=1+propdesc=0.5", "k1=1.5+summary=3", "pairs=0.1")
    for spec in specs:
        v = parse_variant(spec)
        assert parse_variant(v.label) == v
    with pytest.raises(ValueError, match="unknown variant option"):
        parse_variant("stemm")


# --- peers over the same tokens ---------------------------------------------------------------


def test_rank_bm25_vectorised_scores_equal_rank_bm25() -> None:
    rank_bm25 = pytest.importorskip("rank_bm25", reason="rank_bm25 is not installed")
    from toolsift import tokenize

    tools = default_tools()[:60]
    corpus = peers._weighted_tokens(tools)
    for kind, model in (
        ("okapi", rank_bm25.BM25Okapi(corpus)),
        ("plus", rank_bm25.BM25Plus(corpus, k1=1.2, b=0.75, delta=1.0)),
    ):
        ranker = peers._rank_bm25_ranker(tools, kind)
        for q in QUERIES:
            toks = tokenize(q)
            np.testing.assert_allclose(ranker.scores(toks), model.get_scores(toks), rtol=1e-12)


def test_weighted_tokens_repeat_each_field_by_its_weight() -> None:
    tool = Tool(name="get_weather", description="Now")
    # name 6, label 4 (the label is the name), summary 2
    assert (
        peers._weighted_tokens([tool])[0]
        == ["get"] * 6 + ["weather"] * 6 + ["get"] * 4 + ["weather"] * 4 + ["now"] * 2
    )


@pytest.mark.parametrize(
    "spec",
    [
        "toolsift",
        "toolsift-plain",
        "toolsift-python",
        "toolsift+pairs",
        "toolsift+pairs=0.2@omp",
        "v:stop+cjk",
        "bm25s-bm25+",
    ],
)
def test_rankers_run(spec: str) -> None:
    if spec.startswith("bm25s"):
        pytest.importorskip("bm25s", reason="bm25s is not installed")
    tools = default_tools()
    ranked = ev.make_ranker(spec, tools)("open a pull request", 5)
    assert 0 < len(ranked) <= 5
    assert "pull" in tools[ranked[0]].name


def test_pairs_ranker_indexes_the_pairs() -> None:
    tools = WORD_CLOUD_TOOLS
    assert ev.make_ranker("toolsift", tools)("word cloud", 2) == [1, 0]
    assert ev.make_ranker("toolsift+pairs=0.5", tools)("word cloud", 2) == [0, 1]


def test_unknown_ranker() -> None:
    with pytest.raises(ValueError, match="unknown ranker"):
        ev.make_ranker("nope", [])
    with pytest.raises(ProfileError, match="Unknown analysis profile"):
        ev.make_ranker("toolsift@klingon", [])


def test_profile_suffix_picks_the_seed_ranking() -> None:
    tools = default_tools()
    seed = ev.make_ranker("toolsift-plain@omp", tools)
    index = ToolIndex(tools, profile="omp")
    pos = {t.name: i for i, t in enumerate(tools)}
    for q in QUERIES:
        assert seed(q, 10) == [pos[m.tool.name] for m in lexical_search(index, q, 10, **PLAIN)]


# --- the CLI entry point ----------------------------------------------------------------------


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    ev.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_main_without_data_says_so(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.delenv("TOOLSIFT_SHARED_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert ev.main(_args("--data", str(tmp_path / "absent"))) == 2
    assert "labeled sets were not found" in capsys.readouterr().err


@pytest.mark.shared_data
def test_main_on_a_slice(capsys) -> None:
    data = require_shared("data")
    args = _args(
        "--data",
        str(data),
        "--datasets",
        "metatool,gorilla_hf",
        "--rankers",
        f"toolsift-plain@omp,v:base,toolsift,toolsift-plain,v:{ev.RECOMMENDED_VARIANT}",
        "--limit-queries",
        "40",
        "--json",
    )
    assert ev.main(args) == 0
    out = json.loads(capsys.readouterr().out)
    for name in ("metatool", "gorilla_hf"):
        res = out["datasets"][name]
        assert 30 <= res["queries"] <= 40
        a, b = res["rankers"]["toolsift-plain@omp"], res["rankers"]["v:base"]
        assert a["nDCG@10"] == pytest.approx(b["nDCG@10"])
        assert 0.0 < a["nDCG@10"] <= 1.0
        a, b = res["rankers"]["toolsift-plain"], res["rankers"][f"v:{ev.RECOMMENDED_VARIANT}"]
        assert a["nDCG@10"] == pytest.approx(b["nDCG@10"])


@pytest.mark.shared_data
def test_mcp_mixed_strict_labels_resolve() -> None:
    data = require_shared("data")
    strict = ev.load_dataset("mcp_mixed", data, limit=50)
    lenient = ev.load_dataset("mcp_mixed", data, strict=False, limit=50)
    assert len(strict.tools) == 11_578
    assert len(strict.queries) == len(lenient.queries) > 40
    # lenient counts every tool with a relevant raw name, so its sets are supersets
    assert all(s.relevant <= lz.relevant for s, lz in zip(strict.queries, lenient.queries))
    assert any(s.relevant < lz.relevant for s, lz in zip(strict.queries, lenient.queries))


def test_summary_table_shows_deltas_against_the_first_ranker() -> None:
    results = {
        "datasets": {
            "a": {"rankers": {"toolsift": {"nDCG@10": 0.5}, "v:x": {"nDCG@10": 0.625}}},
            "b": {"rankers": {"toolsift": {"nDCG@10": 0.25}, "v:x": {"error": "unavailable"}}},
        }
    }
    lines = ev.format_summary(results).splitlines()
    assert lines[0] == "| nDCG@10 | a | b |"
    assert lines[2] == "| toolsift | 0.500 | 0.250 |"
    assert lines[3] == "| v:x | 0.625 (+0.125) | – |"


@pytest.mark.shared_data
def test_main_reports_a_missing_embedder(monkeypatch, capsys) -> None:
    import toolsift.embed

    def missing(name: str, **_: object) -> None:
        raise ImportError("onnxruntime is missing: pip install 'toolsift[embed]'")

    monkeypatch.setattr(toolsift.embed, "get_embedder", missing)
    args = _args(
        "--data", str(require_shared("data")), "--embed", "minilm", "--datasets", "metatool"
    )
    assert ev.main(args) == 2
    assert "toolsift[embed]" in capsys.readouterr().err
