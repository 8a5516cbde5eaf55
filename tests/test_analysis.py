"""Analysis profiles: the Rust and Python analyses agree (CJK split, stems, stop words), the
stemmers agree on real data, and profiles are validated, stored and reported."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from toolsift import ProfileError, Tool, ToolIndex
from toolsift._pyengine.index import Index as PyIndex
from toolsift._text import analysis as an

from .conftest import HAVE_RUST, require_shared

needs_rust = pytest.mark.skipif(not HAVE_RUST, reason="toolsift._core is not built")

#: Characters around every boundary of the CJK split: Han (with 々 and compatibility
#: ideographs), Kana (with ー, halfwidth and voiced forms), Hangul (syllables, jamo, compatibility
#: jamo, halfwidth), and neighbours from Latin, digits, marks and separators.
CJK_ALPHABET = (
    "获取天气预报東京々〆〇豈𠀀"
    "ひらがなカタカナータｶﾀｶﾅガパ"
    "날씨정보한국어각ㄱㅏﾡ"
    "abcXYZ09éß \u0301-_/"
)
cjk_text = st.text(alphabet=CJK_ALPHABET, max_size=24)
any_text = st.text(max_size=24) | cjk_text
PROFILE = st.sampled_from(["omp", "english"])


@needs_rust
@given(text=any_text, profile=PROFILE, query=st.booleans())
def test_rust_and_python_analyses_agree(text, profile, query):
    from toolsift import _core

    assert _core.analyze(text, profile=profile, query=query) == an.analyze(
        text, profile=profile, query=query
    )


@needs_rust
@given(word=st.from_regex(r"[a-z0-9]{1,20}", fullmatch=True))
def test_rust_and_python_stemmers_agree_on_ascii_words(word):
    from toolsift import _core

    assert _core.analyze(word) == [word, an.stem_copy(word)]


@needs_rust
@pytest.mark.shared_data
def test_stemmers_agree_on_every_token_of_the_shared_catalogues():
    """rust-stemmers 1.2 and snowballstemmer 2.2 are the same Snowball English (PyStemmer 3 is
    not: Snowball 3 changed "evening", "international", ...)."""
    from toolsift import _core, tokenize

    words: set[str] = set()

    def walk(x):
        if isinstance(x, str):
            words.update(tokenize(x))
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(k)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    data = require_shared("data")
    for path in sorted(data.glob("*.jsonl")):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                walk(json.loads(line))
    assert len(words) > 10_000
    text = " ".join(sorted(words))
    assert _core.analyze(text) == an.analyze(text)


@needs_rust
def test_one_stop_word_list():
    from toolsift import _core

    assert _core.STOPWORDS_EN == sorted(an.STOPWORDS_EN)


def test_cjk_split_rules():
    assert an.terms("english", "获取天气 weather") == ["获取", "取天", "天气", "weather"]
    assert an.terms("english", "东京タワー2024年") == ["东京", "タワ", "ワー", "2024", "年"]
    # NFKD splits a syllable into jamo; the split recomposes them: syllable bigrams.
    assert an.terms("english", "날씨정보") == ["날씨", "씨정", "정보"]
    # halfwidth katakana are folded to katakana by NFKD (and voicing marks dropped) first
    assert an.terms("english", "ｶﾀｶﾅ") == an.terms("english", "カタカナ")
    assert an.terms("omp", "获取天气") == ["获取天气"]
    assert an.required_terms("english", "天气预报") == ["天气", "气预", "预报"]
    assert an.required_terms("omp", "天气预报") == ["天气预报"]


def test_query_terms_rules():
    # stop words go, each distinct term once, each followed by its stemmed copy
    assert an.query_terms("english", "how can I list the files, files please") == [
        "list",
        "§list",
        "files",
        "§file",
    ]
    # a copy that an earlier word brought is not asked for again
    assert an.query_terms("english", "files file filing") == ["files", "§file", "file", "filing"]
    # only stop words: all kept
    assert an.query_terms("english", "can you") == ["can", "§can", "you", "§you"]
    assert an.query_terms("omp", "the the file") == ["the", "the", "file"]
    assert an.stem_copy("café") == "§café"  # only all-ASCII terms are stemmed


def test_unknown_profiles_are_typed_errors(engine_index):
    with pytest.raises(ProfileError, match='Unknown analysis profile "klingon"'):
        engine_index(["a"], [[(0, "a")]], [1.0], profile="klingon")
    with pytest.raises(ProfileError):
        ToolIndex([Tool(name="a")], profile="klingon")  # type: ignore[arg-type]
    with pytest.raises(ValueError):  # ProfileError is a ValueError
        an.analyze("x", profile="")


def test_profile_is_reported_and_kept(engine, tmp_path):
    tools = [Tool(name="read_file", description="Reads files"), Tool(name="x", description="y")]
    for profile in ("omp", "english"):
        index = ToolIndex(tools, engine=engine, profile=profile)  # type: ignore[arg-type]
        assert index.profile == profile
        assert f"profile={profile!r}" in repr(index)
        assert f"profile={profile}" in repr(index._index)
        back = ToolIndex.from_bytes(index.to_bytes(), engine=engine)
        assert back.profile == profile
        assert back.search("reading").matches == index.search("reading").matches
        assert index.with_tools(add=[Tool(name="z")]).profile == profile
    assert ToolIndex(tools, engine=engine).profile == "english"


def test_stop_words_and_stems_change_the_ranking(engine):
    tools = [
        Tool(name="list_files", description="Lists the files of a folder"),
        Tool(name="can_opener", description="Opens cans"),
    ]
    english = ToolIndex(tools, engine=engine)
    seed = ToolIndex(tools, engine=engine, profile="omp")
    query = "can you list the files please"
    assert [m.name for m in english.search(query, exact_names=False)] == ["list_files"]
    assert {m.name for m in seed.search(query, exact_names=False)} == {"list_files", "can_opener"}
    # "+required" words are plain terms: never stemmed
    assert english.search("+file folder").matches == ()
    assert [m.name for m in english.search("+files folder")] == ["list_files"]


def test_fallback_engine_needs_no_extension():
    """The python engine's english profile runs on snowballstemmer alone."""
    idx = PyIndex(["a", "b"], [[(0, "running tests")], [(0, "run")]], [1.0], profile="english")
    assert [d for d, _ in idx.search("runs", 5)] == [1, 0]
