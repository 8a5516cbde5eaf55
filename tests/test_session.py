"""DiscoverySession: sources, modes, activation, index lifetime and many threads at once."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolsift import DiscoveryError, DiscoverySession, DuplicateToolError, QueryError, Tool
from toolsift.errors import LimitError

DISABLED = (
    "Tool discovery is disabled. Enable tools.discoveryMode or mcp.discoveryMode to use "
    "search_tool_bm25."
)


def builtins() -> list[Tool]:
    return [
        Tool(name="read", description="Read a file from disk"),
        Tool(name="bash", description="Run a shell command"),
        Tool(name="edit", description="Edit a file in place"),
        Tool(name="web_fetch", description="Fetch a web page and return its text"),
        Tool(name="todo_write", description="Write the task list"),
    ]


def slack_tools() -> dict:
    return {
        "tools": [
            {
                "name": "send_message",
                "description": "Send a message to a Slack channel",
                "inputSchema": {"type": "object", "properties": {"channel": {}, "text": {}}},
            },
            {"name": "list_channels", "description": "List Slack channels", "inputSchema": {}},
        ]
    }


def github_tools(n: int = 3) -> list[Tool]:
    words = ["issue", "pull request", "release", "branch", "commit", "workflow"]
    return [
        Tool(
            name=f"mcp__github__tool_{i}",
            description=f"Manage a GitHub {words[i % len(words)]} number {i}",
            server="github",
            mcp_tool_name=f"tool_{i}",
        )
        for i in range(n)
    ]


def names(tools) -> list[str]:
    return [t.name for t in tools]


@pytest.fixture
def session(engine) -> DiscoverySession:
    s = DiscoverySession(builtins(), mode="all", engine=engine)
    s.connect_server("slack", slack_tools(), summary="Slack messaging")
    return s


@pytest.fixture
def exact_session(engine) -> DiscoverySession:
    """``session`` with OMP's exact scores: its index holds the hidden tools only."""
    s = DiscoverySession(builtins(), mode="all", engine=engine, rebuild_on_activation=True)
    s.connect_server("slack", slack_tools(), summary="Slack messaging")
    return s


# --- modes ---------------------------------------------------------------------------------------


def test_all_mode_hides_everything_but_the_essentials(session):
    assert names(session.visible_tools) == ["read", "bash", "edit"]
    assert set(names(session.hidden_tools)) == {
        "web_fetch",
        "todo_write",
        "mcp__slack__send_message",
        "mcp__slack__list_channels",
    }


def test_mcp_only_mode_hides_only_mcp_tools(engine):
    s = DiscoverySession(builtins(), mode="mcp-only", engine=engine)
    s.connect_server("slack", slack_tools())
    assert names(s.hidden_tools) == ["mcp__slack__send_message", "mcp__slack__list_channels"]
    assert s.search("web page").matches == ()  # built-ins are not searched
    assert s.search("web page").already_active == ("web_fetch",)


def test_legacy_mcp_flag_with_mode_off_means_mcp_only(engine):
    s = DiscoverySession(builtins(), mode="off", mcp_discovery=True, engine=engine)
    s.connect_server("slack", slack_tools())
    assert s.effective_mode == "mcp-only"
    assert s.search("slack message", limit=1).activated == ("mcp__slack__send_message",)


def test_off_mode_hides_nothing_and_search_raises_the_seed_message(engine):
    s = DiscoverySession(builtins(), mode="off", engine=engine)
    assert s.hidden_tools == ()
    assert not s.enabled
    with pytest.raises(DiscoveryError) as info:
        s.search("web page")
    assert str(info.value) == DISABLED


def test_disabled_check_comes_before_query_validation(engine):
    s = DiscoverySession(mode="off", engine=engine)
    with pytest.raises(DiscoveryError):
        s.search("   ", 0)


def test_auto_mode_turns_on_above_the_tool_count_threshold(engine):
    s = DiscoverySession(builtins(), mode="auto", auto_max_tools=5, engine=engine)
    assert s.effective_mode == "off"  # 2 hideable tools
    s.connect_server("github", github_tools(3))
    assert s.effective_mode == "off"  # 5 hideable tools: not above 5
    s.connect_server("slack", slack_tools())
    assert s.effective_mode == "all"
    s.disconnect_server("slack")
    assert s.effective_mode == "off"


def test_auto_mode_turns_on_above_the_token_threshold(engine):
    big = Tool(name="big", description="word " * 2000)
    s = DiscoverySession([big], mode="auto", engine=engine)
    assert s.schema_tokens() > 2000
    assert s.effective_mode == "off"
    s2 = DiscoverySession([big], mode="auto", auto_max_tokens=1000, engine=engine)
    assert s2.effective_mode == "all"


def test_default_auto_thresholds_are_40_tools_and_16000_tokens():
    tools = [Tool(name=f"t{i}", description="tiny") for i in range(40)]
    assert DiscoverySession(tools, mode="auto").effective_mode == "off"
    tools.append(Tool(name="t40", description="tiny"))
    assert DiscoverySession(tools, mode="auto").effective_mode == "all"


def test_set_mode_at_run_time_keeps_activations(session):
    session.search("slack message")
    session.set_mode("off")
    assert session.hidden_tools == ()
    session.set_mode("all")
    assert "mcp__slack__send_message" in names(session.visible_tools)


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="mode must be one of"):
        DiscoverySession(mode="sometimes")  # type: ignore[arg-type]


# --- always available --------------------------------------------------------------------------


def test_always_available_takes_names_aliases_and_servers(engine):
    s = DiscoverySession(
        builtins(),
        mode="all",
        always_available=["web_fetch", "slack", "github/tool_1"],
        engine=engine,
    )
    s.connect_server("slack", slack_tools())
    s.connect_server("github", github_tools(3))
    visible = set(names(s.visible_tools))
    assert {"web_fetch", "mcp__slack__send_message", "mcp__github__tool_1"} <= visible
    assert "read" not in visible  # the seed's defaults are replaced, not extended
    assert "mcp__github__tool_0" in names(s.hidden_tools)


def test_essential_tools_are_never_hidden_nor_searched(session):
    result = session.search("read a file")
    assert "read" not in result.activated
    assert "read" in result.already_active


# --- activation --------------------------------------------------------------------------------


def test_activation_accumulates_and_is_idempotent(session):
    first = session.search("slack message", limit=1)
    assert first.activated == ("mcp__slack__send_message",)
    second = session.search("slack channels", limit=1)
    assert second.activated == ("mcp__slack__list_channels",)
    assert second.selected == ("mcp__slack__send_message", "mcp__slack__list_channels")
    assert session.activate(["mcp__slack__send_message", "unknown"]) == ()
    assert session.selected == second.selected


def test_already_active_tools_are_left_out_but_reported(session):
    session.search("slack message", limit=1)
    result = session.search("send slack message", limit=5)
    assert "mcp__slack__send_message" not in result.activated
    assert "mcp__slack__send_message" in result.already_active
    assert result.total_tools == 3  # four discoverable, one active


def test_limit_is_filled_with_fresh_tools_after_activation(engine):
    s = DiscoverySession(mode="all", engine=engine)
    s.connect_server("github", github_tools(12))
    first = s.search("github", limit=4)
    second = s.search("github", limit=4)
    assert len(first.activated) == len(second.activated) == 4
    assert not set(first.activated) & set(second.activated)
    assert set(second.already_active) == set(first.activated)


def test_activate_by_name(session):
    assert session.activate(["web_fetch", "web_fetch"]) == ("web_fetch",)
    assert "web_fetch" in names(session.visible_tools)
    assert session.activate(["web_fetch"]) == ()


def test_activation_survives_a_reconnect(session):
    session.search("slack message", limit=1)
    session.disconnect_server("slack")
    assert session.selected == ()
    session.connect_server("slack", slack_tools())
    assert session.selected == ("mcp__slack__send_message",)
    assert "mcp__slack__send_message" in names(session.visible_tools)


# --- catalogue changes -------------------------------------------------------------------------


def test_connect_disconnect_and_changed_tool_lists(session):
    session.connect_server("github", github_tools(2), summary="GitHub")
    assert "mcp__github__tool_1" in names(session.hidden_tools)
    session.connect_server("github", github_tools(1))  # the server sent a shorter list
    assert "mcp__github__tool_1" not in names(session.tools)
    assert session.server_summaries()["github"] == "GitHub"
    session.disconnect_server("github")
    session.disconnect_server("github")  # unknown: ignored
    assert not any(t.server == "github" for t in session.tools)


def test_extension_and_custom_sources(engine):
    s = DiscoverySession(mode="mcp-only", engine=engine)
    s.add_tools([Tool(name="deploy", description="Deploy the app")], source="extension")
    s.add_tools([Tool(name="lint", description="Lint the code")], source="custom")
    assert names(s.visible_tools) == ["deploy", "lint"]
    s.set_mode("all")
    assert names(s.hidden_tools) == ["deploy", "lint"]
    s.remove_tools(["lint"])
    assert names(s.tools) == ["deploy"]
    with pytest.raises(ValueError, match="connect_server"):
        s.add_tools([Tool(name="x")], source="mcp")


def test_duplicate_names_across_sources_are_rejected(session):
    with pytest.raises(DuplicateToolError):
        session.add_tools([Tool(name="read")])
    with pytest.raises(DuplicateToolError):
        session.connect_server("other", [Tool(name="mcp__slack__send_message", server="other")])


def test_tools_of_another_server_are_rejected(session):
    with pytest.raises(ValueError, match="belongs to server"):
        session.connect_server("github", [Tool(name="x", server="gitlab")])


# --- index lifetime ----------------------------------------------------------------------------


def test_index_is_rebuilt_only_when_the_hidden_corpus_changes(exact_session):
    session = exact_session
    session.search("slack message", limit=1)  # builds, then activates: the corpus changed
    builds = session._builds
    session.search("web page", limit=1)  # rebuilds for the activation, then activates
    assert session._builds == builds + 1
    builds = session._builds
    session.search("zzyzx")  # rebuilds for the last activation; activates nothing
    assert session._builds == builds + 1
    for query in ["zzyzx", "qwerty", "zzyzx"]:
        session.search(query)  # nothing changes: never rebuilt per query
    assert session._builds == builds + 1
    session.connect_server("github", github_tools(2))
    assert session._builds == builds + 1  # lazily: not until a search needs it
    session.search("zzyzx")
    assert session._builds == builds + 2


def test_without_rebuild_on_activation_only_catalogue_changes_rebuild(engine):
    s = DiscoverySession(builtins(), mode="all", engine=engine, rebuild_on_activation=False)
    s.connect_server("slack", slack_tools())
    s.search("slack")
    builds = s._builds
    for query in ["slack message", "web page", "task list", "zzz"]:
        s.search(query)  # activation changes the generation, not the catalogue
    assert s._builds == builds
    generation = s.generation
    s.connect_server("github", github_tools(2))
    assert s.generation > generation and s._builds == builds
    s.search("github")
    s.search("github issue")
    assert s._builds == builds + 1
    result = s.search("slack message", limit=5)  # active tools are excluded, not re-ranked
    assert "mcp__slack__send_message" in result.already_active
    assert "mcp__slack__send_message" not in result.activated


def test_scores_after_activation_are_the_seeds(engine, reference):
    from toolsift import default_tools

    s = DiscoverySession(
        default_tools(), mode="all", engine=engine, profile="omp", rebuild_on_activation=True
    )
    for query in ["open a pull request", "send a slack message", "create a calendar event"]:
        hidden = s.hidden_tools
        records = [
            {
                "name": t.name,
                "description": t.description,
                "input_schema": dict(t.input_schema),
                "server": t.server,
                "mcp_tool_name": t.mcp_tool_name,
            }
            for t in hidden
        ]
        want = reference.ReferenceIndex(records).search(query, 5)
        got = s.search(query, 5)
        assert got.total_tools == len(hidden)
        assert [m.tool.name for m in got.matches] == [name for name, _ in want]
        for match, (_, score) in zip(got.matches, want):
            assert match.score == pytest.approx(score, rel=1e-9)


def test_the_first_search_scores_exactly_as_a_plain_index(engine):
    from toolsift import ToolIndex, default_tools

    s = DiscoverySession(default_tools(), mode="all", engine=engine)
    got = s.search("create an issue in a repository", limit=8)
    want = ToolIndex(default_tools(), engine=engine).search("create an issue in a repository", 8)
    assert [(m.tool.name, m.score) for m in got.matches] == [(m.tool.name, m.score) for m in want]


# --- validation --------------------------------------------------------------------------------


def test_query_and_limit_errors(session):
    with pytest.raises(QueryError, match="Query must not be empty."):
        session.search("   ")
    with pytest.raises(QueryError, match="Query must contain at least one letter or number."):
        session.search("!!!")
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(LimitError, match="Limit must be a positive integer"):
            session.search("slack", bad)  # type: ignore[arg-type]


def test_empty_session_search_returns_nothing(engine):
    result = DiscoverySession(mode="all", engine=engine).search("anything")
    assert result.matches == () and result.total_tools == 0


# --- many threads ------------------------------------------------------------------------------


@pytest.mark.parametrize("rebuild", [True, False])
def test_many_threads_search_activate_connect_and_disconnect(engine, rebuild):
    """Invariants under contention: every activation is reported by exactly one call, an
    active tool is never in fresh results, and the views always agree with each other."""
    s = DiscoverySession(builtins(), mode="all", engine=engine, rebuild_on_activation=rebuild)
    for server in ("alpha", "beta"):
        s.connect_server(server, _server_tools(server, 30))
    queries = ["issue", "release branch", "deploy", "message channel", "file", "report"]
    activated_by_calls: list[str] = []
    errors: list[BaseException] = []
    record = threading.Lock()

    def searcher(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(40):
            result = s.search(rng.choice(queries), limit=rng.randint(1, 4))
            assert not set(result.activated) & set(result.already_active)
            assert len(result.activated) <= result.limit
            with record:
                activated_by_calls.extend(result.activated)

    def churner(seed: int) -> None:
        rng = random.Random(seed)
        for step in range(30):
            if step % 10 == 9:
                s.set_mode(rng.choice(["all", "mcp-only"]))
            server = rng.choice(["gamma", "delta", "epsilon"])
            if rng.random() < 0.5:
                s.connect_server(server, _server_tools(server, rng.randint(1, 20)))
            else:
                s.disconnect_server(server)
            with record:
                activated_by_calls.extend(s.activate([f"mcp__{server}__tool_{rng.randint(0, 5)}"]))

    def viewer(_: int) -> None:
        for _ in range(60):
            # Two views agree only when read from one state: between two separate reads a
            # mode change may hide what was visible (see the test of that below).
            with s._lock:
                visible, hidden = set(names(s.visible_tools)), set(names(s.hidden_tools))
                everything, selected = set(names(s.tools)), set(s.selected)
            assert {"read", "bash", "edit"} <= visible
            assert not visible & hidden
            assert visible | hidden == everything
            assert selected <= visible

    def guarded(fn, arg):
        try:
            fn(arg)
        except BaseException as exc:  # surface failures from worker threads
            errors.append(exc)

    with ThreadPoolExecutor(max_workers=12) as pool:
        jobs = [(searcher, i) for i in range(6)] + [(churner, i) for i in range(3)]
        jobs += [(viewer, i) for i in range(3)]
        for future in [pool.submit(guarded, fn, arg) for fn, arg in jobs]:
            future.result()
    assert not errors, errors[0]
    assert len(activated_by_calls) == len(set(activated_by_calls)), "activated twice"
    present = set(names(s.tools))
    assert set(s.selected) == set(activated_by_calls) & present
    assert not set(s.selected) & set(names(s.hidden_tools))
    assert {"read", "bash", "edit"}.isdisjoint(activated_by_calls)


def test_two_views_read_apart_may_straddle_a_mode_change_but_agree_under_the_lock(monkeypatch):
    """The interleaving the viewer above used to hit (about 1 run in 8): it read visible_tools,
    a churner switched mcp-only to all, it read hidden_tools. Each view was right for its state,
    and the built-ins were in both. Under the session's lock the two views are of one state."""
    import toolsift._session.state as state_module  # where set_mode checks the mode

    s = DiscoverySession(builtins(), mode="mcp-only")
    visible = set(names(s.visible_tools))
    s.set_mode("all")
    assert visible & set(names(s.hidden_tools)) == {"web_fetch", "todo_write"}

    s.set_mode("mcp-only")
    on_its_way = threading.Event()
    check_mode = state_module._check_mode

    def check_then_signal(mode):
        check_mode(mode)
        on_its_way.set()  # set_mode takes the lock next

    monkeypatch.setattr(state_module, "_check_mode", check_then_signal)
    with ThreadPoolExecutor(max_workers=1) as pool:
        with s._lock:
            visible = set(names(s.visible_tools))
            pending = pool.submit(s.set_mode, "all")
            assert on_its_way.wait(10)
            hidden = set(names(s.hidden_tools))
            assert not pending.done()
        pending.result(timeout=10)
    assert not visible & hidden
    assert s.effective_mode == "all"


def _after_snapshot(monkeypatch, s: DiscoverySession, change, times: int = 1) -> None:
    """Run ``change`` right after each of the first ``times`` searches took its snapshot: the
    change of state another thread makes between a search and its activation."""
    take = s._current_snapshot
    left = [times]

    def take_then_change():
        taken = take()
        if left[0]:
            left[0] -= 1
            change()
        return taken

    monkeypatch.setattr(s, "_current_snapshot", take_then_change)


def _no_retries(monkeypatch) -> None:
    import toolsift.session as session_module

    monkeypatch.setattr(session_module, "_SEARCH_ATTEMPTS", 1)


def _check_reported_against_the_state(s: DiscoverySession, result) -> None:
    visible = {t.name: t for t in s.visible_tools}
    assert set(result.already_active) <= set(visible), "reported active, but hidden or gone"
    assert set(result.activated) <= set(visible)
    assert all(m.tool == visible[m.tool.name] for m in result.matches), "not the tool loaded"


@pytest.mark.parametrize("retries", [True, False])
@pytest.mark.parametrize("rebuild", [True, False])
def test_a_mode_change_during_a_search_does_not_report_a_hidden_tool_as_active(
    monkeypatch, engine, rebuild, retries
):
    s = DiscoverySession(builtins(), mode="mcp-only", engine=engine, rebuild_on_activation=rebuild)
    s.connect_server("slack", slack_tools())
    _after_snapshot(monkeypatch, s, lambda: s.set_mode("all"))  # web_fetch is hidden now
    if not retries:
        _no_retries(monkeypatch)
    result = s.search("fetch a web page", 1)
    _check_reported_against_the_state(s, result)
    if retries:  # searched again on the current corpus, where web_fetch is hidden
        assert result.activated == ("web_fetch",)
    else:
        assert result.already_active == () and "web_fetch" in names(s.hidden_tools)


@pytest.mark.parametrize("retries", [True, False])
def test_an_always_available_server_gone_during_a_search_is_not_reported(
    monkeypatch, engine, retries
):
    s = DiscoverySession(
        builtins(), mode="all", engine=engine, always_available=("read", "bash", "edit", "slack")
    )
    s.connect_server("slack", slack_tools())
    _after_snapshot(monkeypatch, s, lambda: s.disconnect_server("slack"))
    if not retries:
        _no_retries(monkeypatch)
    result = s.search("slack message", 2)
    _check_reported_against_the_state(s, result)
    assert result.already_active == ()


@pytest.mark.parametrize("retries", [True, False])
@pytest.mark.parametrize("rebuild", [True, False])
def test_a_tool_redefined_during_a_search_is_reported_as_loaded(
    monkeypatch, engine, rebuild, retries
):
    s = DiscoverySession(builtins(), mode="all", engine=engine, rebuild_on_activation=rebuild)
    s.connect_server("slack", slack_tools())
    changed = slack_tools()
    changed["tools"][0]["description"] = "Post a message to a Slack channel or a thread"
    _after_snapshot(monkeypatch, s, lambda: s.connect_server("slack", changed))
    if not retries:
        _no_retries(monkeypatch)
    result = s.search("slack message", 1)
    _check_reported_against_the_state(s, result)
    assert result.activated == ("mcp__slack__send_message",)
    assert result.matches[0].tool.description.startswith("Post a message")


@pytest.mark.parametrize("rebuild", [True, False])
def test_a_tool_activated_during_a_search_is_reported_once(monkeypatch, engine, rebuild):
    s = DiscoverySession(builtins(), mode="all", engine=engine, rebuild_on_activation=rebuild)
    s.connect_server("slack", slack_tools())
    by_other = []
    _after_snapshot(
        monkeypatch, s, lambda: by_other.extend(s.activate(["mcp__slack__send_message"]))
    )
    result = s.search("slack message", 1)
    _check_reported_against_the_state(s, result)
    assert by_other == ["mcp__slack__send_message"]
    assert result.activated == ("mcp__slack__list_channels",)
    assert "mcp__slack__send_message" in result.already_active


def test_the_meta_tool_description_is_of_one_state(monkeypatch):
    """A server that reconnects with a new summary while the description is built must not
    pair its old tools with its new summary: the reconnect runs at that point if it can."""
    from toolsift.metatool import meta_tool, meta_tool_description

    s = DiscoverySession(mode="all")
    s.connect_server("github", github_tools(3), summary="GitHub, as it was")
    expected = meta_tool_description(s.discoverable_tools(), s.server_summaries())
    read_tools = s.discoverable_tools

    def reconnect_between_the_reads():
        tools = read_tools()

        def reconnect():
            if s._lock.acquire(blocking=False):  # a state change can land here
                try:
                    s.connect_server("github", github_tools(5), summary="GitHub, renewed")
                finally:
                    s._lock.release()

        other = threading.Thread(target=reconnect)
        other.start()
        other.join()
        return tools

    monkeypatch.setattr(s, "discoverable_tools", reconnect_between_the_reads)
    assert meta_tool(s).description == expected


def _server_tools(server: str, n: int) -> list[Tool]:
    words = ["issue", "release", "branch", "deploy", "message", "channel", "file", "report"]
    return [
        Tool(
            name=f"mcp__{server}__tool_{i}",
            description=f"{words[i % len(words)]} {words[(i * 3) % len(words)]} for {server}",
            server=server,
            mcp_tool_name=f"tool_{i}",
        )
        for i in range(n)
    ]


# --- the query language through the session ----------------------------------------------------


def test_select_query_activates_by_name_and_reports_missing(session):
    result = session.search("select:send_message,web_fetch,nope")
    assert result.query_kind == "select"
    assert set(result.activated) == {"mcp__slack__send_message", "web_fetch"}
    assert result.missing == ("nope",)
    again = session.search("select:send_message,read,nope")
    assert again.activated == ()
    assert set(again.already_active) == {"mcp__slack__send_message", "read"}
    assert again.missing == ("nope",)  # active tools are found, not missing


def test_keyword_query_kind_and_required_words(session):
    result = session.search("+slack channels")
    assert result.query_kind == "keyword" and result.missing == ()
    assert set(result.activated) <= {"mcp__slack__send_message", "mcp__slack__list_channels"}
    assert "web_fetch" not in result.activated


def test_limit_is_capped_at_max_limit(engine):
    s = DiscoverySession(mode="all", engine=engine)
    s.connect_server("github", github_tools(40))
    result = s.search("github", limit=30)
    assert (len(result.activated), result.limit) == (25, 25)  # the default cap
    s = DiscoverySession(mode="all", engine=engine, max_limit=30)
    s.connect_server("github", github_tools(40))
    assert len(s.search("github", limit=30).activated) == 30
    assert len(s.search("github", limit=30).activated) == 10


def test_the_models_limit_is_capped_at_25(engine):
    """A model's limit past 25 (even 10**6) activates 25 tools, not the corpus."""
    s = DiscoverySession(mode="all", engine=engine)
    s.connect_server("github", github_tools(40))
    assert len(s.search("github", limit=30).activated) == 25
    assert len(s.search("github", limit=10**6).activated) == 15


def test_a_tool_named_exactly_is_found(engine):
    s = DiscoverySession(mode="all", engine=engine)
    s.connect_server("github", github_tools(12))
    result = s.search("tool_7 issue pull request release branch commit workflow", limit=2)
    assert "mcp__github__tool_7" in result.activated


def test_an_index_build_does_not_block_state_changes(monkeypatch):
    import toolsift._session.snapshot as session_module  # where snapshots are built

    started, release = threading.Event(), threading.Event()
    real = session_module.ToolIndex

    def slow_index(tools, **options):
        started.set()
        assert release.wait(10)
        return real(tools, **options)

    s = DiscoverySession(builtins(), mode="all")
    monkeypatch.setattr(session_module, "ToolIndex", slow_index)
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(s.search, "fetch a web page", 1)
        assert started.wait(10)
        s.connect_server("slack", slack_tools())  # would deadlock if the build held the lock
        assert s.activate(["todo_write"]) == ("todo_write",)
        assert "mcp__slack__send_message" in names(s.hidden_tools)
        release.set()
        result = pending.result(timeout=10)
    assert result.activated == ("web_fetch",)
    assert s.search("slack message", 1).activated == ("mcp__slack__send_message",)


@pytest.mark.parametrize("rebuild", [True, False])
def test_concurrent_searches_activate_each_tool_once(engine, rebuild):
    s = DiscoverySession(mode="all", engine=engine, rebuild_on_activation=rebuild)
    s.connect_server("github", github_tools(30))
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda q: s.search(q, 1), ["github issue"] * 16))
    if not rebuild:
        assert s._builds == 1
    activated = [name for r in results for name in r.activated]
    assert len(activated) == len(set(activated)) == 16


def test_a_single_always_available_name_may_be_a_string():
    s = DiscoverySession([Tool(name="web_fetch"), Tool(name="x")], always_available="web_fetch")
    assert names(s.hidden_tools) == ["x"]


# --- the snapshot after activations --------------------------------------------------------------

_OPS = st.one_of(
    st.tuples(st.just("search"), st.sampled_from(["slack", "github issue", "file", "web", "task"])),
    st.tuples(st.just("activate"), st.integers(0, 40)),
    st.tuples(st.just("connect"), st.integers(1, 6)),
    st.tuples(st.just("disconnect"), st.just("github")),
    st.tuples(st.just("mode"), st.sampled_from(["all", "mcp-only", "off"])),
)


@settings(
    max_examples=min(settings().max_examples, 60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # `engine` is a constant
)
@given(ops=st.lists(_OPS, min_size=1, max_size=12), profile=st.sampled_from(["omp", "english"]))
def test_the_index_after_any_operations_is_a_fresh_index_of_the_hidden_tools(engine, ops, profile):
    """Activations move tools out of the previous snapshot's index (no rebuild from the
    catalogue); whatever ran before, the index searched is a fresh one over the hidden tools,
    and the visible-tool index holds exactly the visible tools."""
    from toolsift import ToolIndex

    s = DiscoverySession(
        builtins(), mode="all", engine=engine, profile=profile, rebuild_on_activation=True
    )
    s.connect_server("slack", slack_tools())
    s.connect_server("github", github_tools(12))
    for op, arg in ops:
        if op == "search" and s.enabled:
            s.search(arg, limit=2)
        elif op == "activate":
            hidden = names(s.hidden_tools)
            s.activate(hidden[arg % len(hidden) :][:3] if hidden else [])
        elif op == "connect":
            s.connect_server("github", github_tools(arg))
        elif op == "disconnect":
            s.disconnect_server(arg)
        elif op == "mode":
            s.set_mode(arg)
        if not s.enabled:
            continue
        snapshot, active = s._current_snapshot()
        assert active == ()
        hidden = list(s.hidden_tools)
        assert sorted(names(snapshot.discoverable.tools)) == sorted(names(hidden))
        assert sorted(names(snapshot.fixed.tools)) == sorted(names(s.visible_tools))
        fresh = ToolIndex(hidden, engine=engine, profile=profile)
        for query in ["slack message", "github issue release", "mcp__github__tool_3", "read"]:
            got = snapshot.discoverable.search(query, 10)
            want = fresh.search(query, 10)
            assert [(m.tool.name, m.score) for m in got] == [(m.tool.name, m.score) for m in want]


def test_prepare_updates_the_index_before_the_next_search(engine):
    s = DiscoverySession(builtins(), mode="all", engine=engine, rebuild_on_activation=True)
    s.connect_server("slack", slack_tools())
    s.connect_server("github", github_tools(6))
    assert s.prepare() is True  # the first build
    assert s.prepare() is False  # already current
    activated = s.search("slack message", limit=2).activated
    assert activated
    builds = s._builds
    assert s.prepare() is True and s._builds == builds + 1
    snapshot, _ = s._current_snapshot()
    assert not set(activated) & set(names(snapshot.discoverable.tools))
    s.search("github issue")  # searches the prepared index: no build of its own
    assert s._builds == builds + 1
    s.set_mode("off")
    assert s.prepare() is False


def test_prepare_from_another_thread_while_searching(engine):
    s = DiscoverySession(builtins(), mode="all", engine=engine)
    s.connect_server("github", github_tools(40))
    queries = [f"github {w}" for w in ["issue", "release", "branch", "commit", "workflow"]] * 4
    with ThreadPoolExecutor(max_workers=2) as pool:
        preparing = [pool.submit(s.prepare) for _ in range(10)]
        results = [s.search(q, limit=2) for q in queries]
        for future in preparing:
            future.result()
    activated = [n for r in results for n in r.activated]
    assert len(activated) == len(set(activated))  # each tool activated once
    assert set(activated) <= set(s.selected)
