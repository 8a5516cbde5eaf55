//! TEMPORARY ASCII tokenizer so the index can be developed; replaced by the real one on merge.
pub fn for_each_token(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !buf.is_empty() {
                f(&buf);
                buf.clear();
            }
            continue;
        }
        if i > 0
            && !buf.is_empty()
            && (chars[i - 1].is_lowercase() || chars[i - 1].is_numeric())
            && c.is_uppercase()
        {
            f(&buf);
            buf.clear();
        }
        buf.extend(c.to_lowercase());
    }
    if !buf.is_empty() {
        f(&buf);
    }
}
pub fn tokenize(text: &str) -> Vec<String> {
    let mut v = Vec::new();
    for_each_token(text, |t| v.push(t.to_string()));
    v
}
