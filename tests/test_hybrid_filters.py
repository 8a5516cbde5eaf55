"""HybridIndex.search's server filter (seed 002's ``directory`` filter) and its caps against abuse
(``max_limit``, ``max_query_length``), on a small catalogue with a fake embedder (no model)."""

from __future__ import annotations

import pytest
from toolsift import LimitError, Tool, ToolIndex, default_tools

np = pytest.importorskip("numpy")

from toolsift.evaluation.hybrid_rankers import make_eval_ranker  # noqa: E402
from toolsift.hybrid import MAX_QUERY_CHARS, HybridIndex  # noqa: E402

TOOLS = [
    Tool(name="git_commit", description="Commit staged changes", server="git", mcp_tool_name="c"),
    Tool(name="git_branch", description="Create a new branch", server="git", mcp_tool_name="b"),
    Tool(name="git_log", description="Show the commit history", server="git", mcp_tool_name="l"),
    Tool(name="git_diff", description="Show commit changes", server="git", mcp_tool_name="d"),
    Tool(name="gh_pull", description="Open a pull request", server="github", mcp_tool_name="p"),
    Tool(name="gh_merge", description="Merge a pull request", server="github", mcp_tool_name="m"),
    Tool(name="gh_issue", description="Open an issue", server="github", mcp_tool_name="i"),
    Tool(name="slack_send", description="Send a message", server="slack", mcp_tool_name="s"),
    Tool(name="slack_channels", description="List channels", server="slack", mcp_tool_name="h"),
    Tool(name="slack_upload", description="Upload a file", server="slack", mcp_tool_name="u"),
    Tool(name="slack_user", description="Find a user", server="slack", mcp_tool_name="f"),
    Tool(name="local_note", description="Write a note"),  # no server
]
TOPICS = ("commit", "branch", "pull", "issue", "message", "channel", "file", "user")


class FakeEmbed:
    """One axis per topic word plus a constant one, float32; remembers every text it embeds."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.seen.extend(texts)
        out = np.zeros((len(texts), len(TOPICS) + 1), dtype=np.float32)
        out[:, -1] = 0.1
        for i, text in enumerate(texts):
            for j, word in enumerate(TOPICS):
                if word in text.lower():
                    out[i, j] = 1.0
        return out


def hybrid(**kw) -> tuple[HybridIndex, FakeEmbed]:
    embed = FakeEmbed()
    h = HybridIndex(ToolIndex(TOOLS), embed=embed, cache_dir=False, **kw)
    embed.seen.clear()  # the tool texts
    return h, embed


def servers_of(result) -> set[str | None]:
    return {m.tool.server for m in result}


# --- servers= -----------------------------------------------------------------------------------


def test_servers_filter_in_hybrid_mode() -> None:
    h, _ = hybrid()
    query = "commit a change and open a pull request"
    assert servers_of(h.search(query, 10)) >= {"git", "github"}
    got = h.search(query, 10, servers="github")
    assert got.mode == "hybrid" and len(got) == 3 and servers_of(got) == {"github"}
    assert [m.name for m in got] == [m.name for m in h.search(query, 10, servers=["github"])]
    both = h.search(query, 10, servers=("git", "github"))
    assert servers_of(both) == {"git", "github"} and len(both) == 7
    # a dense-only match of another server does not come back either
    assert servers_of(h.search("send a message", 5, servers="git")) == {"git"}


def test_servers_filter_in_keyword_fallback() -> None:
    plain = HybridIndex(ToolIndex(TOOLS))  # no embeddings: keyword-only
    query = "commit and pull request and message"
    assert servers_of(plain.search(query, 10)) == {"git", "github", "slack"}
    got = plain.search(query, 10, servers="slack")
    assert got.mode == "keyword" and got.note
    assert [m.name for m in got] == ["slack_send"]
    # the lexical list is searched with the filter: what ToolIndex gives for the same servers
    expected = ToolIndex(TOOLS).search(query, 10, servers=["git", "slack"])
    got = plain.search(query, 10, servers=["git", "slack"])
    assert [m.name for m in got] == [m.name for m in expected]
    # a zero query embedding falls back to keywords too, still filtered
    h, _ = hybrid()
    got = h.search("commit or pull", 10, servers="github", query_vector=np.zeros(len(TOPICS) + 1))
    assert got.mode == "keyword" and {m.name for m in got} == {"gh_merge", "gh_pull"}


def test_servers_filter_a_callers_lexical_list() -> None:
    h, _ = hybrid()
    index = h.index
    lexical = index.search("commit pull request message", 25).matches
    assert {m.tool.server for m in lexical} == {"git", "github", "slack"}
    got = h.search("commit pull request message", 10, lexical=lexical, servers="slack")
    assert servers_of(got) == {"slack"} and got[0].name == "slack_send"
    # select: matches of other servers are dropped too (ToolIndex reports them as missing)
    select = index.search("select:git_commit,slack_user").matches
    got = h.search("select:git_commit,slack_user", 2, lexical=select, servers="slack")
    assert got[0].name == "slack_user" and got[0].reason == "select"
    assert "git_commit" not in [m.name for m in got]
    keyword_only = HybridIndex(index)
    got = keyword_only.search("commit pull message", 10, lexical=lexical, servers="git")
    assert got.mode == "keyword" and servers_of(got) == {"git"}


def test_unknown_or_no_servers_match_nothing() -> None:
    h, _ = hybrid()
    for servers in ("nope", [], ["Git"], ["git "]):  # exact names
        assert len(h.search("commit a change", 5, servers=servers)) == 0
        assert len(HybridIndex(h.index).search("commit a change", 5, servers=servers)) == 0
    # a tool without a server matches no server filter
    assert "local_note" in [m.name for m in h.search("write a note", 3)]
    assert "local_note" not in [m.name for m in h.search("write a note", 3, servers="git")]


def test_limit_is_filled_under_a_filter() -> None:
    # Three candidates per list: the dense top 3 for a git query are all git tools, so a filter
    # applied after the cut would leave nothing of slack. Applied before, the limit is filled.
    h, embed = hybrid(candidates=3)
    vector = embed(["commit branch"])[0]
    unfiltered = h.search("commit branch", 3, query_vector=vector)
    assert servers_of(unfiltered) == {"git"}
    got = h.search("commit branch", 3, servers="slack", query_vector=vector)
    assert len(got) == 3 and servers_of(got) == {"slack"}
    assert all(m.reason == "dense" for m in got)
    # dense_search restricts before its top-n as well
    top = h.dense_search(vector, 2, servers="slack")
    assert len(top) == 2 and {TOOLS[d].server for d, _ in top} == {"slack"}
    assert h.dense_search(vector, 2, servers="nope") == []
    # exclusions and the filter together
    got = h.search("commit branch", 3, servers="slack", exclude="slack_send", query_vector=vector)
    assert len(got) == 3 and "slack_send" not in [m.name for m in got]


@pytest.mark.parametrize(
    ("servers", "message"),
    [
        (5, r"servers must be a server name or an iterable of server names, got int"),
        ([5], r"servers must hold server names \(str\), got int"),
        ([b"git"], r"servers must hold server names \(str\), got bytes"),
    ],
)
def test_bad_servers(servers, message) -> None:
    h, embed = hybrid()
    with pytest.raises(TypeError, match=message):
        h.search("commit", servers=servers)
    with pytest.raises(TypeError, match=message):
        h.dense_search(embed(["commit"])[0], 3, servers=servers)
    assert h.search("commit", 1, servers="git")[0].tool.server == "git"


# --- max_limit ----------------------------------------------------------------------------------


def test_limit_above_max_limit_is_clamped_and_reported() -> None:
    h, _ = hybrid()
    query = "commit branch pull issue message channel file user"
    for index in (h, HybridIndex(h.index)):  # hybrid and keyword-only
        got = index.search(query, 10, max_limit=3)
        expected = h.index.search(query, 10, max_limit=3)
        assert len(got) == 3 and got.clamped and not got.truncated
        assert got.notices == expected.notices == ("limit 10 clamped to 3",)
        default = index.search(query, 30)
        assert default.clamped and default.notices == ("limit 30 clamped to 25",)
        plain = index.search(query, 3, max_limit=3)
        assert not plain.clamped and plain.notices == ()
    # select: matches are capped too
    got = h.search("select:git_commit,git_log,gh_pull", 5, max_limit=2)
    assert [m.name for m in got] == ["git_commit", "git_log"] and got.clamped


def test_limit_below_one_stays_a_limit_error() -> None:
    h, _ = hybrid()
    for bad in (0, -1):
        with pytest.raises(LimitError, match=r"^Limit must be a positive integer"):
            h.search("commit", bad)
        with pytest.raises(LimitError, match=r"^Limit must be a positive integer"):
            h.search("commit", 3, max_limit=bad)
    with pytest.raises(LimitError):
        h.search("commit", 3, max_limit=2.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^max_query_length must be an int$"):
        h.search("commit", 3, max_query_length="5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^max_query_length must be an int$"):
        h.search("commit", 3, max_query_length=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^max_query_length must be a positive int, got 0$"):
        h.search("commit", 3, max_query_length=0)
    assert h.search("commit", 1)[0].tool.server == "git"


# --- max_query_length ---------------------------------------------------------------------------


def test_query_is_cut_before_it_is_embedded_and_searched() -> None:
    h, embed = hybrid()
    query = "branch " + "zzz " * 300 + "channel"
    got = h.search(query, 5, max_query_length=40)
    assert embed.seen and max(len(t) for t in embed.seen) <= 40
    assert got.truncated and not got.clamped
    assert got.notices == ("query cut to 40 characters",)
    # "channel" was cut off: neither list saw it
    assert {m.tool.server for m in got if m.lexical is not None} == {"git"}
    assert "slack_channels" not in [m.name for m in got]
    embed.seen.clear()
    whole = h.search(query, 5, max_query_length=5000)
    assert not whole.truncated and "slack_channels" in [m.name for m in whole]
    assert max(len(t) for t in embed.seen) == len(query)
    # the default cap is ToolIndex's 500; the embedder never sees more than MAX_QUERY_CHARS
    embed.seen.clear()
    got = h.search("message " * 400, 3)
    assert got.truncated and got.notices == ("query cut to 500 characters",)
    assert max(len(t) for t in embed.seen) <= 500
    embed.seen.clear()
    h.search("message " * 400, 3, max_query_length=10_000)
    assert max(len(t) for t in embed.seen) == MAX_QUERY_CHARS
    # keyword-only: the lexical side gets the cut query, as ToolIndex cuts it
    plain = HybridIndex(h.index)
    got = plain.search(query, 5, max_query_length=40)
    assert got.truncated and "slack_channels" not in [m.name for m in got]
    assert [m.name for m in got] == [m.name for m in h.index.search(query, 5, max_query_length=40)]


def test_a_short_query_is_embedded_as_given() -> None:
    h, embed = hybrid()
    got = h.search("  send a message  ", 3)
    assert embed.seen == ["  send a message  "] and not got.truncated and got.notices == ()


# --- scores -------------------------------------------------------------------------------------


def test_normalised_scores_keep_full_precision() -> None:
    tools = [Tool(name=f"op_{i}", description=f"commit operation {i % 7}") for i in range(60)]
    vectors = np.random.default_rng(0).normal(size=(60, 8)).astype(np.float32)
    got = HybridIndex(ToolIndex(tools), embeddings=vectors).search(
        "commit operation 3", 10, query_vector=vectors[3]
    )
    scores = [m.score for m in got]
    assert scores[0] == 1.0 and all(0.0 <= s <= 1.0 for s in scores)
    assert any(s != round(s, 4) for s in scores)  # not rounded to seed 002's 4 decimals


# --- the evaluation harness stays uncapped -------------------------------------------------------


def test_evaluation_rankers_are_not_capped() -> None:
    tools = default_tools()
    assert len(tools) > 100
    embed = FakeEmbed()
    for spec in ("hybrid-minmax", "hybrid-rrf", "dense"):
        rank = make_eval_ranker(spec, tools, embedder=embed)
        got = rank("create a pull request and send a message", 100)
        assert len(got) == 100 and len(set(got)) == 100
    rank = make_eval_ranker("hybrid-minmax", tools, embedder=embed)
    embed.seen.clear()
    long_query = "open a pull request " * 60  # 1,200 characters: above the agent cap of 500
    assert len(rank(long_query, 50)) == 50
    assert max(len(t) for t in embed.seen) == len(long_query)  # embedded whole, not cut to 500
    # the same ranking as an explicit uncapped search
    hybrid_index = HybridIndex(ToolIndex(tools), embed=embed, cache_dir=False)
    pos = {t.name: i for i, t in enumerate(tools)}
    query = "send a message"
    explicit = hybrid_index.search(query, 60, max_limit=60)
    assert rank(query, 60) == [pos[m.name] for m in explicit]
