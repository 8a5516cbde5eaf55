"""toolsift.Catalog: sessions as views of one shared catalogue, activation as a filter inside the
engine, catalogue changes published as whole generations, threads and asyncio."""

from __future__ import annotations

import asyncio
import math
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import toolsift._catalog_view as _catalog_view
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from toolsift import (
    Catalog,
    DiscoveryError,
    DiscoverySession,
    DuplicateToolError,
    Tool,
    ToolDefinitionError,
    ToolIndex,
)

from .conftest import HAVE_RUST

VOCAB = [
    "send", "email", "read", "file", "write", "search", "create", "issue", "calendar", "event",
    "message", "user", "list", "delete", "page", "repo", "branch", "invoice", "ticket", "note",
]  # fmt: skip
SERVERS = ["mail", "files", "github", "crm"]


def _server_tools(server: str, descriptions: list[list[str]]) -> list[Tool]:
    return [
        Tool(name=f"mcp__{server}__t{i}", server=server, description=" ".join(words))
        for i, words in enumerate(descriptions)
    ]


def _pairs(matches) -> list[tuple[str, float]]:
    return [(m.tool.name, m.score) for m in matches]


def _same(got, expected) -> None:
    assert [n for n, _ in got] == [n for n, _ in expected]
    for (_, a), (_, b) in zip(got, expected):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _expected(
    tools,
    hidden: set[str],
    query: str,
    limit: int,
    engine: str,
    exact: bool,
    cap: int = 25,
    threshold: float = 0.0,
):
    """What a session's search must return: a fresh index over the generation's tools (over the
    hidden ones only with ``exact``), the visible tools excluded, the limit clamped to the
    session's ``max_limit`` (``cap``), matches scoring below ``threshold`` dropped."""
    options = {"max_limit": cap, "threshold": threshold}
    limit = min(limit, cap)
    if exact:
        index = ToolIndex([t for t in tools if t.name in hidden], engine=engine)
        result = index.search(query, limit, **options)
    else:
        visible = [t.name for t in tools if t.name not in hidden]
        index = ToolIndex(list(tools), engine=engine)
        result = index.search(query, limit, exclude=visible, **options)
    return [(m.tool.name, m.score) for m in result if m.tool.name in hidden]


words = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=5)


class CatalogMachine(RuleBasedStateMachine):
    """Any interleaving of sessions, activations, catalogue changes and searches: every search
    equals a fresh index over that generation's tools with the session's visible tools out."""

    engine = "python"
    #: 0: a search whose window holds a visible tool takes the two searches that exclude them.
    split_at_most = _catalog_view._SPLIT_AT_MOST

    @initialize(descriptions=st.lists(words, min_size=0, max_size=6), builtins=st.integers(0, 3))
    def start(self, descriptions, builtins):
        _catalog_view._SPLIT_AT_MOST = self.split_at_most
        tools = [Tool(name=n, description=f"{n} tool") for n in ("read", "bash", "edit")[:builtins]]
        self.catalog = Catalog(
            tools, servers={"mail": _server_tools("mail", descriptions)}, engine=self.engine
        )
        self.sessions: list[tuple[DiscoverySession, bool]] = []
        self.options: dict[int, tuple[int, float]] = {}  # id(session) -> (max_limit, threshold)
        self.extra = 0

    @rule(
        mode=st.sampled_from(["all", "mcp-only"]),
        always=st.sampled_from([("read", "bash", "edit"), (), ("mail",), ("mcp__files__t0",)]),
        exact=st.booleans(),
        max_limit=st.sampled_from([25, 2]),
        threshold=st.sampled_from([0.0, 0.5]),
    )
    def new_session(self, mode, always, exact, max_limit, threshold):
        session = self.catalog.session(
            mode=mode,
            always_available=always,
            rebuild_on_activation=exact,
            default_limit=min(8, max_limit),
            max_limit=max_limit,
            threshold=threshold,
        )
        self.sessions.append((session, exact))
        self.options[id(session)] = (max_limit, threshold)

    @rule(server=st.sampled_from(SERVERS), descriptions=st.lists(words, max_size=6))
    def connect(self, server, descriptions):
        self.catalog.connect_server(server, _server_tools(server, descriptions))

    @rule(server=st.sampled_from(SERVERS))
    def disconnect(self, server):
        self.catalog.disconnect_server(server)

    @rule(description=words)
    def add_builtin(self, description):
        self.extra += 1
        self.catalog.add_tools([Tool(name=f"tool{self.extra}", description=" ".join(description))])

    @rule(data=st.data())
    def remove_builtin(self, data):
        names = [t.name for t in self.catalog.tools if t.server is None]
        if names:
            self.catalog.remove_tools([data.draw(st.sampled_from(names))])

    @rule(server=st.sampled_from(SERVERS), bad=st.sampled_from(["name", "inputSchema"]))
    def refused_update(self, server, bad):
        before = (self.catalog.generation, self.catalog.tools, self.catalog.index)
        raw = [{"name": "fine", "inputSchema": {"type": "object"}}, {"name": "broken"}]
        raw[1][bad] = 5
        with pytest.raises(ToolDefinitionError) as info:
            self.catalog.connect_server(server, {"tools": raw})
        assert bad in str(info.value)
        assert (self.catalog.generation, self.catalog.tools, self.catalog.index) == before

    @rule(data=st.data())
    def activate(self, data):
        if not self.sessions or not self.catalog.tools:
            return
        session, _ = data.draw(st.sampled_from(self.sessions))
        names = data.draw(st.lists(st.sampled_from([t.name for t in self.catalog.tools])))
        hidden = {t.name for t in session.hidden_tools}
        assert set(session.activate(names)) == hidden & set(names)

    @rule(data=st.data(), query=words, limit=st.integers(1, 6), select=st.booleans())
    def search(self, data, query, limit, select):
        if not self.sessions:
            return
        session, exact = data.draw(st.sampled_from(self.sessions))
        tools = self.catalog.tools
        text = " ".join(query)
        if select and tools:
            picked = st.lists(st.sampled_from([t.name for t in tools]), min_size=1, max_size=4)
            text = "select:" + ",".join(data.draw(picked))
        hidden = {t.name for t in session.hidden_tools}
        result = session.search(text, limit)
        cap, threshold = self.options[id(session)]
        expected = _expected(tools, hidden, text, limit, self.engine, exact, cap, threshold)
        _same(_pairs(result.matches), expected)
        assert result.total_tools == len(hidden)
        assert not set(result.activated) & {t.name for t in session.hidden_tools}
        assert set(result.already_active).isdisjoint(hidden)

    def teardown(self):
        _catalog_view._SPLIT_AT_MOST = CatalogMachine.split_at_most

    @invariant()
    def sessions_see_the_current_generation(self):
        if not hasattr(self, "catalog"):
            return
        names = {t.name for t in self.catalog.tools}
        for session, _ in self.sessions:
            assert {t.name for t in session.tools} == names


_machine_settings = settings(max_examples=40, stateful_step_count=25, deadline=None)


@_machine_settings
class PythonCatalogMachine(CatalogMachine):
    engine = "python"


@_machine_settings
class RustCatalogMachine(CatalogMachine):
    engine = "rust"


@_machine_settings
class PythonExcludingMachine(CatalogMachine):
    engine = "python"
    split_at_most = 0


@_machine_settings
class RustExcludingMachine(CatalogMachine):
    engine = "rust"
    split_at_most = 0


_needs_rust = pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")
TestPythonCatalogMachine = PythonCatalogMachine.TestCase
TestRustCatalogMachine = _needs_rust(RustCatalogMachine.TestCase)
TestPythonExcludingMachine = PythonExcludingMachine.TestCase
TestRustExcludingMachine = _needs_rust(RustExcludingMachine.TestCase)


# --- the API -------------------------------------------------------------------------------------


def _catalog(engine: str = "auto") -> Catalog:
    return Catalog(
        [Tool(name="read", description="Read a file")],
        servers={
            "mail": _server_tools("mail", [["send", "email"], ["search", "email", "inbox"]]),
            "github": _server_tools("github", [["create", "issue"], ["list", "issue"]]),
        },
        summaries={"mail": "Email"},
        engine=engine,
    )


def test_a_view_shares_the_catalogues_index_and_keeps_its_own_activations(engine):
    catalog = _catalog(engine)
    first, second = catalog.session(), catalog.session()
    assert first.search("send email", limit=1).activated == ("mcp__mail__t0",)
    assert "mcp__mail__t0" not in {t.name for t in first.hidden_tools}
    assert "mcp__mail__t0" in {t.name for t in second.hidden_tools}
    assert [t.name for t in first.visible_tools] == ["read", "mcp__mail__t0"]
    assert first.server_summaries() == {"mail": "Email"}
    assert catalog.index is catalog.index and len(catalog) == 5


def test_a_view_refuses_catalogue_changes_with_a_typed_error():
    session = _catalog().session()
    for call in (
        lambda: session.connect_server("x", []),
        lambda: session.disconnect_server("mail"),
        lambda: session.add_tools([Tool(name="x")]),
        lambda: session.remove_tools(["read"]),
    ):
        with pytest.raises(DiscoveryError, match="change the catalogue instead"):
            call()


def test_a_change_is_one_generation_seen_by_every_session_at_its_next_search(engine):
    catalog = _catalog(engine)
    sessions = [catalog.session() for _ in range(3)]
    before = catalog.generation
    catalog.replace_server("github", _server_tools("github", [["send", "email", "fast"]]))
    assert catalog.generation == before + 1
    for session in sessions:
        assert session.search("send email fast", limit=1).activated == ("mcp__github__t0",)
    catalog.disconnect_server("github")
    catalog.disconnect_server("github")  # unknown: ignored, no generation
    assert catalog.generation == before + 2
    assert all("mcp__github__t0" not in {t.name for t in s.tools} for s in sessions)


def test_a_refused_update_publishes_nothing():
    catalog = _catalog()
    generation, index = catalog.generation, catalog.index
    with pytest.raises(DuplicateToolError):
        catalog.add_tools([Tool(name="read")])
    with pytest.raises(ToolDefinitionError, match="inputSchema"):
        catalog.connect_server("mail", {"tools": [{"name": "ok"}, {"name": "x", "inputSchema": 1}]})
    with pytest.raises(ValueError, match="not connected"):
        catalog.replace_server("nope", [])
    assert (catalog.generation, catalog.index) == (generation, index)
    assert catalog.tools[0].name == "read" and len(catalog) == 5


def test_building_a_catalogue_leaves_the_garbage_collector_as_it_was():
    import gc

    tools = [Tool(name="read"), Tool(name="mcp__mail__send", server="mail")]
    assert gc.isenabled()
    Catalog(tools)
    assert gc.isenabled()
    with pytest.raises(DuplicateToolError):
        Catalog([*tools, Tool(name="read")])
    assert gc.isenabled()
    gc.disable()
    try:
        Catalog(tools)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_session_options_apply_per_view():
    catalog = _catalog()
    mcp_only = catalog.session(mode="mcp-only", always_available=("mail",))
    assert {t.name for t in mcp_only.hidden_tools} == {"mcp__github__t0", "mcp__github__t1"}
    auto = catalog.session(mode="auto", auto_max_tools=100)
    assert auto.effective_mode == "off" and not auto.enabled
    with pytest.raises(DiscoveryError, match="disabled"):
        auto.search("email")
    with pytest.raises(ValueError, match="mode"):
        catalog.session(mode="sometimes")  # type: ignore[arg-type]


def test_exact_mode_scores_an_index_over_the_hidden_tools_only(engine):
    catalog = _catalog(engine)
    session = catalog.session(rebuild_on_activation=True)
    session.activate(["mcp__mail__t1"])
    hidden = [t for t in catalog.tools if t.name in {t.name for t in session.hidden_tools}]
    expected = ToolIndex(hidden, engine=engine).search("email issue", 3)
    _same(_pairs(session.search("email issue", 3).matches), _pairs(expected))


def test_threads_search_activate_and_update_at_once(engine):
    catalog = _catalog(engine)
    sessions = [catalog.session() for _ in range(16)]
    errors: list[BaseException] = []

    def churn():
        for i in range(20):
            words = [["send", "email", "note"], ["list", "ticket"]][i % 2]
            catalog.connect_server("crm", _server_tools("crm", [words, ["create", "invoice"]]))

    def work(session: DiscoverySession):
        try:
            seen: set[str] = set()
            for query in ["send email", "create issue", "list ticket", "invoice", "note"] * 4:
                activated = session.search(query, limit=2).activated
                assert seen.isdisjoint(activated) or any(
                    n.startswith("mcp__crm") for n in activated
                )
                seen.update(activated)
        except BaseException as error:  # reported below
            errors.append(error)

    updater = threading.Thread(target=churn)
    updater.start()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(work, sessions))
    updater.join()
    assert not errors
    tools = catalog.tools
    for session in sessions:  # after the churn, each view searches the last generation
        hidden = {t.name for t in session.hidden_tools}
        got = _pairs(session.search("send email note", limit=3).matches)
        _same(got, _expected(tools, hidden, "send email note", 3, engine, False))


def test_a_thousand_asyncio_tasks_share_one_catalogue(engine):
    catalog = _catalog(engine)
    old_tools = catalog.tools
    new_crm = _server_tools("crm", [["send", "email", "invoice"]])

    async def one(i: int):
        session = catalog.session()
        first = await session.asearch("send email", limit=1)
        second = await session.asearch("send email", limit=1)
        return first, second

    async def main():
        tasks = [asyncio.create_task(one(i)) for i in range(1000)]
        await catalog.aconnect_server("crm", new_crm)
        return await asyncio.gather(*tasks)

    results = asyncio.run(main())
    assert len(results) == 1000
    new_tools = catalog.tools
    every = {t.name for t in new_tools}
    options = [
        _expected(
            tools, {t.name for t in tools if t.name != "read"}, "send email", 1, engine, False
        )
        for tools in (old_tools, new_tools)
    ]
    for first, second in results:
        assert _pairs(first.matches) in options
        assert set(first.activated).isdisjoint(second.activated)
        assert set(second.activated) <= every


def test_asearch_builds_on_a_worker_thread_and_equals_search(engine):
    catalog = _catalog(engine)
    threads: set[str] = set()
    exact, twin = (catalog.session(rebuild_on_activation=True) for _ in range(2))
    real = exact.search

    def search(*args, **kwargs):
        threads.add(threading.current_thread().name)
        return real(*args, **kwargs)

    exact.search = search  # type: ignore[method-assign]
    assert not exact._ready()  # its first search builds its own index

    async def turns():
        return [await exact.asearch(q, limit=1) for q in ("send email", "create issue")]

    got = asyncio.run(turns())
    expected = [twin.search(q, limit=1) for q in ("send email", "create issue")]
    assert [_pairs(r.matches) for r in got] == [_pairs(r.matches) for r in expected]
    assert threading.current_thread().name not in threads  # built off the event loop's thread


def test_a_view_takes_a_config_and_the_search_options():
    from toolsift.config import ToolSearchConfig
    from toolsift.errors import LimitError, ProfileError

    catalog = _catalog()
    config = ToolSearchConfig(max_results=1, max_limit=3, threshold=0.5, meta_tool_name="find")
    session = catalog.session(config=config)
    assert (session.default_limit, session.max_limit, session.threshold) == (1, 3, 0.5)
    assert session.meta_tool_name == "find"
    assert session.search("email").limit == 1
    assert session.search("email", 10).limit == 3  # clamped to max_limit
    assert catalog.session(config=config, max_limit=4).max_limit == 4  # an argument wins
    with pytest.raises(LimitError, match="above max_limit"):
        catalog.session(default_limit=9, max_limit=3)
    with pytest.raises(ValueError, match="threshold"):
        catalog.session(threshold=-1.0)
    with pytest.raises(ProfileError, match="profile='omp'"):
        catalog.session(config=ToolSearchConfig(profile="omp"))


def test_a_views_threshold_drops_low_scores_like_the_index(engine):
    catalog = _catalog(engine)
    session = catalog.session()
    everything = catalog.index.search("send email inbox", 5)
    cut = (everything[0].score + everything[-1].score) / 2
    result = session.search("send email inbox", 5, threshold=cut)
    kept = catalog.index.search("send email inbox", 5, threshold=cut)
    assert 0 < len(result.matches) < len(everything)
    _same(_pairs(result.matches), _pairs(kept))


def test_a_view_resolves_provider_names_from_the_shared_table():
    from toolsift.tools import provider_name

    long_name = "mcp__git__" + "x" * 70
    catalog = Catalog(servers={"git": [Tool(name=long_name, server="git")]})
    session = catalog.session()
    alias = provider_name(long_name)
    assert alias != long_name
    assert session.resolve(alias) == session.resolve(long_name) == ("git", long_name)
    assert session.find_tool("nope") is None
    catalog.disconnect_server("git")
    assert session.find_tool(alias) is None


@pytest.mark.parametrize("split_at_most", [0, 4, 32])
def test_a_view_with_many_visible_tools_ranks_as_two_searches_would(engine, split_at_most):
    """More visible tools than the one-search window holds: the window's answer, when it holds
    enough hidden tools, and the two searches' otherwise, both equal the definition: fresh
    matches from the hidden tools alone, already-active ones from the top of every tool."""
    words = ["send", "urgent", "message", "report", "queue"]
    tools = [
        Tool(
            name=f"mcp__ops__tool_{i}",
            server="ops",
            description=" ".join(words[j] for j in range(5) if (i >> j) & 1) + f" item {i}",
        )
        for i in range(90)
    ]
    catalog = Catalog(servers={"ops": tools}, engine=engine)
    old = _catalog_view._SPLIT_AT_MOST
    _catalog_view._SPLIT_AT_MOST = split_at_most
    try:
        for query, limit in [("send urgent message", 8), ("urgent", 3), ("report queue", 6)]:
            for visible in (range(0, 90, 2), range(40), range(50, 90)):
                session = catalog.session(mode="all")
                session.activate([tools[i].name for i in visible])
                hidden = {t.name for t in session.hidden_tools}
                shown = {tools[i].name for i in visible}
                result = session.search(query, limit)
                expected = _expected(tools, hidden, query, limit, engine, False)
                _same(_pairs(result.matches), expected)
                top = catalog.index.search(query, limit)
                assert result.already_active == tuple(m.name for m in top if m.name in shown)
    finally:
        _catalog_view._SPLIT_AT_MOST = old
