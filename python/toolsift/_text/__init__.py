"""Text to terms, shared by both engines and the search layer: the tokenizer (the twin of
``rust/tokenize.rs``) and its Unicode tables, the analysis profiles, a tool's field documents and
field weights, and the keyword scorer's name parts."""
