"""Generate the tokenizer's Unicode tables for both engines from Python 3.11's unicodedata (14.0.0).

Usage (from the repository root, under Python 3.11):

    python scripts/gen_unicode_tables.py          # rewrite both files
    python scripts/gen_unicode_tables.py --check  # exit 1 if either file is stale

Writes ``rust/text/unicode_tables.rs`` and ``python/toolsift/_text/unicode_data.py``. Both engines
use only these tables for non-ASCII text, so they tokenize identically whatever the Python
version or the Rust standard library's Unicode version. The pinned version is the one the reference
tokenizer runs on (Python 3.11), which keeps the engines equal to it there.

What is derived, per code point ``c`` (see ``rust/text/tokenize.rs`` for how it is used):

* class: the general category, bucketed into Lu, Ll, other letter (Lt, Lm, Lo), number (N*), mark
  (M*), or separator (everything else: P*, S*, Z*, C*, and every code point unassigned in 14.0);
* the decomposition ``NFKD(c)`` with marks removed, where that differs from ``c`` (class DECOMP);
  Hangul syllables are decomposed algorithmically instead (class HANGUL);
* for token characters (letters and numbers that NFKD leaves alone): the simple lowercase mapping,
  and the two properties the Final_Sigma rule reads, Cased and Case_Ignorable. Python has no API
  for those, so they are measured from ``str.lower()`` itself (see ``case_kind``).

Every assumption the tokenizer relies on is asserted here, so a Unicode upgrade that breaks one
fails loudly instead of generating wrong tables.
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUST_OUT = ROOT / "rust" / "text" / "unicode_tables.rs"
PY_OUT = ROOT / "python" / "toolsift" / "_text" / "unicode_data.py"
UNIDATA_VERSION = "14.0.0"

# Value encoding, shared by both outputs: bits 0-2 hold the class, the rest are flags.
SEP, LU, LL, LO, NUM, MARK, DECOMP, HANGUL = range(8)
CLASS_NAMES = ["SEP", "LU", "LL", "LO", "NUM", "MARK", "DECOMP", "HANGUL"]
CLASS_MASK = 0x07
CASED = 0x08  # Cased and not Case_Ignorable: stops the Final_Sigma scan as "cased"
CASE_IGNORABLE = 0x10  # skipped by the Final_Sigma scan
HAS_LOWER = 0x20  # the LOWERCASE table has an entry for this character

HANGUL_FIRST, HANGUL_LAST = 0xAC00, 0xD7A3
SIGMA = "\u03a3"


def category_class(c: str) -> int:
    cat = unicodedata.category(c)
    if cat == "Lu":
        return LU
    if cat == "Ll":
        return LL
    if cat[0] == "L":
        return LO
    if cat[0] == "N":
        return NUM
    if cat[0] == "M":
        return MARK
    return SEP


def drop_marks(s: str) -> str:
    return "".join(x for x in s if category_class(x) != MARK)


def hangul_decomposition(cp: int) -> str:
    s = cp - HANGUL_FIRST
    lead, vowel, trail = 0x1100 + s // 588, 0x1161 + (s % 588) // 28, 0x11A7 + s % 28
    return chr(lead) + chr(vowel) + (chr(trail) if trail != 0x11A7 else "")


def case_kind(c: str) -> int:
    """CASED, CASE_IGNORABLE or 0, measured from CPython's Final_Sigma handling.

    CPython's ``handle_capital_sigma`` (Objects/unicodeobject.c) lowercases U+03A3 to U+03C2 when,
    skipping Case_Ignorable characters, the nearest character before it is Cased and the nearest one
    after it (if any) is not. It reads Cased only on characters that are not Case_Ignorable, so
    three kinds are all the rule can tell apart, and three probes measure them:

    * ``"A" + c + "Σ"`` ends in final sigma iff c is Case_Ignorable (skipped; "A" is cased)
      or Cased;
    * ``c + "Σ"`` ends in final sigma iff c is Cased and not Case_Ignorable;
    * ``"AΣ" + c`` has a final sigma iff c is Case_Ignorable or not Cased (a consistency check).
    """
    x = ("A" + c + SIGMA).lower()[-1] == "\u03c2"
    y = (c + SIGMA).lower()[-1] == "\u03c2"
    z = ("A" + SIGMA + c).lower()[1] == "\u03c2"
    if y:
        assert x and not z, hex(ord(c))
        return CASED
    if x:
        assert z, hex(ord(c))
        return CASE_IGNORABLE
    assert z, hex(ord(c))
    return 0


def build():
    assert unicodedata.unidata_version == UNIDATA_VERSION, (
        f"run under Python 3.11 (unicodedata {UNIDATA_VERSION}), not {unicodedata.unidata_version}"
    )
    # A space (what the reference turns separators and token breaks into) is neither Cased nor
    # Case_Ignorable, so token edges stop the Final_Sigma scan like the ends of the string do.
    assert case_kind(" ") == 0
    assert (SIGMA + SIGMA).lower() == "\u03c3\u03c2"

    values = [SEP] * 0x110000
    decompositions: dict[int, str] = {}
    lowercase: dict[int, int] = {}
    for cp in range(0x110000):
        c = chr(cp)
        cls = category_class(c)
        # Canonical reordering (the only step of NFKD that looks beyond one character) only moves
        # characters with a non-zero combining class; they are all marks and get dropped, so
        # NFKD-then-drop-marks of a string is the concatenation of it over its characters.
        assert unicodedata.combining(c) == 0 or cls == MARK, hex(cp)
        if HANGUL_FIRST <= cp <= HANGUL_LAST:
            assert unicodedata.normalize("NFKD", c) == hangul_decomposition(cp)
            values[cp] = HANGUL
            continue
        if cls == MARK:
            values[cp] = MARK
            continue
        mapped = drop_marks(unicodedata.normalize("NFKD", c))
        if mapped != c:
            assert cp >= 0x80
            values[cp] = DECOMP
            decompositions[cp] = mapped
            continue
        value = cls
        if cls in (LU, LL, LO, NUM):
            value |= case_kind(c)
            low = c.lower()
            assert not c.isspace() and not low.isspace(), hex(cp)
            if low != c:
                # A token character lowercases to exactly one character (U+0130, the only
                # multi-character lowercase mapping, is not a token character: NFKD splits it).
                assert len(low) == 1, hex(cp)
                value |= HAS_LOWER
                lowercase[cp] = ord(low)
        values[cp] = value

    # Decompositions map to token characters and separators that are their own NFKD.
    for cp, mapped in decompositions.items():
        for x in mapped:
            assert values[ord(x)] & CLASS_MASK not in (MARK, DECOMP, HANGUL), hex(cp)
    for cp in range(HANGUL_FIRST, HANGUL_LAST + 1):
        for x in hangul_decomposition(cp):
            assert values[ord(x)] == LO, hex(cp)
    # ASCII is handled by code in both engines; check that it is what that code assumes.
    for cp in range(0x80):
        c = chr(cp)
        want = LU | CASED | HAS_LOWER if c.isupper() else LL | CASED if c.islower() else NUM
        want = want if c.isalnum() else SEP
        assert values[cp] == want, hex(cp)
    return values, decompositions, lowercase


def ranges(values, keep):
    """[(first, last, value)] for code points >= 0x80 whose value satisfies keep."""
    out = []
    for cp in range(0x80, 0x110000):
        v = values[cp]
        if not keep(v):
            continue
        if out and out[-1][1] == cp - 1 and out[-1][2] == v:
            out[-1][1] = cp
        else:
            out.append([cp, cp, v])
    return out


def rust_char(cp: int) -> str:
    return f"'\\u{{{cp:x}}}'"


def py_str(s: str) -> str:
    return '"' + "".join(c if " " <= c <= "~" and c not in '"\\' else esc(c) for c in s) + '"'


def esc(c: str) -> str:
    cp = ord(c)
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


HEADER = "Generated by scripts/gen_unicode_tables.py from Unicode {v} (Python {p}). Do not edit."


def render_rust(values, decompositions, lowercase) -> str:
    head = HEADER.format(v=UNIDATA_VERSION, p="3.11")
    classes = ranges(values, lambda v: v != SEP)
    pool: list[int] = []
    index = []
    for cp in sorted(decompositions):
        mapped = [ord(x) for x in decompositions[cp]]
        index.append((cp, len(pool), len(mapped)))
        pool.extend(mapped)
    assert len(pool) < 0x10000 and max(n for _, _, n in index) < 0x100
    lines = [
        f"//! {head}",
        "//!",
        "//! The tokenizer's tables; `rust/text/tokenize.rs` documents how they are used.",
        "//! Regenerate with `python3.11 scripts/gen_unicode_tables.py`.",
        "//! Code points below U+0080 are handled in code.",
        "",
        f'pub const UNICODE_VERSION: &str = "{UNIDATA_VERSION}";',
        "",
        "// A value is a class (bits 0-2) and flags.",
    ]
    for i, name in enumerate(CLASS_NAMES):
        lines.append(f"pub const {name}: u8 = {i};")
    lines += [
        f"pub const CLASS_MASK: u8 = 0x{CLASS_MASK:02X};",
        "/// Cased and not Case_Ignorable (a Final_Sigma stop that counts as cased).",
        f"pub const CASED: u8 = 0x{CASED:02X};",
        "/// Case_Ignorable (skipped by the Final_Sigma scan).",
        f"pub const CASE_IGNORABLE: u8 = 0x{CASE_IGNORABLE:02X};",
        "/// The character has an entry in `LOWERCASE`.",
        f"pub const HAS_LOWER: u8 = 0x{HAS_LOWER:02X};",
        "",
        "/// `(first, last, value)`, sorted and disjoint; a code point in no range is a `SEP`.",
        f"pub static CLASS_RANGES: [(u32, u32, u8); {len(classes)}] = [",
    ]
    lines += [f"    (0x{a:X}, 0x{b:X}, 0x{v:02X})," for a, b, v in classes]
    lines += [
        "];",
        "",
        "/// `(code point, start, len)`, sorted: the code point's NFKD without marks is",
        "/// `DECOMPOSITION_CHARS[start..start + len]`. Hangul syllables are not listed.",
        f"pub static DECOMPOSITIONS: [(u32, u16, u8); {len(index)}] = [",
    ]
    lines += [f"    (0x{cp:X}, {s}, {n})," for cp, s, n in index]
    lines += ["];", "", f"pub static DECOMPOSITION_CHARS: [char; {len(pool)}] = ["]
    lines += [f"    {rust_char(cp)}," for cp in pool]
    lines += [
        "];",
        "",
        "/// `(character, lowercase)`, sorted by character: Python 3.11's `str.lower()` of each",
        "/// non-ASCII token character it changes. U+03A3 maps to U+03C3 here; Final_Sigma is",
        "/// code.",
        f"pub static LOWERCASE: [(char, char); {len(lowercase)}] = [",
    ]
    lines += [f"    ({rust_char(cp)}, {rust_char(lo)})," for cp, lo in sorted(lowercase.items())]
    lines += ["];", ""]
    return "\n".join(lines)


def render_python(values, decompositions, lowercase) -> str:
    head = HEADER.format(v=UNIDATA_VERSION, p="3.11")
    classes = ranges(values, lambda v: v != SEP)
    # Assigned separators, so that the Python engine can fold them to spaces with str.translate.
    seps = ranges(
        [
            1 if v == SEP and unicodedata.category(chr(cp)) not in ("Cn", "Co", "Cs") else 0
            for cp, v in enumerate(values)
        ],
        lambda v: v == 1,
    )
    lines = [
        f'"""{head}',
        "",
        "The tokenizer's tables; ``_tokenize.py`` documents how they are used.",
        "Regenerate with ``python3.11 scripts/gen_unicode_tables.py``.",
        "Code points below U+0080 are handled in code.",
        '"""',
        "",
        f'UNICODE_VERSION = "{UNIDATA_VERSION}"',
        "",
        "# A value is a class (bits 0-2) and flags.",
    ]
    for i, name in enumerate(CLASS_NAMES):
        lines.append(f"{name} = {i}")
    lines += [
        f"CLASS_MASK = 0x{CLASS_MASK:02X}",
        f"CASED = 0x{CASED:02X}  # Cased and not Case_Ignorable",
        f"CASE_IGNORABLE = 0x{CASE_IGNORABLE:02X}",
        f"HAS_LOWER = 0x{HAS_LOWER:02X}  # has an entry in LOWERCASE",
        "",
        "# (first, last, value), sorted and disjoint; a code point in no range is a SEP.",
        "CLASS_RANGES = (",
    ]
    lines += [f"    (0x{a:X}, 0x{b:X}, 0x{v:02X})," for a, b, v in classes]
    lines += [
        ")",
        "",
        "# (first, last): the assigned separators (SEP minus unassigned, private use, surrogates).",
        "ASSIGNED_SEPARATORS = (",
    ]
    lines += [f"    (0x{a:X}, 0x{b:X})," for a, b, _ in seps]
    lines += [
        ")",
        "",
        "# code point -> NFKD without marks, where that differs (Hangul syllables not listed).",
        "DECOMPOSITIONS = {",
    ]
    for cp, s in sorted(decompositions.items()):
        line = f"    0x{cp:X}: {py_str(s)},"
        lines.append(line if len(line) <= 100 else line + "  # noqa: E501")
    lines += [
        "}",
        "",
        "# code point -> code point: str.lower() of each non-ASCII token character it changes.",
        "# U+03A3 maps to U+03C3 here; the Final_Sigma rule is code.",
        "LOWERCASE = {",
    ]
    lines += [f"    0x{cp:X}: 0x{lo:X}," for cp, lo in sorted(lowercase.items())]
    lines += ["}", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if an output is stale")
    args = parser.parse_args()
    tables = build()
    stale = []
    for path, text in ((RUST_OUT, render_rust(*tables)), (PY_OUT, render_python(*tables))):
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)} ({len(text) // 1024} KiB)")
    for path in stale:
        print(f"stale: {path.relative_to(ROOT)}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
