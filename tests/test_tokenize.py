"""The tokenizer: table cases, the reference port as an oracle, and Rust/Python parity.

The reference port (``shared/reference``) computes the seed's rule straight from this
interpreter's ``unicodedata``; our engines use tables generated from Unicode 14.0.0, so tests that
compare non-ASCII text with it run on Python 3.11 (Unicode 14.0.0) only.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys
import unicodedata
import zlib
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from toolsift._text import tokenize as _tokenize
from toolsift._text.tokenize import UNICODE_VERSION, tokenize

ROOT = Path(__file__).resolve().parents[1]
CASES_FILE = ROOT / "tests" / "data" / "tokenize_cases.jsonl"
SLOW = os.environ.get("HYPOTHESIS_PROFILE") == "slow"
ON_UNICODE_14 = unicodedata.unidata_version == UNICODE_VERSION
NOT_UNICODE_14 = (
    f"the reference uses this Python's Unicode {unicodedata.unidata_version}; "
    f"the tables are Unicode {UNICODE_VERSION} (Python 3.11)"
)

CASES = [
    # empty and separators only
    ("", []),
    ("!!! --- ...", []),
    ("  \t\n ", []),
    # camelCase, acronyms, digits
    ("getUserName", ["get", "user", "name"]),
    ("XMLHttpRequest", ["xml", "http", "request"]),
    ("HTTPServer", ["http", "server"]),
    ("ABCdEFg", ["ab", "cd", "e", "fg"]),
    ("parseJSON2XML", ["parse", "json2", "xml"]),
    ("base64Encode", ["base64", "encode"]),
    ("v2API", ["v2", "api"]),
    ("AB1c", ["ab1c"]),
    ("ABc1D", ["a", "bc1", "d"]),
    ("mcp__github__create_issue", ["mcp", "github", "create", "issue"]),
    # accents and marks
    ("café", ["cafe"]),
    ("Ångström", ["angstrom"]),
    ("naïve résumé", ["naive", "resume"]),
    ("e\u0301\u0301B", ["e", "b"]),
    ("İstanbul", ["istanbul"]),
    # CJK and Hangul (NFKD splits syllables into conjoining jamo)
    ("東京タワー", ["東京タワー"]),
    ("東京Tokyo", ["東京tokyo"]),
    ("한국어", ["\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165"]),
    # Greek final sigma
    ("ΟΔΥΣΣΕΥΣ", ["οδυσσευς"]),
    ("ΣΑΣ", ["σας"]),
    ("Σ", ["σ"]),
    ("ΣΣ", ["σς"]),
    ("ΑΣ.ΑΣb", ["ας", "α", "σb"]),
    ("ΑΣΑb", ["ας", "αb"]),
    ("aΣB", ["a", "σb"]),
    ("ΑΣʹ", ["αςʹ"]),
    ("ΑʹΣ", ["αʹς"]),
    ("ʹΣ", ["ʹσ"]),
    # compatibility forms: fullwidth, ligatures, superscripts, circled, units, fractions
    ("ＡＢＣｄｅｆ", ["ab", "cdef"]),
    ("ﬁle", ["file"]),
    ("ﬃ", ["ffi"]),
    ("x²", ["x2"]),
    ("①②", ["12"]),
    ("½", ["1", "2"]),
    ("㎒", ["m", "hz"]),
    ("Ⅻ", ["xii"]),
    ("ℌ𝐀𝐁𝐜", ["ha", "bc"]),
    ("ǅemal", ["dzemal"]),
    ("ŉ", ["ʼn"]),
    ("ẞx", ["ßx"]),
    ("ﷺ", ["صلى", "الله", "عليه", "وسلم"]),
    # halfwidth voiced sound marks decompose to marks and vanish (no break)
    ("ﾊﾟ", ["ハ"]),
    ("aﾞB", ["a", "b"]),
    # non-ASCII separators, lone surrogates
    ("deploy🚀now", ["deploy", "now"]),
    ("co\u00adop", ["co", "op"]),
    ("a\u00a0b", ["a", "b"]),
    ("a\ufffdb\ue000c", ["a", "b", "c"]),
    ("a\ud800b\udfffC", ["a", "b", "c"]),
    ("ΑΣ\ud800", ["ας"]),
    # assigned only after Unicode 14.0: separators here
    ("a\U0001e030b", ["a", "b"]),
]

# Characters where the rule has corners, for biased text.
TRICKY = (
    "aAbBzZ09_-. '"  # ASCII letters, digits, separators
    "\u03a3\u03c3\u03c2\u0391\u03b1\u0386\u03ac\u0390\u1f88\u1fbc"  # Greek, sigma, Lt
    "\u00e9\u00c9\u00f1\u00d8\u0301\u0308\u0345\u20dd\u093f"  # accented Latin, marks
    "\u0130\u0131\u1e9e\u00df\u0149"  # Turkish i, sharp s, n-apostrophe
    "\u02b0\u02b9\u02c6\u3005\u30fc\u0640\u01c5\u01c8\u01c4"  # Lm (case-ignorable), Lt
    "\u6771\u4eac\u4e2d\ud55c\uad6d\uc5b4\u1100\u1161\u11a8\u3131"  # CJK, Hangul
    "\uff21\uff41\uff10\ufb01\ufb03\u00b2\u207f\u2460\u24b6\u24d0\u216b\u217b\u3392\u00bd"
    "\uff8a\uff9f\uff9e\u00a0\u00ad\u200d\u2019\ufffd\ue000\U0001f680"  # kana, separators
    "\U0001d400\U0001d41c\U0001d7ce\U00010400\U00010428\U0001e900\U0001e922"  # astral letters
    "\U0001e030\ua7cb\u1c89\U00031350\u0cf3"  # assigned after Unicode 14.0
    "\ud800\udfff"  # lone surrogates
)

any_text = st.text(st.characters(exclude_categories=()))
tricky_text = st.text(st.sampled_from(TRICKY) | st.characters(exclude_categories=()))
greek_text = st.text(st.sampled_from("ΣΑΒσςʹͅά ά.aB1"))
identifiers = st.text(st.sampled_from("aAbBxXyYzZ019_-. /:"))


@pytest.fixture(scope="module")
def oracle(reference):
    """The reference's tokenize, where it computes what the tables say (Unicode 14.0.0)."""
    if not ON_UNICODE_14:
        pytest.skip(NOT_UNICODE_14)
    return reference.tokenize


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_cases(text, expected):
    assert tokenize(text) == expected


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_cases_are_what_the_reference_says(oracle, text, expected):
    assert oracle(text) == expected


@given(identifiers)
def test_ascii_matches_reference_on_any_python(reference, text):
    assert tokenize(text) == reference.tokenize(text)


@given(any_text)
@example("ΑΣ\ud800Σ")
def test_matches_reference(oracle, text):
    assert tokenize(text) == oracle(text)


@given(tricky_text)
def test_matches_reference_on_tricky_text(oracle, text):
    assert tokenize(text) == oracle(text)


@given(greek_text)
def test_matches_reference_on_final_sigma(oracle, text):
    assert tokenize(text) == oracle(text)


@given(identifiers | tricky_text)
def test_tokens_are_clean(text):
    tokens = tokenize(text)
    assert all(tokens) and not any(ch.isspace() for t in tokens for ch in t)


@given(identifiers)
def test_ascii_fast_path_equals_general_path(text):
    # A private-use character is a separator that the fold leaves non-ASCII.
    assert tokenize(text + "\ue000") == tokenize(text)


@given(tricky_text)
def test_fast_variants_equal_slow_ones(text):
    tables = _tokenize._TABLES or _tokenize._load_tables()
    slow = copy.copy(tables)
    slow.str_lower_agrees = False  # translate() with the tables instead of str.lower()
    slow.bmp = tables.full  # regexes with the non-BMP ranges
    expected = tokenize(text)
    with mock.patch.object(_tokenize, "_TABLES", slow):
        assert tokenize(text) == expected


@given(tricky_text)
def test_lone_surrogates_tokenize_like_replacement_characters(text):
    # What the Rust binding sees: a str converted lossily, surrogates becoming U+FFFD.
    lossy = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    assert tokenize(text) == tokenize(lossy)


def test_ascii_input_does_not_load_the_tables():
    code = (
        "import sys; from toolsift._text.tokenize import tokenize; tokenize('getUserName'); "
        "assert 'toolsift._text.unicode_data' not in sys.modules; tokenize('é'); "
        "assert 'toolsift._text.unicode_data' in sys.modules"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


@pytest.mark.skipif(not ON_UNICODE_14, reason=NOT_UNICODE_14)
def test_generated_tables_are_current():
    """Both committed table files are what the generator makes from this unicodedata now."""
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_unicode_tables.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    tables = gen.build()
    assert gen.RUST_OUT.read_text(encoding="utf-8") == gen.render_rust(*tables)
    assert gen.PY_OUT.read_text(encoding="utf-8") == gen.render_python(*tables)


# Each code point alone and where the rule looks at its neighbours (breaks, acronyms, both
# sides of the Final_Sigma scan), for all of Unicode, in chunks of 4096 code points. The
# spaces between contexts isolate them, so one call per chunk is the same as one per context.
CONTEXTS = "{0} a{0}B A{0}\u03a3 A\u03a3{0} A\u03a3{0}a AB{0}c 1{0}A {0}{0}\u03a3"
# Locally, the chunks with the most structure (Latin to CJK symbols, Hangul to halfwidth
# forms, the mathematical alphanumerics and Adlam); in CI, everything.
FAST_CHUNKS = [*range(0x0, 0x3400, 0x1000), *range(0xA000, 0x10000, 0x1000), 0x1D000, 0x1E000]
CHUNKS = range(0, 0x110000, 0x1000) if SLOW else FAST_CHUNKS


@pytest.mark.parametrize("first", CHUNKS, ids=hex)
def test_every_code_point_matches_reference(oracle, first):
    text = " ".join(CONTEXTS.replace("{0}", chr(cp)) for cp in range(first, first + 0x1000))
    ours, theirs = tokenize(text), oracle(text)
    if ours != theirs:  # find the first code point that differs, for the message
        for cp in range(first, first + 0x1000):
            text = CONTEXTS.replace("{0}", chr(cp))
            assert (hex(cp), tokenize(text)) == (hex(cp), oracle(text))
    assert ours == theirs


def _cases_file():
    with CASES_FILE.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_cases_file_matches_this_engine():
    """tests/data/tokenize_cases.jsonl, which the Rust tests read, is still what we compute."""
    lines = _cases_file()
    cases = [line for line in lines if "text" in line]
    assert len(cases) >= 1000
    assert [tokenize(c["text"]) for c in cases] == [c["tokens"] for c in cases]
    chunks = [line for line in lines if "template" in line]
    assert sum(c["last"] - c["first"] + 1 for c in chunks) == 0x110000
    for chunk in chunks if SLOW else chunks[:2]:
        cps = (cp for cp in range(chunk["first"], chunk["last"] + 1) if not 0xD800 <= cp <= 0xDFFF)
        text = " ".join(chunk["template"].replace("{0}", chr(cp)) for cp in cps)
        tokens = "".join(t + "\n" for t in tokenize(text))
        assert zlib.crc32(tokens.encode()) == chunk["crc32"], hex(chunk["first"])


# The Rust engine, through the binding's toolsift._core.tokenize (lossy str conversion).
needs_core = pytest.mark.skipif(
    importlib.util.find_spec("toolsift._core") is None,
    reason="the extension toolsift._core is not built (maturin develop)",
)


@needs_core
@given(identifiers | tricky_text | any_text)
@example("ΑΣ\ud800Σ")
def test_rust_engine_matches(text):
    from toolsift import _core

    assert _core.tokenize(text) == tokenize(text)


@needs_core
@pytest.mark.parametrize(("text", "expected"), CASES)
def test_rust_engine_cases(text, expected):
    from toolsift import _core

    assert _core.tokenize(text) == expected
