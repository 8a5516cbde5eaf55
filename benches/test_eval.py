"""Retrieval-quality smoke test: the evaluation script on a small slice, timed once per ranker.

The full table is a script run (``python benches/eval_quality.py``), recorded in BENCHMARKS.md;
here each ranker evaluates 30 queries per set so that the harness cannot rot in CI.
Time with:  pytest benches/test_eval.py --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pytest_benchmark")
pytest.importorskip("numpy")

import eval_quality  # noqa: E402  (benches/ is on sys.path via conftest)
from toolsift import evaluate as ev  # noqa: E402


@pytest.fixture(scope="module")
def slices(shared_data):
    return {
        name: ev.load_dataset(name, shared_data, limit=30) for name in ("metatool", "gorilla_hf")
    }


@pytest.mark.parametrize("ranker", ["toolsift", "v:qdistinct+stop", "rank_bm25-okapi"])
@pytest.mark.benchmark(group="eval-slice")
def test_eval_slice(benchmark, slices, ranker):
    if ranker.startswith("rank_bm25"):
        pytest.importorskip("rank_bm25", reason="rank_bm25 is not installed")
    ds = slices["metatool"]
    rank = ev.make_ranker(ranker, ds.tools)
    first = ev.evaluate(ds, rank)  # assert once before timing
    assert 0.0 < first["nDCG@10"] <= 1.0
    benchmark(ev.evaluate, ds, rank)


def test_script_json_on_a_slice(shared_data, capsys):
    code = eval_quality.main(
        [
            "--data",
            str(shared_data),
            "--datasets",
            "gorilla_hf",
            "--rankers",
            f"toolsift-plain@omp,v:base,toolsift-plain,v:{ev.RECOMMENDED_VARIANT}",
            "--limit-queries",
            "20",
            "--json",
        ]
    )
    assert code == 0
    res = json.loads(capsys.readouterr().out)["datasets"]["gorilla_hf"]["rankers"]
    # the omp profile is the base variant; the english profile (the default) the recommended one
    for engine, variant in [
        ("toolsift-plain@omp", "v:base"),
        ("toolsift-plain", f"v:{ev.RECOMMENDED_VARIANT}"),
    ]:
        got = res[engine]
        assert got == pytest.approx({**res[variant], "ms/query": got["ms/query"]})


def test_script_sensitivity_on_a_slice(shared_data, capsys):
    code = eval_quality.main(
        [
            "--data",
            str(shared_data),
            "--datasets",
            "metatool",
            "--limit-queries",
            "15",
            "--sensitivity",
            "--json",
        ]
    )
    assert code == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert "(base)" in rows and "name 6->12" in rows


def test_script_without_data(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("TOOLSIFT_SHARED_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert eval_quality.main(["--data", str(tmp_path / "none")]) == 2
    assert "not found" in capsys.readouterr().err
