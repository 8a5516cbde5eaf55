"""The gateway's JSON-RPC input, fuzzed with Hypothesis: hostile messages (any text, malformed
JSON, wrong types, huge and deep params, unknown methods, tools/call with bad names and
arguments, meta-tool calls with hostile queries and limits) fed to `toolsift serve`'s stdio
transport in this process, in front of a real downstream server. Every input is answered (a
request gets its answer, and a ping sent after it too), no internal error, no exception out of
toolsift's code, and the server keeps serving. (The long campaign, a million inputs, is
`fuzz/gateway_fuzz.py`; figures in RELIABILITY.md.)"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

if sys.version_info < (3, 11):  # pragma: no cover - FastMCP and the MCP SDK need 3.11+
    pytest.skip("the MCP SDK and FastMCP need Python 3.11+", allow_module_level=True)

from fuzz import gateway_fuzz  # noqa: E402
from fuzz.gateway_fuzz import HOSTILE, METHODS, QUERIES, TOOL_NAMES, GatewayHarness  # noqa: E402


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayHarness]:
    with GatewayHarness(tmp_path_factory.mktemp("gateway"), hang_seconds=30.0) as served:
        yield served


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.sampled_from(HOSTILE + QUERIES + TOOL_NAMES),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["query", "limit", "name", "pattern", "nonce"]) | st.text(max_size=8),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)
meta_arguments = st.fixed_dictionaries(
    {},
    optional={
        "query": st.sampled_from(QUERIES + HOSTILE) | st.text() | json_values,
        "limit": st.sampled_from([1, 25, 26, 0, -1, 2**64, 1.5, "5", None, True]) | json_values,
        "pattern": st.sampled_from(["^echo", "(a)\\1", "[", ".*" * 50]) | st.text(),
    },
)
call_params = st.fixed_dictionaries(
    {"name": st.sampled_from(TOOL_NAMES) | st.text(max_size=30) | json_values},
    optional={"arguments": meta_arguments | json_values, "_meta": json_values},
)
ids = (
    st.text(min_size=1, max_size=10)
    | st.integers(min_value=-(2**63), max_value=2**63)
    | json_values
)


@st.composite
def messages(draw: Any) -> str:
    method = draw(st.sampled_from(METHODS) | st.text(max_size=20))
    message: dict[str, Any] = {
        "jsonrpc": draw(st.sampled_from(["2.0", "2.0", "1.0", 2])),
        "method": method,
    }
    if draw(st.booleans()) or method == "tools/call":
        message["id"] = draw(ids)
    if method == "tools/call":
        message["params"] = draw(call_params)
    elif draw(st.booleans()):
        message["params"] = draw(json_values)
    text = json.dumps(message)
    kind = draw(st.integers(0, 9))
    if kind == 0:  # truncated
        text = text[: draw(st.integers(0, len(text)))]
    elif kind == 1:  # a hostile token spliced in
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(HOSTILE)) + text[at:]
    elif kind == 2:  # deep nesting in the params
        depth = draw(st.sampled_from([50, 500, 5_000, 50_000]))
        text = text[:-1] + ',"params":' + "[" * depth + "]" * depth + "}"
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=messages() | st.text(max_size=200))
def test_hostile_json_rpc_is_answered_and_never_crashes(harness: GatewayHarness, line: str) -> None:
    line = line.encode("utf-8", "replace").decode("utf-8")  # what the transport reads
    assert harness.feed(line) is None
    assert harness.serving


def test_the_random_campaign_inputs_on_a_fixed_seed(harness: GatewayHarness) -> None:
    rng = random.Random("gateway-ci")
    problems = [p for n in range(300) if (p := harness.feed(gateway_fuzz.hostile_input(rng, n)))]
    assert problems == []


def test_valid_calls_go_through_the_gate_and_the_downstream(harness: GatewayHarness) -> None:
    """The harness is the real path: a select activates a tool, whose call reaches the
    downstream server; an un-activated one is refused by the gate."""
    echo = "mcp__shifting__shifting_echo"
    refused = _call(harness, echo, {"nonce": "n1"})
    assert refused["isError"] and "is not active in this session" in refused["content"][0]["text"]
    found = _call(harness, "search_tool_bm25", {"query": f"select:{echo}"})
    assert echo in json.loads(found["content"][0]["text"])["activated_tools"] + json.loads(
        found["content"][0]["text"]
    ).get("already_active_tools", [])
    called = _call(harness, echo, {"nonce": "n2"})
    assert not called["isError"]
    assert json.loads(called["content"][0]["text"]) == {
        "server": "shifting",
        "tool": "shifting_echo",
        "nonce": "n2",
    }


def _call(harness: GatewayHarness, name: str, arguments: Any) -> Any:
    key = f"valid-{name}-{json.dumps(arguments)}"
    line = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": key,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
    )

    async def call() -> Any:
        return await harness._request(line, key, 60.0)

    answer = harness.loop.run_until_complete(call())
    assert answer is not None and "result" in answer, answer
    return answer["result"]


def test_the_harness_reports_an_exception_out_of_toolsift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fuzz target's crash check can fail: an unexpected exception raised inside the
    gateway's search is reported (FastMCP turns it into a tool error and logs it)."""
    import toolsift.gateway.server as server

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(server, "_search", broken)
    with GatewayHarness(tmp_path, hang_seconds=30.0) as served:
        line = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "search_tool_bm25", "arguments": {"query": "echo"}}}
        )  # fmt: skip
        problem = served.feed(line)
    assert problem is not None and problem.startswith("crash:") and "a bug" in problem
