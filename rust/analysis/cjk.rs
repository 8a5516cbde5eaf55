//! The English profile's CJK split: script classes, Hangul recomposition, and the bigrams of
//! Han, Kana and Hangul runs.

/// The script classes of the CJK split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    Han,
    Kana,
    Hangul,
    Other,
}

/// The script class of a character of a token (after the tokenizer's NFKD and lowercasing).
///
/// * Han: U+3005–U+3007 (々 〆 〇), U+3400–U+4DBF, U+4E00–U+9FFF, U+F900–U+FAFF,
///   U+20000–U+3FFFF.
/// * Kana: U+3040–U+309F, U+30A0–U+30FF, U+31F0–U+31FF, U+FF66–U+FF9F, U+1B000–U+1B16F.
/// * Hangul: U+1100–U+11FF, U+3130–U+318F, U+A960–U+A97F, U+AC00–U+D7AF, U+D7B0–U+D7FF,
///   U+FFA0–U+FFDC.
/// * Other: everything else.
pub fn script_of(c: char) -> Script {
    match c as u32 {
        0x3005..=0x3007 | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => Script::Han,
        0x20000..=0x3FFFF => Script::Han,
        0x3040..=0x309F | 0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Script::Kana,
        0x1B000..=0x1B16F => Script::Kana,
        0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xAC00..=0xD7FF => Script::Hangul,
        0xFFA0..=0xFFDC => Script::Hangul,
        _ => Script::Other,
    }
}

/// Hangul composition (Unicode §3.12): an L V pair or an LV syllable and a T.
fn compose_hangul(prev: char, c: char) -> Option<char> {
    let (p, x) = (prev as u32, c as u32);
    if (0x1100..=0x1112).contains(&p) && (0x1161..=0x1175).contains(&x) {
        return char::from_u32(0xAC00 + ((p - 0x1100) * 21 + (x - 0x1161)) * 28);
    }
    if (0xAC00..=0xD7A3).contains(&p) && (p - 0xAC00) % 28 == 0 && (0x11A8..=0x11C2).contains(&x) {
        return char::from_u32(p + (x - 0x11A7));
    }
    None
}

/// Buffers of the CJK split, kept across the tokens of one text.
#[derive(Default)]
pub(super) struct CjkBuffer {
    chars: Vec<char>,
    out: String,
}

impl CjkBuffer {
    /// Calls `f` with the terms of one token (see the module docs).
    pub(super) fn split(&mut self, tok: &str, f: &mut impl FnMut(&str)) {
        if tok.is_ascii() {
            f(tok);
            return;
        }
        self.chars.clear();
        for c in tok.chars() {
            match self.chars.last().and_then(|&p| compose_hangul(p, c)) {
                Some(composed) => {
                    if let Some(last) = self.chars.last_mut() {
                        *last = composed;
                    }
                }
                None => self.chars.push(c),
            }
        }
        let chars = &self.chars;
        let mut start = 0;
        while start < chars.len() {
            let script = script_of(chars[start]);
            let mut end = start + 1;
            while end < chars.len() && script_of(chars[end]) == script {
                end += 1;
            }
            let run = &chars[start..end];
            if script == Script::Other || run.len() == 1 {
                self.out.clear();
                self.out.extend(run);
                f(&self.out);
            } else {
                for pair in run.windows(2) {
                    self.out.clear();
                    self.out.extend(pair);
                    f(&self.out);
                }
            }
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::Profile;

    #[test]
    fn cjk_split_and_hangul_recomposition() {
        let p = Profile::English;
        assert_eq!(
            p.terms("获取天气 weather"),
            ["获取", "取天", "天气", "weather"]
        );
        assert_eq!(p.terms("天气2x"), ["天气", "2x"]);
        assert_eq!(p.terms("東京タワー"), ["東京", "タワ", "ワー"]);
        assert_eq!(p.terms("天"), ["天"]);
        // Syllables survive the tokenizer's NFKD as bigrams of syllables.
        assert_eq!(p.terms("날씨 정보"), ["날씨", "정보"]);
        assert_eq!(p.terms("날씨정보"), ["날씨", "씨정", "정보"]);
        assert_eq!(Profile::Omp.terms("获取天气"), ["获取天气"]);
    }
}
