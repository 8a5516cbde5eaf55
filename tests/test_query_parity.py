"""Hypothesis: the Rust and Python engines agree on every query form and search option.

Words are drawn from a small vocabulary (a few non-ASCII words among them) so that terms overlap,
prefixes expand and ties happen.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolsift import QueryError, Tool, ToolIndex
from toolsift._pyengine.index import Index as PyIndex

from .conftest import HAVE_RUST

pytestmark = pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")

VOCAB = [
    "read", "reader", "reading", "write", "file", "files", "search", "searches", "web",
    "github", "issue", "slack", "message", "send", "get", "list", "create", "query", "db", "x",
    "Ünïcode", "café", "cafés", "日本語", "ﬁle",
]  # fmt: skip
word = st.sampled_from(VOCAB)
text = st.lists(word, min_size=0, max_size=8).map(" ".join)
field = st.tuples(st.integers(0, 3), text)
docs = st.lists(st.lists(field, max_size=5), max_size=25)
weights = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 6.0]), min_size=4, max_size=4)
prefixes = st.sampled_from(["rea", "sea", "fil", "wri", "gi", "searc", "mes", "zzz", "que"])
query = st.lists(word | prefixes, min_size=1, max_size=6).map(" ".join)


def same(got, want):
    assert [d for d, _ in got] == [d for d, _ in want]
    for (_, a), (_, b) in zip(got, want):
        assert math.isclose(a, b, rel_tol=0, abs_tol=1e-9)


@given(
    docs=docs,
    weights=weights,
    query=query,
    limit=st.integers(1, 30),
    exclude=st.lists(st.integers(0, 24), max_size=4),
    include=st.none() | st.lists(st.integers(0, 24), max_size=12),
    required=st.lists(word, max_size=2),
    prefix=st.tuples(st.sampled_from([0.0, 0.5, 1.0, 0.25]), st.integers(1, 5), st.integers(1, 4)),
    gates=st.tuples(
        st.sampled_from([0.0, 0.5, 3.0]), st.sampled_from([0.0, 0.5, 1.0]), st.booleans()
    ),
    profile=st.sampled_from(["omp", "english"]),
)
def test_engines_agree_on_every_option(
    docs, weights, query, limit, exclude, include, required, prefix, gates, profile
):
    from toolsift._core import Index as RustIndex

    names = [f"t{i % 7}" for i in range(len(docs))]
    rust = RustIndex(names, docs, weights, profile=profile)
    py = PyIndex(names, docs, weights, profile=profile)
    assert rust.vocabulary_size == py.vocabulary_size
    fraction, min_len, expansions = prefix
    threshold, floor, coverage = gates
    opts = {
        "include": include,
        "required": required,
        "prefix_fraction": fraction,
        "prefix_min_len": min_len,
        "max_expansions": expansions,
    }
    same(
        rust.search(
            query, limit, exclude, threshold=threshold, relative_floor=floor, coverage=coverage,
            **opts,
        ),
        py.search(
            query, limit, exclude, threshold=threshold, relative_floor=floor, coverage=coverage,
            **opts,
        ),
    )  # fmt: skip
    ids = list(range(len(docs)))
    same(
        rust.score_documents(query, ids, exclude, **opts),
        py.score_documents(query, ids, exclude, **opts),
    )
    for doc in ids[:5]:
        r = rust.explain(
            query, doc, docs[doc], prefix_fraction=fraction, prefix_min_len=min_len,
            max_expansions=expansions,
        )  # fmt: skip
        p = py.explain(
            query, doc, docs[doc], prefix_fraction=fraction, prefix_min_len=min_len,
            max_expansions=expansions,
        )  # fmt: skip
        assert r == p
        total = 0.0
        for term in r:
            total += term[7]
        score = dict(
            py.score_documents(
                query,
                [doc],
                prefix_fraction=fraction,
                prefix_min_len=min_len,
                max_expansions=expansions,
            )
        )
        assert total == score.get(doc, 0.0)


servers = st.sampled_from(["fs", "github", "slack", "web-tools", "@acme/ünï"])
raw_names = st.sampled_from(
    [
        "read_file",
        "write_file",
        "search",
        "send_message",
        "getCurrentTime",
        "list_issues",
        "fetch",
        "café_menu",
        "Ünïcode_tool",
    ]
)
tools = st.lists(
    st.builds(
        lambda server, raw, desc: Tool(
            name=f"mcp__{server}__{raw}", description=desc, server=server, mcp_tool_name=raw
        ),
        servers,
        raw_names,
        text,
    ),
    max_size=20,
    unique_by=lambda t: t.name,
)
agent_query = st.lists(
    word | raw_names | servers | st.sampled_from(["+slack", "+file", "`search`", "fs/read_file"]),
    min_size=1,
    max_size=6,
).map(" ".join) | raw_names.map(lambda n: f"select:{n},nope")


@given(
    tools=tools,
    query=agent_query,
    limit=st.integers(1, 30),
    servers_filter=st.none() | st.lists(servers, max_size=2),
    normalize=st.booleans(),
    ranker=st.sampled_from(["bm25", "keyword"]),
    profile=st.sampled_from(["omp", "english"]),
)
def test_tool_index_agrees_on_agent_queries(
    tools, query, limit, servers_filter, normalize, ranker, profile
):
    rust = ToolIndex(tools, engine="rust", profile=profile)
    py = ToolIndex(tools, engine="python", profile=profile)
    kw = {"servers": servers_filter, "normalize": normalize, "ranker": ranker}
    try:
        want = py.search(query, limit, **kw)
    except QueryError:
        with pytest.raises(QueryError):
            rust.search(query, limit, **kw)
        return
    got = rust.search(query, limit, **kw)
    assert [(m.name, m.reason) for m in got] == [(m.name, m.reason) for m in want]
    for a, b in zip(got, want):
        assert math.isclose(a.score, b.score, rel_tol=0, abs_tol=1e-9)
    assert (got.missing, dict(got.suggestions), got.notices) == (
        want.missing,
        dict(want.suggestions),
        want.notices,
    )
