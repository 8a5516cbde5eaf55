"""A shared catalogue under churn (servers reconnecting again and again): every generation equals
a catalogue built fresh from its tools, across the overlay folds; a refused update in the middle
publishes nothing; readers on other threads only ever see whole generations."""

from __future__ import annotations

import math
import threading

import pytest
from toolsift import Catalog, DuplicateToolError, Tool, ToolDefinitionError, ToolIndex, _overlay
from toolsift._session.generation import CatalogCore, Generation
from toolsift.tokens import tool_tokens
from toolsift.tools import provider_name

WORDS = ["deploy", "rollback", "status", "logs", "metrics", "alert", "scale", "restart", "mail"]
QUERIES = ["deploy status", "rollback logs", "send mail", "scale alert metrics", "select:t1"]


def _tools(server: str, round_: int, n: int = 6, rename: bool = False) -> list[Tool]:
    """``server``'s tools at reconnect ``round_`` (new descriptions; with ``rename``, new names
    too, so that the overlays grow until they fold)."""
    suffix = f"_{round_}" if rename else ""
    return [
        Tool(
            name=f"mcp__{server}__t{i}{suffix}",
            server=server,
            mcp_tool_name=f"t{i}{suffix}",
            description=f"{WORDS[(i + round_) % 9]} {WORDS[(2 * i + round_) % 9]} service {i}",
        )
        for i in range(n)
    ]


def _assert_equal_to_fresh(gen: Generation, engine: str, model: dict | None = None) -> None:
    """``gen`` equals what the previous, whole-copy update made: maps rebuilt from its tools
    in the order they joined (``model``: name -> (tool, source), in that order, if known), and
    an index built fresh over them."""
    if model is not None:
        assert [(n, e.tool, e.source) for n, e in gen.entries.items()] == [
            (n, tool, source) for n, (tool, source) in model.items()
        ]
    tools = [e.tool for e in gen.entries.values()]
    aliases: dict[str, tuple[str, ...]] = {}
    provider: dict[str, str] = {}
    for tool in tools:
        for alias in tool.aliases():
            aliases[alias] = (*aliases.get(alias, ()), tool.name)
        for form in (provider_name(tool.name), *tool.aliases()):
            provider.setdefault(form, tool.name)
    for form in [*aliases, *(f.upper() for f in aliases), *gen.servers]:
        # a name form keeps exactly its tools visible (a server name, the server's tools too)
        expected = {*aliases.get(form, ()), *gen.servers.get(form, ())}
        assert gen.always_names(frozenset([form])) == expected
    assert dict(gen.provider_names()) == provider
    assert gen.non_mcp_names() == {n for n, e in gen.entries.items() if e.source != "mcp"}
    assert gen.tokens == sum(tool_tokens(t) for t in tools)
    servers: dict[str, list[str]] = {}
    for tool in tools:
        if gen.entries[tool.name].source == "mcp":
            servers.setdefault(tool.server, []).append(tool.name)
    assert {s: list(n) for s, n in gen.servers.items() if n} == servers
    index = gen.index
    rebuilt = ToolIndex(tools, engine=engine)
    assert [t.name for t in index.tools] == [t.name for t in rebuilt.tools]
    for tool in rebuilt.tools:
        assert tool.name in index and index.get(tool.name) is tool
    assert "nope" not in index and index.get("nope") is None
    for query in QUERIES:
        got, expected = index.search(query, 10), rebuilt.search(query, 10)
        assert [m.name for m in got] == [m.name for m in expected]
        for a, b in zip(got, expected):
            assert math.isclose(a.score, b.score, rel_tol=1e-9, abs_tol=1e-9)
    dropped = [t.name for t in rebuilt.tools[::3]]
    got = index.search("deploy status mail", 10, exclude=dropped)
    expected = rebuilt.search("deploy status mail", 10, exclude=dropped)
    assert [m.name for m in got] == [m.name for m in expected]


@pytest.mark.parametrize("rename", [False, True])
def test_every_generation_of_a_churning_catalogue_equals_a_fresh_build(
    engine, rename, monkeypatch
) -> None:
    monkeypatch.setattr(_overlay, "COMPACT_AT_LEAST", 8)  # fold every few updates
    builtins = [Tool(name="deploy", description="deploy the app"), Tool(name="mail")]
    servers = {"ops": _tools("ops", 0), "mail": _tools("mail", 0), "db": _tools("db", 0)}
    core = CatalogCore(builtins, servers, {"ops": "Operations"}, engine, "english", None)
    model = {t.name: (t, "builtin") for t in builtins}
    model.update((t.name, (t, "mcp")) for ts in servers.values() for t in ts)
    core.current.provider_names()  # memoised: later generations carry them over
    core.current.non_mcp_names()
    folded = False
    for round_ in range(1, 13):
        server = ["ops", "mail", "db"][round_ % 3]
        tools = _tools(server, round_, rename=rename)
        core.connect_server(server, tools, f"summary {round_}")
        for name in [n for n, (t, _) in model.items() if t.server == server]:
            del model[name]
        model.update((t.name, (t, "mcp")) for t in tools)
        if round_ % 4 == 0:
            extra = Tool(name=f"extra{round_}", description="status")
            core.add_tools([extra], "custom")
            model[extra.name] = (extra, "custom")
        if round_ % 5 == 0:
            core.remove_tools(["deploy", f"extra{round_ - 1}"])
            model.pop("deploy", None)
            model.pop(f"extra{round_ - 1}", None)
        if round_ == 7:
            core.disconnect_server("db")
            for name in [n for n, (t, _) in model.items() if t.server == "db"]:
                del model[name]
        folded = folded or core.current.entries.overlay_size == 0
        _assert_equal_to_fresh(core.current, engine, model)
        assert core.current.summaries[server] == f"summary {round_}"
    assert core.current.number >= 12
    if rename:
        assert folded  # the churn crossed at least one fold of the overlays


def test_a_refused_update_in_the_middle_of_churn_publishes_nothing(engine) -> None:
    catalog = Catalog(servers={"ops": _tools("ops", 0), "mail": _tools("mail", 0)}, engine=engine)
    for round_ in range(1, 4):
        catalog.replace_server("ops", _tools("ops", round_))
    before = catalog._core.current
    clash = [*_tools("ops", 9), Tool(name="mcp__mail__t0", server="ops", description="clash")]
    with pytest.raises(DuplicateToolError):
        catalog.replace_server("ops", clash)
    with pytest.raises(ToolDefinitionError):
        catalog.replace_server("ops", {"tools": [{"name": "ok"}, {"name": "x", "inputSchema": 1}]})
    with pytest.raises(DuplicateToolError):
        catalog.add_tools([Tool(name="mcp__ops__t1", description="again")])
    assert catalog._core.current is before
    _assert_equal_to_fresh(before, engine)
    catalog.replace_server("ops", _tools("ops", 5))  # and the churn goes on from there
    assert catalog.generation == before.number + 1
    _assert_equal_to_fresh(catalog._core.current, engine)


def test_readers_on_other_threads_see_only_whole_generations(engine) -> None:
    catalog = Catalog(
        [Tool(name="deploy", description="deploy")],
        servers={s: _tools(s, 0) for s in ("ops", "mail", "db")},
        engine=engine,
    )
    session = catalog.session()
    stop = threading.Event()
    problems: list[str] = []
    seen: set[int] = set()

    def reader() -> None:
        while not stop.is_set():
            gen = catalog._core.current
            seen.add(gen.number)
            names = list(gen.entries)
            index_names = [t.name for t in gen.index]
            if names != index_names:
                problems.append(f"generation {gen.number}: entries and index differ")
            if sorted(n for ns in gen.servers.values() for n in ns) != sorted(
                n for n, e in gen.entries.items() if e.source == "mcp"
            ):
                problems.append(f"generation {gen.number}: servers and entries differ")
            if gen.tokens != sum(e.tokens for e in gen.entries.values()):
                problems.append(f"generation {gen.number}: tokens differ")
            session.search("deploy status", limit=3)  # searches race the updates too

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for round_ in range(1, 25):
            server = ["ops", "mail", "db"][round_ % 3]
            catalog.replace_server(server, _tools(server, round_, rename=round_ % 2 == 0))
            if round_ % 6 == 0:
                with pytest.raises(DuplicateToolError):
                    catalog.add_tools([Tool(name="deploy", description="twice")])
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not problems, problems[:3]
    assert catalog.generation == 24 and len(seen) >= 1
    _assert_equal_to_fresh(catalog._core.current, engine)
