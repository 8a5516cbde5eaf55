//! The catalogue TSV that `benches/dump_synthetic.py` writes, read by the examples: line 1 the
//! field weights; then `name\tfield\ttext\tfield\ttext…` per document.

/// A catalogue: tool names, each tool's `(field id, text)` pairs, and the field weights.
pub type Catalogue = (Vec<String>, Vec<Vec<(usize, String)>>, Vec<f64>);

/// The catalogue in the TSV file at `path`.
pub fn read_catalogue(path: &str) -> Catalogue {
    let text = std::fs::read_to_string(path).expect("a readable UTF-8 TSV file");
    let mut lines = text.lines();
    let weights: Vec<f64> = lines
        .next()
        .unwrap_or_default()
        .split('\t')
        .map(|w| w.parse().expect("a field weight"))
        .collect();
    let mut names = Vec::new();
    let mut docs: Vec<Vec<(usize, String)>> = Vec::new();
    for line in lines {
        let mut parts = line.split('\t');
        names.push(parts.next().unwrap_or_default().to_string());
        let rest: Vec<&str> = parts.collect();
        docs.push(
            rest.chunks(2)
                .map(|c| (c[0].parse().expect("a field id"), c[1].to_string()))
                .collect(),
        );
    }
    (names, docs, weights)
}
