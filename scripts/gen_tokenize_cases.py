"""Write tests/data/tokenize_cases.jsonl: inputs and the Python engine's tokens for them.

Usage (from the repository root): ``python scripts/gen_tokenize_cases.py``

The Rust tests (``rust/text/tokenize/python_parity.rs``) read the file and check that the Rust
tokenizer gives the same tokens; ``tests/test_tokenize.py`` checks that the Python engine still
does. Together they keep the two engines equal without building the extension. Each line is a
JSON object, either

* ``{"text": ..., "tokens": [...]}``: a case (random strings, biased toward tricky characters),
* ``{"template": ..., "first": ..., "last": ..., "crc32": ...}``: for every code point ``c``
  from ``first`` to ``last`` except surrogates, in order, the tokens of
  ``template.replace("{0}", c)``, each followed by ``"\\n"``, UTF-8 encoded and checksummed with
  CRC-32 (zlib's). These lines cover the whole code space, 4096 code points per line.

Inputs hold no lone surrogates, which a Rust ``&str`` cannot (the binding turns them into
U+FFFD, a separator, as the Python engine treats them).
"""

from __future__ import annotations

import json
import random
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from toolsift._text.tokenize import tokenize  # noqa: E402

OUT = ROOT / "tests" / "data" / "tokenize_cases.jsonl"

# Each code point in the contexts where the rule looks at its neighbours: breaks, acronyms,
# and both sides of the Final_Sigma scan.
TEMPLATE = "{0} a{0}B A{0}\u03a3 A\u03a3{0} A\u03a3{0}a \u0391{0}\u03a3 AB{0}c 1{0}A {0}{0}\u03a3"

TRICKY = (
    "aAbBzZ09_-. '"  # ASCII letters, digits, separators
    "\u03a3\u03c3\u03c2\u0391\u03b1\u0386\u03ac\u0390\u1f88\u1f80"  # Greek, sigma, Lt
    "\u00e9\u00c9\u0301\u0345\u20dd\u0130\u0131\u1e9e\u00df\u0149"  # accents, marks, Turkish
    "\u02b0\u02b9\u02c6\u3005\u30fc\u0640\u01c5\u01c4"  # Lm (case-ignorable), Lt, Lu digraph
    "\u6771\u4eac\ud55c\uad6d\u1100\u1161\u11a8\u3131"  # CJK, Hangul syllables and jamo
    "\uff21\uff41\uff10\ufb01\ufb03\u00b2\u2460\u2167\u2171\u3392\u00bd"  # compatibility forms
    "\uff8a\uff9f\uff9e\u00a0\u00ad\u200d\u2019\ufffd\ue000\U0001f680"  # kana, spaces, symbols
    "\U0001d400\U0001d41c\U0001d7ce\U00010400\U00010428\U0001e900\U0001e922"  # astral letters
    "\U0001e030\ua7cb\u1c89\U00031350\u0cf3"  # assigned after Unicode 14: separators here
)


def random_identifier(rng: random.Random) -> str:
    words = ["get", "user", "name", "http", "json", "xml", "id", "v2", "api", "mcp", "tool"]
    out = []
    for _ in range(rng.randint(1, 4)):
        w = rng.choice(words)
        style = rng.randrange(4)
        out.append(w.upper() if style == 0 else w.capitalize() if style == 1 else w)
        if rng.random() < 0.3:
            out.append(rng.choice(["_", "-", "__", " ", ".", "/", "2", "9"]))
    return "".join(out)


def random_text(rng: random.Random) -> str:
    kind = rng.randrange(4)
    n = rng.randint(0, 24)
    if kind == 0:
        return random_identifier(rng)
    if kind == 1:
        return "".join(rng.choice(TRICKY) for _ in range(n))
    if kind == 2:
        alphabet = "ΣΑΒσςʹͅ ά.a"
        return "".join(rng.choice(alphabet) for _ in range(n))
    chars = []
    for _ in range(n):
        cp = rng.choice([rng.randrange(0x80), rng.randrange(0x3000), rng.randrange(0x110000)])
        chars.append(chr(cp) if not 0xD800 <= cp <= 0xDFFF else "\ufffd")
    return "".join(chars)


def code_point_crc32s(template: str) -> list[dict]:
    out = []
    for first in range(0, 0x110000, 0x1000):
        last = first + 0xFFF
        cps = [cp for cp in range(first, last + 1) if not 0xD800 <= cp <= 0xDFFF]
        # One call per chunk: the spaces between contexts isolate them completely.
        text = " ".join(template.replace("{0}", chr(cp)) for cp in cps)
        crc = zlib.crc32("".join(t + "\n" for t in tokenize(text)).encode())
        out.append({"template": template, "first": first, "last": last, "crc32": crc})
    return out


def main() -> int:
    rng = random.Random(20240501)
    texts = [random_text(rng) for _ in range(3000)]
    lines = [json.dumps(line, ensure_ascii=False) for line in code_point_crc32s(TEMPLATE)]
    lines += [json.dumps({"text": t, "tokens": tokenize(t)}, ensure_ascii=False) for t in texts]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(lines)} lines, {OUT.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
