"""The authored evaluation sets (no-tool requests, in-scope requests, whole tasks), the keyword
and name queries derived from catalogues, and the whole-task and abstention metrics."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from toolsift import Tool, default_tools
from toolsift.errors import CatalogError
from toolsift.evaluation import authored
from toolsift.evaluation.datasets import Dataset
from toolsift.evaluation.derived import KINDS, derive, name_words
from toolsift.evaluation.metrics import all_met_at, answered_rate, hit_at, needs_met_at
from toolsift.evaluation.splits import split_of

from .conftest import require_shared


def _rows(name: str) -> list[dict]:
    text = (authored.DATA_DIR / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# --- integrity, no shared data needed --------------------------------------------------------


def test_notool_set_is_well_formed():
    rows = _rows("notool.jsonl")
    assert len(rows) >= 150
    per = Counter(row["catalogue"] for row in rows)
    assert set(per) == set(authored.CATALOGUES)
    assert all(n >= 50 for n in per.values()), per
    for row in rows:
        assert set(row) == {"catalogue", "query"}
        assert row["query"] == row["query"].strip() and len(row["query"]) >= 8
    pairs = [(row["catalogue"], row["query"].lower()) for row in rows]
    assert len(pairs) == len(set(pairs)), "a no-tool request is repeated"


def test_each_catalogue_has_test_and_train_requests():
    for catalogue in authored.CATALOGUES:
        test = authored.notool_requests(catalogue, "test")
        train = authored.notool_requests(catalogue, "train")
        assert len(test) >= 10 and len(train) >= 25
        assert sorted(test + train) == sorted(authored.notool_requests(catalogue))


def test_tasks_set_is_well_formed():
    rows = _rows("tasks-mcp_mixed.jsonl")
    assert len(rows) >= 50
    assert len({row["query"].lower() for row in rows}) == len(rows)
    for row in rows:
        labels = [(t["server"], t["name"]) for t in row["relevant_tools"]]
        assert 2 <= len(labels) <= 5, row["query"]
        assert len(set(labels)) == len(labels), row["query"]


def test_inscope_set_resolves_on_the_builtin_catalogue():
    ds = authored.load_inscope("default_tools", default_tools())
    assert ds.name == "inscope-default_tools" and len(ds.queries) >= 50
    assert len({q.text for q in ds.queries}) == len(ds.queries)
    assert all(len(q.relevant) == 1 for q in ds.queries)


def test_no_request_is_both_in_scope_and_no_tool():
    notool = {row["query"].lower() for row in _rows("notool.jsonl")}
    inscope = {row["query"].lower() for row in _rows("inscope.jsonl")}
    tasks = {row["query"].lower() for row in _rows("tasks-mcp_mixed.jsonl")}
    assert not notool & inscope and not notool & tasks


def test_a_label_missing_from_the_catalogue_is_an_error():
    with pytest.raises(CatalogError, match="not in the catalogue"):
        authored.load_inscope("default_tools", default_tools()[:3])
    with pytest.raises(CatalogError, match="not in the catalogue"):
        authored.load_tasks([Tool(name="x", server="nowhere")])


def test_unknown_catalogue_is_refused():
    with pytest.raises(ValueError, match="catalogue must be one of"):
        authored.notool_requests("everything")


# --- labels resolve against the real catalogues (shared data) --------------------------------


@pytest.fixture(scope="module")
def data():
    return require_shared("data")


@pytest.mark.shared_data
def test_every_task_label_resolves_in_mcp_mixed(data):
    tools = authored.load_catalogue("mcp_mixed", data)
    tasks = authored.load_tasks(tools)
    assert len(tasks) == len(_rows("tasks-mcp_mixed.jsonl"))
    for task in tasks:
        assert 2 <= len(task.needs) <= 5
        for need in task.needs:
            names = {tools[i].mcp_tool_name or tools[i].name for i in need}
            assert len(names) == 1  # clones share the labelled tool's name
    assert {t.text for t in authored.load_tasks(tools, "test")} == {
        t.text for t in tasks if split_of("tasks-mcp_mixed", t.text) == "test"
    }


@pytest.mark.shared_data
def test_inscope_labels_resolve_in_popular_mcp_servers(data):
    tools = authored.load_catalogue("popular_mcp_servers", data)
    ds = authored.load_inscope("popular_mcp_servers", tools)
    assert len(ds.queries) >= 50
    servers = {tools[i].server for q in ds.queries for i in q.relevant}
    assert len(servers) >= 8  # spread over the catalogue's servers


# --- derived keyword and name queries --------------------------------------------------------

TOOLS = (
    Tool(name="get_weather_by_city"),
    Tool(name="getWeatherAlerts"),
    Tool(name="send_slack_message"),
    Tool(name="search", server="a"),
    Tool(name="search", server="b"),
)


def test_name_words_split_every_separator():
    assert name_words("mcp-server/get_fileInfo.v2") == [
        "mcp",
        "server",
        "get",
        "file",
        "info",
        "v2",
    ]


def test_derived_queries_skip_ambiguous_names_and_label_every_match():
    ds = Dataset("demo", TOOLS, ())
    names = derive(ds, "name")
    assert [q.text for q in names.queries] == [
        "get_weather_by_city",
        "getWeatherAlerts",
        "send_slack_message",
    ]
    assert names.name == "name-demo"
    keywords = {q.text: q.relevant for q in derive(ds, "keywords").queries}
    assert keywords["weather city"] == {0}
    words = {q.text: q.relevant for q in derive(ds, "words").queries}
    assert words["get weather alerts"] == {1}


def test_derived_queries_are_deterministic_and_split():
    tools = tuple(
        Tool(name=f"tool_{w}_{v}")
        for w in ("alpha", "beta", "gamma")
        for v in ("red", "green", "blue", "cyan", "mauve", "teal", "plum")
    )
    ds = Dataset("demo", tools, ())
    for kind in KINDS:
        full = derive(ds, kind)
        assert full == derive(ds, kind)
        test, train = derive(ds, kind, "test"), derive(ds, kind, "train")
        assert len(test.queries) + len(train.queries) == len(full.queries)
        assert all(split_of(f"{kind}-demo", q.text) == "test" for q in test.queries)
        assert len(derive(ds, kind, limit=5).queries) <= 5
    with pytest.raises(ValueError, match="kind must be"):
        derive(ds, "phrases")


# --- metrics ---------------------------------------------------------------------------------


def test_whole_task_metrics():
    needs = [frozenset({1}), frozenset({2, 3}), frozenset({4})]
    assert needs_met_at([1, 3, 4], needs, 3) == 1.0 and all_met_at([1, 3, 4], needs, 3) == 1.0
    assert needs_met_at([1, 3, 4], needs, 2) == pytest.approx(2 / 3)
    assert all_met_at([1, 3, 4], needs, 2) == 0.0
    assert needs_met_at([], needs, 10) == 0.0


def test_abstention_metrics():
    assert answered_rate([]) == 0.0 and answered_rate([[1], []]) == 0.5
    assert (
        hit_at([], frozenset({1}), 5) == 0.0 and hit_at([9, 8, 7, 6, 1], frozenset({1}), 5) == 1.0
    )
    assert hit_at([9, 8, 7, 6, 5, 1], frozenset({1}), 5) == 0.0
