"""The tuning of live updates on the Rust engine (``toolsift._core._set_update_tuning``): the
nice value of the update threads and where a large index is freed change when work runs, never
what it computes."""

from __future__ import annotations

import gc

import pytest
from toolsift import Catalog, Tool, ToolIndex

from .conftest import HAVE_RUST

pytestmark = pytest.mark.skipif(not HAVE_RUST, reason="the Rust engine's update threads")


def _tools(n: int, server: str | None = None) -> list[Tool]:
    words = ["read", "write", "file", "issue", "deploy", "search", "mail", "calendar"]
    prefix = f"mcp__{server}__" if server else "t"
    return [
        Tool(
            name=f"{prefix}{i}",
            server=server,
            description=f"{words[i % 8]} {words[(i // 8) % 8]} item {i}",
        )
        for i in range(n)
    ]


@pytest.fixture
def tuning():
    from toolsift._core import _set_update_tuning

    nice = _set_update_tuning()
    yield _set_update_tuning
    _set_update_tuning(nice=nice, release_apart=True)


def test_the_nice_value_is_clamped_and_read_back(tuning) -> None:
    assert 0 <= tuning() <= 19
    assert tuning(nice=-5) == 0
    assert tuning(nice=40) == 19
    assert tuning(nice=10) == 10


@pytest.mark.parametrize(("nice", "apart"), [(10, True), (0, True), (10, False), (0, False)])
def test_updates_give_the_same_index_whatever_the_tuning(tuning, nice: int, apart: bool) -> None:
    """An index of more than 8,192 tools (freed on the update threads when ``apart``) updated
    a few times, each old one dropped as it goes: the same rankings as a fresh build."""
    tuning(nice=nice, release_apart=apart)
    tools = _tools(9000)
    index = ToolIndex(tools, engine="rust")
    for round_ in range(3):
        index = index.with_tools(
            add=[Tool(name=f"new{round_}", description="deploy the calendar file")],
            remove=[f"t{round_}"],
        )
        gc.collect()
    expected = ToolIndex(
        tools[3:]
        + [Tool(name=f"new{r}", description="deploy the calendar file") for r in range(3)],
        engine="rust",
    )
    for query in ("deploy calendar", "read file item", "mail"):
        got = [(h.name, h.score) for h in index.search(query, limit=10)]
        assert got == [(h.name, h.score) for h in expected.search(query, limit=10)]


def test_a_catalogue_updates_on_plain_priority_threads(tuning) -> None:
    tuning(nice=0)
    catalog = Catalog(_tools(50), engine="rust")
    session = catalog.session()
    catalog.connect_server("notes", _tools(3, "notes"))
    catalog.replace_server("notes", _tools(2, "notes"))
    assert catalog.servers["notes"] == ("mcp__notes__0", "mcp__notes__1")
    assert session.search("select:mcp__notes__1").activated == ("mcp__notes__1",)


@pytest.mark.parametrize(
    ("given", "nice"),
    [("3", 3), ("0", 0), ("19", 19), (" 7 ", 7), ("25", None), ("-1", None), ("x", None)],
)
def test_the_environment_sets_the_nice_value(given: str, nice: int | None) -> None:
    """``TOOLSIFT_UPDATE_NICE`` (0 to 19; anything else leaves the default, 10, with a
    warning), read in a fresh process, which then updates a catalogue on threads of that nice
    value."""
    import os
    import subprocess
    import sys

    script = (
        "from toolsift import Catalog, Tool\n"
        "from toolsift._core import _set_update_tuning\n"
        "catalog = Catalog([Tool(name='a', description='alpha')], engine='rust')\n"
        "catalog.add_tools([Tool(name='b', description='beta')])\n"
        "catalog.add_tools([Tool(name='c', description='gamma')])\n"
        "print(_set_update_tuning(), len(catalog))\n"
    )
    env = {**os.environ, "TOOLSIFT_UPDATE_NICE": given}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == [str(10 if nice is None else nice), "3"]
    warned = out.stderr.count(f"RuntimeWarning: TOOLSIFT_UPDATE_NICE={given!r} is not a whole")
    assert warned == (nice is None), out.stderr  # once a process, for a refused value only
