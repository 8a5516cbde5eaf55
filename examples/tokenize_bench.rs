//! Tokenizer throughput on two synthetic corpora (ASCII tool text and mixed-script text), with a
//! reused `Tokenizer` and with the free function. A benchmark, not a test: run it with
//!
//!     cargo run --release --example tokenize_bench

use _core::text::tokenize::{for_each_token, tokenize, Tokenizer};

/// Tokens per second over `texts`, with one reused `Tokenizer` or a fresh one per call.
fn bench(name: &str, texts: &[String], reuse: bool) {
    let mut tokenizer = Tokenizer::new();
    let (mut count, rounds) = (0usize, 20);
    let start = std::time::Instant::now();
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
