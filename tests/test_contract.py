"""The JSON contracts: golden files, seed key orders, and JavaScript's JSON.stringify bytes."""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from toolsift import DiscoveryResult, DiscoverySession, Tool
from toolsift.contract import (
    anthropic_deferred_tools,
    anthropic_tool_result,
    dumps,
    openai_deferred_tools,
    round_score,
    search_tool_bm25_content,
    search_tool_bm25_details,
    tool_search_response,
)
from toolsift.index import Match

NODE = shutil.which("node")
GOLDEN_DIR = Path(__file__).parent / "data" / "golden"


def _tools() -> list[Tool]:
    return [
        Tool(
            name="mcp__github__create_issue",
            description="Create a new issue in a GitHub repository. " * 8,
            input_schema={
                "type": "object",
                "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
                "required": ["title"],
            },
            server="github",
            mcp_tool_name="create_issue",
        ),
        Tool(name="web_fetch", description="Fetch a web page — UTF-8 «text»", summary="Fetch"),
    ]


def _result(**overrides) -> DiscoveryResult:
    tools = _tools()
    fields = dict(
        query="create issue",
        limit=8,
        matches=(Match(tools[0], 12.3456785), Match(tools[1], 1.0)),
        activated=("mcp__github__create_issue", "web_fetch"),
        already_active=(),
        selected=("mcp__github__create_issue", "web_fetch"),
        total_tools=17,
    )
    fields.update(overrides)
    return DiscoveryResult(**fields)


@pytest.fixture
def default_session() -> DiscoverySession:
    # The golden files are seed 000's output: its analysis profile.
    return DiscoverySession.from_default_catalog(
        engine="python", profile="omp", rebuild_on_activation=True
    )


# --- seed 000 --------------------------------------------------------------------------------


def test_content_is_the_seed_example_byte_for_byte():
    result = _result(query="...", activated=("...",), matches=_result().matches, total_tools=17)
    assert (
        search_tool_bm25_content(result)
        == '{"query":"...","activated_tools":["..."],"match_count":2,"total_tools":17}'
    )


def test_details_key_order_optional_fields_and_rounding():
    details = search_tool_bm25_details(_result())
    assert list(details) == [
        "query",
        "limit",
        "total_tools",
        "activated_tools",
        "active_selected_tools",
        "tools",
    ]
    mcp, plain = details["tools"]
    assert list(mcp) == [
        "name",
        "label",
        "description",
        "server_name",
        "mcp_tool_name",
        "schema_keys",
        "score",
    ]
    assert list(plain) == ["name", "label", "description", "schema_keys", "score"]
    assert mcp["label"] == "github/create_issue"
    assert mcp["schema_keys"] == ["body", "title"]
    assert len(mcp["description"]) == 200  # the summary, not the description
    assert plain["description"] == "Fetch"
    assert mcp["score"] == 12.345679 and plain["score"] == 1.0
    assert '"score":1}' in dumps(details)  # JavaScript prints 1, not 1.0


def test_already_active_is_appended_only_when_present():
    plain = search_tool_bm25_content(_result())
    assert "already_active" not in plain
    extended = json.loads(search_tool_bm25_content(_result(already_active=("read",))))
    assert list(extended)[-1] == "already_active_tools"
    assert extended["already_active_tools"] == ["read"]
    strict = _result(already_active=("read",))
    assert search_tool_bm25_content(strict, already_active=False) == plain
    assert "already_active_tools" not in search_tool_bm25_details(strict, already_active=False)


def test_golden_search_tool_bm25(default_session, golden):
    first = default_session.search("open a pull request", limit=3)
    golden("search_tool_bm25.content.json", search_tool_bm25_content(first))
    golden("search_tool_bm25.details.json", dumps(search_tool_bm25_details(first)))
    again = default_session.search("open a pull request", limit=3)
    golden("search_tool_bm25.again.content.json", search_tool_bm25_content(again))
    golden("search_tool_bm25.again.details.json", dumps(search_tool_bm25_details(again)))
    none = default_session.search("zzyzx", limit=3)
    golden("search_tool_bm25.empty.content.json", search_tool_bm25_content(none))


# --- seed 001 --------------------------------------------------------------------------------


def test_tool_search_keyword_shape():
    response = tool_search_response(_result())
    assert list(response) == ["query", "query_kind", "total_deferred_tools", "matches"]
    assert list(response["matches"][0]) == ["name", "score", "description", "parameters"]
    assert response["matches"][0]["parameters"]["required"] == ["title"]
    assert response["matches"][0]["description"].startswith("Create a new issue")


def test_tool_search_select_omits_score_and_carries_missing():
    result = _result(query="select:create_issue,Nope", query_kind="select", missing=("Nope",))
    response = tool_search_response(result)
    assert list(response) == [
        "query",
        "query_kind",
        "total_deferred_tools",
        "matches",
        "missing",
        "suggestions",
    ]
    assert list(response["matches"][0]) == ["name", "description", "parameters"]
    assert response["missing"] == ["Nope"]
    assert response["suggestions"] == {"Nope": []}
    everything_found = tool_search_response(_result(query_kind="select"))
    assert everything_found["missing"] == [] and "suggestions" not in everything_found


def test_golden_tool_search(default_session, golden):
    result = default_session.search("send a message to a slack channel", limit=3)
    golden("tool_search.keyword.json", dumps(tool_search_response(result)))
    select = _result(query="select:create_issue,Nope", query_kind="select", missing=("Nope",))
    golden("tool_search.select.json", dumps(tool_search_response(select)))


# --- providers -------------------------------------------------------------------------------


def test_anthropic_tool_result_of_tool_references(golden):
    block = anthropic_tool_result(_result(), "toolu_01A")
    assert block == {
        "type": "tool_result",
        "tool_use_id": "toolu_01A",
        "content": [
            {"type": "tool_reference", "tool_name": "mcp__github__create_issue"},
            {"type": "tool_reference", "tool_name": "web_fetch"},
        ],
    }
    golden("anthropic.tool_result.json", dumps(block))
    empty = anthropic_tool_result(_result(matches=(), activated=()), "toolu_01A")
    assert empty["content"] == [{"type": "text", "text": "No matching tools found."}]


def test_deferred_tool_definitions(golden):
    anthropic = anthropic_deferred_tools(_tools())
    assert anthropic[0]["defer_loading"] is True and "input_schema" in anthropic[0]
    openai = openai_deferred_tools(_tools())
    assert openai[0]["type"] == "function" and openai[0]["defer_loading"] is True
    assert list(openai[0]) == ["type", "name", "description", "parameters", "defer_loading"]
    golden("anthropic.deferred_tools.json", dumps(anthropic))
    golden("openai.deferred_tools.json", dumps(openai))


# --- dumps and rounding against JavaScript ---------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (0.1, "0.1"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (-2.5e-9, "-2.5e-9"),
        (math.nan, "null"),
        (True, "true"),
        (None, "null"),
        ('a\u2028"\\\n\x01é', '"a\u2028\\"\\\\\\n\\u0001é"'),
        ("\ud800", '"\\ud800"'),
        ({"b": 1, "a": [1, 2.5]}, '{"b":1,"a":[1,2.5]}'),
    ],
)
def test_dumps_matches_json_stringify(value, text):
    assert dumps(value) == text


def test_dumps_rejects_non_json():
    with pytest.raises(TypeError):
        dumps({1, 2})


def test_round_score_halves_round_up():
    assert round_score(0.0000005) == 0.000001
    assert round_score(2.0000025) == 2.000003  # Python's round() gives 2.000002


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_dumps_and_round_score_agree_with_node():
    rng = random.Random(7)
    values = [rng.uniform(0, 40) for _ in range(300)] + [rng.uniform(0, 1e-5) for _ in range(50)]
    values += [10 ** rng.uniform(-12, 25) for _ in range(100)]
    doc = {"values": values, "text": "é\u2028\x7f\x1f"}
    script = (
        "const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify({doc: JSON.stringify(d),"
        " rounded: JSON.stringify(d.values.map(v => Math.round(v * 1e6) / 1e6))}));"
    )
    out = subprocess.run(
        [NODE, "-e", script], input=json.dumps(doc), capture_output=True, text=True, check=True
    )
    node = json.loads(out.stdout)
    assert dumps(doc) == node["doc"]
    assert dumps([round_score(v) for v in values]) == node["rounded"]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_golden_files_are_what_json_stringify_writes():
    for path in sorted(GOLDEN_DIR.glob("*.json")):
        text = path.read_text("utf-8").rstrip("\n")
        out = subprocess.run(
            [
                NODE,
                "-e",
                "process.stdout.write(JSON.stringify(JSON.parse(require('fs')"
                ".readFileSync(0, 'utf8'))))",
            ],
            input=text,
            capture_output=True,
            text=True,
            check=True,
        )
        assert out.stdout == text, path.name


def test_tool_search_response_of_a_session_select(default_session):
    result = default_session.search("select:github/create_issue,get_forecast,no_such_tool")
    response = tool_search_response(result)
    assert response["query_kind"] == "select"
    assert [m["name"] for m in response["matches"]] == [
        "mcp__github__create_issue",
        "mcp__weather__get_forecast",
    ]
    assert all("score" not in m for m in response["matches"])
    assert response["missing"] == ["no_such_tool"]
    keyword = tool_search_response(default_session.search("weather forecast", 2))
    assert "missing" not in keyword and all("score" in m for m in keyword["matches"])
