//! Word pairs (`toolsift.FieldWeights.word_pairs`): a text's tokens without the english query
//! stop words, each ASCII token joined to the next and to the one after it, as one token.
//! `toolsift._text.documents.word_pairs` is the pure-Python twin (a Hypothesis test holds them
//! equal).

use super::is_stopword;
use crate::text::tokenize::tokenize;

/// The word pairs of `text`: first every pair of neighbours, then every pair one token apart;
/// a pair of equal tokens is left out. In text that is all ASCII every token pairs; otherwise
/// only the tokens of ASCII letters and digits do.
pub fn word_pairs(text: &str) -> Vec<String> {
    let tokens: Vec<String> = tokenize(text)
        .into_iter()
        .filter(|t| !is_stopword(t))
        .collect();
    let ascii = text.is_ascii();
    let pairable: Vec<bool> = tokens
        .iter()
        .map(|t| ascii || (!t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric())))
        .collect();
    let mut out = Vec::new();
    for gap in [1, 2] {
        for i in gap..tokens.len() {
            let (a, b) = (&tokens[i - gap], &tokens[i]);
            if pairable[i - gap] && pairable[i] && a != b {
                out.push(format!("{a}{b}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_neighbours_then_tokens_one_apart() {
        assert_eq!(
            word_pairs("Generate a word cloud chart"),
            [
                "generateword",
                "wordcloud",
                "cloudchart",
                "generatecloud",
                "wordchart"
            ]
        );
        assert!(word_pairs("a the").is_empty());
        assert_eq!(word_pairs("data data set"), ["dataset", "dataset"]);
    }
}
