//! Per-character properties read from the generated Unicode tables: the class value of a
//! character, its lowercase mapping, its NFKD decomposition, Hangul syllable decomposition and
//! the final-sigma rule (see `text::tokenize` for how the tokenizer uses them).

use super::unicode_tables::{self as tables, CASED, CASE_IGNORABLE, HAS_LOWER, LL, LU, NUM, SEP};

pub(super) const CAPITAL_SIGMA: char = '\u{3A3}';
pub(super) const SMALL_SIGMA: char = '\u{3C3}';
pub(super) const FINAL_SIGMA: char = '\u{3C2}';

/// Table values of the ASCII characters, in the encoding of `unicode_tables`.
pub(super) const ASCII_VALUES: [u8; 128] = {
    let mut values = [SEP; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        values[i] = if b.is_ascii_uppercase() {
            LU | CASED | HAS_LOWER
        } else if b.is_ascii_lowercase() {
            LL | CASED
        } else if b.is_ascii_digit() {
            NUM
        } else {
            SEP
        };
        i += 1;
    }
    values
};

/// The table value (class and flags) of one character.
#[inline]
pub(super) fn value_of(c: char) -> u8 {
    let cp = c as u32;
    if let Some(&v) = ASCII_VALUES.get(cp as usize) {
        return v;
    }
    if let Some(&v) = bmp_values().get(cp as usize) {
        return v;
    }
    range_value(cp)
}

pub(super) fn range_value(cp: u32) -> u8 {
    let ranges = &tables::CLASS_RANGES;
    let i = ranges.partition_point(|&(_, last, _)| last < cp);
    match ranges.get(i) {
        Some(&(first, _, v)) if first <= cp => v,
        _ => SEP,
    }
}

/// The values of the BMP, expanded from the ranges on first use (64 KiB).
pub(super) fn bmp_values() -> &'static [u8] {
    static BMP: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BMP.get_or_init(|| {
        let mut values = vec![SEP; 0x10000];
        for &(first, last, v) in &tables::CLASS_RANGES {
            for cp in first..=last.min(0xFFFF) {
                if let Some(slot) = values.get_mut(cp as usize) {
                    *slot = v;
                }
            }
        }
        values
    })
}

/// NFKD without marks of a `DECOMP` character (empty for anything else).
pub(super) fn decomposition(c: char) -> &'static [char] {
    let cp = c as u32;
    let Ok(i) = tables::DECOMPOSITIONS.binary_search_by_key(&cp, |&(k, _, _)| k) else {
        return &[];
    };
    let Some(&(_, start, len)) = tables::DECOMPOSITIONS.get(i) else {
        return &[];
    };
    let start = usize::from(start);
    tables::DECOMPOSITION_CHARS
        .get(start..start + usize::from(len))
        .unwrap_or(&[])
}

pub(super) const HANGUL_FIRST: u32 = 0xAC00;
pub(super) const HANGUL_LAST: u32 = 0xD7A3;

/// The conjoining jamo of a precomposed Hangul syllable (Unicode §3.12): L, V and optional T.
pub(super) fn hangul_jamo(c: char) -> [Option<char>; 3] {
    let cp = c as u32;
    if !(HANGUL_FIRST..=HANGUL_LAST).contains(&cp) {
        return [None; 3];
    }
    let s = cp - HANGUL_FIRST;
    let trail = s % 28;
    [
        char::from_u32(0x1100 + s / 588),
        char::from_u32(0x1161 + (s % 588) / 28),
        if trail == 0 {
            None
        } else {
            char::from_u32(0x11A7 + trail)
        },
    ]
}

/// Lowercase of a token character, except U+03A3 (see `final_sigma`).
#[inline]
pub(super) fn lowercase(c: char, value: u8) -> char {
    if value & HAS_LOWER == 0 {
        c
    } else if c.is_ascii() {
        c.to_ascii_lowercase()
    } else {
        match tables::LOWERCASE.binary_search_by_key(&c, |&(upper, _)| upper) {
            Ok(i) => tables::LOWERCASE.get(i).map_or(c, |&(_, lower)| lower),
            Err(_) => c,
        }
    }
}

/// Whether the U+03A3 at `token[i]` is in the Final_Sigma context (CPython's
/// `handle_capital_sigma`, with the token's ends standing for the spaces around it).
pub(super) fn final_sigma(token: &[(char, u8)], i: usize) -> bool {
    let not_ignorable = |&&(_, v): &&(char, u8)| v & CASE_IGNORABLE == 0;
    let before = token
        .get(..i)
        .and_then(|b| b.iter().rev().find(not_ignorable));
    if !matches!(before, Some(&(_, v)) if v & CASED != 0) {
        return false;
    }
    let after = token
        .get(i + 1..)
        .and_then(|a| a.iter().find(not_ignorable));
    !matches!(after, Some(&(_, v)) if v & CASED != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::tokenize::UNICODE_VERSION;
    use crate::text::unicode_tables::{CLASS_MASK, DECOMP};

    #[test]
    fn tables_are_sorted_and_disjoint() {
        let ranges = &tables::CLASS_RANGES;
        assert!(ranges
            .iter()
            .all(|&(first, last, _)| 0x80 <= first && first <= last));
        assert!(ranges.windows(2).all(|w| w[0].1 < w[1].0));
        assert!(tables::DECOMPOSITIONS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(tables::LOWERCASE.windows(2).all(|w| w[0].0 < w[1].0));
        for &(cp, start, len) in &tables::DECOMPOSITIONS {
            let c = char::from_u32(cp).expect("a scalar value");
            assert_eq!(value_of(c) & CLASS_MASK, DECOMP, "{cp:x}");
            let end = usize::from(start) + usize::from(len);
            assert!(end <= tables::DECOMPOSITION_CHARS.len());
        }
        for &(upper, _) in &tables::LOWERCASE {
            assert_ne!(value_of(upper) & HAS_LOWER, 0, "{upper:?}");
        }
        for cp in 0x80..0x1_0000 {
            assert_eq!(
                bmp_values().get(cp as usize),
                Some(&range_value(cp)),
                "{cp:x}"
            );
        }
        assert_eq!(UNICODE_VERSION, "14.0.0");
    }
}
