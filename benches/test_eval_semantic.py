"""The semantic benchmark's harness (``benches/eval_semantic.py``): its report and one small run.

The full run is a script (``python benches/eval_semantic.py``), recorded in BENCHMARKS.md; here
the targets and tables render from a made-up report, and one section runs on the real data so
that the harness cannot rot in CI.
"""

from __future__ import annotations

import json

import eval_semantic as es  # benches/ is on sys.path via conftest


def _report() -> dict:
    sem, lex = "toolsift-semantic", "toolsift-lexical"
    names = ["tantivy", lex, sem]
    q = {
        name: {
            "queries": 10,
            "tools": 100,
            **{n: {"nDCG@10": v, "R@5": v, "MRR": v, "ms/query": 1.0} for n, v in zip(names, vals)},
        }
        for name, vals in (
            ("mcp_mixed", (0.5, 0.6, 0.73)),
            ("metatool", (0.5, 0.6, 0.65)),
            ("gorilla_hf", (0.2, 0.3, 0.41)),
        )
    }

    def abst(answered: float, before: float, after: float, abstains: bool = True) -> dict:
        return {"abstains": abstains, "answered": answered, "hit@5": before, "hit@5 abstain": after}

    a = {
        "popular_mcp_servers": {
            "notool": 20,
            "inscope": 20,
            "tantivy": abst(1.0, 0.9, 0.9, False),
            lex: abst(0.9, 0.9, 0.9, False),
            sem: abst(0.05, 0.95, 0.94),
        },
        "mcp_mixed": {
            "notool": 20,
            "inscope": 20,
            "tantivy": abst(1.0, 0.6, 0.6, False),
            lex: abst(1.0, 0.7, 0.7, False),
            sem: abst(0.1, 0.8, 0.7),
        },
    }
    k = {"name-x": {"queries": 5, "tantivy": 0.9, lex: 1.0, sem: 1.0}}
    k["words-x"] = {"queries": 5, "tantivy": 0.8, lex: 0.9, sem: 0.85}
    t = {"test": {"tasks": 5, **{n: {"recall@10": 0.5, "all@10": 0.2} for n in names}}}
    speed = {
        "tools": 11578,
        "queries": 100,
        sem: {"label": "toolsift semantic", "p50_ms": 0.8, "p99_ms": 3.5, "mean_ms": 1.0},
        "baseline": {
            "ref": "main",
            "current": {"p50_ms": 0.04, "p99_ms": 0.3},
            "baseline": {"p50_ms": 0.05, "p99_ms": 0.3},
        },
        "build": {
            "tools": 11578,
            "model_load_s": 0.2,
            "lexical": {"build_s": 0.5, "rss_bytes": 2e7, "vector_bytes": 0},
            "semantic": {"build_s": 1.5, "rss_bytes": 6e7, "vector_bytes": 1.2e7},
        },
    }
    return {
        "command": "python benches/eval_semantic.py",
        "machine": "test CPU",
        "python": "3.11",
        "version": "0",
        "engines": names,
        "labels": {n: n for n in names},
        "seconds": 1.0,
        "quality": q,
        "abstention": a,
        "tasks": t,
        "keywords": k,
        "speed": speed,
    }


def test_targets_met_and_not_met():
    got = {target: (value, ok) for target, value, ok in es.targets(_report())}
    assert got["nDCG@10 mcp_mixed >= 0.72"] == ("0.730", True)
    assert got["nDCG@10 metatool >= 0.70"] == ("0.650", False)
    assert got["no-tool answered <= 10% (40 requests)"] == ("7.5%", True)
    assert got["in-scope hit@5 lost to abstention <= 2 pts, popular_mcp_servers"][1] is True
    assert got["in-scope hit@5 lost to abstention <= 2 pts, mcp_mixed"][1] is False
    assert got["keyword/name MRR semantic >= lexical, every set"] == (
        "1/2 sets (below: words-x)",
        False,
    )
    assert got["search p50 <= 1 ms at 11,578 tools"] == ("0.800 ms", True)
    assert got["search p99 <= 3 ms"] == ("3.500 ms", False)


def test_render_has_every_table():
    text = es.render(_report())
    for heading in ("**Targets**", "**Ranking quality**", "**No tool fits**", "**Whole tasks**"):
        assert heading in text
    assert "| mcp_mixed (10, 100) | 1.22x | 0.500 / 0.500 | 0.600 / 0.600 | 0.730 / 0.730 |" in text
    assert "| 11,578 | 0.50 | 20 | 1.50 | 60 | 12.0 | 0.20 |" in text
    assert "NOT met" in text and "| met |" in text
    assert "p50 0.040 ms vs 0.050 ms (0.80x), p99 0.300 ms vs 0.300 ms (1.00x)" in text
    # every table row has as many cells as its header
    for block in text.split("\n\n"):
        rows = [r for r in block.splitlines() if r.startswith("|")]
        if rows:
            assert len({r.count(" | ") for r in rows if not r.startswith("|---")}) == 1, block


def test_one_section_on_the_real_data(shared_data, tmp_path, capsys):
    out = tmp_path / "r.json"
    code = es.main(
        [
            "--data",
            str(shared_data),
            "--engines",
            "toolsift-lexical",
            "--sections",
            "tasks",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    report = json.loads(out.read_text())
    row = report["tasks"]["test"]
    assert row["tasks"] >= 10
    assert 0.0 < row["toolsift-lexical"]["recall@10"] <= 1.0
    assert "**Whole tasks**" in capsys.readouterr().out


def test_without_data(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("TOOLSIFT_SHARED_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert es.main(["--data", str(tmp_path / "none")]) == 2
    assert "not found" in capsys.readouterr().err
