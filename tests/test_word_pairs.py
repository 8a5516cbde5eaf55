"""Word pairs (``FieldWeights.word_pairs``): the summary's pairs indexed as a field, the query's
pairs searched, identically in both engines and on every path (search, batch, explain, the
exact-name tier, snapshots, updates, sessions, the CLI)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import DiscoverySession, FieldWeights, Tool, ToolIndex
from toolsift._text.documents import document, scored_text, word_pairs

from ._corpora import WORD_CLOUD_TOOLS
from .conftest import HAVE_RUST

PAIRS = dataclasses.replace(FieldWeights.for_profile("english"), word_pairs=0.5)
WORDS = "word cloud chart file read the a drive sync backup issue pull request".split()

CLOUD = WORD_CLOUD_TOOLS


def test_pairs_are_neighbours_and_the_word_after_without_stop_words() -> None:
    assert word_pairs("Generate a word cloud chart") == [
        "generateword",
        "wordcloud",
        "cloudchart",
        "generatecloud",
        "wordchart",
    ]
    assert word_pairs("read the config file") == ["readconfig", "configfile", "readfile"]
    # A repeated word and a non-ASCII word never pair; one word has no pair.
    assert word_pairs("go go 天气 now") == ["gonow"]
    assert word_pairs("cloud") == []


def test_the_field_and_the_query_text_only_with_a_weight() -> None:
    tool = CLOUD[0]
    assert (10, "drawsword wordcloud drawscloud") in document(tool, PAIRS.as_list())
    assert all(f != 10 for f, _ in document(tool, FieldWeights.for_profile("english").as_list()))
    assert scored_text("word cloud", PAIRS) == "word cloud wordcloud"
    assert scored_text("word cloud", FieldWeights()) == "word cloud"


def test_pairs_rank_the_words_side_by_side_first(engine: str) -> None:
    plain = ToolIndex(CLOUD, engine=engine)  # type: ignore[arg-type]
    paired = ToolIndex(CLOUD, engine=engine, field_weights=PAIRS)  # type: ignore[arg-type]
    assert [m.tool.name for m in plain.search("word cloud")] == ["backups", "make_chart"]
    assert [m.tool.name for m in paired.search("word cloud")] == ["make_chart", "backups"]
    # The other order asks for "cloudword", which only the backups' summary holds.
    assert [m.tool.name for m in paired.search("cloud word")] == ["backups", "make_chart"]


tools_strategy = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=10).map(" ".join),
    min_size=1,
    max_size=12,
).map(lambda texts: [Tool(name=f"t{i}", description=t) for i, t in enumerate(texts)])
query_strategy = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


@pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built (pip install -e .)")
@settings(max_examples=200, deadline=None)
@given(tools=tools_strategy, queries=st.lists(query_strategy, min_size=1, max_size=4))
def test_engines_search_batches_and_explanations_agree(tools, queries) -> None:
    rust = ToolIndex(tools, engine="rust", field_weights=PAIRS)
    python = ToolIndex(tools, engine="python", field_weights=PAIRS)
    for query in queries:
        a, b = rust.search(query, limit=20), python.search(query, limit=20)
        assert [m.tool.name for m in a] == [m.tool.name for m in b]
        assert all(abs(x.score - y.score) <= 1e-9 for x, y in zip(a, b))
        for m in a:
            assert abs(rust.explain(query, m.tool.name).score - m.score) <= 1e-9
    for index in (rust, python):
        batch = index.search_many(queries, limit=20)
        assert batch == [index.search(q, limit=20) for q in queries]


def test_the_exact_name_tier_scores_with_pairs(engine: str) -> None:
    paired = ToolIndex(CLOUD, engine=engine, field_weights=PAIRS)  # type: ignore[arg-type]
    query = "make_chart of word cloud backups"
    named = paired.search(query)
    assert named[0].tool.name == "make_chart" and named[0].reason == "exact_name"
    # Its score is the BM25+ score with pairs, as explain computes it.
    assert named[0].score == pytest.approx(paired.explain(query, "make_chart").score, abs=1e-9)
    plain = ToolIndex(CLOUD, engine=engine)  # type: ignore[arg-type]
    assert plain.search(query)[0].score < named[0].score


def test_snapshots_and_updates_keep_the_pairs(engine: str, tmp_path) -> None:
    paired = ToolIndex(CLOUD, engine=engine, field_weights=PAIRS)  # type: ignore[arg-type]
    want = paired.search("word cloud")
    path = tmp_path / "index.toolsift"
    paired.save(path)
    loaded = ToolIndex.load(path, engine=engine)  # type: ignore[arg-type]
    assert loaded.field_weights.word_pairs == 0.5
    assert loaded.search("word cloud") == want
    extra = Tool(name="cloud_words", description="Word cloud of a text.")
    updated = paired.with_tools(add=[extra])
    rebuilt = ToolIndex([*CLOUD, extra], engine=engine, field_weights=PAIRS)  # type: ignore[arg-type]
    assert updated.search("word cloud") == rebuilt.search("word cloud")


def test_sessions_index_with_the_weights_given(engine: str) -> None:
    session = DiscoverySession(CLOUD, engine=engine, field_weights=PAIRS)  # type: ignore[arg-type]
    assert session.search("word cloud", limit=2).activated[0] == "make_chart"
    plain = DiscoverySession(CLOUD, engine=engine)  # type: ignore[arg-type]
    assert plain.search("word cloud", limit=2).activated[0] == "backups"


def test_field_weights_of_another_type_are_a_type_error() -> None:
    weights = {"word_pairs": 0.1}
    with pytest.raises(TypeError, match="field_weights must be a toolsift.FieldWeights"):
        ToolIndex(CLOUD, field_weights=weights)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got dict"):
        DiscoverySession(CLOUD, field_weights=weights)  # type: ignore[arg-type]


def test_cli_word_pairs(tmp_path) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps([{"name": t.name, "description": t.description} for t in CLOUD]))

    def top(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "toolsift", "search", "word cloud", "--catalog", str(catalog)]
            + list(extra),
            capture_output=True,
            text=True,
            timeout=120,
        )

    assert top().stdout.splitlines()[1].startswith("- backups")
    assert top("--word-pairs", "0.5").stdout.splitlines()[1].startswith("- make_chart")
    failed = top("--word-pairs", "-1")
    assert failed.returncode != 0 and "--word-pairs must be a positive number" in failed.stderr
