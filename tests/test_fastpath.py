"""The search path's shortcuts give exactly what the general path gives.

``ToolIndex.search`` skips work on the common query: ``NameFinder.find_names`` proves "no name
here" with a few C-level passes (else ``find_names_slow``, the specification), ``parse_query``
takes a shortcut when there is no ``select:`` or ``+word``, validated options are cached, and
``Match`` / ``SearchResult`` objects are built without their dataclass ``__init__``. Hypothesis
checks each shortcut against the general path on arbitrary text, tables and options.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import re
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import FieldWeights, LimitError, Match, QueryError, SearchResult, Tool, ToolIndex
from toolsift import query as query_module
from toolsift._index import calls as calls_module
from toolsift._index import lookups as named_module
from toolsift._index import search as search_module
from toolsift._names.find import NameFinder
from toolsift._names.table import NameTable
from toolsift.query import parse_query
from toolsift.result import new_match

from .conftest import costly

# Words that are tool names in TOOLS (plain, squashed, camelCase, with separators, with the mcp
# prefix), ordinary words, punctuation, quotes and a few non-ASCII spellings.
PIECES = [
    "read", "file", "read_file", "readFile", "READ-FILE", "readfile", "search", "searchgraph",
    "search_graph", "Search", "graph.", "(search)", "fs/read_file", "fs.read_file", "mcp",
    "mcpfsreadfile", "mcp__fs__read_file", "weather", "weather,", "get", "getWeather",
    "e.g.", "well-formatted", "WeChat", "a", "go", "ls", "+slack", "+", "select:", "Select:",
    "ſelect:", "`search`", '"read file"', "“fetch”", "`", '"', "café", "ﬁle", "日本語", "_",
    "-", "/", ".", "x_y", "trace_path", "tracepath", "hello", "health", "_health",
    "\t", "\x1c", "\u00a0", "\u2003", "\n", "Search", "SEARCH", "SeArch", "Search.", "Readfile",
    "mp3", "Mp3", "MP3", "mP3", "m-p3", "123", "1-2-3", "1_23", "Hello", "HELLO", "heLLo",
]  # fmt: skip
word = st.sampled_from(PIECES) | st.text(max_size=6)
# A phrase in backticks or (typographic) double quotes: a name candidate of its own.
quoted = st.tuples(
    st.sampled_from(["`", '"', "\u201c"]), st.lists(word, min_size=1, max_size=3).map(" ".join)
).map(lambda qp: qp[0] + qp[1] + {"`": "`", '"': '"', "\u201c": "\u201d"}[qp[0]])
piece = word | quoted
# Long queries of mostly ordinary words, some of them keys of the table ("search", "hello"), as
# most real queries are: the shortcut decides these without the candidate-by-candidate path.
ORDINARY = [
    "please", "the", "a", "of", "to", "find", "show", "me", "data", "for", "search", "Search",
    "search,", "SEARCH", "(search)", "weather", "Weather.", "hello!", "Hello", "HELLO", "mp3",
    "MP3", "123", "read", "file", "-", "&", "...", "e.g.", "health", "Health", "tracepath",
    "m-p3", "he-llo", "heLlo", "1-2-3", "seaRch", "(he_llo)", "mcp__fs__read_file",
    "mcpfsreadfile", "MCP-W-Search", "mcp", "mcpwechatread",
]  # fmt: skip
ordinary = st.sampled_from(ORDINARY)
long_texts = st.lists(ordinary, min_size=9) | st.lists(
    st.one_of(ordinary, ordinary, ordinary, ordinary, piece), min_size=9
)
texts = (
    st.lists(piece, min_size=0, max_size=16).map(" ".join)
    | long_texts.map(" ".join)
    | st.text(max_size=40)
)

TOOLS = [
    Tool(name="read_file", description="Read a file from disk"),
    Tool(name="mcp__fs__read_file", server="fs", mcp_tool_name="read_file", description="Read"),
    Tool(name="search_graph", description="Search the code graph"),
    Tool(name="search", description="Search the web"),
    Tool(name="mcp__w__search", server="w", mcp_tool_name="search", description="Web search"),
    Tool(name="getWeather", description="Current weather for a city"),
    Tool(name="weather", description="The weather"),
    Tool(name="trace_path", description="Trace a call path"),
    Tool(name="_health", description="Health check"),
    Tool(name="hello", description="Say hello"),
    Tool(name="ls", description="List a directory"),
    Tool(name="café_menu", description="Menu of the café"),
    Tool(name="wellformatted", description="Formats text"),
    Tool(name="mcp__wechat__read", server="wechat", mcp_tool_name="read", description="Read"),
    Tool(name="mp3", description="Play an mp3"),
    Tool(name="123", description="Numbers"),
    Tool(name="mcp__m__123", server="m", mcp_tool_name="123", description="More numbers"),
]
tool_subsets = st.lists(st.sampled_from(range(len(TOOLS))), unique=True).map(
    lambda ids: [TOOLS[i] for i in sorted(ids)]
)


@given(tools=tool_subsets, text=texts)
def test_find_names_equals_the_candidate_by_candidate_path(tools, text):
    table = NameTable(tools)
    assert table.finder.find_names(text) == table.finder.find_names_slow(text)
    assert table.finder.find_names(text) == table.finder.find_names_slow(
        text
    )  # memoised answers too


@given(tools=tool_subsets, text=texts)
def test_the_compiled_proof_answers_as_the_python_one(tools, text):
    pytest.importorskip("toolsift._core", reason="the compiled proof needs the Rust extension")
    table = NameTable(tools)
    assert table._keys is not None
    assert table.finder.names_none(text) == table.finder.names_none_py(text)
    # Without the extension (a pure-Python install) the Python proof runs, and agrees too.
    table.finder._keys = None
    assert table.finder.find_names(text) == table.finder.find_names_slow(text)


def test_find_names_shortcut_decides_the_common_query():
    table = NameTable(TOOLS)
    text = "please look up the forecast for tomorrow and tell me whether to take an umbrella"
    assert table.finder.names_none(text)
    assert table.finder.find_names(text) == []
    capitalised = "Search the web for the forecast of tomorrow and tell me whether to take one"
    assert table.finder.names_none(capitalised)
    named = "please read the file with readFile and then look up the forecast for tomorrow"
    assert not table.finder.names_none(named)
    assert [ids for ids, _ in table.finder.find_names(named)] == [(0, 1)]


@pytest.mark.parametrize(
    "query",
    ["ſelect:read_file", "Select: read_file", "select:a,b", "s +x", "search files", "+x y"],
)
def test_parse_query_shortcut_leaves_select_and_required_to_the_general_path(query):
    assert parse_query(query) == _parse_general(query, 500)


def _parse_general(query, max_length):
    saved = query_module._FAST_PARSE
    query_module._FAST_PARSE = False
    try:
        return parse_query(query, max_length=max_length)
    finally:
        query_module._FAST_PARSE = saved


def _outcome(call):
    try:
        return call()
    except (QueryError, ValueError, TypeError) as exc:
        return type(exc), str(exc)


@given(query=texts, max_length=st.integers(0, 50) | st.just(500))
def test_parse_query_shortcut_equals_the_general_path(query, max_length):
    fast = _outcome(lambda: parse_query(query, max_length=max_length))
    assert fast == _outcome(lambda: _parse_general(query, max_length))
    assert repr(fast) == repr(_outcome(lambda: _parse_general(query, max_length)))


@pytest.fixture(scope="module", params=["rust", "python"])
def catalogue_index(request):
    from .conftest import HAVE_RUST

    if request.param == "rust" and not HAVE_RUST:
        pytest.skip("toolsift._core is not built")
    return ToolIndex(TOOLS, engine=request.param)


options = st.fixed_dictionaries(
    {},
    optional={
        "limit": st.none() | st.integers(-1, 30) | st.just(8.0) | st.just(True),
        "ranker": st.sampled_from(["bm25", "keyword", "nope"]),
        "exact_names": st.booleans() | st.just(1),
        "prefix_fraction": st.sampled_from([0.0, 0.5, 1, -1.0, float("nan")]),
        "prefix_min_len": st.integers(0, 5),
        "max_expansions": st.integers(0, 4),
        "threshold": st.sampled_from([0.0, 0.5, 3.0, -1.0]),
        "relative_floor": st.sampled_from([0.0, 0.5, 1.0, 1.5]),
        "coverage": st.booleans(),
        "normalize": st.booleans(),
        "max_limit": st.integers(0, 30),
        "max_query_length": st.integers(0, 60) | st.just(500),
        "exclude": st.just(()) | st.just(("search",)) | st.just([]),
        "servers": st.none() | st.just(("fs",)),
    },
)


def _dataclass_matches(tools, hits, reason):
    return [Match(tools[d], score, reason) for d, score in hits]


def _dataclass_result(cls, fields, query, matches, total_tools):
    return cls(**{**fields, "query": query, "matches": matches, "total_tools": total_tools})


class _PairsEngine:
    """An engine whose ``search_matches`` is ``search`` and the dataclass constructor."""

    def __init__(self, engine):
        self._engine = engine

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def search_matches(self, tools, reason, *args):
        return _dataclass_matches(tools, self._engine.search(*args), reason)


def _search_general(index, query, opts, monkeypatch):
    """``search`` with every shortcut off: no request cache, no parse shortcut, every name
    candidate looked up, and results built through the dataclass constructors."""
    with monkeypatch.context() as m:
        engine = _PairsEngine(index._index)
        for holder in (index, index._lookups, index._searcher):  # the index and its collaborators
            m.setattr(holder, "_index", engine)
        m.setattr(calls_module, "REQUEST_CACHE_SIZE", 0)
        m.setattr(calls_module, "REQUESTS", {})
        m.setattr(calls_module, "DEFAULT_REQUESTS", {})
        m.setattr(query_module, "_FAST_PARSE", False)
        m.setattr(NameFinder, "find_names", NameFinder.find_names_slow)
        general = {e: _dataclass_matches for e in ("python", "rust")}
        for module in (search_module, named_module):  # the search path and the exact-name tier
            m.setattr(module, "_NEW_MATCHES", general)
        m.setattr(named_module, "new_match", Match)
        m.setattr(SearchResult, "_from_fields", classmethod(_dataclass_result))
        return _outcome(lambda: index.search(query, **opts))


@given(query=texts, opts=options)
def test_search_shortcuts_equal_the_general_path(catalogue_index, query, opts):
    monkeypatch = pytest.MonkeyPatch()
    want = _search_general(catalogue_index, query, opts, monkeypatch)
    for _ in range(2):  # cold, then with the options' request cached
        got = _outcome(lambda: catalogue_index.search(query, **opts))
        assert got == want
        assert repr(got) == repr(want)
        if isinstance(got, SearchResult):
            assert [m.normalized_score for m in got] == [m.normalized_score for m in want]


def test_cached_options_are_checked_again_when_their_types_differ():
    index = ToolIndex(TOOLS, engine="python")
    assert index.search("read file", 8)
    with pytest.raises(ValueError):
        index.search("read file", 8.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        index.search("read file", 8, prefix_fraction=[0.5])  # type: ignore[arg-type]
    with pytest.raises(QueryError):
        index.search("   ", 8)  # cached options, and the query is still checked


def test_fast_result_objects_equal_the_dataclass_ones():
    tool = TOOLS[0]
    match = new_match(tool, 1.5, "bm25")
    assert match == Match(tool, 1.5, "bm25")
    assert repr(match) == repr(Match(tool, 1.5, "bm25"))
    assert hash(match) == hash(Match(tool, 1.5, "bm25"))
    assert pickle.loads(pickle.dumps(match)) == match
    assert copy.copy(match) == match
    fast = SearchResult._keyword("q", 8, (match,), ("n",), True, False, 3)
    slow = SearchResult(
        query="q",
        query_kind="keyword",
        limit=8,
        matches=(match,),
        notices=("n",),
        clamped=True,
        truncated=False,
        total_tools=3,
    )
    assert fast == slow
    assert repr(fast) == repr(slow)
    assert dict(fast.suggestions) == {} and fast.missing == ()
    with pytest.raises(AttributeError):
        fast.limit = 3  # type: ignore[misc]
    # The search path's result: the request's fields and the query's own.
    fields = SearchResult._keyword_fields(8, ("n",), True)
    built = SearchResult._from_fields(fields, "q", (match,), 3)
    assert built == slow
    assert repr(built) == repr(slow)
    assert vars(built) == vars(slow)
    assert list(vars(built)) == list(vars(slow)), "field order"
    assert pickle.loads(pickle.dumps(built)) == slow
    assert fields["query"] == "" and fields["matches"] == (), "the shared fields stay as built"


@pytest.mark.parametrize("query", ["read a file", "select:read_file,raed_fil", "search"])
def test_search_results_pickle(catalogue_index, query):
    # Results cross process boundaries (multiprocessing, concurrent.futures): a select's
    # suggestions are a read-only mapping, which pickles as a dict and comes back read-only.
    result = catalogue_index.search(query)
    back = pickle.loads(pickle.dumps(result))
    assert back == result
    assert repr(back) == repr(result)
    assert list(vars(back)) == list(vars(result))
    with pytest.raises(TypeError):
        back.suggestions["x"] = ()  # type: ignore[index]


def test_every_search_option_is_part_of_the_request_cache_key():
    # ToolIndex.search caches validated options under a key spelled out by hand; a new option
    # must join that key (or make the call uncacheable), or cached calls would ignore it.
    import inspect

    params = set(inspect.signature(ToolIndex.search).parameters) - {"self", "query"}
    in_key = {
        "limit", "ranker", "exact_names", "prefix_fraction", "prefix_min_len", "max_expansions",
        "threshold", "relative_floor", "coverage", "normalize", "max_limit", "max_query_length",
    }  # fmt: skip
    uncached_unless_empty = {"exclude", "servers"}
    # Read before any request is made (the semantic searcher's abstention), never cached.
    outside_request = {"abstain", "min_confidence"}
    assert params == in_key | uncached_unless_empty | outside_request


def test_default_options_path_takes_only_the_signature_defaults():
    """Calls passing every option but the limit as the signature's defaults find their request
    by the limit alone; an equal value of another type still meets every check."""
    index = ToolIndex(TOOLS, engine="python")
    one = index.search("read file", 1)  # caches the default request for limit 1
    assert calls_module.DEFAULT_REQUESTS[1].limit == 1
    assert index.search("read file") == index.search("read file", None)
    with pytest.raises(LimitError):
        index.search("read file", True)  # type: ignore[arg-type]  # True == 1, but no int
    with pytest.raises(ValueError):
        index.search("read file", 1.0)  # type: ignore[arg-type]
    # Equal options passed as other objects take the checked path, to the same result.
    same = index.search("read file", 1, exclude=[], threshold=float("0"), max_query_length=500)
    assert same == one
    with pytest.raises(QueryError):
        index.search("   ", 1)  # the query is still checked


@given(
    query=texts,
    limit=st.integers(1, 20),
    exclude=st.none() | st.lists(st.integers(0, len(TOOLS) - 1), max_size=3),
    include=st.none() | st.lists(st.integers(0, len(TOOLS) - 1), max_size=6),
    required=st.none() | st.lists(st.sampled_from(["read", "search", "web", "x"]), max_size=2),
    prefix_fraction=st.sampled_from([0.0, 0.5]),
    threshold=st.sampled_from([0.0, 1.0]),
    relative_floor=st.sampled_from([0.0, 0.5]),
    coverage=st.booleans(),
)
def test_search_matches_is_search_then_matches(
    catalogue_index, query, limit, exclude, include, required, prefix_fraction, threshold,
    relative_floor, coverage,
):  # fmt: skip
    engine, tools = catalogue_index._index, catalogue_index._tools
    args = (
        query, limit, exclude, include, required, prefix_fraction, 3, 16, threshold,
        relative_floor, coverage,
    )  # fmt: skip
    try:
        want = _dataclass_matches(tools, engine.search(*args), "bm25")
    except Exception as exc:  # the same error, raised the same way
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            engine.search_matches(tools, "bm25", *args)
        return
    got = engine.search_matches(tools, "bm25", *args)
    assert got == want
    assert [type(m) for m in got] == [Match] * len(want)
    assert [m.normalized_score for m in got] == [None] * len(want)


def _asdict(obj):
    """``repr(dataclasses.asdict(obj))``, or its error (a tool's read-only schema mapping
    cannot be deep-copied)."""
    try:
        return repr(dataclasses.asdict(obj))
    except TypeError as exc:
        return type(exc), str(exc)


def _same_match(got, want):
    """Equal as objects (a NaN score compared by its bits), in repr (field order) and pickle."""
    assert type(got) is type(want) is Match
    assert not hasattr(got, "__dict__"), "the fields are slots"
    assert repr(got) == repr(want)
    assert (got.tool, got.reason, got.normalized_score) == (want.tool, want.reason, None)
    assert struct.pack("<d", got.score) == struct.pack("<d", want.score)
    assert repr(pickle.loads(pickle.dumps(got))) == repr(want)
    assert dataclasses.fields(got) == dataclasses.fields(want)
    assert repr(dataclasses.replace(got, score=1.0)) == repr(dataclasses.replace(want, score=1.0))
    assert _asdict(got) == _asdict(want)
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.score = 0.0


@given(
    hits=st.lists(
        st.tuples(st.integers(0, len(TOOLS) - 1), st.floats(allow_nan=True, allow_infinity=True)),
        max_size=12,
    ),
    reason=st.sampled_from(["bm25", "keyword", "exact_name", "select", "regex"]),
)
def test_compiled_matches_equal_the_python_ones(hits, reason):
    """``_core._new_matches`` (``rust/bindings/matches.rs``) is ``toolsift.result.new_match``'s
    deliberate twin: for arbitrary hits, scores and reasons, the same objects."""
    from .conftest import HAVE_RUST

    if not HAVE_RUST:
        pytest.skip("toolsift._core is not built")
    from toolsift._core import _new_matches

    compiled = _new_matches(Match, TOOLS, hits, reason)
    assert len(compiled) == len(hits)
    for got, (d, score) in zip(compiled, hits):
        _same_match(got, new_match(TOOLS[d], score, reason))
        if score == score:  # not NaN: equal and same hash as the dataclass's own object
            assert got == Match(TOOLS[d], score, reason)  # type: ignore[arg-type]
            assert hash(got) == hash(Match(TOOLS[d], score, reason))  # type: ignore[arg-type]


def test_compiled_matches_equal_the_python_ones_and_fail_cleanly():
    from .conftest import HAVE_RUST

    if not HAVE_RUST:
        pytest.skip("toolsift._core is not built")
    from toolsift._core import _new_matches

    hits = [(2, 3.5), (0, 1.25), (1, 0.5)]
    compiled = _new_matches(Match, TOOLS, hits, "bm25")
    python = [Match(TOOLS[d], score, "bm25") for d, score in hits]
    assert compiled == python
    assert [repr(m) for m in compiled] == [repr(m) for m in python]
    assert [hash(m) for m in compiled] == [hash(m) for m in python]
    assert pickle.loads(pickle.dumps(compiled)) == python
    with pytest.raises(IndexError):
        _new_matches(Match, TOOLS, [(len(TOOLS), 1.0)], "bm25")
    with pytest.raises(TypeError):
        _new_matches(int, TOOLS, hits, "bm25")  # no fields to fill
    with pytest.raises(TypeError):
        _new_matches(Match, TOOLS, [("x", 1.0)], "bm25")  # type: ignore[list-item]


@given(
    words=st.lists(st.sampled_from(["please", "find", "the", "weather", "for", "a", "city"]),
                   min_size=1, max_size=8),
    limit=st.sampled_from([None, 1, 3, 8, 30]),
)  # fmt: skip
def test_compiled_results_equal_the_python_ones(words, limit):
    """The one-call path's ``SearchResult`` (``rust/bindings/matches.rs``'s ``build_result``)
    is ``SearchResult._from_fields``'s and the dataclass constructor's object: equal, same
    repr, same instance dict in field order, picklable, frozen, and the same to ``dataclasses``."""
    index = _rust_index(TOOLS)
    query = "please " + " ".join(words)
    got = _search_plain(index, query, limit)
    assert got is not None
    request = calls_module.DEFAULT_REQUESTS[limit]
    built = SearchResult._from_fields(request.plain_fields, got.query, got.matches, len(TOOLS))
    made = SearchResult(**{**vars(got), "suggestions": dict(got.suggestions)})
    for want in (built, made):
        assert type(got) is type(want) is SearchResult
        assert got == want and repr(got) == repr(want)
        assert vars(got) == vars(want)
        assert list(vars(got)) == list(vars(want)), "field order"
        assert repr(pickle.loads(pickle.dumps(got))) == repr(want)
        assert dataclasses.fields(got) == dataclasses.fields(want)
        assert repr(dataclasses.replace(got, limit=2)) == repr(dataclasses.replace(want, limit=2))
        assert _asdict(got) == _asdict(want)
    for m in got:
        _same_match(m, Match(m.tool, m.score, "bm25"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.query = "x"  # type: ignore[misc]
    assert request.plain_fields["query"] == "" and request.plain_fields["matches"] == ()


# --- the Rust engine's one-call path (`Index.search_plain`) ---

PLAIN_WORDS = [
    "please", "find", "the", "weather", "Weather", "for", "a", "city", "hello", "Hello!",
    "search", "(search)", "wellformatted", "tracepath", "searchgraph", "readfile", "mcp",
    "mcpfsreadfile", "mcpwechatread", "time:", "now", "123", "mp3", "...", "-", "e.g.",
]  # fmt: skip


def _rust_index(tools, profile="omp"):
    from .conftest import HAVE_RUST

    if not HAVE_RUST:
        pytest.skip("toolsift._core is not built")
    return ToolIndex(tools, engine="rust", profile=profile)


def _search_plain(index, query, limit=8):
    """``Index.search_plain`` as ``ToolIndex.search`` calls it for ``search(query, limit)``."""
    index.search("x", limit)  # caches the default request
    request = calls_module.DEFAULT_REQUESTS[limit]
    return index._index.search_plain(
        index._tools, index.names.keys, request.plain_fields, query, request.limit, 500,
        0.5, 3, 16,
    )  # fmt: skip


def test_search_plain_answers_plain_queries_and_declines_the_rest():
    index = _rust_index(TOOLS)
    # Plain words that are tool names ("weather", "hello": not identifiers) name nothing.
    for query in ["  please find the weather for a city  ", "Hello! the weather, now", "time: now"]:
        got = _search_plain(index, query)
        assert isinstance(got, SearchResult)
        assert got == index.search(query) == _search_general(index, query, {}, pytest.MonkeyPatch())
        assert got.query == query.strip()
    # A squashed identifier name (search_graph), a name as a whole text, a quote, `+`,
    # `select:`, non-ASCII text, a cut or an error: the Python layer decides.
    for query in [
        "please find searchgraph for a city and the weather now", "weather", "read `x`",
        "read +file", "select:read_file", "sure: x", "café weather", "x" * 501, "   ", "...",
    ]:  # fmt: skip
        assert _search_plain(index, query) is None, query


class _CountingPlain:
    """A bound one-call path (``PlainSearch``) that counts its ``search`` calls."""

    def __init__(self, inner):
        self._inner = inner
        self.calls = 0

    def search(self, *args):
        self.calls += 1
        return self._inner.search(*args)


@pytest.mark.parametrize("limit", [None, 8, 3])
def test_the_agents_call_takes_the_one_call_path_from_its_second_call(monkeypatch, limit):
    """``search(query)`` with no limit (the call agents make) finds its cached request as
    ``search(query, 8)`` does: the first call validates and caches it, every later one is
    answered by the one-call path (``search_plain``, bound once per index). (The cache once
    stored it under the checked limit only, so a call without a limit never found it and
    always took the general path.)"""
    index = _rust_index(TOOLS)
    monkeypatch.setattr(calls_module, "DEFAULT_REQUESTS", {})
    monkeypatch.setattr(calls_module, "REQUESTS", {})
    bound = []
    bind = ToolIndex._bind_plain

    def counting_bind(self, *args):
        bound.append(_CountingPlain(bind(self, *args)))
        return bound[-1]

    monkeypatch.setattr(ToolIndex, "_bind_plain", counting_bind)
    query = "please find the weather for a city"
    first = index.search(query) if limit is None else index.search(query, limit)
    assert bound == []  # validated and cached on the general path
    for _ in range(3):
        again = index.search(query) if limit is None else index.search(query, limit)
        assert again == first
    assert len(bound) == 1 and bound[0].calls == 3  # bound once, on the first default call
    assert len(first.matches) <= (limit or 8)
    # The default requests dropped (the cache was full): the general cache's hit refills them.
    monkeypatch.setattr(calls_module, "DEFAULT_REQUESTS", {})
    for expected_calls in (3, 4):
        again = index.search(query) if limit is None else index.search(query, limit)
        assert again == first and bound[0].calls == expected_calls


def test_the_one_call_path_is_bound_only_where_it_applies():
    """The Rust engine's index binds it (a ``PlainSearch``); the Python engine's, an index with
    word pairs and an engine of another kind take the general path (``False``)."""
    from toolsift._core import PlainSearch

    rust = _rust_index(TOOLS)
    assert isinstance(rust._bind_plain(500, 0.5, 3, 16), PlainSearch)
    python = ToolIndex(TOOLS, engine="python")
    assert python._bind_plain(500, 0.5, 3, 16) is False
    pairs = ToolIndex(TOOLS, engine="rust", field_weights=FieldWeights(word_pairs=1.0))
    assert pairs._bind_plain(500, 0.5, 3, 16) is False
    wrapped = _rust_index(TOOLS)
    wrapped._index = _PairsEngine(wrapped._index)
    assert wrapped._bind_plain(500, 0.5, 3, 16) is False
    query = "please find the weather for a city"
    for index in (python, pairs, wrapped):  # searches answer on the general path, unbound
        assert index.search(query) == index.search(query) and index._plain is False
    assert wrapped.search(query) == rust.search(query)


@given(query=texts, limit=st.sampled_from([None, 1, 3, 8, 25]))
def test_plain_search_is_search_plain_bound(query, limit):
    """``PlainSearch(index, tools, keys, ...).search(fields, q, limit)`` is
    ``index.search_plain(tools, keys, fields, q, limit, ...)`` on any text."""
    from toolsift._core import PlainSearch

    index = _rust_index(TOOLS)
    index.search("x", limit)  # caches the default request
    request = calls_module.DEFAULT_REQUESTS[limit]
    bound = PlainSearch(index._index, index._tools, index.names.keys, 500, 0.5, 3, 16)
    want = _outcome(lambda: _search_plain(index, query, limit))
    got = _outcome(lambda: bound.search(request.plain_fields, query, request.limit))
    assert got == want


# Tool names of letters, digits and the separators of identifiers, with non-ASCII letters:
# whether each is an identifier decides whether its squashed form in a query names it.
name_text = st.text(alphabet="abAB19_./-é", min_size=1, max_size=7)


@given(
    names=st.lists(name_text, min_size=1, max_size=6, unique=True),
    picks=st.lists(st.integers(0, 5), max_size=4),
    words=st.lists(st.sampled_from(PLAIN_WORDS), min_size=0, max_size=12),
    limit=st.sampled_from([None, 1, 3, 30]),
)
def test_search_plain_equals_the_general_path(names, picks, words, limit):
    """Queries of plain words and tools' squashed names (the name lowercased, without its
    separators: ``searchgraph``) on tools whose names may or may not be identifiers."""
    tools = [Tool(name=n, description=f"tool {i} reads weather data") for i, n in enumerate(names)]
    index = _rust_index(tools)
    squashed = ["".join(c for c in names[p % len(names)].lower() if c.isalnum()) for p in picks]
    query = " ".join(words + squashed + words[:3])
    want = _search_general(index, query, {"limit": limit}, pytest.MonkeyPatch())
    assert _outcome(lambda: index.search(query, limit)) == want
    plain = _outcome(lambda: _search_plain(index, query, limit or 8))
    assert plain is None or plain == want


@given(query=texts, limit=st.sampled_from([None, 1, 3, 30]))
def test_search_plain_equals_the_general_path_on_any_text(query, limit):
    """The one-call path (``rust/search/fast_path.rs``, ``rust/bindings/fast_path.rs``) answers
    any text exactly as the general path, or declines it."""
    index = _rust_index(TOOLS)
    want = _search_general(index, query, {"limit": limit}, pytest.MonkeyPatch())
    plain = _outcome(lambda: _search_plain(index, query, limit or 8))
    assert plain is None or plain == want


def test_search_plain_equals_the_general_path_on_real_queries(shared_data):
    """Every labeled mcp_mixed query (both profiles): the one-call path answers most of them,
    each exactly as the general path does."""
    import json

    from toolsift import load_catalog

    tools = load_catalog(shared_data / "mcp_mixed.tools.jsonl")
    with (shared_data / "mcp_mixed.queries.jsonl").open(encoding="utf-8") as fh:
        queries = [json.loads(line)["query"] for line in fh]
    answered = 0
    for profile in ("omp", "english"):
        index = _rust_index(tools, profile)
        monkeypatch = pytest.MonkeyPatch()
        wanted = []
        for query in queries:
            plain = _search_plain(index, query)
            want = _search_general(index, query, {}, monkeypatch)
            wanted.append(want)
            assert index.search(query) == want
            if plain is not None:
                answered += 1
                assert plain == want
                assert [m.score for m in plain] == [m.score for m in want]
        # The batch: one engine call answers the plain queries, the general path the rest.
        many = index.search_many(queries)
        assert many == wanted
        assert [[m.score for m in r] for r in many] == [[m.score for m in r] for r in wanted]
    assert answered > 1.5 * len(queries)  # over 75 % of the queries, per profile


@settings(max_examples=costly())
@given(
    queries=st.lists(texts, max_size=12),
    limit=st.sampled_from([None, 1, 3]),
    opts=st.sampled_from([{}, {"max_query_length": 20}, {"prefix_fraction": 0.0}]),
)
def test_search_many_plain_batch_equals_the_general_path(queries, limit, opts):
    """``search_many``'s one-call batch (plain queries) and its general path (the rest) give
    each query the general path's result, or a loop's first error."""
    index = _rust_index(TOOLS)
    monkeypatch = pytest.MonkeyPatch()
    want = [_search_general(index, q, {"limit": limit, **opts}, monkeypatch) for q in queries]
    errors = [w for w in want if not isinstance(w, SearchResult)]
    got = _outcome(lambda: index.search_many(queries, limit, **opts))
    assert got == (errors[0] if errors else want)
