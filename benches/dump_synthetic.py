"""Writes a synthetic catalogue and its queries as plain text for ``examples/prune_bench.rs``.

    python benches/dump_synthetic.py 100000 /tmp/syn100000.tsv /tmp/synq.txt
    cargo run --release --example prune_bench -- /tmp/syn100000.tsv /tmp/synq.txt 8

A fourth argument ``english`` writes the catalogue as ``ToolIndex``'s english profile indexes it
(its field weights, descriptions included); search it with that profile and its delta:

    python benches/dump_synthetic.py 100000 /tmp/en100000.tsv /tmp/synq.txt english
    DELTA=0.5 cargo run --release --example prune_bench -- /tmp/en100000.tsv /tmp/synq.txt 8 \
        auto english

Line 1 of the TSV holds the field weights; then one line per tool: its name, then field id and
text pairs, tab-separated (tabs and newlines inside texts become spaces).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synthetic import (  # noqa: E402
    FIELD_WEIGHTS,
    profile_setup,
    synthetic_documents,
    synthetic_queries,
)


def main() -> None:
    n, docs_path, queries_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    profile = sys.argv[4] if len(sys.argv) > 4 else "omp"
    if profile == "omp":
        weights, description = list(FIELD_WEIGHTS), False
    else:
        weights, _delta, description = profile_setup(profile)
    names, docs = synthetic_documents(n, description=description)
    clean = str.maketrans("\t\n", "  ")
    with open(docs_path, "w", encoding="utf-8") as fh:
        fh.write("\t".join(map(str, weights)) + "\n")
        for name, fields in zip(names, docs):
            cells = [name] + [f"{f}\t{text.translate(clean)}" for f, text in fields]
            fh.write("\t".join(cells) + "\n")
    with open(queries_path, "w", encoding="utf-8") as fh:
        fh.writelines(q + "\n" for q in synthetic_queries(400))


if __name__ == "__main__":
    main()
