//! Tokenizer throughput on two synthetic corpora (ASCII tool text and mixed-script text), with a
//! reused `Tokenizer` and with the free function. A benchmark, not a test: run it with
//!
//!     cargo run --release --example tokenize_bench
//!
//! With a catalogue TSV (see `build_bench`), it times instead the tokenizer and the english
//! profile's plain terms over every field text of the catalogue, in the best of `rounds`:
//!
//!     cargo run --release --example tokenize_bench -- docs.tsv [rounds]

use std::time::Instant;

use _core::analysis::Profile;
use _core::text::tokenize::{for_each_token, tokenize, Tokenizer};

#[path = "shared/tsv.rs"]
mod tsv;

/// The best of `rounds` passes of `f` over every field text of the catalogue at `path`.
fn bench_catalogue(path: &str, rounds: usize) {
    let (_, docs, _) = tsv::read_catalogue(path);
    let texts: Vec<&str> = docs.iter().flatten().map(|(_, t)| t.as_str()).collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let mut tokenizer = Tokenizer::new();
    let mut run = |name: &str, f: &mut dyn FnMut(&mut Tokenizer, &str, &mut usize)| {
        let (mut best, mut count) = (f64::INFINITY, 0);
        for _ in 0..rounds.max(1) {
            count = 0;
            let t = Instant::now();
            for text in &texts {
                f(&mut tokenizer, text, &mut count);
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{name}: {:.1} ms for {} texts, {:.0} MB/s (checksum {count})",
            best * 1e3,
            texts.len(),
            bytes as f64 / best / 1e6
        );
    };
    run("tokenizer", &mut |tk, text, n| {
        tk.for_each_token(text, |t| *n += t.len())
    });
    run("english terms", &mut |tk, text, n| {
        Profile::English.for_each_term(tk, text, |t| *n += t.len())
    });
}

/// Tokens per second over `texts`, with one reused `Tokenizer` or a fresh one per call.
fn bench(name: &str, texts: &[String], reuse: bool) {
    let mut tokenizer = Tokenizer::new();
    let (mut count, rounds) = (0usize, 20);
    let start = Instant::now();
    for _ in 0..rounds {
        for text in texts {
            if reuse {
                tokenizer.for_each_token(text, |t| count += t.len());
            } else {
                for_each_token(text, |t| count += t.len());
            }
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let tokens: usize = texts.iter().map(|t| tokenize(t).len()).sum::<usize>() * rounds;
    let bytes: usize = texts.iter().map(String::len).sum::<usize>() * rounds;
    let per_text = elapsed * 1e9 / (texts.len() * rounds) as f64;
    println!(
        "{name}: {:.1} M tokens/s, {:.0} MB/s, {per_text:.0} ns/text (checksum {count})",
        tokens as f64 / elapsed / 1e6,
        bytes as f64 / elapsed / 1e6,
    );
}

fn corpus(words: &[&str], n: usize) -> Vec<String> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    (0..n)
        .map(|_| {
            let mut text = String::new();
            while text.len() < 200 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let word = words[(state % words.len() as u64) as usize];
                text.push_str(word);
                text.push(if state & 0x300 == 0 { ',' } else { ' ' });
            }
            text
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(path) = args.get(1) {
        let rounds = args
            .get(2)
            .map_or(9, |r| r.parse().expect("a number of rounds"));
        return bench_catalogue(path, rounds);
    }
    let ascii = [
        "Create",
        "a",
        "new",
        "calendar",
        "event",
        "with",
        "the",
        "given",
        "title",
        "getUserName",
        "XMLHttpRequest",
        "ID",
        "returns",
        "JSON",
        "mcp__github__create_issue",
        "v2",
        "(RFC",
        "5545)",
        "timeZone",
        "Europe/Paris",
        "attendees;",
        "and",
        "of",
        "to",
        "search",
    ];
    let mixed = [
        "Crée",
        "un",
        "événement",
        "«calendrier»",
        "—",
        "Σύνοψη",
        "ΟΔΥΣΣΕΥΣ",
        "東京タワー",
        "予約",
        "🚀",
        "getUserName",
        "naïve",
        "résumé",
        "한국어",
        "ﬁle",
        "ＡＢＣ",
        "the",
        "and",
        "search",
        "Москва",
        "поиск",
        "файлов",
        "JSON",
        "événements",
        "recherche",
    ];
    let (ascii, mixed) = (corpus(&ascii, 20_000), corpus(&mixed, 20_000));
    bench("ascii, reused Tokenizer", &ascii, true);
    bench("ascii, for_each_token", &ascii, false);
    bench("mixed, reused Tokenizer", &mixed, true);
    bench("mixed, for_each_token", &mixed, false);
}
