//! Parity with the Python engine: `tests/data/tokenize_cases.jsonl`, which
//! `scripts/gen_tokenize_cases.py` writes from `python/toolsift/_text/tokenize.py`, read without
//! adding a JSON dependency.

use super::Tokenizer;

enum Json {
    Str(String),
    Num(u64),
    Arr(Vec<Json>),
}

/// Just enough JSON for that file: one-line objects of strings, integers and arrays.
fn parse_object(line: &str) -> Vec<(String, Json)> {
    let mut p = line.chars().peekable();
    let mut fields = Vec::new();
    assert_eq!(p.next(), Some('{'));
    loop {
        skip_ws(&mut p);
        let Json::Str(key) = parse_value(&mut p) else {
            panic!("key in {line}")
        };
        skip_ws(&mut p);
        assert_eq!(p.next(), Some(':'));
        skip_ws(&mut p);
        fields.push((key, parse_value(&mut p)));
        skip_ws(&mut p);
        match p.next() {
            Some(',') => continue,
            Some('}') => return fields,
            other => panic!("{other:?} in {line}"),
        }
    }
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

fn skip_ws(p: &mut Chars) {
    while p.next_if(|c| c.is_ascii_whitespace()).is_some() {}
}

fn parse_value(p: &mut Chars) -> Json {
    match p.next() {
        Some('"') => Json::Str(parse_string(p)),
        Some('[') => {
            let mut items = Vec::new();
            skip_ws(p);
            if p.next_if_eq(&']').is_some() {
                return Json::Arr(items);
            }
            loop {
                skip_ws(p);
                items.push(parse_value(p));
                skip_ws(p);
                match p.next() {
                    Some(',') => continue,
                    Some(']') => return Json::Arr(items),
                    other => panic!("{other:?} in an array"),
                }
            }
        }
        Some(d) if d.is_ascii_digit() => {
            let mut n = u64::from(d as u8 - b'0');
            while let Some(d) = p.next_if(char::is_ascii_digit) {
                n = n * 10 + u64::from(d as u8 - b'0');
            }
            Json::Num(n)
        }
        other => panic!("unexpected {other:?}"),
    }
}

fn parse_string(p: &mut Chars) -> String {
    let mut s = String::new();
    let hex4 = |p: &mut Chars| -> u32 {
        let digits: String = p.take(4).collect();
        u32::from_str_radix(&digits, 16).expect("four hex digits")
    };
    loop {
        match p.next().expect("an unterminated string") {
            '"' => return s,
            '\\' => match p.next().expect("an escape") {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                'r' => s.push('\r'),
                'b' => s.push('\u{8}'),
                'f' => s.push('\u{c}'),
                'u' => {
                    let mut cp = hex4(p);
                    if (0xD800..0xDC00).contains(&cp) {
                        assert_eq!((p.next(), p.next()), (Some('\\'), Some('u')));
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(p) - 0xDC00);
                    }
                    s.push(char::from_u32(cp).expect("no lone surrogate"));
                }
                c => s.push(c),
            },
            c => s.push(c),
        }
    }
}

/// CRC-32/ISO-HDLC (zlib's `crc32`), table-driven.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

fn crc32(crc: u32, bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!crc, |crc, &b| {
        CRC_TABLE[usize::from(crc as u8 ^ b)] ^ (crc >> 8)
    })
}

struct Chunk {
    template: String,
    first: u32,
    last: u32,
    crc32: u64,
}

/// The cases and the code-point chunks of tests/data/tokenize_cases.jsonl.
fn python_engine_data() -> (Vec<(String, Vec<String>)>, Vec<Chunk>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/tokenize_cases.jsonl"
    );
    let data = std::fs::read_to_string(path).expect("tests/data/tokenize_cases.jsonl");
    let (mut cases, mut chunks) = (Vec::new(), Vec::new());
    for line in data.lines().filter(|l| !l.is_empty()) {
        let mut fields = parse_object(line);
        let mut take = |name: &str| {
            let i = fields.iter().position(|(k, _)| k == name)?;
            Some(fields.swap_remove(i).1)
        };
        match (take("text"), take("tokens"), take("template")) {
            (Some(Json::Str(text)), Some(Json::Arr(tokens)), None) => {
                let tokens = tokens.into_iter().map(|t| match t {
                    Json::Str(s) => s,
                    _ => panic!("a token is a string: {line}"),
                });
                cases.push((text, tokens.collect()));
            }
            (None, None, Some(Json::Str(template))) => {
                let mut num = |name| match take(name) {
                    Some(Json::Num(n)) => n,
                    _ => panic!("{name} in {line}"),
                };
                let (first, last, crc32) = (num("first"), num("last"), num("crc32"));
                chunks.push(Chunk {
                    template,
                    first: u32::try_from(first).expect("a code point"),
                    last: u32::try_from(last).expect("a code point"),
                    crc32,
                });
            }
            _ => panic!("unexpected line: {line}"),
        }
    }
    (cases, chunks)
}

#[test]
fn same_tokens_as_the_python_engine() {
    let (cases, _) = python_engine_data();
    assert!(cases.len() >= 1000, "{} cases", cases.len());
    let mut tokenizer = Tokenizer::new();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(text, expected)| {
            let got = tokenizer.tokenize(text);
            (&got != expected).then(|| format!("{text:?}: rust {got:?}, python {expected:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every code point, in the contexts of the file's template, checksummed per chunk of 4096.
#[test]
fn every_code_point_as_in_the_python_engine() {
    let (_, chunks) = python_engine_data();
    let covered: u32 = chunks.iter().map(|c| c.last - c.first + 1).sum();
    assert_eq!(covered, 0x11_0000);
    let check = |chunk: &Chunk| {
        let mut tokenizer = Tokenizer::new();
        let (mut crc, mut buf) = (0, [0u8; 4]);
        for c in (chunk.first..=chunk.last).filter_map(char::from_u32) {
            let text = chunk.template.replace("{0}", c.encode_utf8(&mut buf));
            tokenizer.for_each_token(&text, |t| {
                crc = crc32(crc32(crc, t.as_bytes()), b"\n");
            });
        }
        (u64::from(crc) != chunk.crc32)
            .then(|| format!("code points {:#x}..={:#x} differ", chunk.first, chunk.last))
    };
    // Two threads: this is most of `cargo test`'s time in a debug build.
    let (even, odd): (Vec<_>, Vec<_>) = chunks.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let failures: Vec<String> = std::thread::scope(|s| {
        let other = s.spawn(|| odd.iter().filter_map(|(_, c)| check(c)).collect::<Vec<_>>());
        let mut failures: Vec<_> = even.iter().filter_map(|(_, c)| check(c)).collect();
        failures.extend(other.join().expect("no panic"));
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
