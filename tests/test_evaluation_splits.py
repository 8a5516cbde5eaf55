"""The fixed train/test split every fitting, tuning and benchmark script shares."""

from __future__ import annotations

import hashlib

import pytest
from toolsift import Tool
from toolsift.evaluation.datasets import Dataset, Query, load_dataset
from toolsift.evaluation.splits import SPLITS, select, split_dataset, split_of

from .conftest import require_shared


def _oracle(dataset: str, query: str) -> str:
    """The formula as the round's contract states it, written out independently."""
    value = int(hashlib.sha256((dataset + "\0" + query).encode("utf-8")).hexdigest()[:8], 16)
    return "test" if value % 100 < 30 else "train"


CASES = [
    ("mcp_mixed", "List all my Azure storage accounts"),
    ("metatool", "Can you recommend a good recipe?"),
    ("gorilla_hf", "Classify the sentiment of this tweet."),
    ("notool-popular_mcp_servers", "book a table for two at 8"),
    ("tasks-mcp_mixed", "find trending books and make a word cloud"),
    ("metatool", ""),
    ("metatool", "naïve café — ünïcödé 検索"),
]


@pytest.mark.parametrize(("dataset", "query"), CASES)
def test_split_matches_the_contract_formula(dataset, query):
    assert split_of(dataset, query) == _oracle(dataset, query)


def test_pinned_values_never_change():
    # Pinned so that a change of the formula (encoding, separator, modulus) is caught even if the
    # oracle above were edited along with it.
    got = [split_of("demo", q) for q in ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")]
    assert got == [_oracle("demo", q) for q in "abcdefghij"]
    assert got == PINNED


PINNED = ["train"] * 9 + ["test"]


def test_the_dataset_name_is_part_of_the_key():
    queries = [f"query number {i}" for i in range(400)]
    a = [split_of("one", q) for q in queries]
    b = [split_of("two", q) for q in queries]
    assert a != b


def test_about_thirty_percent_are_test():
    queries = [f"request {i}" for i in range(5000)]
    share = sum(split_of("demo", q) == "test" for q in queries) / len(queries)
    assert 0.27 < share < 0.33


def test_select_partitions_in_order():
    rows = [{"q": f"r{i}"} for i in range(200)]
    train = select("demo", rows, "train", lambda r: r["q"])
    test = select("demo", rows, "test", lambda r: r["q"])
    assert train and test
    assert sorted(train + test, key=lambda r: int(r["q"][1:])) == rows
    assert train == [r for r in rows if r in train]  # order kept
    with pytest.raises(ValueError, match="'train' or 'test'"):
        select("demo", rows, "dev", lambda r: r["q"])  # type: ignore[arg-type]


def test_split_dataset_keeps_tools_and_uses_the_name():
    queries = tuple(Query(f"q{i}", frozenset({0})) for i in range(60))
    ds = Dataset("demo", (Tool(name="a"),), queries)
    parts = {s: split_dataset(ds, s) for s in SPLITS}
    assert {q.text for q in parts["train"].queries} | {q.text for q in parts["test"].queries} == {
        q.text for q in ds.queries
    }
    assert parts["test"].tools == ds.tools and parts["test"].name == "demo"
    assert all(split_of("demo", q.text) == "test" for q in parts["test"].queries)
    renamed = split_dataset(ds, "test", name="other")
    assert all(split_of("other", q.text) == "test" for q in renamed.queries)


@pytest.mark.shared_data
def test_real_sets_split_about_thirty_percent():
    data = require_shared("data")
    ds = load_dataset("gorilla_hf", data)
    test = split_dataset(ds, "test")
    assert 0.25 < len(test.queries) / len(ds.queries) < 0.35


def test_sample_queries_is_evenly_spaced():
    from toolsift.evaluation.splits import sample_queries

    queries = tuple(Query(f"q{i}", frozenset({0})) for i in range(10))
    ds = Dataset("demo", (Tool(name="a"),), queries)
    assert [q.text for q in sample_queries(ds, 4).queries] == ["q0", "q3", "q6", "q9"]
    assert sample_queries(ds, None) is ds and sample_queries(ds, 10) is ds


@pytest.mark.shared_data
def test_eval_cli_evaluates_one_split(capsys):
    import argparse

    from toolsift import evaluate

    data = require_shared("data")
    parser = argparse.ArgumentParser()
    evaluate.add_arguments(parser)
    args = parser.parse_args(
        [
            "--data",
            str(data),
            "--datasets",
            "gorilla_hf",
            "--rankers",
            "toolsift",
            "--split",
            "test",
            "--limit-queries",
            "40",
            "--json",
        ]
    )
    assert evaluate.main(args) == 0
    import json

    res = json.loads(capsys.readouterr().out)["datasets"]["gorilla_hf"]
    assert res["queries"] <= 40 and "test split" in res["note"]
    args.split, args.limit_queries = "all", None
    full = evaluate.run(args, data)["datasets"]["gorilla_hf"]
    assert full["queries"] == 911
