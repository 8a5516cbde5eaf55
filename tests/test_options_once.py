"""Each search option is checked once: ``toolsift._options`` holds its rule and its message, for
both engines. The pure-Python engine calls it; the Rust engine takes the values it can compute
with as they are and asks ``_options`` about any other (its own range check is an internal
invariant, with no message of its own). Hypothesis proves, over arbitrary values (NaN,
infinities, negatives, huge ints, wrong types), that ``ToolIndex.search``, ``search_many``,
``explain`` and the session give the same result or the same typed error on both engines, and
that whatever ``_options`` accepts, the Rust engine accepts. The build options (BM25+'s ``k1``,
``b``, ``delta`` and the field weights) are held to the same, through ``ToolIndex(tools)``,
``from_records`` and ``with_tools``, and at the engine level."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import DiscoverySession, FieldWeights, Tool, ToolIndex, load_tools
from toolsift._options import (
    SearchOptions,
    check_bm25_params,
    check_limit,
    check_weight_list,
)
from toolsift._pyengine.index import Index as PyIndex

from .conftest import HAVE_RUST

pytestmark = pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")

TOOLS = [
    Tool(name="read_file", description="Read a file from disk"),
    Tool(name="write_file", description="Write a file to disk"),
    Tool(name="mcp__slack__send", description="Send a message", server="slack",
         mcp_tool_name="send"),
    Tool(name="reader_mode", description="Readable pages"),
]  # fmt: skip
INDEXES = {engine: ToolIndex(TOOLS, engine=engine) for engine in ("rust", "python")}

SPECIAL = [
    0, 1, 3, 16, 25, 0.0, 0.5, 1.0, -0.0, 2**31, 2**63, 2**64, 10**400, -(10**400), True, False,
    None, "1", "0.5", b"1", [1], (), {}, 1j,
]  # fmt: skip
#: Arbitrary values of any option: numbers of every kind and range, and other types.
values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2**70), 2**70),
    st.sampled_from(SPECIAL),
)
SEARCH_OPTIONS = [
    "limit", "prefix_fraction", "prefix_min_len", "max_expansions", "threshold",
    "relative_floor", "coverage", "exact_names", "normalize", "max_limit", "max_query_length",
]  # fmt: skip
EXPLAIN_OPTIONS = ["prefix_fraction", "prefix_min_len", "max_expansions", "max_query_length"]
ENGINE_OPTIONS = [
    "prefix_fraction", "prefix_min_len", "max_expansions", "threshold", "relative_floor",
    "coverage",
]  # fmt: skip
queries = st.sampled_from(["read file", "read", "rea", "send a message", "?!", "select:read_file"])


def _outcome(call: Any) -> Any:
    """What the call returns (names and scores), or its error's type and message."""
    try:
        result = call()
    except Exception as exc:
        return type(exc), str(exc)
    if isinstance(result, list) and result and isinstance(result[0], tuple):
        # An engine's (doc, score) pairs, or its explanation's rows (contribution at 7).
        return [(row[0], round(row[1 if len(row) == 2 else 7], 9)) for row in result]
    if isinstance(result, list):
        return [_outcome(lambda r=r: r) for r in result]
    if hasattr(result, "terms"):  # an Explanation
        return round(result.score, 9), [(t.term, round(t.contribution, 9)) for t in result.terms]
    if hasattr(result, "activated"):  # a DiscoveryResult
        return [getattr(m, "name", m) for m in (*result.activated, *result.matches)]
    return [(m.name, round(m.score, 9), m.reason) for m in result], result.limit


def _same(call: Any) -> None:
    rust, python = (_outcome(lambda e=e: call(e)) for e in ("rust", "python"))
    assert rust == python
    if isinstance(rust, tuple) and isinstance(rust[0], type):
        assert "internal error" not in rust[1]


@settings(max_examples=300, deadline=None)
@given(
    options=st.dictionaries(st.sampled_from(SEARCH_OPTIONS), values, max_size=3),
    query=queries,
)
def test_search_and_search_many_give_the_same_errors_on_both_engines(options, query):
    _same(lambda e: INDEXES[e].search(query, **options))
    _same(lambda e: INDEXES[e].search_many([query, "write"], **options))


@settings(max_examples=200, deadline=None)
@given(
    options=st.dictionaries(st.sampled_from(EXPLAIN_OPTIONS), values, max_size=2),
    query=queries,
)
def test_explain_gives_the_same_errors_on_both_engines(options, query):
    _same(lambda e: INDEXES[e].explain(query, "read_file", **options))


@settings(max_examples=100, deadline=None)
@given(limit=values, threshold=values, query=queries)
def test_the_session_gives_the_same_errors_on_both_engines(limit, threshold, query):
    def search(engine: str) -> Any:
        session = DiscoverySession(TOOLS, engine=engine)  # type: ignore[arg-type]
        return session.search(query, limit, threshold=threshold)

    _same(search)


@settings(max_examples=400, deadline=None)
@given(
    options=st.dictionaries(st.sampled_from(ENGINE_OPTIONS), values, max_size=4),
    limit=values,
)
def test_whatever_the_option_checks_accept_the_rust_engine_accepts(options, limit):
    """At the engine level too: the Rust engine raises exactly ``_options``' error, and takes
    every value ``_options`` accepts (its own range check never fires)."""
    defaults = {
        "prefix_fraction": 0.0, "prefix_min_len": 3, "max_expansions": 16, "threshold": 0.0,
        "relative_floor": 0.0, "coverage": False,
    }  # fmt: skip
    given_ = {**defaults, **options}
    try:
        check_limit(limit)
        SearchOptions(None, None, None, *given_.values())
    except (TypeError, ValueError) as exc:
        want: Any = (type(exc), str(exc))
    else:
        want = None
    for engine in ("rust", "python"):
        index = INDEXES[engine]._index
        got = _outcome(lambda i=index: i.search("read file", limit, None, **options))
        if want is None:
            assert isinstance(got, list), (engine, got)
        else:
            assert got == want, engine
    # explain and score_documents take the prefix options the same way.
    prefix = {k: v for k, v in options.items() if k.startswith(("prefix", "max_"))}
    document = [(0, "read_file"), (4, "Read a file from disk")]
    _same(lambda e: INDEXES[e]._index.explain("read fil", 0, document, **prefix))
    _same(lambda e: INDEXES[e]._index.score_documents("read fil", [0, 1], **prefix))


BUILD_PARAMS = ["k1", "b", "delta"]
WEIGHTS = ["name", "summary", "schema_key", "word_pairs", "description"]
RECORDS = [
    {"name": t.name, "description": t.description, **({"server": t.server} if t.server else {})}
    for t in TOOLS
]
#: Values about the ranges' edges, where the checks are most likely to disagree.
edges = st.sampled_from([0.0, 1e-6, 9.9e-7, 5e-324, 1.0, 1.0000001, 1000.0, 1000.0001, 1e30, 1e31])
build_values = st.one_of(values, edges)


def _built(make: Any) -> Any:
    """What a build makes (its ranking of two queries, and of one after ``with_tools``), or its
    error's type and message."""
    try:
        index = make()
    except Exception as exc:
        return type(exc), str(exc)
    updated = index.with_tools([Tool(name="read_mail", description="Read a mail")], ["reader_mode"])
    return [
        [(m.name, round(m.score, 9)) for m in i.search(q)]
        for i, q in ((index, "read file"), (index, "send"), (updated, "read"))
    ]


def _same_build(make: Any) -> None:
    rust, python = (_built(lambda e=e: make(e)) for e in ("rust", "python"))
    assert rust == python
    if isinstance(rust, tuple) and isinstance(rust[0], type):
        assert "internal error" not in rust[1]


@settings(max_examples=200, deadline=None)
@given(
    params=st.dictionaries(st.sampled_from(BUILD_PARAMS), build_values, max_size=3),
    weights=st.dictionaries(st.sampled_from(WEIGHTS), build_values, max_size=2),
)
def test_builds_give_the_same_errors_on_both_engines(params, weights):
    """``ToolIndex(tools)`` and ``from_records`` (a list, and a catalogue's bytes): the same
    index or the same typed error on both engines, for any BM25+ parameters and weights."""
    try:
        field_weights: Any = FieldWeights(**weights)
    except (TypeError, ValueError) as exc:
        assert "internal error" not in str(exc)
        return
    kwargs = {**params, "field_weights": field_weights}
    data = json.dumps(RECORDS).encode()
    _same_build(lambda e: ToolIndex(TOOLS, engine=e, **kwargs))
    _same_build(lambda e: ToolIndex.from_records(RECORDS, engine=e, **kwargs))
    _same_build(lambda e: ToolIndex.from_records(data, engine=e, **kwargs))
    # And from_records builds what ToolIndex builds of the loaded tools.
    assert _built(lambda: ToolIndex.from_records(RECORDS, **kwargs)) == _built(
        lambda: ToolIndex(load_tools(RECORDS), **kwargs)
    )


floats = st.one_of(st.floats(allow_nan=True, allow_infinity=True), edges)


@settings(max_examples=300, deadline=None)
@given(
    params=st.tuples(floats, floats, floats),
    changed=st.dictionaries(st.integers(0, len(FieldWeights().as_list()) - 1), floats, max_size=2),
)
def test_the_rust_engine_builds_with_the_option_checks_errors(params, changed):
    """At the engine level, where no public check runs first: the Rust engine's constructor and
    its two ``ToolIndex`` builds raise exactly ``_options``' error for weights and BM25+
    parameters out of range (weights first), as the pure-Python engine does, and take every
    value ``_options`` accepts."""
    from toolsift._core import Index as RustIndex
    from toolsift._core import _build_records, _build_tools

    weights = FieldWeights().as_list()
    for field, weight in changed.items():
        weights[field] = weight
    try:
        check_weight_list(weights)
        check_bm25_params(*params)
    except ValueError as exc:
        want: Any = (ValueError, str(exc))
    else:
        want = None
    k1, b, delta = params
    names = ["read_file", "send"]
    docs = [[(0, "read_file")], [(0, "send")]]
    tools = [Tool(name=n) for n in names]
    calls = {
        "python": lambda: PyIndex(names, docs, weights, k1=k1, b=b, delta=delta),
        "rust": lambda: RustIndex(names, docs, weights, k1=k1, b=b, delta=delta),
        "rust tools": lambda: _build_tools(tools, weights, k1, b, delta, "omp"),
        "rust records": lambda: _build_records(RECORDS, None, False, weights, *params, "omp"),
    }
    for what, call in calls.items():
        try:
            call()
        except Exception as exc:
            got: Any = (type(exc), str(exc))
        else:
            got = None
        assert got == want, what
