"""``ranker="regex"``: Anthropic ``tool_search_tool_regex``-compatible search, on both engines."""

from __future__ import annotations

import json
import re
import sys
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolsift import PatternError, QueryError, Tool, ToolIndex
from toolsift._pyengine.regex import Automaton
from toolsift._pyengine.regex import RegexIndex as PyRegexIndex
from toolsift._text.case_fold import FOLD
from toolsift._text.regex_pattern import MAX_PATTERN_LENGTH, fold, translate

from tests._cli import cli
from tests.conftest import HAVE_RUST

TOOLS = [
    Tool(
        name="get_weather",
        description="Current weather for a city",
        input_schema={
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name, e.g. Paris"}},
        },
    ),
    Tool(name="send_email", description="Send an e-mail to a recipient"),
    Tool(name="Query_DB", description="Run a SQL query", server="db"),
    Tool(name="ÉCRIRE_FICHIER", description="Écrire un fichier sur le disque"),
    Tool(
        name="list_users",
        description="List the accounts",
        input_schema={"type": "object", "properties": {"weather_station": {"type": "string"}}},
    ),
]


def names(result) -> list[str]:
    return [m.name for m in result]


@pytest.fixture
def index(engine: str) -> ToolIndex:
    return ToolIndex(TOOLS, engine=engine)


def test_fields_rank_name_description_parameter_names_then_descriptions(index):
    result = index.search("weather", ranker="regex")
    # name (offset 4) > parameter name (offset 0) ; the description match of get_weather is
    # not counted: its name matched first.
    assert [(m.name, m.score, m.reason) for m in result] == [
        ("get_weather", 4.0 + 1 / 6, "regex"),
        ("list_users", 2.0 + 1 / 2, "regex"),
    ]
    assert names(index.search("paris", ranker="regex")) == ["get_weather"]
    assert index.search("paris", ranker="regex")[0].score == 1.0 + 1 / (2 + 16)
    assert result.query_kind == "keyword" and result.query == "weather"


def test_case_insensitive_both_ways_and_beyond_ascii(index):
    assert names(index.search("QUERY_db", ranker="regex")) == ["Query_DB"]
    assert names(index.search("écrire_f", ranker="regex")) == ["ÉCRIRE_FICHIER"]
    assert names(index.search("^[É]crire", ranker="regex")) == ["ÉCRIRE_FICHIER"]
    assert names(index.search("(?i)SEND_EMAIL", ranker="regex")) == ["send_email"]
    # [a-z] holds the uppercase letters too; \w is ASCII ([a-zA-Z0-9_]): not É
    ascii_names = ["Query_DB", "get_weather", "list_users", "send_email"]
    assert names(index.search(r"^[a-z]+_[A-Z]+$", ranker="regex", limit=10)) == ascii_names
    assert names(index.search(r"^\w+$", ranker="regex", limit=10)) == ascii_names


def test_ties_break_by_name_and_options_apply(index):
    # "_" at offset 3 in get_weather, 4 in list_users and send_email (a tie: by name)
    assert names(index.search("_", ranker="regex", limit=2)) == ["get_weather", "list_users"]
    assert names(index.search("_", ranker="regex", limit=2, exclude=["get_weather"])) == [
        "list_users",
        "send_email",
    ]
    assert names(index.search(".", ranker="regex", servers=["db"])) == ["Query_DB"]
    gated = index.search("e", ranker="regex", threshold=4.3, limit=10)
    assert names(gated) == ["get_weather", "send_email"]  # "e" at offset 1: 4 + 1/3
    normalized = index.search("weather", ranker="regex", normalize=True)
    assert normalized[0].normalized_score == 1.0
    assert names(index.search("select:send_email", ranker="regex")) == ["send_email"]
    assert index.search("select:send_email", ranker="regex")[0].reason == "select"
    assert names(index.search("zzz", ranker="regex")) == []


def test_search_many_equals_search(index):
    patterns = ["weather", "^send", r"\bsql\b", "select:list_users"]
    many = index.search_many(patterns, ranker="regex", limit=3)
    assert [names(r) for r in many] == [
        names(index.search(p, ranker="regex", limit=3)) for p in patterns
    ]
    with pytest.raises(PatternError):
        index.search_many(["ok", "(?=x)"], ranker="regex")


@pytest.mark.parametrize(
    ("pattern", "position", "words"),
    [
        (r"(a)\1", 3, "backreferences"),
        ("(?P<x>a)(?P=x)", 8, "backreferences"),
        ("ab(?=c)", 2, "look-around"),
        ("ab(?!c)", 2, "look-around"),
        ("(?<=a)b", 0, "look-around"),
        ("(?<!a)b", 0, "look-around"),
        ("(?>a)", 0, "atomic"),
        ("a*+", 2, "possessive"),
        ("a**", 2, "multiple repeat"),
        ("*a", 0, "nothing to repeat"),
        ("^*", 1, "anchor"),
        ("a(?s).", 1, "inline flags"),
        ("a(?i)b", 1, "inline flags"),
        ("(ab", 0, "missing )"),
        ("ab)", 2, "unbalanced"),
        ("[ab", 0, "unterminated"),
        ("[[a]]", 1, "set operations"),
        ("[a&&b]", 2, "set operations"),
        ("[z-a]", 1, "bad character range"),
        (r"\p{L}", 0, "bad escape"),
        (r"\N{DASH}", 0, "bad escape"),
        ("a{1001}", 1, "above 1000"),
        ("(a{50}b{50}){20}", 12, "too large"),
        ("a{3,2}", 1, "min repeat"),
    ],
)
def test_unsupported_syntax_is_refused_with_its_position(index, pattern, position, words):
    with pytest.raises(PatternError) as err:
        index.search(pattern, ranker="regex")
    assert err.value.position == position and err.value.pattern == pattern
    assert words in str(err.value) and f"position {position}" in str(err.value)
    assert isinstance(err.value, QueryError) and isinstance(err.value, ValueError)


def test_length_cap_and_empty_pattern(index):
    ok = "a" * MAX_PATTERN_LENGTH
    assert names(index.search(ok, ranker="regex")) == []
    with pytest.raises(PatternError, match="longer than 200 characters") as err:
        index.search(ok + "a", ranker="regex")
    assert err.value.position == 200
    with pytest.raises(PatternError, match="must not be empty"):
        index.search("", ranker="regex")
    with pytest.raises(QueryError, match="must be a string"):
        index.search(None, ranker="regex")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'bm25', 'keyword' or 'regex'"):
        index.search("a", ranker="regexp")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("hostile", "matching"),
    [
        ("(a+)+$", "(a+)+!$"),
        ("(a|a)*b", "(a|a)*!"),
        ("(a*)*c", "(a*)*!"),
        ("(?:a|aa)+!x", "(?:a|aa)+!"),
        ("(.*a){12}x", "(.*a){12}!"),
    ],
)
def test_hostile_patterns_run_in_linear_time(engine, hostile, matching):
    # Exponential for a backtracking engine (`re` would not finish); both engines here run an
    # automaton. No timing assertion: a regression would hang the suite instead.
    tools = [Tool(name="t", description="a" * 20_000 + "!"), Tool(name="u", description="x")]
    index = ToolIndex(tools, engine=engine)
    assert names(index.search(hostile, ranker="regex")) == []
    assert names(index.search(matching, ranker="regex")) == ["t"]


def test_session_and_cli(capsys, tmp_path):
    from toolsift import DiscoverySession

    session = DiscoverySession(TOOLS)
    found = session.search("e-?mail", limit=2, ranker="regex")
    assert found.activated == ("send_email",)
    with pytest.raises(PatternError):
        session.search("(?=x)", ranker="regex")
    catalog = tmp_path / "tools.jsonl"
    catalog.write_text("\n".join(json.dumps(t.to_dict()) for t in TOOLS), "utf-8")
    code, err, out = cli(
        capsys, "search", "--ranker", "regex", "QUERY_DB$", "--catalog", str(catalog),
        "--format", "toolsearch",
    )  # fmt: skip
    assert code == 0, err
    # the catalogue's server entry makes it an MCP tool: mcp__db__Query_DB
    assert [m["name"] for m in json.loads(out)["matches"]] == ["mcp__db__Query_DB"]
    code, err, _ = cli(capsys, "search", "--ranker", "regex", "a(?=b)", "--catalog", str(catalog))
    assert code != 0 and "look-around is not supported" in err and "position 1" in err


# --- the two engines and Python's re agree ---

_ALPHABET = "abAB_1 é\u00c9\u1e9e\u00df\u212a\u0130\u03a3\u03c3-\n."
_ATOMS = st.sampled_from(
    [
        "a", "b", "A", "É", "é", "k", "ß", "σ", "_", "1", " ", "-", ".", r"\.", r"\w", r"\W",
        r"\d", r"\D", r"\s", r"\S", r"\b", r"\B", "^", "$", r"\A", r"\Z", "[a-c]", "[^a]",
        "[A-Z_]", "[À-ÿ]", r"[\w-]", r"[^\s.]", "[ΣK]", r"\x41", r"\u00e9", r"\n",
    ]
)  # fmt: skip


@st.composite
def patterns(draw, depth: int = 2) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if depth and draw(st.integers(0, 5)) == 0:
            alternatives = draw(st.lists(patterns(depth - 1), min_size=1, max_size=3))
            part = "(" + "|".join(alternatives) + ")"
        else:
            part = draw(_ATOMS)
        if part not in ("^", "$", r"\A", r"\Z", r"\b", r"\B"):
            part += draw(st.sampled_from(["", "", "", "*", "+", "?", "{2}", "{1,3}", "*?"]))
        parts.append(part)
    return "".join(parts)


# Drawn patterns that a search takes: the length cap is tested on its own (below).
accepted_patterns = patterns().filter(lambda p: len(p) <= MAX_PATTERN_LENGTH)

texts = st.text(alphabet=st.sampled_from(_ALPHABET), max_size=24) | st.text(max_size=12)


@given(pattern=accepted_patterns, text=texts)
def test_automaton_matches_python_re(pattern, text):
    """The twin's automaton finds the leftmost match where Python's re finds it (the pattern
    as written for re, over the folded text); for ASCII text without newlines, where re's own
    case-insensitive matching and ours agree, the original pattern under re.IGNORECASE too."""
    checked = translate(pattern)
    folded = fold(text)
    if not text and r"\B" in pattern and sys.version_info < (3, 14):
        return  # re before 3.14 never matches \B in an empty text; 3.14, Rust and we do
    found = re.search(checked.python, folded, re.ASCII)
    assert Automaton(checked.tree).leftmost(folded) == (found.start() if found else None)
    if text.isascii() and pattern.isascii() and "\n" not in text:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = re.search(pattern, text, re.IGNORECASE)
        assert (plain.start() if plain else None) == (found.start() if found else None)


@pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built (pip install -e .)")
@given(
    pattern=accepted_patterns,
    tools=st.lists(
        st.tuples(texts, texts, st.lists(texts, max_size=2), st.lists(texts, max_size=2)),
        min_size=1,
        max_size=6,
    ),
    limit=st.integers(1, 8),
)
def test_engines_return_identical_lists(pattern, tools, limit):
    from toolsift._core import RegexIndex as RustRegexIndex

    columns = (
        [f"{i}{name}" for i, (name, *_) in enumerate(tools)],
        [t[1] for t in tools],
        [t[2] for t in tools],
        [t[3] for t in tools],
    )
    checked = translate(pattern)
    rust = RustRegexIndex(*columns).search(checked.rust, limit)
    python = PyRegexIndex(*columns).search(checked, limit)
    assert rust == python


def test_fold_table_is_one_to_one_and_idempotent():
    assert all(FOLD.get(lower, lower) == lower for lower in FOLD.values())
    assert fold("ÉCRIRE ẞ K İ Σ") == "écrire ß k i σ"
