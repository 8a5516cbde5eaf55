//! The English profile's query stop words and their lookup table.

/// English stop words, dropped from queries by the English profile: the Lucene/Elasticsearch
/// `_english_` list plus common question and request words of agent queries. The Python engine's
/// `toolsift._analysis.STOPWORDS_EN` is the same list (a test compares them).
pub const STOPWORDS_EN: [&str; 86] = [
    "a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been",
    "being", "but", "by", "can", "could", "did", "do", "does", "for", "from", "get", "had", "has",
    "have", "he", "help", "her", "him", "how", "i", "if", "in", "into", "is", "it", "its", "just",
    "me", "my", "need", "no", "not", "of", "on", "or", "our", "please", "she", "should", "so",
    "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "to", "too", "use", "using", "very", "via", "want", "was", "we", "what", "when",
    "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your",
];

/// Whether `term` is one of the English profile's query stop words.
///
/// Every stop word fits in 8 bytes, so each is one `u64` (its bytes, zero-padded), kept in an
/// open-addressing table of `STOP_SLOTS` slots (under 10 % full): a query word costs one
/// multiply and, almost always, one slot read. (A string binary search compared ~7 strings
/// through `memcmp` per query word; a binary search over the integers still took ~7
/// unpredictable branches, ~20 % of a long query's analysis.)
pub fn is_stopword(term: &str) -> bool {
    static TABLE: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    let Some(key) = pack8(term) else {
        return false; // longer than every stop word
    };
    let table = TABLE.get_or_init(|| {
        let mut table = vec![0u64; STOP_SLOTS];
        for w in STOPWORDS_EN {
            let key = pack8(w).expect("stop words are at most 8 bytes");
            let mut i = stop_slot(key);
            while table[i] != 0 {
                i = (i + 1) % STOP_SLOTS;
            }
            table[i] = key;
        }
        table
    });
    // Keys are never 0 (a term has a first byte, and no NUL), the empty slot's value.
    let mut i = stop_slot(key);
    loop {
        match table[i] {
            0 => return false,
            k if k == key => return true,
            _ => i = (i + 1) % STOP_SLOTS,
        }
    }
}

/// Slots of the stop-word table: a power of two, over ten times the stop words.
const STOP_SLOTS: usize = 1024;

/// A packed word's home slot (Fibonacci hashing: the top 10 bits of the product).
fn stop_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - STOP_SLOTS.trailing_zeros())) as usize
}

/// `word`'s bytes as one integer (big-endian, zero-padded, so that distinct words give distinct
/// integers), or `None` past 8 bytes or with a NUL byte (which the tokenizer never emits, and no
/// stop word holds).
fn pack8(word: &str) -> Option<u64> {
    let bytes = word.as_bytes();
    if bytes.len() > 8 {
        return None;
    }
    let mut packed = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        if b == 0 {
            return None;
        }
        packed |= u64::from(b) << (56 - 8 * i);
    }
    Some(packed)
}

/// Every stop word, sorted.
pub fn stopwords() -> impl Iterator<Item = &'static str> {
    STOPWORDS_EN.iter().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopword_lists_are_sorted_and_distinct() {
        let all: Vec<&str> = stopwords().collect();
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(all.len(), 86);
        assert!(is_stopword("the") && is_stopword("would") && !is_stopword("file"));
        // The packed test answers as the list does, on every stop word, their prefixes and
        // extensions, and words past 8 bytes.
        for w in STOPWORDS_EN {
            assert!(is_stopword(w), "{w}");
            for cut in 1..w.len() {
                assert_eq!(
                    is_stopword(&w[..cut]),
                    STOPWORDS_EN.contains(&&w[..cut]),
                    "{w}"
                );
            }
            for more in ["s", "x", "\0", "abcdefgh"] {
                let long = format!("{w}{more}");
                assert_eq!(is_stopword(&long), STOPWORDS_EN.contains(&long.as_str()));
            }
        }
        assert!(!is_stopword("") && !is_stopword("shoulder") && !is_stopword("pleasepls"));
    }
}
