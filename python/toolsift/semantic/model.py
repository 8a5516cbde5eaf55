"""The semantic stage's embedding model: a static encoder, and which one a ``ToolIndex`` uses.

:class:`StaticEncoder` turns a text into a unit vector as model2vec does: each token of the text
looks up one row of a table, and the text's vector is the mean of those rows, normalised. No
neural network runs at search time, so a query embeds in tens of microseconds.

The table is wordllama's ``l2_supercat`` token embeddings (the PyPI package ``wordllama``, MIT:
its weights install with it, nothing is downloaded), read from the installed package without
importing it, with its tokenizer run by ``tokenizers`` word by word (:class:`WordMemo`). It won
the measured comparison of BENCHMARKS.md ("Choosing the semantic model") against tables toolsift
distilled from all-MiniLM-L6-v2 (``scripts/distill_static_model.py``). toolsift adapts it to
tool search (:data:`ADAPTER_FILE`, fitted on the train splits by ``scripts/fit_encoder.py``): a
256 x 256 projection, applied to every row once at load (:func:`adapt_rows`).

:func:`resolve` maps the ``semantic=`` switch (``True``, ``False`` or ``"auto"``) to an encoder
or ``None``: ``"auto"`` follows ``$TOOLSIFT_SEMANTIC`` (``on``, ``off`` or ``auto``) and is on
when the ``toolsift[semantic]`` extra (``numpy``, ``tokenizers``, ``wordllama``) is installed. A
model that cannot load leaves the index on BM25+ with one :class:`~toolsift.errors.SemanticWarning`.

Example:
    >>> encoder = resolve(True)  # doctest: +SKIP
    >>> encoder.encode(["read a file"]).shape  # doctest: +SKIP
    (1, 256)
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import threading
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union

from ..errors import SemanticWarning

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ADAPTER_FILE",
    "ENV_VAR",
    "MODEL_ID",
    "Semantic",
    "StaticEncoder",
    "WordMemo",
    "adapt_rows",
    "check_semantic",
    "default_encoder",
    "load_adapter",
    "resolve",
    "warn_once",
]

#: The switch of ``ToolIndex(semantic=...)``.
Semantic = Union[bool, Literal["auto"]]
#: The environment variable that decides what ``semantic="auto"`` means.
ENV_VAR = "TOOLSIFT_SEMANTIC"
#: The model: wordllama's ``l2_supercat`` static token embeddings (package ``wordllama``, MIT).
MODEL_NAME = "wordllama-l2_supercat"
#: Its dimensions used (the first ones of 256: the model is trained Matryoshka-style).
DIM = 256
#: toolsift's adaptation of the table, fitted on the train splits (``scripts/fit_encoder.py``):
#: a weight per token row and a linear map of the pooled vector, in ``semantic/data``.
ADAPTER_FILE = "adapter.npz"
#: The adapted model's name (the plain table's is :data:`MODEL_NAME` and its dimensions).
ADAPTED_NAME = "toolsift-adapted-2"
#: The model's identity (stored with tool vectors in snapshots).
MODEL_ID = f"{MODEL_NAME}-{DIM}-{ADAPTED_NAME}"
#: The weight and tokenizer files, in the installed ``wordllama`` package.
WEIGHTS_FILE = "l2_supercat_256.safetensors"
TOKENIZER_FILE = "l2_supercat_tokenizer_config.json"
#: Tokens read of one text at most (a long description's tail adds little to its mean).
MAX_TOKENS = 512
#: Words whose token ids are remembered at most (the memo is cleared when full).
MEMO_SIZE = 200_000

_ON = frozenset({"on", "1", "true", "yes"})
_OFF = frozenset({"off", "0", "false", "no"})
_MISSING = "pip install 'toolsift[semantic]'"


def check_semantic(semantic: object) -> Semantic:
    """``semantic`` checked: ``True``, ``False`` or ``"auto"``.

    Raises:
        ValueError: anything else (a ``TypeError`` for a non-bool, non-str value).

    Example:
        >>> check_semantic("auto"), check_semantic(False)
        ('auto', False)
    """
    if semantic is True or semantic is False or semantic == "auto":
        return semantic  # type: ignore[return-value]
    if isinstance(semantic, str):
        raise ValueError(f"semantic must be True, False or 'auto', got {semantic!r}")
    raise TypeError(f"semantic must be True, False or 'auto', got {type(semantic).__name__}")


def _env_mode() -> Semantic:
    raw = os.environ.get(ENV_VAR, "auto").strip().lower()
    if raw in _ON:
        return True
    if raw in _OFF:
        return False
    if raw not in ("", "auto"):
        warn_once(
            f"env:{raw}",
            f"{ENV_VAR}={raw!r} is not on, off or auto: treated as auto.",
        )
    return "auto"


_WARNED: set[str] = set()
_WARN_LOCK = threading.Lock()


def warn_once(key: str, message: str) -> None:
    """A :class:`~toolsift.errors.SemanticWarning` with ``message``, once per process and
    ``key`` (a cause: a model that cannot load, an embedder that fails).

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     warn_once("doc-example", "first"); warn_once("doc-example", "again")
        >>> [str(w.message) for w in caught]
        ['first']
    """
    with _WARN_LOCK:
        if key in _WARNED:
            return
        _WARNED.add(key)
    warnings.warn(message, SemanticWarning, stacklevel=3)


class WordMemo:
    """A ``tokenizers.Tokenizer`` applied word by word, each word's ids remembered.

    A query is a few words, and the words of queries and tools repeat: a remembered word costs
    a dict lookup, where one call into ``tokenizers`` costs about 0.1 ms. Words not seen yet
    are tokenized together in one batch call. A text's words are its whitespace-separated
    parts, each tokenized as the tokenizer tokenizes a word after a space. ``known`` seeds the
    memo (say, every word that is one token of the vocabulary), so that most words of a query
    are found even the first time.

    Example:
        >>> from tokenizers import Tokenizer, models
        >>> memo = WordMemo(Tokenizer(models.WordLevel({"a": 0, "b": 1, "?": 2}, "?")))
        >>> memo.ids("a b c"), memo.batch_ids(["b", ""])
        ([0, 1, 2], [[1], []])
    """

    def __init__(self, tokenizer: Any, known: Mapping[str, tuple[int, ...]] | None = None) -> None:
        self._tokenizer = tokenizer
        self._known = dict(known or {})
        self._memo: dict[str, tuple[int, ...]] = dict(self._known)

    def _learn(self, words: Sequence[str]) -> None:
        memo = self._memo
        if len(memo) + len(words) > MEMO_SIZE + len(self._known):
            memo = self._memo = dict(self._known)
        encodings = self._tokenizer.encode_batch(list(words), add_special_tokens=False)
        for word, encoding in zip(words, encodings):
            memo[word] = tuple(encoding.ids)

    def batch_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """The ids of each text (at most :data:`MAX_TOKENS` each)."""
        split = [text.split() for text in texts]
        unseen = list({w: None for words in split for w in words if w not in self._memo})
        if unseen:
            self._learn(unseen)
        memo = self._memo
        out = []
        for words in split:
            ids: list[int] = []
            for word in words:
                got = memo.get(word)
                if got is None:  # the memo was cleared while this batch was learnt
                    self._learn([word])
                    got = self._memo[word]
                ids.extend(got)
                if len(ids) >= MAX_TOKENS:
                    break
            out.append(ids[:MAX_TOKENS])
        return out

    def ids(self, text: str) -> list[int]:
        """The ids of one text (at most :data:`MAX_TOKENS`)."""
        memo = self._memo
        ids: list[int] = []
        for word in text.split():
            got = memo.get(word)
            if got is None:
                return self.batch_ids([text])[0]
            ids.extend(got)
        return ids[:MAX_TOKENS]


class StaticEncoder:
    """A static (lookup-table) text encoder: token rows averaged, then normalised.

    Arguments:
        rows: ``(vocabulary, dim)`` token vectors, kept as float16 when they are (wordllama's
            are: 16 MB, not 33) and summed in float32.
        tokenizer: what turns texts into row ids: ``ids(text)`` and ``batch_ids(texts)``
            (a :class:`WordMemo`).
        model_id: the model's identity (stored with tool vectors in snapshots).

    Example:
        >>> import numpy as np
        >>> from tokenizers import Tokenizer, models
        >>> words = WordMemo(Tokenizer(models.WordLevel({"mail": 0, "file": 1, "?": 2}, "?")))
        >>> encoder = StaticEncoder(np.eye(3, dtype=np.float32), words, "toy")
        >>> [round(float(x), 3) for x in encoder.encode_one("mail file")]
        [0.707, 0.707, 0.0]
    """

    def __init__(self, rows: np.ndarray, tokenizer: Any, model_id: str) -> None:
        import numpy as np

        rows = np.asarray(rows)
        kept = np.float16 if rows.dtype == np.float16 else np.float32
        self._rows = np.ascontiguousarray(rows, dtype=kept)
        self._tokenizer = tokenizer
        self.model_id = model_id
        self.dim = int(self._rows.shape[1])

    @classmethod
    def load(cls, dim: int = DIM, adapted: bool = True) -> StaticEncoder:
        """wordllama's ``l2_supercat`` token embeddings, read from the installed ``wordllama``
        package (without importing it), their first ``dim`` dimensions; ``adapted`` (with all
        256 dimensions) applies toolsift's fitted adaptation (:data:`ADAPTER_FILE`): each row
        scaled by its token weight and mapped by the fitted projection. The projection is
        linear, so mapping each row once here equals mapping each text's sum: a query costs
        what it cost before, and a text embeds to the same bits alone or in a batch.

        Raises:
            ImportError: ``numpy``, ``tokenizers`` or ``wordllama`` is not installed.
            OSError: the package's weight or tokenizer file is missing or malformed.
        """
        try:
            import numpy as np
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ImportError(f"semantic search needs numpy and tokenizers: {_MISSING}") from exc
        folder = _package_folder("wordllama")
        matrix = _safetensors_matrix(folder / "weights" / WEIGHTS_FILE, "embedding.weight")
        tokenizer = Tokenizer.from_file(str(folder / "tokenizers" / TOKENIZER_FILE))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        if matrix.shape[0] != tokenizer.get_vocab_size() or not 1 <= dim <= matrix.shape[1]:
            raise OSError(f"{WEIGHTS_FILE} does not match its tokenizer, or has under {dim} dims")
        rows = np.ascontiguousarray(matrix[:, :dim])
        model_id = f"{MODEL_NAME}-{dim}"
        if adapted and dim == DIM:
            rows = adapt_rows(rows, *load_adapter(rows.shape[0], dim))
            model_id = MODEL_ID
        # A word that is one token of the vocabulary ("▁word") tokenizes to that token (checked
        # for all 16,402 of them): known from the start.
        known = {
            token[1:]: (i,)
            for token, i in tokenizer.get_vocab().items()
            if token.startswith("\u2581") and len(token) > 1 and not any(c.isspace() for c in token)
        }
        return cls(rows, WordMemo(tokenizer, known), model_id)

    def _vector(self, ids: Sequence[int]) -> np.ndarray:
        import numpy as np

        if not ids:
            return np.zeros(self.dim, dtype=np.float32)
        vector: np.ndarray = self._rows[list(ids)].sum(axis=0, dtype=np.float32)
        norm = float(np.sqrt(vector @ vector))
        return vector / norm if norm > 0 else vector

    def encode_one(self, text: str) -> np.ndarray:
        """One text's unit vector, ``(dim,)`` float32 (zeros for a text without a token)."""
        return self._vector(self._tokenizer.ids(text))

    def encode(self, texts: Sequence[str], batch_size: int = 1024) -> np.ndarray:
        """Unit vectors of ``texts``, ``(len(texts), dim)`` float32, tokenized in batches."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            chunk = list(texts[start : start + batch_size])
            ids = self._tokenizer.batch_ids(chunk)
            lengths = np.fromiter(map(len, ids), dtype=np.intp, count=len(ids))
            flat = np.fromiter((i for row in ids for i in row), dtype=np.intp)
            if not len(flat):
                continue
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
            has = lengths > 0
            # Each text's rows summed in order (an empty text stays zero).
            sums = np.add.reduceat(self._rows[flat], starts[has], axis=0, dtype=np.float32)
            out[start + np.flatnonzero(has)] = sums
        norms = np.sqrt(np.einsum("ij,ij->i", out, out))[:, None]
        norms[norms == 0] = 1.0
        result: np.ndarray = out / norms
        return result

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """:meth:`encode`: an encoder is also an ``embed`` callable for :mod:`toolsift.hybrid`."""
        return self.encode(texts)


def load_adapter(vocabulary: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """The shipped adaptation: ``(token_weights (vocabulary,), projection (dim, dim))``,
    float32, read from ``semantic/data/`` :data:`ADAPTER_FILE`.

    Raises:
        OSError: the file is missing, unreadable or of other shapes.

    Example:
        >>> weights, projection = load_adapter(32000, 256)  # doctest: +SKIP
    """
    import numpy as np

    path = Path(__file__).resolve().parent / "data" / ADAPTER_FILE
    try:
        with np.load(path, allow_pickle=False) as data:
            weights = np.asarray(data["token_weights"], dtype=np.float32)
            projection = np.asarray(data["projection"], dtype=np.float32)
    except (KeyError, ValueError) as exc:
        raise OSError(f"{path} is not a readable adapter file ({exc})") from None
    if weights.shape != (vocabulary,) or projection.shape != (dim, dim):
        raise OSError(f"{path} does not match the model ({vocabulary} tokens, {dim} dims)")
    if not (np.isfinite(weights).all() and np.isfinite(projection).all()):
        raise OSError(f"{path} holds values that are not finite")
    return weights, projection


def adapt_rows(rows: np.ndarray, weights: np.ndarray, projection: np.ndarray) -> np.ndarray:
    """Token rows adapted: each scaled by its weight, then mapped by ``projection``; float16.

    Example:
        >>> import numpy as np
        >>> rows = np.array([[1.0, 0.0], [0.0, 2.0]], dtype=np.float16)
        >>> adapt_rows(rows, np.array([2.0, 1.0]), np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
        [[0.0, 2.0], [2.0, 0.0]]
    """
    import numpy as np

    scaled = np.asarray(rows, dtype=np.float32) * np.asarray(weights, dtype=np.float32)[:, None]
    adapted: np.ndarray = (scaled @ np.asarray(projection, dtype=np.float32)).astype(np.float16)
    return np.ascontiguousarray(adapted)


def _package_folder(name: str) -> Path:
    """The folder of the installed package ``name``, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"semantic search needs the {name} package: {_MISSING}")
    return Path(next(iter(spec.submodule_search_locations)))


def _safetensors_matrix(path: Path, key: str) -> np.ndarray:
    """The float16 or float32 2-D tensor ``key`` of a safetensors file, as a numpy array."""
    import numpy as np

    with open(path, "rb") as fh:
        data = fh.read()
    try:
        (size,) = struct.unpack("<Q", data[:8])
        entry = json.loads(data[8 : 8 + size])[key]
        dtype = {"F16": "<f2", "F32": "<f4"}[entry["dtype"]]
        rows, cols = entry["shape"]
        begin, end = entry["data_offsets"]
        matrix = np.frombuffer(data, dtype=dtype, count=rows * cols, offset=8 + size + begin)
        if end - begin != matrix.nbytes:
            raise ValueError("its data length does not match its shape")
    except (struct.error, ValueError, KeyError, TypeError) as exc:
        raise OSError(f"{path} is not a readable safetensors file ({exc})") from None
    return matrix.reshape(rows, cols)


_LOADED: dict[str, StaticEncoder | BaseException] = {}
_LOAD_LOCK = threading.Lock()


def default_encoder() -> StaticEncoder:
    """The shipped encoder, loaded once per process (a failure is remembered, not retried).

    Raises:
        ImportError: the ``toolsift[semantic]`` extra is missing.
        OSError: the table cannot be read.
    """
    with _LOAD_LOCK:
        got = _LOADED.get(MODEL_ID)
        if got is None:
            try:
                got = StaticEncoder.load()
            except Exception as exc:  # noqa: BLE001  # remembered and re-raised below
                got = exc
            _LOADED[MODEL_ID] = got
    if isinstance(got, BaseException):
        raise got
    return got


def resolve(semantic: object = "auto") -> StaticEncoder | None:
    """The encoder of ``ToolIndex(semantic=semantic)``, or ``None`` for BM25+ alone.

    ``"auto"`` takes ``$TOOLSIFT_SEMANTIC`` (``on``/``off``/``auto``); on ``auto`` it is the
    shipped encoder when the ``toolsift[semantic]`` extra is installed, else ``None`` quietly.
    Asked for (``True``, or ``on``) but unavailable, it is ``None`` with one
    :class:`~toolsift.errors.SemanticWarning` per process.

    Raises:
        ValueError: ``semantic`` is not ``True``, ``False`` or ``"auto"`` (``TypeError`` for a
            value of another type).

    Example:
        >>> resolve(False) is None
        True
    """
    mode = check_semantic(semantic)
    if mode == "auto":
        mode = _env_mode()
    if mode is False:
        return None
    try:
        return default_encoder()
    except ImportError as exc:
        if mode is True:
            warn_once("import", f"Semantic search is off (BM25+ only): {exc}.")
        return None
    except Exception as exc:  # noqa: BLE001  # a broken install must not break the index
        warn_once("load", f"Semantic search is off (BM25+ only): the model failed to load: {exc}")
        return None
