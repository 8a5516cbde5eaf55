"""The name paths cost what the answer needs, and answer as the straightforward versions do.

Three untrusted-query costs of an MCP gateway, each checked two ways: results equal to a plain
reference written here (the code before the fix), on tricky cases and both engines, and a
coarse count of the expensive calls that would catch the old growth coming back.

* ``select:`` with unknown names: "did you mean" looked at every name form of the table with
  difflib, for every missing name (``NameTable.suggest``).
* the exact-name tier scored the rest of the query once per name the query holds, then cut the
  list to the limit (``NameLookups.exact_name_tier``): quadratic in the query length.
* a raw name shared by many servers (``read_file``): ``NameTable.lookup`` built every holder's
  aliases for every spelling asked.
"""

from __future__ import annotations

import difflib
import random
import string

import pytest
import toolsift
import toolsift._names.suggest as suggest_module
import toolsift._names.table as names_module
from toolsift import Tool, ToolIndex
from toolsift._index.lookups import SUGGESTED_NAMES_MAX, NameLookups
from toolsift._names.table import NameTable
from toolsift._options import DEFAULT_PREFIX_FRACTION
from toolsift.query import name_key, parse_query
from toolsift.tools import mcp_name

ENGINES = [
    pytest.param(
        name,
        marks=pytest.mark.skipif(
            name not in toolsift.available_engines(), reason=f"the {name} engine is not built"
        ),
    )
    for name in ("rust", "python")
]


def mcp(server: str, tool: str, description: str = "") -> Tool:
    return Tool(
        name=mcp_name(server, tool),
        description=description or f"{tool.replace('_', ' ')} on {server}",
        server=server,
        mcp_tool_name=tool,
    )


# --- references: the code before the fix -----------------------------------------------------


def reference_lookup(table: NameTable, name: str) -> tuple[int, ...]:
    found = table.lookup_key(name_key(name))
    if len(found) > 1:
        tools = table.sources
        exact = tuple(i for i in found if tools[i].name == name)
        if not exact:
            exact = tuple(i for i in found if name in tools[i].aliases())
        if exact:
            return exact
    return found


def reference_select(index: ToolIndex, query: str, servers=None, max_limit: int = 25):
    """(names returned, missing, notices) of a ``select:`` query, the plain way."""
    table = index.names
    allowed = None
    if servers is not None:
        allowed = {i for i, t in enumerate(index.tools) if t.server in set(servers)}
    found: dict[int, None] = {}
    missing = []
    for name in parse_query(query).names:
        ids = [i for i in reference_lookup(table, name) if allowed is None or i in allowed]
        if not ids:
            missing.append(name)
            continue
        found.update(dict.fromkeys(ids))
    order = list(found)
    notices = []
    if len(order) > max_limit:
        notices.append(f"select: {len(order)} tools found, returned the first {max_limit}")
        del order[max_limit:]
    return [index.tools[i].name for i in order], tuple(missing), tuple(notices)


def reference_suggest(table: NameTable, name: str, candidates, n: int = 3) -> tuple[str, ...]:
    """``NameTable.suggest`` before the fix: every candidate's aliases scored, and difflib over
    every name form of the table."""
    key = name_key(name)
    if not key:
        return ()
    scored: dict[str, float] = {}
    tools = table.sources

    def consider(tool_id: int) -> None:
        best = min(
            (-difflib.SequenceMatcher(None, key, name_key(a)).ratio(), len(a), a)
            for a in tools[tool_id].aliases()
        )
        if -best[0] >= 0.6 and -best[0] > scored.get(best[2], -1.0):
            scored[best[2]] = -best[0]

    for tool_id in candidates:
        consider(tool_id)
    keys = [*table._plain, *table._qualified]
    if len(keys) < suggest_module._SCAN_KEYS_BELOW:
        for match in difflib.get_close_matches(key, keys, n=n):
            for tool_id in table.lookup_key(match):
                consider(tool_id)
    ranked = sorted(scored.items(), key=lambda item: (-item[1], len(item[0]), item[0]))
    return tuple(alias for alias, _ in ranked[:n])


def engine_candidates(index: ToolIndex, name: str, allowed=None) -> list[int]:
    """The tools the engine proposes for a missing name (as ``NameLookups.suggest``)."""
    try:
        hits = index._index.search(name, 20, prefix_fraction=DEFAULT_PREFIX_FRACTION)
    except ValueError:
        hits = []
    return [d for d, _ in hits if allowed is None or d in allowed]


def reference_tier(self, named, text, excluded, filters, limit):
    """``NameLookups.exact_name_tier`` before the fix (every name scored, then cut)."""
    tools = self._tools
    queues = []
    for ids, rest in self.names.finder.find_names(text):
        scored = self._index.score_documents(
            rest if len(ids) > 1 else "", list(ids), sorted(excluded), **filters
        )
        scored.sort(key=lambda hit: (-hit[1], tools[hit[0]].name))
        if scored:
            queues.append([d for d, _ in scored[:3]])
    order: list[int] = []
    seen: set[int] = set()
    for turn in range(max((len(q) for q in queues), default=0)):
        for queue in queues:
            if turn < len(queue) and queue[turn] not in seen:
                seen.add(queue[turn])
                order.append(queue[turn])
    return order[:limit]


class CountingEngine:
    """An engine index that counts ``score_documents`` calls and passes everything through."""

    def __init__(self, engine):
        self._engine = engine
        self.score_calls = 0

    def score_documents(self, *args, **kwargs):
        self.score_calls += 1
        return self._engine.score_documents(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def __len__(self):
        return len(self._engine)


# --- 1. select: suggestions ------------------------------------------------------------------

SMALL = [
    mcp("filesystem", "read_file", "Read the complete contents of a file"),
    mcp("filesystem", "write_file", "Create or overwrite a file"),
    mcp("desktop", "read_file", "Read a file on the desktop"),
    mcp("github", "create_issue", "Create a new issue in a GitHub repository"),
    mcp("github", "create_pull_request", "Open a pull request"),
    mcp("github", "list_issues", "List the issues of a repository"),
    mcp("time", "get_current_time", "Get the current time in a timezone"),
    mcp("slack", "slack_post_message", "Post a message to a Slack channel"),
    mcp("my.server", "search", "Search"),
    mcp("sp", "read file", "Unsafe raw name"),
    Tool(name="FileEdit", description="Edit a file in place"),
    Tool(name="whatsapp.send", description="Send a WhatsApp message"),
    Tool(name="ReadFile", description="Read a file", mcp_tool_name="read_file"),
    *(mcp(f"srv{i}", f"tool_{w}_{i}", f"{w} things") for i, w in enumerate(string.ascii_lowercase)),
]

TYPOS = [
    "raed_file",
    "reed_file",
    "write_fil",
    "getCurentTime",
    "get_curent_time",
    "create_isue",
    "github/create_isue",
    "mcp__github__create_isue",
    "mcp__time__get_curent_tme",
    "list_isues",
    "slack_post_mesage",
    "FileEdt",
    "whatsap.send",
    "serach",
    "my.server/serch",
    "reeadfile",
    "read",
    "file",
    "crea",
    "tool_q",
    "zzzzzzzz",
    "ab",
    "___",
    "x" * 120,
]


@pytest.mark.parametrize("engine", ENGINES)
def test_suggestions_equal_the_reference_on_a_small_table(engine):
    # Few name forms: every form whose length allows a close match is scored, as before.
    index = ToolIndex(SMALL, engine=engine)
    for name in TYPOS:
        got = index.search(f"select:{name}").suggestions.get(name, ())
        assert got == reference_suggest(index.names, name, engine_candidates(index, name)), name
    # With a server filter the engine proposes only allowed tools; the scan's are filtered after.
    allowed = {i for i, t in enumerate(SMALL) if t.server in ("github", "time")}
    for name in TYPOS:
        result = index.search(f"select:{name}", servers=["github", "time"])
        want = reference_suggest(index.names, name, engine_candidates(index, name, allowed))
        want = tuple(s for s in want if any(i in allowed for i in index.names.lookup(s)))
        assert result.suggestions.get(name, ()) == want, name


def large_catalogue(tools: int = 3000) -> list[Tool]:
    """Enough name forms (two a tool) that a long name's length band exceeds the exact scan."""
    rng = random.Random(11)
    verbs = ["get", "list", "create", "update", "delete", "search", "fetch", "send", "read"]
    nouns = ["issue", "file", "message", "channel", "record", "invoice", "user", "report", "task"]
    out = []
    for i in range(tools):
        name = f"{rng.choice(verbs)}_{rng.choice(nouns)}_{rng.choice(nouns)}{i}"
        out.append(mcp(f"server{i % 150}", name, f"{name.replace('_', ' ')} tool"))
    return out


def typo(rng: random.Random, word: str) -> str:
    i = rng.randrange(len(word))
    op = rng.randrange(3)
    if op == 0:
        return word[:i] + word[i + 1 :]
    if op == 1:
        return word[:i] + rng.choice(string.ascii_lowercase) + word[i:]
    return word[:i] + rng.choice(string.ascii_lowercase) + word[i + 1 :]


@pytest.fixture(scope="module")
def large():
    tools = large_catalogue()
    engine = "rust" if "rust" in toolsift.available_engines() else "python"
    index = ToolIndex(tools, engine=engine)
    rng = random.Random(3)
    names = [typo(rng, (t.mcp_tool_name or t.name)) for t in rng.sample(tools, 40)]
    names += [typo(rng, f"{t.server}/{t.mcp_tool_name}") for t in rng.sample(tools, 10)]
    names = [n for n in names if not index.names.lookup(n)]
    return index, names


def test_trigram_candidates_with_room_for_every_key_equal_the_reference(large, monkeypatch):
    # The trigram path, given room for every key sharing a trigram, answers as the full scan.
    index, names = large
    table = index.names
    assert len(table._plain) + len(table._qualified) > 2 * suggest_module._BAND_SCAN_KEYS
    monkeypatch.setattr(suggest_module, "_GRAM_CANDIDATES", 10**6)
    monkeypatch.setattr(suggest_module, "_GRAM_BUDGET", 10**9)
    for name in names[:12]:
        candidates = engine_candidates(index, name)
        assert table.suggest(name, candidates) == reference_suggest(table, name, candidates)


def test_trigram_candidates_keep_the_first_suggestion(large):
    # With the default bounds, the typo's own name still comes first.
    index, names = large
    table = index.names
    for name in names:
        candidates = engine_candidates(index, name)
        want = reference_suggest(table, name, candidates)
        assert table.suggest(name, candidates)[:1] == want[:1], name


def test_suggestion_work_is_bounded(large, monkeypatch):
    index, names = large
    table = index.names
    long_name = max(names, key=len)
    assert len(table._close.candidates(name_key(long_name))) <= 2 * suggest_module._GRAM_CANDIDATES

    calls = {"suggest": 0, "ratio": 0}
    suggest, ratio = NameTable.suggest, difflib.SequenceMatcher.ratio

    def counted_suggest(self, *args, **kwargs):
        calls["suggest"] += 1
        return suggest(self, *args, **kwargs)

    def counted_ratio(self):
        calls["ratio"] += 1
        return ratio(self)

    monkeypatch.setattr(NameTable, "suggest", counted_suggest)
    monkeypatch.setattr(difflib.SequenceMatcher, "ratio", counted_ratio)
    query = ("select:" + ",".join(names))[:500]
    result = index.search(query)
    assert len(result.missing) > SUGGESTED_NAMES_MAX
    # The first five missing names get suggestions; the rest get () without any work.
    assert calls["suggest"] == SUGGESTED_NAMES_MAX
    assert all(result.suggestions[n] == () for n in result.missing[SUGGESTED_NAMES_MAX:])
    assert sum(1 for n in result.missing[:SUGGESTED_NAMES_MAX] if result.suggestions[n]) >= 4
    # Before: a get_close_matches over 6,000 forms per missing name (hundreds of ratios each).
    assert calls["ratio"] <= SUGGESTED_NAMES_MAX * 150


@pytest.mark.parametrize("engine", ENGINES)
def test_only_the_first_missing_names_get_suggestions(engine):
    index = ToolIndex(SMALL, engine=engine)
    asked = ["raed_file", "create_issue", "write_fil", "getCurentTime", "create_isue"]
    asked += ["list_isues", "slack_post_mesage", "FileEdt", "whatsap.send"]
    result = index.search("select:" + ",".join(asked))
    assert result.names == ["mcp__github__create_issue"]
    assert result.missing == tuple(n for n in asked if n != "create_issue")
    for i, name in enumerate(result.missing):
        want = reference_suggest(index.names, name, engine_candidates(index, name))
        assert result.suggestions[name] == (want if i < SUGGESTED_NAMES_MAX else ()), name


# --- 2. the exact-name tier ------------------------------------------------------------------

WORDS = ["alpha", "beta", "gamma", "delta", "disk", "cloud", "local", "remote", "fast", "safe"]


def tier_catalogue() -> list[Tool]:
    tools = []
    for s in range(8):
        for tool in ("read_file", "write_file", "list_dir", "search_graph", "get_status"):
            words = " ".join(WORDS[(s + k) % len(WORDS)] for k in range(s % 3 + 1))
            tools.append(mcp(f"srv{s}", tool, f"{tool.replace('_', ' ')} {words}"))
    tools += [mcp(f"solo{k}", f"unique_tool_{k}", f"unique {WORDS[k]}") for k in range(6)]
    tools.append(Tool(name="read_file", description="plain read file alpha"))
    tools.append(Tool(name="searchGraph", description="graph search beta"))
    return tools


TIER_QUERIES = [
    "read_file write_file",
    "read_file alpha write_file beta list_dir",
    "srv3/read_file read_file srv3 gamma",
    "list_dir read_file write_file search_graph get_status unique_tool_1 unique_tool_4 delta",
    "use `read_file` then searchgraph and srv5.list_dir with cloud",
    "get_status get_status read_file srv1/read_file srv2/read_file srv3/read_file local",
    " ".join(["read_file", "write_file", "list_dir", "search_graph", "get_status"] * 6),
    "+alpha read_file write_file list_dir",
    "+nosuchterm read_file write_file",
    "readfile writefile",
]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_exact_name_tier_equals_the_reference(engine, monkeypatch):
    tools = tier_catalogue()
    index = ToolIndex(tools, engine=engine)
    cases = []
    for query in TIER_QUERIES:
        for limit in (1, 2, 3, 5, 8, 25):
            cases.append((query, {"limit": limit}))
        cases.append((query, {"limit": 4, "exclude": ["mcp__srv0__read_file", "read_file"]}))
        cases.append((query, {"limit": 6, "servers": ["srv2", "srv5", "solo1"]}))
        cases.append((query, {"limit": 3, "ranker": "keyword"}))
        cases.append((query, {"limit": 5, "ranker": "keyword", "servers": ["srv1", "srv3"]}))

    def outcome(query, options):
        result = index.search(query, **options)
        return [(m.name, m.score, m.reason) for m in result], result.notices

    got = [outcome(q, o) for q, o in cases]
    monkeypatch.setattr(NameLookups, "exact_name_tier", reference_tier)
    want = [outcome(q, o) for q, o in cases]
    for case, g, w in zip(cases, got, want):
        assert g == w, case


@pytest.mark.parametrize("engine", ENGINES)
def test_the_exact_name_tier_scores_about_limit_names(engine, monkeypatch):
    # 60 names, each held by two tools: one rest-of-query scoring per name read, and reading
    # stops once the tier is full (before: one scoring per name, each over the whole query).
    tools = []
    for k in range(60):
        tools += [mcp(f"a{k}", f"op{k}_run", f"run op {k} alpha"), mcp(f"b{k}", f"op{k}_run", "x")]
    index = ToolIndex(tools, engine=engine)
    query = " ".join(f"op{k}_run" for k in range(60))
    assert len(index.names.finder.find_names(query)) == 60
    counting = CountingEngine(index._index)
    for holder in (index, index._lookups, index._searcher):  # the index and its collaborators
        monkeypatch.setattr(holder, "_index", counting)
    for limit in (1, 5, 25):
        counting.score_calls = 0
        result = index.search(query, limit=limit, max_query_length=len(query))
        assert [m.reason for m in result] == ["exact_name"] * limit
        assert counting.score_calls <= 2 * limit + 2
    # Filters (an exclude here) cost one more cheap call per name read, still not per name.
    counting.score_calls = 0
    index.search(query, limit=5, exclude=["mcp__a0__op0_run"], max_query_length=len(query))
    assert counting.score_calls <= 3 * 5 + 4


# --- 3. a raw name shared by many servers ---------------------------------------------------

TRICKY = [
    *(mcp(f"srv{i}", "read_file", f"Read a file on server {i}") for i in range(30)),
    mcp("fs", "Read_File", "case variant raw name"),
    mcp("a.b", "read_file", "server with a dot"),
    mcp("a", "b.read_file", "raw name with a dot: a.b.read_file twice"),
    mcp("sp", "read file", "unsafe raw name: its plain form is read_file"),
    mcp("uni", "réad_file", "non-ASCII raw name"),
    mcp("emoji🙂", "read_file", "astral server name"),
    mcp("x", "read-file", "dashed raw name"),
    Tool(name="ReadFile", description="non-MCP tool with an MCP name", mcp_tool_name="read_file"),
    Tool(name="readFile", server="odd", mcp_tool_name="read_file", description="not canonical"),
    Tool(name="mcp__weird__read_file", server="weird", mcp_tool_name="READ_FILE", description="w"),
    Tool(name="read_file", description="a plain tool named read_file"),
    Tool(name="READ_FILE_TOOL", description="other key"),
]


def tricky_names() -> list[str]:
    names = {alias for tool in TRICKY for alias in tool.aliases()}
    for base in ("read_file", "a.b.read_file", "a.b/read_file", "read file", "réad_file"):
        names.update({base, base.upper(), base.swapcase(), base.title(), base.replace("_", "-")})
    names.update({"readfile", "ReadFile", "readFile", "READFILE", "Read_File", "read__file"})
    names.update({"mcp__srv1__read_file", "MCP__SRV1__READ_FILE", "srv1.READ_FILE", "zzz_q"})
    return sorted(names)


@pytest.mark.parametrize("engine", ENGINES)
def test_shared_name_lookups_equal_the_reference(engine):
    index = ToolIndex(TRICKY, engine=engine)
    table = index.names
    names = tricky_names()
    want = [reference_lookup(table, name) for name in names]
    assert [table.lookup(name) for name in names] == want
    assert table.lookup_names(names) == want
    assert table.lookup_names(names + names[::-1]) == want + want[::-1]
    rng = random.Random(2)
    for _ in range(30):
        chosen = rng.sample(names, rng.randint(1, 14))
        query = "select:" + ",".join(chosen)
        for servers in (None, ["srv1", "srv2", "a.b", "odd", "weird"]):
            for max_limit in (25, 3):
                result = index.search(query, 3, servers=servers, max_limit=max_limit)
                got = (result.names, result.missing, result.notices)
                assert got == reference_select(index, query, servers, max_limit), query


@pytest.mark.parametrize("engine", ENGINES)
def test_a_shared_name_reads_each_holder_once(engine, monkeypatch):
    holders = 3000
    tools = [mcp(f"srv{i}", "read_file", f"Read a file on server {i}") for i in range(holders)]
    index = ToolIndex(tools, engine=engine)
    variants = [
        "".join(c.upper() if m >> k & 1 else c for k, c in enumerate("read_file"))
        for m in range(48)
    ]
    built = {"cached": 0, "uncached": 0}
    cached, uncached = toolsift.tools.tool_aliases, names_module._uncached_aliases

    def count(kind, function):
        def counted(*args):
            built[kind] += 1
            return function(*args)

        return counted

    monkeypatch.setattr(toolsift.tools, "tool_aliases", count("cached", cached))
    monkeypatch.setattr(names_module, "_uncached_aliases", count("uncached", uncached))
    result = index.search("select:" + ",".join(variants))
    assert len(result) == 25 and result.missing == ()
    assert result.notices == (f"select: {holders} tools found, returned the first 25",)
    # Before: every spelling built the aliases of every holder (48 x 3,000 calls).
    assert built["cached"] + built["uncached"] <= 50
